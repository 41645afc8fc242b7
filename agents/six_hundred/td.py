"""The Six Hundred turn-value agent: the heuristic's exact turn planner against a learned ``V(sheet)``.

:class:`agents.six_hundred.heuristic.SixHundredHeuristic` plays the three rolls of a turn exactly
against what writing each roll into each category is worth; there, the estimated final
score of the sheet it makes. Here writing ``p`` points into category ``c`` is worth

    p  (+35 when it takes the Numbers total to 80)  +  V(the sheet after the write),

``V`` being the network's estimate of the points still to come, the end-of-game rung
penalty and game bonus included. After the last write ``V`` is that settlement, exactly.

The features of a sheet are :mod:`agents.six_hundred.features`'s, the last of them the
heuristic's own estimate of the points still to come.

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

The plans run in compiled code (:mod:`agents.six_hundred.compiled_plan`): the features of
every sheet a turn's writes could leave, the network's forward pass over them and the
expectimax over the dice, for many sheets in one call.
"""

from __future__ import annotations

import itertools

import numpy as np

from agents.compiled_network import CompiledMLP
from agents.network import layers_of
from agents.six_hundred import compiled_plan
from agents.six_hundred.estimate import KEEP_TABLES, MUST_SCORE, ROLL_POINTS
from agents.six_hundred.features import (
    ESTIMATE_SCALE,
    F_BONUS,
    F_ESTIMATE,
    F_GAME_BONUS,
    F_LADDER,
    F_NUMBERS,
    F_OPEN,
    F_OPEN_COUNT,
    F_POINTS,
    F_WINDOWS,
    NUM_FEATURES,
    N,
    sheet_features,
)
from agents.six_hundred.heuristic import SixHundredHeuristic, TurnPlan, read_sheet, read_sheets, sheet_key
from agents.turn_value import TurnValueAgent
from envs.games import six_hundred as rules

#: The distinct points each category can be written with (one turn's six dice).
CATEGORY_POINTS = tuple(np.unique(ROLL_POINTS[:, c]) for c in range(N))


def settlement(sheet: list[int]) -> float:
    """What the end of the game adds to a full sheet: minus the rungs if the ladder fails, +36 game bonus."""
    rungs = sheet[rules.RUNGS.start : rules.RUNGS.stop]
    broken = any(low >= high for low, high in itertools.pairwise(rungs))
    zeros = {c for c, v in enumerate(sheet) if v == 0 or (broken and c in rules.RUNGS)}
    return (-sum(rungs) if broken else 0.0) + (rules.GAME_BONUS if zeros <= {rules.SEXTET} else 0.0)


def _bonus_now(category: int, points: int, numbers_total: int, numbers_bonus: bool) -> int:
    """The Numbers bonus that writing ``points`` into ``category`` pays now (0 or 35)."""
    crosses = numbers_total + points >= rules.NUMBERS_BONUS_THRESHOLD
    return rules.NUMBERS_BONUS if category in rules.NUMBERS and not numbers_bonus and crosses else 0


class SixHundredTD(TurnValueAgent, SixHundredHeuristic):
    """Solitaire Six Hundred: each turn planned exactly against the learned sheet value.

    ``act_batch`` is the heuristic's: it plans every distinct sheet through
    :meth:`write_tables_of`, which this class overrides, so it plays this agent's moves,
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
        roll = KEEP_TABLES.roll_index[tuple(sorted(faces.tolist()))]
        values = self.write_tables_of(observation[None])[0, np.arange(N), ROLL_POINTS[roll]]
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
        by_value = self.write_tables_of(observation[None])[0, categories, points]
        return rules.SCORE + categories, now, after, by_value

    def turn_values(self, observations: np.ndarray) -> np.ndarray:
        plans = compiled_plan.plan(self.write_tables_of(observations))
        return compiled_plan.turn_values(plans.two_left)

    def write_tables_of(self, observations: np.ndarray) -> np.ndarray:
        """``(S, 18, 37)``: points now + ``V`` of the sheet after writing ``p`` points into
        category ``c`` (the settlement, exactly, for the last write; -inf where closed), for the
        sheet of each observation (:func:`~agents.six_hundred.compiled_plan.td_tables`)."""
        return compiled_plan.td_tables(*read_sheets(observations), self.compiled_network())

    def compiled_network(self) -> CompiledMLP:
        """The value network as the compiled planner runs it, read again when training changes
        its weights or replaces it."""
        compiled = getattr(self, "_compiled", None)
        if compiled is None or compiled.network is not self.net:
            compiled = CompiledMLP(layers_of(self.net.body), self.net.scale, self.net.baseline)
            compiled.network = self.net
            self._compiled = compiled
        return compiled

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
            windows = rules.rung_windows(rungs[:j] + [int(points[k])] + rungs[j + 1 :])
            if windows is not None:
                rows[k, F_WINDOWS] = [w / rules.MAX_CATEGORY_POINTS for pair in windows for w in pair]
            else:
                rows[k, F_WINDOWS] = 0.0
            rows[k, F_LADDER] = windows is not None
            if windows is None:
                rows[k, F_GAME_BONUS] = 0.0
        zero = (points == 0) & np.isin(categories, MUST_SCORE)
        rows[zero, F_GAME_BONUS] = 0.0
        # points_to_come of each sheet after: the heuristic's estimate of it (bit for bit)
        written = np.array([[-1 if v is None else v for v in sheet]])
        after_values = compiled_plan.heuristic_tables(written, np.array([numbers_bonus]))[0, categories, points]
        bonus_after = np.where(numbers & ~np.bool_(numbers_bonus) & (total >= rules.NUMBERS_BONUS_THRESHOLD), 1, 0)
        banked_after = sum(v or 0 for v in sheet) + points
        earned = np.where(bonus_after | np.bool_(numbers_bonus), rules.NUMBERS_BONUS, 0)
        rows[:, F_ESTIMATE] = (after_values - banked_after - earned) / ESTIMATE_SCALE
        return rows

    def teacher_values(self, teacher, observation, rng, samples: int = 64):
        """The heuristic's :func:`~agents.six_hundred.estimate.sheet_value` of up to ``samples``
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
        self.last_turn_value = float(compiled_plan.turn_values(plan.lock_values[1][None])[0])
        return plan
