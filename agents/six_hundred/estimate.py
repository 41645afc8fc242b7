"""The Six Hundred heuristic's static estimate of a score sheet: its expected final score.

The open part of a sheet is estimated statically:

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

:func:`sheet_value` is the estimate of one sheet, written for clarity: it is the
specification. The bots value every write of a turn with the compiled planner
(:mod:`agents.six_hundred.compiled_plan`), which reads this module's tables and gives the
same values bit for bit.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from envs.games import six_hundred as rules
from envs.games.dice_math import expect_after_lock, keep_tables

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
def window_chances() -> np.ndarray:
    """``chance[lo, hi]``: a turn spent on it ends with a total in lo..hi (6 <= lo <= hi <= 36)."""
    windows = [(lo, hi) for lo in range(rules.MIN_TOTAL, rules.MAX_TOTAL + 1) for hi in range(lo, rules.MAX_TOTAL + 1)]
    chance = np.zeros((rules.MAX_TOTAL + 1, rules.MAX_TOTAL + 1))
    for start in range(0, len(windows), 64):
        batch = windows[start : start + 64]
        hits = np.stack([(lo <= _TOTALS) & (_TOTALS <= hi) for lo, hi in batch], axis=1).astype(float)
        for (lo, hi), p in zip(batch, turn_value(hits)):
            chance[lo, hi] = p
    return chance


def rung_points(lo: int, hi: int) -> float:
    """What an open rung with window lo..hi is expected to bring when it is hit."""
    if hi == rules.MAX_TOTAL:
        return max(lo, _HIGH_TOTAL)
    return min((lo + hi) / 2, max(lo, _HIGH_TOTAL))


@functools.cache
def gap_value(below: int, above: int, count: int) -> tuple[float, float]:
    """(chance, points) of ``count`` open rungs filling the values strictly between two bounds.

    The values are cut into ``count`` consecutive windows, the cut that makes hitting
    every window likeliest.
    """
    chance = window_chances()
    best = (-1.0, 0.0)
    for cuts in itertools.combinations(range(below + 1, above - 1), count - 1):
        edges = (below, *cuts, above - 1)
        p, points = 1.0, 0.0
        for low, high in zip(edges, edges[1:]):
            p *= chance[low + 1, high] ** FLEXIBILITY
            points += rung_points(low + 1, high)
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
            gap_p, gap_points = gap_value(below, value, count)
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
def numbers_bonus_table() -> np.ndarray:
    """``[total, open]``: 35 × :func:`numbers_bonus_chance` for a Numbers total (80: 80 or more)
    and the open Numbers (bit ``c`` of ``open``: category ``c``)."""
    table = np.empty((rules.NUMBERS_BONUS_THRESHOLD + 1, 2 ** len(rules.NUMBERS)))
    for total, open_bits in itertools.product(range(table.shape[0]), range(table.shape[1])):
        open_numbers = [c for c in rules.NUMBERS if open_bits >> c & 1]
        table[total, open_bits] = rules.NUMBERS_BONUS * numbers_bonus_chance(total, open_numbers)
    return table
