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

import itertools
from typing import NamedTuple

import numpy as np

from agents.six_hundred.heuristic import (
    _POINTS,
    _TABLES,
    SixHundredHeuristic,
    TurnPlan,
    read_sheet,
    sheet_key,
    sheet_terms,
    sheet_value,
    values_after_writes,
)
from agents.turn_value import TurnValueAgent
from envs.games import six_hundred as rules

N = rules.NUM_CATEGORIES
NUMBERS = len(rules.NUMBERS)
#: Blocks of 18 (one entry per category) and the rung windows.
F_OPEN, F_POINTS, F_OPEN_LATE = slice(0, N), slice(N, 2 * N), slice(2 * N, 3 * N)
F_WINDOWS = slice(3 * N, 3 * N + 8)
(
    F_OPEN_COUNT,
    F_OPEN_COUNT_SQUARED,
    F_NUMBERS,
    F_BONUS,
    F_BONUS_CHANCE,
    F_OPEN_NUMBERS,
    F_LADDER_CHANCE,
    F_LADDER_POINTS,
    F_LADDER,
    F_GAME_BONUS_CHANCE,
    F_GAME_BONUS,
    F_OPEN_PAR,
    F_GAME_BONUS_LATE,
    F_BONUS_LATE,
    F_LADDER_LATE,
    F_ESTIMATE,
) = range(3 * N + 8, 3 * N + 24)
NUM_FEATURES = 3 * N + 24
#: Scale of the heuristic's estimate of the points to come, as a feature.
ESTIMATE_SCALE = 300.0
#: Scale of the ladder's expected points and of the open categories' pars, as features.
POINTS_SCALE = 100.0
#: The distinct points each category can be written with (one turn's six dice).
_CATEGORY_POINTS = tuple(np.unique(_POINTS[:, c]) for c in range(N))
#: Every write ``(category, points)`` a turn can make, category by category: ``(W, 2)``.
_WRITES = np.array([(c, p) for c in range(N) for p in _CATEGORY_POINTS[c]])
_MUST_SCORE = [c for c in range(N) if c not in rules.RUNGS and c != rules.SEXTET]


def sheet_feature_rows(sheets: np.ndarray, numbers_bonus: np.ndarray, to_come: np.ndarray | None = None) -> np.ndarray:
    """The feature rows (float32) of ``S`` sheets: ``(S, 18)`` points written, -1 while open, and
    whether the Numbers bonus is earned (the module docstring lists the features).

    ``to_come`` is the heuristic's estimate of each sheet's points to come when the caller has
    it already (the planner reads it off :func:`~agents.six_hundred.heuristic.values_after_writes`,
    bit for bit the heuristic's); otherwise it is :func:`points_to_come` of the terms. Every
    row is computed on its own, the same in any batch.
    """
    sheets = np.asarray(sheets, np.int64)
    numbers_bonus = np.asarray(numbers_bonus, bool)
    terms = sheet_terms(sheets, numbers_bonus)
    is_open = (sheets < 0).astype(np.float64)
    open_fraction = is_open.sum(axis=1) / N
    if to_come is None:
        banked = np.where(sheets < 0, 0, sheets).sum(axis=1) + np.where(numbers_bonus, rules.NUMBERS_BONUS, 0)
        to_come = terms.value - banked
    rows = np.zeros((len(sheets), NUM_FEATURES))
    rows[:, F_OPEN] = is_open
    rows[:, F_POINTS] = np.where(sheets < 0, 0, sheets) / rules.MAX_CATEGORY_POINTS
    rows[:, F_OPEN_LATE] = is_open * open_fraction[:, None]
    rows[:, F_WINDOWS] = terms.ladder_windows.reshape(len(sheets), -1) / rules.MAX_CATEGORY_POINTS
    rows[:, F_OPEN_COUNT] = open_fraction
    rows[:, F_OPEN_COUNT_SQUARED] = open_fraction**2
    rows[:, F_NUMBERS] = np.minimum(terms.numbers_total, rules.NUMBERS_BONUS_THRESHOLD) / rules.NUMBERS_BONUS_THRESHOLD
    rows[:, F_BONUS] = numbers_bonus
    rows[:, F_BONUS_CHANCE] = terms.numbers_bonus / rules.NUMBERS_BONUS
    rows[:, F_OPEN_NUMBERS] = is_open[:, :NUMBERS].sum(axis=1) / NUMBERS
    rows[:, F_LADDER_CHANCE] = terms.ladder_chance
    rows[:, F_LADDER_POINTS] = terms.ladder_points / POINTS_SCALE
    ladder_alive = terms.ladder_windows.any(axis=(1, 2))
    rows[:, F_LADDER] = ladder_alive
    rows[:, F_GAME_BONUS_CHANCE] = terms.game_bonus_chance
    zero_written = ((sheets == 0) & np.isin(np.arange(N), _MUST_SCORE)).any(axis=1)
    rows[:, F_GAME_BONUS] = ladder_alive & ~zero_written
    rows[:, F_OPEN_PAR] = terms.open_par / POINTS_SCALE
    rows[:, F_GAME_BONUS_LATE] = terms.game_bonus_chance * open_fraction
    rows[:, F_BONUS_LATE] = rows[:, F_BONUS_CHANCE] * open_fraction
    rows[:, F_LADDER_LATE] = terms.ladder_chance * open_fraction
    rows[:, F_ESTIMATE] = to_come / ESTIMATE_SCALE
    return rows.astype(np.float32)


def sheet_features(sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
    """The feature row of one sheet (points per category, None while open)."""
    sheets = np.array([[-1 if v is None else v for v in sheet]])
    return sheet_feature_rows(sheets, np.array([numbers_bonus]), np.array([points_to_come(sheet, numbers_bonus)]))[0]


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


class Writes(NamedTuple):
    """Every write each of ``S`` sheets can make this turn, one entry per write."""

    sheet: np.ndarray  #: the sheet written on (its row)
    category: np.ndarray
    points: np.ndarray
    now: np.ndarray  #: the points the write banks, +35 when it takes the Numbers total to 80
    after: np.ndarray  #: (writes, 18): the sheet it leaves
    bonus_after: np.ndarray  #: the Numbers bonus earned after it
    to_come: np.ndarray  #: the heuristic's estimate of the points still to come after it


def sheet_writes(sheets: np.ndarray, numbers_bonus: np.ndarray) -> Writes:
    """The :class:`Writes` of ``S`` sheets (``(S, 18)`` points written, -1 while open), in sheet,
    category, points order; the estimates are read off the heuristic's own batch, bit for bit."""
    sheet, write = np.nonzero(sheets[:, _WRITES[:, 0]] < 0)
    category, points = _WRITES[write, 0], _WRITES[write, 1]
    after = sheets[sheet].copy()
    after[np.arange(len(sheet)), category] = points
    written = np.where(sheets < 0, 0, sheets)
    numbers_total = written[:, :NUMBERS].sum(axis=1)[sheet]
    reached = ~numbers_bonus[sheet] & (category < NUMBERS) & (numbers_total + points >= rules.NUMBERS_BONUS_THRESHOLD)
    bonus_after = numbers_bonus[sheet] | reached
    estimate = values_after_writes(sheets, numbers_bonus)[sheet, category, points]
    banked_after = written.sum(axis=1)[sheet] + points + np.where(bonus_after, rules.NUMBERS_BONUS, 0)
    return Writes(
        sheet=sheet,
        category=category,
        points=points,
        now=points + np.where(reached, rules.NUMBERS_BONUS, 0.0),
        after=after,
        bonus_after=bonus_after,
        to_come=estimate - banked_after,
    )


def _sheets_of(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(S, 18)`` points written (-1 while open) and the Numbers bonus earned, per observation."""
    sheets = np.where(
        observations[:, rules.OBS_OPEN] > 0.5,
        -1,
        np.rint(observations[:, rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(np.int64),
    )
    return sheets, observations[:, rules.OBS_NUMBERS_BONUS] > 0.5


class SixHundredTD(TurnValueAgent, SixHundredHeuristic):
    """Solitaire Six Hundred: each turn planned exactly against the learned sheet value.

    ``act_batch`` is the heuristic's: it plans every distinct sheet through
    :meth:`write_values_of`, which this class overrides, so it plays this agent's moves,
    each sheet valued as ``act`` values it (``tests/test_act_batch_planners.py``). It
    records no :attr:`last_turn_value`: training plays through ``act``.
    """

    env = rules.SixHundred.name
    num_features = NUM_FEATURES
    #: 2: the heuristic's estimate joined the features, as the baseline; 3: the estimate's terms,
    #: their interactions with the game's stage and the rung windows joined them
    feature_version = 3
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
        values = self.write_values_of(observation[None])[0, _TABLES.roll_index[tuple(sorted(faces.tolist()))]]
        best = [c for c in np.argsort(-values, kind="stable")[:top] if np.isfinite(values[c])]
        return rules.score_action(int(best[rng.integers(len(best))]))

    def write_values_of(self, observations: np.ndarray) -> np.ndarray:
        """``(S, 462, 18)``: points now + V(sheet after), for every roll and open category of the
        sheet of each observation (-inf where closed); the last write of a game is valued by its
        :func:`settlement`, exactly. The sheets' writes are valued in one call of the network."""
        sheets, numbers_bonus = _sheets_of(observations)
        writes = sheet_writes(sheets, numbers_bonus)
        last = (writes.after >= 0).all(axis=1)
        after = np.empty(len(last))
        after[last] = [settlement(sheet) for sheet in writes.after[last].tolist()]
        if not last.all():
            on = ~last
            after[on] = self.values(sheet_feature_rows(writes.after[on], writes.bonus_after[on], writes.to_come[on]))
        table = np.full((len(sheets), N, rules.MAX_CATEGORY_POINTS + 1), -np.inf)
        table[writes.sheet, writes.category, writes.points] = writes.now + after
        return table[:, np.arange(N), _POINTS]

    def teacher_values(self, teacher, observation, rng, samples: int = 64):
        """The heuristic's :func:`~agents.six_hundred.heuristic.sheet_value` of up to ``samples``
        writes' sheets, less the points banked."""
        if type(teacher) is not SixHundredHeuristic:
            return None
        sheets, numbers_bonus = _sheets_of(observation[None])
        if (sheets < 0).sum() == 1:  # the last write is valued exactly, never by V
            return None
        writes = sheet_writes(sheets, numbers_bonus)
        chosen = rng.choice(len(writes.sheet), size=min(samples, len(writes.sheet)), replace=False)
        features = sheet_feature_rows(writes.after[chosen], writes.bonus_after[chosen], writes.to_come[chosen])
        return features, features[:, F_ESTIMATE].astype(np.float64) * ESTIMATE_SCALE

    def plan_turn(self, observation: np.ndarray) -> TurnPlan:
        plan = super().plan_turn(observation)
        first = _TABLES.best_over_keeps(plan.lock_values[1], include_full_keep=True)
        self.last_turn_value = float(_TABLES.first_roll @ first)
        return plan
