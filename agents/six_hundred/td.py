"""The Six Hundred turn-value agent: the heuristic's exact turn planner against a learned ``V(sheet)``.

:class:`agents.six_hundred.heuristic.SixHundredHeuristic` plays the three rolls of a turn exactly
against what writing each roll into each category is worth; there, the estimated final
score of the sheet it makes. Here writing ``p`` points into category ``c`` is worth

    p  (+35 when it takes the Numbers total to 80)  +  V(the sheet after the write),

``V`` being the network's estimate of the points still to come, the end-of-game rung
penalty and game bonus included. After the last write ``V`` is that settlement, exactly.

Features of a sheet (50): per category its open flag (18) and points written / 36 (18);
the four rungs' windows (lowest and highest value each may still hold with the ladder
strictly ascending, / 36; 0 once the ladder is broken) (8); the Numbers total towards
80 (min(total, 80) / 80); the Numbers bonus earned; the ladder still able to ascend; the
game bonus still possible; the categories still open / 18; and the heuristic's own
estimate of the points still to come (:func:`agents.six_hundred.heuristic.sheet_value` less the
points banked, / 300).

That estimate is the network's **baseline** (:class:`agents.turn_value.TurnValueNet`):
``V`` is the heuristic's estimate plus a learned correction that starts at zero, so the
untrained agent plays exactly as the heuristic does. Learned from scratch instead, ``V``
was wrong on many of the ~270 sheets a turn's writes could leave that no game had shown
it, and the planner chased those errors; so did an MLP correction learned by TD on the
agent's own games. The shipped agent (``checkpoints/six_hundred/shipped_td``, agent spec
``td``; ``configs/six_hundred.yaml``, the turn-value recipe) has a **linear** correction fitted to Monte
Carlo returns of the heuristic from sheets one explored write away from its own play
(:mod:`training.pipelines.td.explore`): one step of policy iteration over the heuristic,
above it on the project's evaluation (the Six Hundred results pages).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from agents.six_hundred.heuristic import (
    KEEP_TABLES,
    MUST_SCORE,
    ROLL_POINTS,
    SixHundredHeuristic,
    TurnPlan,
    lock_values,
    read_sheet,
    sheet_key,
    sheet_value,
    values_after_writes,
)
from agents.turn_value import TurnValueAgent
from envs.games import six_hundred as rules

N = rules.NUM_CATEGORIES
F_OPEN, F_POINTS, F_WINDOWS = slice(0, N), slice(N, 2 * N), slice(2 * N, 2 * N + 8)
F_NUMBERS, F_BONUS, F_LADDER, F_GAME_BONUS, F_OPEN_COUNT, F_ESTIMATE = range(2 * N + 8, 2 * N + 14)
NUM_FEATURES = 2 * N + 14
#: Scale of the heuristic's estimate of the points to come, as a feature.
ESTIMATE_SCALE = 300.0
#: The distinct points each category can be written with (one turn's six dice).
CATEGORY_POINTS = tuple(np.unique(ROLL_POINTS[:, c]) for c in range(N))


def sheet_features(sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
    """The feature row (float32) of a sheet: points per category, None while open."""
    row = np.zeros(NUM_FEATURES, np.float32)
    row[F_OPEN] = [v is None for v in sheet]
    row[F_POINTS] = [(v or 0) / rules.MAX_CATEGORY_POINTS for v in sheet]
    windows = rules.rung_windows(sheet[rules.RUNGS.start : rules.RUNGS.stop])
    if windows is not None:
        row[F_WINDOWS] = [w / rules.MAX_CATEGORY_POINTS for window in windows for w in window]
    total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
    row[F_NUMBERS] = min(total, rules.NUMBERS_BONUS_THRESHOLD) / rules.NUMBERS_BONUS_THRESHOLD
    row[F_BONUS] = numbers_bonus
    row[F_LADDER] = windows is not None
    row[F_GAME_BONUS] = windows is not None and not any(sheet[c] == 0 for c in MUST_SCORE)
    row[F_OPEN_COUNT] = sum(v is None for v in sheet) / N
    row[F_ESTIMATE] = points_to_come(sheet, numbers_bonus) / ESTIMATE_SCALE
    return row


def points_to_come(sheet: list[int | None], numbers_bonus: bool) -> float:
    """The heuristic's estimate of the points a sheet has still to earn: its final score less what is banked."""
    return (
        sheet_value(sheet, numbers_bonus) - sum(v or 0 for v in sheet) - (rules.NUMBERS_BONUS if numbers_bonus else 0)
    )


def settlement(sheet: list[int]) -> float:
    """What the end of the game adds to a full sheet: minus the rungs if the ladder fails, +36 game bonus."""
    rungs = sheet[rules.RUNGS.start : rules.RUNGS.stop]
    broken = any(low >= high for low, high in itertools.pairwise(rungs))
    zeros = {c for c, v in enumerate(sheet) if v == 0 or (broken and c in rules.RUNGS)}
    return (-sum(rungs) if broken else 0.0) + (rules.GAME_BONUS if zeros <= {rules.SEXTET} else 0.0)


@functools.cache
def _windows(rungs: tuple[int | None, ...]) -> tuple[tuple | None, np.ndarray | float]:
    """:func:`~envs.games.six_hundred.rung_windows` of a ladder and its feature values (remembered:
    a turn weighs 31 values of every open rung, and the same ladders recur)."""
    windows = rules.rung_windows(list(rungs))
    if windows is None:
        return None, 0.0
    return windows, np.array([w / rules.MAX_CATEGORY_POINTS for window in windows for w in window], np.float32)


def _bonus_now(category: int, points: int, numbers_total: int, numbers_bonus: bool) -> int:
    """The Numbers bonus that writing ``points`` into ``category`` pays now (0 or 35)."""
    crosses = numbers_total + points >= rules.NUMBERS_BONUS_THRESHOLD
    return rules.NUMBERS_BONUS if category in rules.NUMBERS and not numbers_bonus and crosses else 0


class SixHundredTD(TurnValueAgent, SixHundredHeuristic):
    """Solitaire Six Hundred: each turn planned exactly against the learned sheet value.

    ``act_batch`` is the heuristic's: it plans every distinct sheet through
    :meth:`write_values_of`, which this class overrides, so it plays this agent's moves,
    each sheet valued as ``act`` values it (``tests/test_act_batch_planners.py``). It
    records no :attr:`last_turn_value`: training plays through ``act``.
    """

    env = rules.SixHundred.name
    num_features = NUM_FEATURES
    feature_version = 2  #: 2: the heuristic's estimate joined the features, as the baseline
    baseline = (F_ESTIMATE, ESTIMATE_SCALE)

    @staticmethod
    def sheet_key(observation: np.ndarray) -> bytes:
        return sheet_key(observation)

    @staticmethod
    def sheet_features(observation: np.ndarray) -> np.ndarray:
        return sheet_features(read_sheet(observation), bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5))

    explores_writes = True

    def explore_write(self, observation: np.ndarray, action: int, top: int, rng: np.random.Generator) -> int:
        if action < rules.SCORE:
            return action
        faces = observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1
        values = self.write_values_of(observation[None])[0, KEEP_TABLES.roll_index[tuple(sorted(faces.tolist()))]]
        best = [c for c in np.argsort(-values, kind="stable")[:top] if np.isfinite(values[c])]
        return rules.score_action(int(best[rng.integers(len(best))]))

    looks_ahead = True

    def _decide(self, plan: TurnPlan, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The planner's action, its write ranked again one turn deeper with ``lookahead``."""
        action = super()._decide(plan, observation, action_mask)
        if self.lookahead and action >= rules.SCORE:
            action = self.look_ahead(observation, action)
            if not action_mask[action]:
                raise RuntimeError(f"td lookahead chose illegal action {action}")
        return action

    def write_options(self, observation: np.ndarray):
        """Every open category for the observation's dice; the observations after hold the sheet
        after the write and the Numbers bonus (what :meth:`turn_values` reads), nothing else updated."""
        sheet = read_sheet(observation)
        numbers_bonus = bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5)
        numbers_total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
        faces = observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1
        roll = KEEP_TABLES.roll_index[tuple(sorted(faces.tolist()))]
        categories = np.array([c for c, v in enumerate(sheet) if v is None])
        points = ROLL_POINTS[roll, categories]
        now = np.array([p + _bonus_now(c, p, numbers_total, numbers_bonus) for c, p in zip(categories, points)], float)
        after = np.repeat(np.asarray(observation, np.float32)[None], len(categories), axis=0)
        index = np.arange(len(categories))
        after[index, rules.OBS_OPEN.start + categories] = 0.0
        after[index, rules.OBS_SHEET.start + categories] = points / rules.MAX_CATEGORY_POINTS
        after[now > points, rules.OBS_NUMBERS_BONUS] = 1.0
        by_value = self.write_values(sheet, numbers_bonus)[roll, categories]
        return rules.SCORE + categories, now, after, by_value

    def turn_values(self, observations: np.ndarray) -> np.ndarray:
        write_values = self.write_values_of(observations)
        _, two_left = lock_values(write_values.max(axis=2).T)
        return KEEP_TABLES.first_roll @ KEEP_TABLES.best_over_keeps(two_left, include_full_keep=True)

    def write_values_of(self, observations: np.ndarray) -> np.ndarray:
        """:meth:`write_values` of the sheet of each observation, stacked."""
        return np.stack(
            [self.write_values(read_sheet(o), bool(o[rules.OBS_NUMBERS_BONUS] > 0.5)) for o in observations]
        )

    def write_values(self, sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
        """Points now + V(sheet after), for every roll and open category; -inf where closed."""
        open_categories = [c for c, v in enumerate(sheet) if v is None]
        numbers_total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
        writes = [(c, int(p)) for c in open_categories for p in CATEGORY_POINTS[c]]
        now = np.array([p + _bonus_now(c, p, numbers_total, numbers_bonus) for c, p in writes], float)
        if len(open_categories) == 1:  # the last write: the game's settlement, exactly
            after = np.array([settlement([p if i == c else v for i, v in enumerate(sheet)]) for c, p in writes])
        else:
            after = self.values(self._after_features(sheet, numbers_bonus, numbers_total, writes))
        value_of = {write: v for write, v in zip(writes, now + after)}
        write_values = np.full(ROLL_POINTS.shape, -np.inf)
        for c in open_categories:
            table = np.array([value_of.get((c, p), -np.inf) for p in range(rules.MAX_CATEGORY_POINTS + 1)])
            write_values[:, c] = table[ROLL_POINTS[:, c]]
        return write_values

    @staticmethod
    def _after_features(sheet, numbers_bonus: bool, numbers_total: int, writes) -> np.ndarray:
        """Feature rows of the sheets the ``writes`` ((category, points) pairs) would make."""
        base = sheet_features(sheet, numbers_bonus)
        rows = np.repeat(base[None], len(writes), axis=0)
        categories = np.array([c for c, _ in writes])
        points = np.array([p for _, p in writes])
        index = np.arange(len(writes))
        rows[index, F_OPEN.start + categories] = 0.0
        rows[index, F_POINTS.start + categories] = points / rules.MAX_CATEGORY_POINTS
        rows[:, F_OPEN_COUNT] -= 1.0 / N
        numbers = categories < len(rules.NUMBERS)
        total = numbers_total + points
        rows[numbers, F_NUMBERS] = (
            np.minimum(total[numbers], rules.NUMBERS_BONUS_THRESHOLD) / rules.NUMBERS_BONUS_THRESHOLD
        )
        rows[numbers, F_BONUS] = np.maximum(rows[numbers, F_BONUS], total[numbers] >= rules.NUMBERS_BONUS_THRESHOLD)
        rungs = sheet[rules.RUNGS.start : rules.RUNGS.stop]
        for k in np.flatnonzero((categories >= rules.RUNGS.start) & (categories < rules.RUNGS.stop)):
            j = categories[k] - rules.RUNGS.start
            windows, window_features = _windows(tuple(rungs[:j]) + (int(points[k]),) + tuple(rungs[j + 1 :]))
            rows[k, F_WINDOWS] = window_features
            rows[k, F_LADDER] = windows is not None
            if windows is None:
                rows[k, F_GAME_BONUS] = 0.0
        zero = (points == 0) & np.isin(categories, MUST_SCORE)
        rows[zero, F_GAME_BONUS] = 0.0
        # points_to_come of each sheet after, its sheet_value read off the heuristic's batch (bit for bit)
        written = np.array([[-1 if v is None else v for v in sheet]])
        after_values = values_after_writes(written, np.array([numbers_bonus]))[0, categories, points]
        bonus_after = np.where(numbers & ~np.bool_(numbers_bonus) & (total >= rules.NUMBERS_BONUS_THRESHOLD), 1, 0)
        banked_after = sum(v or 0 for v in sheet) + points
        earned = np.where(bonus_after | np.bool_(numbers_bonus), rules.NUMBERS_BONUS, 0)
        rows[:, F_ESTIMATE] = (after_values - banked_after - earned) / ESTIMATE_SCALE
        return rows

    def teacher_values(self, teacher, observation, rng, samples: int = 64):
        """The heuristic's :func:`~agents.six_hundred.heuristic.sheet_value` of up to ``samples``
        writes' sheets, less the points banked."""
        if type(teacher) is not SixHundredHeuristic:
            return None
        sheet = read_sheet(observation)
        numbers_bonus = bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5)
        open_categories = [c for c, v in enumerate(sheet) if v is None]
        if len(open_categories) == 1:  # the last write is valued exactly, never by V
            return None
        writes = [(c, int(p)) for c in open_categories for p in CATEGORY_POINTS[c]]
        writes = [writes[k] for k in rng.choice(len(writes), size=min(samples, len(writes)), replace=False)]
        numbers_total = sum(v or 0 for v in sheet[: len(rules.NUMBERS)])
        features = self._after_features(sheet, numbers_bonus, numbers_total, writes)
        return features, features[:, F_ESTIMATE].astype(np.float64) * ESTIMATE_SCALE

    def plan_turn(self, observation: np.ndarray) -> TurnPlan:
        plan = super().plan_turn(observation)
        first = KEEP_TABLES.best_over_keeps(plan.lock_values[1], include_full_keep=True)
        self.last_turn_value = float(KEEP_TABLES.first_roll @ first)
        return plan
