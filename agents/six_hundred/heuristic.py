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
enumeration of the dice still to come (:func:`envs.games.dice_math.expect_after_lock`);
locking everything means scoring now.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from agents.base import Agent
from envs.games import six_hundred as rules
from envs.games.dice_math import expect_after_lock, keep_tables, reroll_positions_for_keep

_TABLES = keep_tables(rules.NUM_DICE)
#: (462, 18) points of every sorted roll in every category, in ``_TABLES.rolls`` order.
_POINTS = np.array([rules.category_scores(r) for r in _TABLES.rolls])
_TOTALS = np.array([sum(r) for r in _TABLES.rolls])
#: The categories where a 0 loses the game bonus (the rungs lose it by the ladder).
_MUST_SCORE = [c for c in range(rules.NUM_CATEGORIES) if c not in rules.RUNGS and c != rules.SEXTET]

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
    one_left = _TABLES.transition @ roll_values
    two_left = expect_after_lock(rules.NUM_DICE, one_left)
    first = _TABLES.best_over_keeps(two_left, include_full_keep=True)
    return _TABLES.first_roll @ first


#: Expected total of a turn that chases a high total (exactly 28: lock 5s and 6s, then 4s too).
_HIGH_TOTAL = float(turn_value(_TOTALS.astype(float)))


@functools.cache
def _category_tables() -> tuple[np.ndarray, np.ndarray]:
    """Par (expected points) and chance of scoring at least 1 of a turn spent on each category."""
    par = turn_value(_POINTS.astype(float))
    hit = turn_value((_POINTS > 0).astype(float))
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
    par, hit = _category_tables()
    written = sum(v for c, v in enumerate(sheet) if v is not None and c not in rules.RUNGS)
    open_par = sum(par[c] for c, v in enumerate(sheet) if v is None and c not in rules.RUNGS)
    ladder_chance, ladder_points = ladder_value(tuple(sheet[rules.RUNGS.start : rules.RUNGS.stop]))
    numbers = [sheet[c] for c in rules.NUMBERS]
    if numbers_bonus:
        bonus = rules.NUMBERS_BONUS
    else:
        open_numbers = [c for c in rules.NUMBERS if numbers[c] is None]
        bonus = rules.NUMBERS_BONUS * numbers_bonus_chance(sum(v or 0 for v in numbers), open_numbers)
    if any(sheet[c] == 0 for c in _MUST_SCORE):
        game_bonus = 0.0
    else:
        game_bonus = rules.GAME_BONUS * ladder_chance
        for c in _MUST_SCORE:
            if sheet[c] is None:
                game_bonus *= hit[c] ** FLEXIBILITY
    return written + open_par + ladder_points + bonus + game_bonus


def read_sheet(observation: np.ndarray) -> list[int | None]:
    """The points written per category (None while open), off an observation."""
    is_open = observation[rules.OBS_OPEN] > 0.5
    points = np.rint(observation[rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(int)
    return [None if o else int(v) for o, v in zip(is_open, points)]


class SixHundredHeuristic(Agent):
    """Expected-value play within the turn, against a static value of the score sheet."""

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        if game.name != rules.SixHundred.name:
            raise ValueError(f"SixHundredHeuristic plays six_hundred, not {game.name}")
        super().__init__(game, seed)
        self._planned_for: bytes | None = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        sheet_key = observation[rules.OBS_OPEN.start : rules.OBS_SHEET.stop].tobytes()
        if sheet_key != self._planned_for:
            self._plan_turn(observation)
            self._planned_for = sheet_key
        dice = tuple(
            int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1
        )
        num_locked = int(round(observation[rules.OBS_LOCKED].sum()))
        roll = int(observation[rules.OBS_ROLL].argmax()) + 1
        action = self._choose(dice[:num_locked], dice[num_locked:], roll)
        if not action_mask[action]:
            raise RuntimeError(f"heuristic chose illegal action {action} for dice {dice}, roll {roll}")
        return action

    def _plan_turn(self, observation: np.ndarray) -> None:
        """Value of writing every roll in every open category, and of every lock, for this sheet."""
        write_values = self.write_values(read_sheet(observation), bool(observation[rules.OBS_NUMBERS_BONUS] > 0.5))
        self._best_category = write_values.argmax(axis=1)
        roll_values = write_values.max(axis=1)
        one_left = _TABLES.transition @ roll_values
        self._lock_values = {2: one_left, 1: expect_after_lock(rules.NUM_DICE, one_left)}

    def write_values(self, sheet: list[int | None], numbers_bonus: bool) -> np.ndarray:
        """``(462, 18)``: what writing each sorted roll into each category is worth (-inf: closed).

        Here the estimated final score of the sheet it makes (:func:`sheet_value`); any
        other valuation that ranks the writes plays through the same turn planner.
        """
        write_values = np.full(_POINTS.shape, -np.inf)
        value_of_points = np.empty(rules.MAX_CATEGORY_POINTS + 1)
        for c in (c for c, v in enumerate(sheet) if v is None):
            for p in np.unique(_POINTS[:, c]):
                sheet[c] = int(p)
                value_of_points[p] = sheet_value(sheet, numbers_bonus)
            sheet[c] = None
            write_values[:, c] = value_of_points[_POINTS[:, c]]
        return write_values

    def _choose(self, locked: tuple[int, ...], free: tuple[int, ...], roll: int) -> int:
        """Score now, or the lock (a real roll) with the best value."""
        hand = tuple(sorted(locked + free))
        score = rules.score_action(int(self._best_category[_TABLES.roll_index[hand]]))
        if roll == rules.MAX_ROLLS:
            return score
        values = self._lock_values[roll]
        best_value, best_more = values[_TABLES.keep_index[hand]], free  # locking all = scoring
        fresh = keep_tables(len(free))
        for row in fresh.rerolls_of_roll[fresh.roll_index[free]]:
            if row < 0:
                break
            more = fresh.keeps[row]
            value = values[_TABLES.keep_index[tuple(sorted(locked + more))]]
            if value > best_value:
                best_value, best_more = value, more
        if best_more == free:
            return score
        rolled = set(reroll_positions_for_keep(free, best_more))
        return rules.lock_action(len(locked) + p for p in range(len(free)) if p not in rolled)
