"""A heuristic for Six Hundred: exact within-turn play against a static value of the sheet.

The bot values a finished roll by the best *expected final score of the sheet* it can
write it into, where the open part of the sheet is estimated statically:

* an open category other than a rung is worth its **par**: what one turn spent only on
  it scores on average (exact, by enumeration with permanent locks);
* the **ladder** is worth ``P(it ascends) × (its rungs' points)``. The gap between
  written rungs is split among the open rungs in it so as to make hitting every
  sub-window likeliest; each open rung then needs one turn landing in its window, and
  ``P`` is the product of those chances (softened by :data:`FLEXIBILITY`, since rung
  writes are taken when a turn's dice happen to fit). A write that breaks the ladder
  loses every rung point;
* the **Numbers bonus** is worth 35 × the chance that the open Numbers reach 80
  (normal approximation, :data:`NUMBERS_MEAN_COUNT` dice per open number);
* the **game bonus** is worth 36 × the chance that no category other than the Sextet
  ends on 0 (product of the open categories' one-turn chances to score, and the ladder's).

It then plays the three rolls exactly against those values: with ``L`` locked the
candidates are every lock ``L + S`` (``S`` some of the unlocked dice), valued by
enumeration of the dice still to come (:func:`lock_values`); locking everything means
scoring now. ``act_batch`` plans many sheets at once, move for move as ``act``.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, check_generators
from envs.games import six_hundred as rules
from envs.games.dice_math import expect_after_lock, keep_tables, lock_groups, reroll_positions_for_keep

#: The keep tables of six dice (rolls, keeps and their chances: :func:`envs.games.dice_math.keep_tables`).
KEEP_TABLES = keep_tables(rules.NUM_DICE)
#: (462, 18) points of every sorted roll in every category, in ``KEEP_TABLES.rolls`` order.
ROLL_POINTS = np.array([rules.category_scores(r) for r in KEEP_TABLES.rolls])
_TOTALS = np.array([sum(r) for r in KEEP_TABLES.rolls])
#: The categories where a 0 loses the game bonus (the rungs lose it by the ladder).
MUST_SCORE = [c for c in range(rules.NUM_CATEGORIES) if c not in rules.RUNGS and c != rules.SEXTET]

#: Mean and variance of the count of an open number's face when it is finally written
#: (a dedicated turn gives Binomial(6, 91/216): 2.53; choosing the number after seeing
#: the dice does better).
NUMBERS_MEAN_COUNT = 3.0
NUMBERS_COUNT_VARIANCE = 1.5
#: Exponent on one-turn hit chances: below 1 because a rung (or a risky category) is
#: filled when some turn's dice fit it, not in one turn set aside for it.
FLEXIBILITY = 0.5


def turn_value(roll_values: np.ndarray) -> np.ndarray:
    """Expected value of one three-roll turn played to maximise ``roll_values`` (per column)."""
    one_left = KEEP_TABLES.transition @ roll_values
    two_left = expect_after_lock(rules.NUM_DICE, one_left)
    first = KEEP_TABLES.best_over_keeps(two_left, include_full_keep=True)
    return KEEP_TABLES.first_roll @ first


#: Expected total of a turn that chases a high total (exactly 28: lock 5s and 6s, then 4s too).
_HIGH_TOTAL = float(turn_value(_TOTALS.astype(float)))


@functools.cache
def category_tables() -> tuple[np.ndarray, np.ndarray]:
    """Par (expected points) and chance of scoring at least 1 of a turn spent on each category."""
    par = turn_value(ROLL_POINTS.astype(float))
    hit = turn_value((ROLL_POINTS > 0).astype(float))
    return par, hit


@functools.cache
def _window_chances() -> np.ndarray:
    """``chance[lo, hi]``: a turn spent on it ends with a total in lo..hi (6 <= lo <= hi <= 36)."""
    windows = [(lo, hi) for lo in range(rules.MIN_TOTAL, rules.MAX_TOTAL + 1) for hi in range(lo, rules.MAX_TOTAL + 1)]
    chance = np.zeros((rules.MAX_TOTAL + 1, rules.MAX_TOTAL + 1))
    for start in range(0, len(windows), 64):
        batch = windows[start : start + 64]
        hits = np.stack([(lo <= _TOTALS) & (_TOTALS <= hi) for lo, hi in batch], axis=1).astype(float)
        for (lo, hi), p in zip(batch, turn_value(hits)):
            chance[lo, hi] = p
    return chance


def _rung_points(lo: int, hi: int) -> float:
    """What an open rung with window lo..hi is expected to bring when it is hit."""
    if hi == rules.MAX_TOTAL:
        return max(lo, _HIGH_TOTAL)
    return min((lo + hi) / 2, max(lo, _HIGH_TOTAL))


@functools.cache
def _gap_value(below: int, above: int, count: int) -> tuple[float, float]:
    """(chance, points) of ``count`` open rungs filling the values strictly between two bounds.

    The values are cut into ``count`` consecutive windows, the cut that makes hitting
    every window likeliest.
    """
    chance = _window_chances()
    best = (-1.0, 0.0)
    for cuts in itertools.combinations(range(below + 1, above - 1), count - 1):
        edges = (below, *cuts, above - 1)
        p, points = 1.0, 0.0
        for low, high in zip(edges, edges[1:]):
            p *= chance[low + 1, high] ** FLEXIBILITY
            points += _rung_points(low + 1, high)
        if p > best[0]:
            best = (p, points)
    return best


def ladder_value(rungs: tuple[int | None, ...]) -> tuple[float, float]:
    """(chance the ladder ascends, expected final rung points) for rung values (None: open)."""
    if rules.rung_windows(rungs) is None:
        return 0.0, 0.0
    p, points, below, count = 1.0, 0.0, rules.MIN_TOTAL - 1, 0
    for value in (*rungs, rules.MAX_TOTAL + 1):
        if value is None:
            count += 1
            continue
        if count:
            gap_p, gap_points = _gap_value(below, value, count)
            p, points = p * gap_p, points + gap_points
        if value <= rules.MAX_TOTAL:
            points += value
        below, count = value, 0
    return p, p * points


def numbers_bonus_chance(numbers_total: int, open_numbers) -> float:
    """Chance that the open Numbers (category ids 0..5) bring the Numbers total to 80."""
    need = rules.NUMBERS_BONUS_THRESHOLD - numbers_total
    if need <= 0:
        return 1.0
    faces = [c + 1 for c in open_numbers]
    if not faces:
        return 0.0
    mean = NUMBERS_MEAN_COUNT * sum(faces)
    sd = math.sqrt(NUMBERS_COUNT_VARIANCE * sum(f * f for f in faces))
    return 0.5 * math.erfc((need - 0.5 - mean) / (sd * math.sqrt(2)))


def sheet_value(sheet: list[int | None], numbers_bonus: bool) -> float:
    """Expected final score of a sheet (points per category, None while open)."""
    par, hit = category_tables()
    written = sum(v for c, v in enumerate(sheet) if v is not None and c not in rules.RUNGS)
    open_par = sum(par[c] for c, v in enumerate(sheet) if v is None and c not in rules.RUNGS)
    ladder_chance, ladder_points = ladder_value(tuple(sheet[rules.RUNGS.start : rules.RUNGS.stop]))
    numbers = [sheet[c] for c in rules.NUMBERS]
    if numbers_bonus:
        bonus = rules.NUMBERS_BONUS
    else:
        open_numbers = [c for c in rules.NUMBERS if numbers[c] is None]
        bonus = rules.NUMBERS_BONUS * numbers_bonus_chance(sum(v or 0 for v in numbers), open_numbers)
    if any(sheet[c] == 0 for c in MUST_SCORE):
        game_bonus = 0.0
    else:
        game_bonus = rules.GAME_BONUS * ladder_chance
        for c in MUST_SCORE:
            if sheet[c] is None:
                game_bonus *= hit[c] ** FLEXIBILITY
    return written + open_par + ladder_points + bonus + game_bonus


@functools.cache
def _ladder(rungs: tuple[int | None, ...]) -> tuple[float, float]:
    """:func:`ladder_value`, remembered: the few rung tuples a game meets recur in every turn."""
    return ladder_value(rungs)


@functools.cache
def _numbers_bonus_points() -> np.ndarray:
    """``[total, open]``: 35 × :func:`numbers_bonus_chance` for a Numbers total (80: 80 or more)
    and the open Numbers (bit ``c`` of ``open``: category ``c``)."""
    table = np.empty((rules.NUMBERS_BONUS_THRESHOLD + 1, 2 ** len(rules.NUMBERS)))
    for total, open_bits in itertools.product(range(table.shape[0]), range(table.shape[1])):
        open_numbers = [c for c in rules.NUMBERS if open_bits >> c & 1]
        table[total, open_bits] = rules.NUMBERS_BONUS * numbers_bonus_chance(total, open_numbers)
    return table


_CATEGORIES = np.arange(rules.NUM_CATEGORIES)
#: Every point value a category can be written with: the last axis of :func:`write_values_batch`'s terms.
_POINT_VALUES = np.arange(rules.MAX_CATEGORY_POINTS + 1)
_IS_RUNG = np.isin(_CATEGORIES, rules.RUNGS)
_IS_NUMBER = np.isin(_CATEGORIES, rules.NUMBERS)
_IS_MUST_SCORE = np.isin(_CATEGORIES, MUST_SCORE)


def write_values(sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
    """``(462, 18)``: :func:`sheet_value` of the sheet each sorted roll makes in each open category
    (-inf: closed); :func:`write_values_batch` of one sheet."""
    points = np.array([[-1 if v is None else v for v in sheet]])
    return write_values_batch(points, np.array([numbers_bonus]))[0]


def write_values_batch(sheets: np.ndarray, numbers_bonus: np.ndarray) -> np.ndarray:
    """``(S, 462, 18)``: for ``S`` sheets (``(S, 18)`` points written, -1 while open; whether the
    Numbers bonus is earned), :func:`sheet_value` of the sheet each sorted roll makes in each
    open category (-inf: closed): :func:`values_after_writes` read off per roll."""
    is_open = sheets < 0
    values = values_after_writes(sheets, numbers_bonus)[:, _CATEGORIES, ROLL_POINTS]  # [sheet, roll, category]
    return np.where(is_open[:, None, :], values, -np.inf)


def values_after_writes(sheets: np.ndarray, numbers_bonus: np.ndarray) -> np.ndarray:
    """``(S, 18, 37)``: :func:`sheet_value` of each sheet after writing ``p`` points into category
    ``c`` (``[s, c, p]``; meaningless where ``c`` is closed or cannot hold ``p``).

    Equal bit for bit to calling :func:`sheet_value` on every such sheet (a test checks it):
    the same floating-point operations in the same order, over an ``(S, category, points)``
    array of every write. Its terms: the points written outside the ladder, the pars of the
    categories left open (summed in category order), the ladder, the Numbers bonus, the game
    bonus (the open categories' chances multiplied in category order).
    """
    par, hit = category_tables()
    is_open = sheets < 0
    written = np.where(is_open, 0, sheets)
    points = _POINT_VALUES[None, None, :]
    outside_ladder = np.where(_IS_RUNG, 0, written).sum(axis=1)
    written_after = outside_ladder[:, None, None] + np.where(_IS_RUNG[:, None], 0, points)
    open_par = np.zeros(is_open.shape)  # [sheet, write]: the pars of the others still open, in order
    for k in np.flatnonzero(~_IS_RUNG):
        open_par = open_par + np.where(is_open[:, k, None] & (_CATEGORIES != k), par[k], 0.0)
    ladder_chance, ladder_points = _ladders(sheets)
    numbers_total = written[:, : len(rules.NUMBERS)].sum(axis=1)
    open_numbers = is_open[:, : len(rules.NUMBERS)] @ (1 << np.arange(len(rules.NUMBERS)))
    after_total = np.where(_IS_NUMBER[:, None], points, 0) + numbers_total[:, None, None]
    after_open = open_numbers[:, None] & ~np.where(_IS_NUMBER, 1 << _CATEGORIES % len(rules.NUMBERS), 0)
    bonus = _numbers_bonus_points()[np.minimum(after_total, rules.NUMBERS_BONUS_THRESHOLD), after_open[:, :, None]]
    bonus = np.where(numbers_bonus[:, None, None], float(rules.NUMBERS_BONUS), bonus)
    game_bonus = rules.GAME_BONUS * ladder_chance
    for k in MUST_SCORE:
        still_open = is_open[:, k, None, None] & (_CATEGORIES != k)[:, None]
        game_bonus = game_bonus * np.where(still_open, hit[k] ** FLEXIBILITY, 1.0)
    zero_written = ((written == 0) & ~is_open & _IS_MUST_SCORE).any(axis=1)
    game_bonus = np.where(zero_written[:, None, None] | (_IS_MUST_SCORE[:, None] & (points == 0)), 0.0, game_bonus)
    return written_after + open_par[:, :, None] + ladder_points + bonus + game_bonus


def _ladders(sheets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(chance, points)``, each ``(S, 18, 37)``: :func:`ladder_value` of the ladder after each write."""
    chance = np.empty((len(sheets), rules.NUM_CATEGORIES, len(_POINT_VALUES)))
    points = np.empty_like(chance)
    totals = range(rules.MIN_TOTAL, rules.MAX_TOTAL + 1)
    for row, sheet in enumerate(sheets.tolist()):
        rungs = tuple(None if v < 0 else v for v in sheet[rules.RUNGS.start : rules.RUNGS.stop])
        chance[row], points[row] = _ladder(rungs)
        for j, value in enumerate(rungs):
            if value is None:
                for total in totals:
                    chance[row, rules.RUNGS.start + j, total], points[row, rules.RUNGS.start + j, total] = _ladder(
                        rungs[:j] + (total,) + rungs[j + 1 :]
                    )
    return chance, points


def lock_values(roll_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The value of every keep (``KEEP_TABLES.keeps``) with one and with two rolls left.

    ``roll_values`` is ``(462, S)``: the value of stopping with each sorted roll, for ``S``
    sheets. With one roll left a keep is worth the mean of the rolls it can become; with
    two, the mean over the fresh dice of the best keep that contains it (locks are
    permanent). Every expectation is a fixed sequence of element-wise sums
    (:meth:`~envs.games.dice_math.KeepTables.expected_partial`), so each column comes out
    the same, bit for bit, whatever else is planned beside it: ``act`` and ``act_batch``
    play the same moves.
    """
    one_left = np.concatenate([KEEP_TABLES.expected_partial(roll_values), roll_values])
    two_left = np.empty_like(one_left)
    for lock_rows, extended, fresh in lock_groups(rules.NUM_DICE):
        values = one_left[extended]  # (locks, fresh keeps, S)
        padding = np.full((len(lock_rows), 1, values.shape[2]), -np.inf)
        best = np.concatenate([values, padding], axis=1)[:, fresh.keeps_of_roll].max(axis=2)  # (locks, rolls, S)
        if fresh.num_partial_keeps == 0:  # every die locked: the roll is final
            two_left[lock_rows] = best[:, 0]
        else:
            two_left[lock_rows] = fresh.expected_partial(best.transpose(1, 0, 2))[fresh.keep_index[()]]
    return one_left, two_left


def read_sheet(observation: np.ndarray) -> list[int | None]:
    """The points written per category (None while open), off an observation."""
    is_open = observation[rules.OBS_OPEN] > 0.5
    points = np.rint(observation[rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(int)
    return [None if o else int(v) for o, v in zip(is_open, points)]


class TurnPlan(NamedTuple):
    """How the heuristic plays the turns of one sheet."""

    best_category: np.ndarray  #: (462,): the category to write each sorted roll into
    lock_values: dict[int, np.ndarray]  #: rolls made (1, 2) -> the value of every keep (by ``KEEP_TABLES.keep_index``)


#: Sheets whose plans ``act_batch`` keeps between calls (a plan is ~15 KB); beyond, they are planned afresh.
PLAN_CACHE_SIZE = 4096
#: Sheets planned in one :meth:`SixHundredHeuristic.plan_sheets` call (its write values take 66 KB each).
PLAN_CHUNK = 256


def sheet_key(observation: np.ndarray) -> bytes:
    """What identifies the sheet an observation shows (it changes once per turn)."""
    return observation[rules.OBS_OPEN.start : rules.OBS_SHEET.stop].tobytes()


class SixHundredHeuristic(Agent):
    """Expected-value play within the turn, against a static value of the score sheet.

    The bot has no randomness. ``act_batch`` plans each distinct sheet of the batch once
    (keeping the plans of up to :data:`PLAN_CACHE_SIZE` sheets between calls, until
    ``reset``: a game's three decisions of a turn share one) and reads every row's action
    off its plan exactly as ``act`` does.
    """

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        if game.name != rules.SixHundred.name:
            raise ValueError(f"SixHundredHeuristic plays six_hundred, not {game.name}")
        self._plans: dict[bytes, TurnPlan] = {}
        super().__init__(game, seed)
        self._planned_for: bytes | None = None
        self._plan: TurnPlan | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reseed, and forget the plans ``act_batch`` kept (a subclass's values may have changed)."""
        super().reset(seed)
        self._plans.clear()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        key = sheet_key(observation)
        if key != self._planned_for:
            self._plan, self._planned_for = self.plan_turn(observation), key
        return self._decide(self._plan, observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row (the bot draws nothing, so ``rngs`` is only checked)."""
        observations, legal = batch_arguments(self.game, observations, action_masks, f"six_hundred {self.name}")
        check_generators(rngs, len(observations), f"six_hundred {self.name}")
        keys = [sheet_key(o) for o in observations]
        missing = {key: row for row, key in enumerate(keys) if key not in self._plans}
        if len(self._plans) + len(missing) > PLAN_CACHE_SIZE:
            self._plans.clear()
            missing = {key: row for row, key in enumerate(keys)}
        for start in range(0, len(missing), PLAN_CHUNK):
            rows = list(missing.values())[start : start + PLAN_CHUNK]
            self._plans.update(zip((keys[r] for r in rows), self.plan_sheets(observations[rows])))
        return np.array(
            [self._decide(self._plans[key], o, m) for key, o, m in zip(keys, observations, legal)], np.int64
        )

    def _decide(self, plan: TurnPlan, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action the plan gives for the observation's dice and roll (checked against the mask)."""
        dice = tuple(
            int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1
        )
        num_locked = int(round(observation[rules.OBS_LOCKED].sum()))
        roll = int(observation[rules.OBS_ROLL].argmax()) + 1
        action = self._choose(plan, dice[:num_locked], dice[num_locked:], roll)
        if not action_mask[action]:
            raise RuntimeError(f"heuristic chose illegal action {action} for dice {dice}, roll {roll}")
        return action

    def plan_turn(self, observation: np.ndarray) -> TurnPlan:
        """Value of writing every roll in every open category, and of every lock, for this sheet."""
        return self.plan_sheets(observation[None])[0]

    def plan_sheets(self, observations: np.ndarray) -> list[TurnPlan]:
        """:meth:`plan_turn` of the sheet of every row, planned together (each exactly as alone)."""
        write_values = self.write_values_of(observations)
        one_left, two_left = lock_values(write_values.max(axis=2).T)
        best = write_values.argmax(axis=2)
        return [
            TurnPlan(best[k], {2: one_left[:, k].copy(), 1: two_left[:, k].copy()}) for k in range(len(observations))
        ]

    def write_values_of(self, observations: np.ndarray) -> np.ndarray:
        """``(S, 462, 18)``: what writing each sorted roll into each category is worth (-inf: closed),
        for the sheet of each observation.

        Here the estimated final score of the sheet it makes (:func:`write_values_batch`); any
        other valuation that ranks the writes plays through the same turn planner.
        """
        sheets = np.where(
            observations[:, rules.OBS_OPEN] > 0.5,
            -1,
            np.rint(observations[:, rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(np.int64),
        )
        return write_values_batch(sheets, observations[:, rules.OBS_NUMBERS_BONUS] > 0.5)

    @staticmethod
    def _choose(plan: TurnPlan, locked: tuple[int, ...], free: tuple[int, ...], roll: int) -> int:
        """Score now, or the lock (a real roll) with the best value."""
        hand = tuple(sorted(locked + free))
        score = rules.score_action(int(plan.best_category[KEEP_TABLES.roll_index[hand]]))
        if roll == rules.MAX_ROLLS:
            return score
        values = plan.lock_values[roll]
        best_value, best_more = values[KEEP_TABLES.keep_index[hand]], free  # locking all = scoring
        fresh = keep_tables(len(free))
        for row in fresh.rerolls_of_roll[fresh.roll_index[free]]:
            if row < 0:
                break
            more = fresh.keeps[row]
            value = values[KEEP_TABLES.keep_index[tuple(sorted(locked + more))]]
            if value > best_value:
                best_value, best_more = value, more
        if best_more == free:
            return score
        rolled = set(reroll_positions_for_keep(free, best_more))
        return rules.lock_action(len(locked) + p for p in range(len(free)) if p not in rolled)
