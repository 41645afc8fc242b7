"""Six Hundred's turn planner in compiled code (Numba): the write tables and the plan of a turn.

A Six Hundred turn is planned in two steps, for many sheets at once:

1. **The write table** of a sheet, ``(18, 37)``: what writing ``p`` points into category
   ``c`` is worth (``-inf`` where ``c`` is closed or cannot take ``p``). For the heuristic
   (:func:`heuristic_tables`) it is :func:`~agents.six_hundred.heuristic.sheet_value` of the
   sheet after the write; for ``td`` (:func:`td_tables`) the points it earns now plus the
   value network's ``V`` of the sheet after (the game's settlement, exactly, for the last
   write), the network's features (:mod:`agents.six_hundred.features`) and its forward pass
   (:func:`agents.compiled_network.forward`) computed here too.
2. **The plan** (:func:`plan`): each sorted roll's best category, and the value of every lock
   with one and with two rolls left, by exact expectimax over the dice
   (:func:`lock_values`); :func:`turn_values` adds the first roll.

**The same numbers as the numpy planner it replaced.** The heuristic's table is
:func:`~agents.six_hundred.heuristic.sheet_value` bit for bit (the same floating-point
operations in the same order: the points written outside the ladder, the pars of the
categories left open in category order, the ladder, the Numbers bonus, the game bonus with the
open categories' chances multiplied in category order), and the lock values are the numpy
sums' own, term by term (:meth:`~envs.games.dice_math.KeepTables.expected_partial`'s six-term
means from the largest keeps down). So each sheet's plan is the same alone or in any batch,
and ``act`` and ``act_batch`` play the same moves. ``td``'s network sums its products in
:func:`~agents.compiled_network.forward`'s order, not torch's: its values can differ from the
torch forward pass in their last bit (``tests/test_six_hundred_compiled_plan.py`` counts the
moves that such a difference tips).
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numba
import numpy as np

from agents.compiled_network import forward
from agents.six_hundred import features as F
from agents.six_hundred.estimate import (
    FLEXIBILITY,
    KEEP_TABLES,
    MUST_SCORE,
    ROLL_POINTS,
    category_tables,
    numbers_bonus_table,
    rung_points,
    window_chances,
)
from envs.games import six_hundred as rules
from envs.games.dice_math import FACES, keep_tables, lock_groups

NUM_CATEGORIES = rules.NUM_CATEGORIES
MAX_POINTS = rules.MAX_CATEGORY_POINTS
NUM_RUNGS = len(rules.RUNGS)
FIRST_RUNG = rules.RUNGS.start
NUM_NUMBERS = len(rules.NUMBERS)
MIN_TOTAL, MAX_TOTAL = rules.MIN_TOTAL, rules.MAX_TOTAL
THRESHOLD = rules.NUMBERS_BONUS_THRESHOLD
NUMBERS_BONUS = rules.NUMBERS_BONUS
GAME_BONUS = rules.GAME_BONUS
SEXTET = rules.SEXTET
NUM_DICE = rules.NUM_DICE
#: the widest write table row: every points value a category can hold
POINT_VALUES = MAX_POINTS + 1
#: the most writes one sheet can make (every points value of every category)
MAX_WRITES = sum(len(np.unique(ROLL_POINTS[:, c])) for c in range(NUM_CATEGORIES))
# feature indices (integers: Numba freezes module-level integers as constants)
OPEN0, POINTS0, WINDOWS0 = F.F_OPEN.start, F.F_POINTS.start, F.F_WINDOWS.start
F_NUMBERS, F_BONUS, F_LADDER, F_GAME_BONUS = F.F_NUMBERS, F.F_BONUS, F.F_LADDER, F.F_GAME_BONUS
F_OPEN_COUNT, F_ESTIMATE, NUM_FEATURES = F.F_OPEN_COUNT, F.F_ESTIMATE, F.NUM_FEATURES
ESTIMATE_SCALE = F.ESTIMATE_SCALE


class SheetTables(NamedTuple):
    """What :func:`~agents.six_hundred.heuristic.sheet_value` reads, as arrays."""

    category_points: np.ndarray  #: (18, 37) the points each category can be written with, padded with -1
    par: np.ndarray  #: (18,) par of each category (rungs: unused)
    soft_hit: np.ndarray  #: (18,) one-turn chance of scoring ** FLEXIBILITY (the must-score categories)
    is_rung: np.ndarray  #: (18,) bool
    is_number: np.ndarray  #: (18,) bool
    is_must_score: np.ndarray  #: (18,) bool
    must_score: np.ndarray  #: the must-score categories, in order
    non_rungs: np.ndarray  #: the categories outside the ladder, in order
    numbers_bonus: np.ndarray  #: (81, 64) 35 × the chance of the Numbers bonus, by total and open Numbers
    gap_chance: np.ndarray  #: (38, 38, 5) chance of ``count`` open rungs filling a gap (below, above)
    gap_points: np.ndarray  #: (38, 38, 5) their expected points


class LockTables(NamedTuple):
    """The keep tables of six dice that :func:`lock_values` walks, as arrays (see there)."""

    children: np.ndarray  #: (7, 462, 6) per fresh-dice count n: each partial keep's keeps one die larger
    keeps_of_roll: np.ndarray  #: (7, 462, 64) per n: each roll's sub-multisets (keep rows), padded with -1
    partial: np.ndarray  #: (7,) per n: the partial keeps' count (the rolls follow them)
    rolls: np.ndarray  #: (7,) per n: the rolls' count
    fresh_dice: np.ndarray  #: (924,) the dice a lock of six leaves to roll
    extended: np.ndarray  #: (924, 924) each lock plus each keep of its fresh dice, as a keep of six
    first_roll: np.ndarray  #: (462,) the chance of each sorted roll of six dice


@numba.njit(cache=True)
def _fill_gaps(soft_chance, points_of_window, gap_chance, gap_points):
    """:func:`~agents.six_hundred.heuristic.gap_value` of every (below, above, count), in its
    order: the cuts in ``itertools.combinations``' order, the first best kept."""
    cuts = np.zeros(NUM_RUNGS, np.int64)
    for below in range(MIN_TOTAL - 1, MAX_TOTAL + 1):
        for above in range(below + 1, MAX_TOTAL + 2):
            first, stop = below + 1, above - 1  # the cuts are drawn from range(first, stop)
            pool = max(stop - first, 0)
            for count in range(1, NUM_RUNGS + 1):
                k = count - 1
                best_chance, best_points = -1.0, 0.0
                if k <= pool:
                    for i in range(k):
                        cuts[i] = i
                    while True:
                        chance, points, low = 1.0, 0.0, below
                        for i in range(k + 1):
                            high = first + cuts[i] if i < k else above - 1
                            chance *= soft_chance[low + 1, high]
                            points += points_of_window[low + 1, high]
                            low = high
                        if chance > best_chance:
                            best_chance, best_points = chance, points
                        i = k - 1
                        while i >= 0 and cuts[i] == i + pool - k:
                            i -= 1
                        if i < 0:
                            break
                        cuts[i] += 1
                        for j in range(i + 1, k):
                            cuts[j] = cuts[j - 1] + 1
                gap_chance[below, above, count] = best_chance
                gap_points[below, above, count] = best_points


@functools.cache
def sheet_tables() -> SheetTables:
    """The arrays of :class:`SheetTables` (computed once per process)."""
    par, hit = category_tables()
    chance = window_chances()
    size = MAX_TOTAL + 2
    # the same scalar operations as the heuristic's (a numpy float64 to the power FLEXIBILITY)
    soft_chance = np.zeros((size, size))
    points_of_window = np.zeros((size, size))
    for low, high in itertools.product(range(MIN_TOTAL, size), range(MIN_TOTAL, MAX_TOTAL + 1)):
        if low <= MAX_TOTAL:
            soft_chance[low, high] = chance[low, high] ** FLEXIBILITY
        points_of_window[low, high] = rung_points(low, high)
    gap_chance = np.zeros((size, size, NUM_RUNGS + 1))
    gap_points = np.zeros_like(gap_chance)
    _fill_gaps(soft_chance, points_of_window, gap_chance, gap_points)
    category_points = np.full((NUM_CATEGORIES, POINT_VALUES), -1, np.int64)
    for c in range(NUM_CATEGORIES):
        values = np.unique(ROLL_POINTS[:, c])
        category_points[c, : len(values)] = values
    categories = np.arange(NUM_CATEGORIES)
    return SheetTables(
        category_points,
        np.asarray(par, np.float64),
        np.array([hit[c] ** FLEXIBILITY for c in categories]),
        np.isin(categories, rules.RUNGS),
        np.isin(categories, rules.NUMBERS),
        np.isin(categories, MUST_SCORE),
        np.array(MUST_SCORE, np.int64),
        np.array([c for c in categories if c not in rules.RUNGS], np.int64),
        numbers_bonus_table(),
        gap_chance,
        gap_points,
    )


@functools.cache
def lock_tables() -> LockTables:
    """The arrays of :class:`LockTables` (computed once per process)."""
    six = KEEP_TABLES
    keeps, width = len(six.keeps), six.keeps_of_roll.shape[1]
    children = np.full((NUM_DICE + 1, len(six.rolls), FACES), -1, np.int64)
    keeps_of_roll = np.full((NUM_DICE + 1, len(six.rolls), width), -1, np.int64)
    partial = np.zeros(NUM_DICE + 1, np.int64)
    rolls = np.zeros(NUM_DICE + 1, np.int64)
    for n in range(NUM_DICE + 1):
        fresh = keep_tables(n)
        partial[n], rolls[n] = fresh.num_partial_keeps, len(fresh.rolls)
        keeps_of_roll[n, : rolls[n], : fresh.keeps_of_roll.shape[1]] = fresh.keeps_of_roll
        for first, end, rows in fresh.growth:
            children[n, first:end] = rows
    fresh_dice = np.zeros(keeps, np.int64)
    extended = np.full((keeps, keeps), -1, np.int64)
    for lock_rows, extended_rows, fresh in lock_groups(NUM_DICE):
        fresh_dice[lock_rows] = fresh.num_dice
        extended[lock_rows, : extended_rows.shape[1]] = extended_rows
    return LockTables(children, keeps_of_roll, partial, rolls, fresh_dice, extended, six.first_roll.copy())


# -- the sheet after a write --------------------------------------------------------------------


@numba.njit(cache=True)
def _rung_windows(rungs, windows) -> bool:
    """:func:`~envs.games.six_hundred.rung_windows` of ``rungs`` (-1: open) into ``windows``
    (4, 2); False (``windows`` unset) when the ladder can no longer ascend."""
    below = np.empty(NUM_RUNGS + 1, np.int64)
    above = np.empty(NUM_RUNGS + 1, np.int64)
    below[0] = MIN_TOTAL - 1
    for j in range(NUM_RUNGS):
        below[j + 1] = below[j] + 1 if rungs[j] < 0 else rungs[j]
    above[NUM_RUNGS] = MAX_TOTAL + 1
    for j in range(NUM_RUNGS - 1, -1, -1):
        above[j] = above[j + 1] - 1 if rungs[j] < 0 else rungs[j]
    for j in range(NUM_RUNGS):
        low, high = below[j] + 1, above[j + 1] - 1
        if low > high or (rungs[j] >= 0 and not low <= rungs[j] <= high):
            return False
        if rungs[j] >= 0:
            low = high = rungs[j]
        windows[j, 0], windows[j, 1] = low, high
    return True


@numba.njit(cache=True)
def _ladder_value(rungs, gap_chance, gap_points, windows):
    """:func:`~agents.six_hundred.heuristic.ladder_value` of ``rungs`` (-1: open): (chance, points)."""
    if not _rung_windows(rungs, windows):
        return 0.0, 0.0
    chance, points, below, count = 1.0, 0.0, MIN_TOTAL - 1, 0
    for j in range(NUM_RUNGS + 1):
        value = rungs[j] if j < NUM_RUNGS else MAX_TOTAL + 1
        if value < 0:
            count += 1
            continue
        if count:
            chance, points = chance * gap_chance[below, value, count], points + gap_points[below, value, count]
        if value <= MAX_TOTAL:
            points += value
        below, count = value, 0
    return chance, chance * points


@numba.njit(cache=True)
def _bonus_now(c, p, numbers_total, earned, is_number) -> int:
    """The Numbers bonus that writing ``p`` points into ``c`` pays now (0 or 35)."""
    if is_number[c] and not earned and numbers_total + p >= THRESHOLD:
        return NUMBERS_BONUS
    return 0


@numba.njit(cache=True)
def _settlement(sheet, c, p) -> float:
    """:func:`agents.six_hundred.td.settlement` of the full sheet ``sheet`` with ``p`` in ``c``."""
    broken = False
    rung_sum = 0
    previous = -1
    for j in range(NUM_RUNGS):
        value = p if FIRST_RUNG + j == c else sheet[FIRST_RUNG + j]
        rung_sum += value
        if j and previous >= value:
            broken = True
        previous = value
    zeros_elsewhere = broken  # a broken ladder's rungs count as zeros
    for k in range(NUM_CATEGORIES):
        value = p if k == c else sheet[k]
        if value == 0 and k != SEXTET:
            zeros_elsewhere = True
    return (-rung_sum if broken else 0.0) + (GAME_BONUS if not zeros_elsewhere else 0.0)


@numba.njit(cache=True)
def _write_table(
    sheet,
    earned,
    tables: tuple,
    network: tuple,
    rows,
    points_now,
    writes,
    outputs,
    scratch,
    table,
):
    """The write table of one sheet into ``table`` (18, 37): the heuristic's (``network[0]``
    empty) or td's (see the module docstring)."""
    category_points, par, soft_hit, is_rung, is_number, is_must_score, must_score, non_rungs = tables[:8]
    numbers_table, gap_chance, gap_points = tables[8:]
    weights, biases, scale, baseline_index, baseline_scale = network
    with_network = len(weights[0]) > 0
    windows = np.empty((NUM_RUNGS, 2), np.int64)
    rungs = np.empty(NUM_RUNGS, np.int64)
    after = np.empty(NUM_RUNGS, np.int64)
    table[:] = -np.inf
    outside_ladder = numbers_total = banked = open_numbers = open_count = 0
    zero_written = False
    for c in range(NUM_CATEGORIES):
        value = sheet[c]
        if value < 0:
            open_count += 1
            if is_number[c]:
                open_numbers |= 1 << c
            continue
        banked += value
        if not is_rung[c]:
            outside_ladder += value
        if is_number[c]:
            numbers_total += value
        if value == 0 and is_must_score[c]:
            zero_written = True
    for j in range(NUM_RUNGS):
        rungs[j] = sheet[FIRST_RUNG + j]
    ladder_chance_now, ladder_points_now = _ladder_value(rungs, gap_chance, gap_points, windows)
    ladder_now = _rung_windows(rungs, windows)
    if with_network:  # the features every write shares: the sheet's own row
        base = rows[0]
        base[:] = 0.0
        for c in range(NUM_CATEGORIES):
            base[OPEN0 + c] = 1.0 if sheet[c] < 0 else 0.0
            base[POINTS0 + c] = np.float32(max(sheet[c], 0) / MAX_POINTS)
        if ladder_now:
            for j in range(NUM_RUNGS):
                for e in range(2):
                    base[WINDOWS0 + 2 * j + e] = np.float32(windows[j, e] / MAX_POINTS)
        base[F_NUMBERS] = np.float32(min(numbers_total, THRESHOLD) / THRESHOLD)
        base[F_BONUS] = 1.0 if earned else 0.0
        base[F_LADDER] = 1.0 if ladder_now else 0.0
        base[F_GAME_BONUS] = 1.0 if ladder_now and not zero_written else 0.0
        base[F_OPEN_COUNT] = np.float32(np.float32(open_count / NUM_CATEGORIES) - np.float32(1.0 / NUM_CATEGORIES))
        base_row = base.copy()
    last_write = with_network and open_count == 1
    count = 0
    for c in range(NUM_CATEGORIES):
        if sheet[c] >= 0:
            continue
        for i in range(POINT_VALUES):
            p = category_points[c, i]
            if p < 0:
                break
            now = p + _bonus_now(c, p, numbers_total, earned, is_number)
            if last_write:
                table[c, p] = now + _settlement(sheet, c, p)
                continue
            # sheet_value of the sheet after the write, in the heuristic's order
            written_after = outside_ladder + (0 if is_rung[c] else p)
            open_par = 0.0
            for k in non_rungs:
                if sheet[k] < 0 and k != c:
                    open_par = open_par + par[k]
            ladder_chance, ladder_points = ladder_chance_now, ladder_points_now
            ladder_after = ladder_now
            if is_rung[c]:
                after[:] = rungs
                after[c - FIRST_RUNG] = p
                ladder_chance, ladder_points = _ladder_value(after, gap_chance, gap_points, windows)
                ladder_after = _rung_windows(after, windows)
            total_after = numbers_total + (p if is_number[c] else 0)
            if earned:
                bonus = float(NUMBERS_BONUS)
            else:
                open_after = open_numbers & ~(1 << c) if is_number[c] else open_numbers
                bonus = numbers_table[min(total_after, THRESHOLD), open_after]
            game_bonus = GAME_BONUS * ladder_chance
            for k in must_score:
                if sheet[k] < 0 and k != c:
                    game_bonus = game_bonus * soft_hit[k]
            zero_write = is_must_score[c] and p == 0
            if zero_written or zero_write:
                game_bonus = 0.0
            estimate = written_after + open_par + ladder_points + bonus + game_bonus
            if not with_network:
                table[c, p] = estimate
                continue
            row = rows[count]
            row[:] = base_row
            row[OPEN0 + c] = 0.0
            row[POINTS0 + c] = np.float32(p / MAX_POINTS)
            if is_number[c]:
                row[F_NUMBERS] = np.float32(min(total_after, THRESHOLD) / THRESHOLD)
                if total_after >= THRESHOLD:
                    row[F_BONUS] = 1.0
            if is_rung[c]:
                for j in range(NUM_RUNGS):
                    for e in range(2):
                        row[WINDOWS0 + 2 * j + e] = np.float32(windows[j, e] / MAX_POINTS) if ladder_after else 0.0
                row[F_LADDER] = 1.0 if ladder_after else 0.0
                if not ladder_after:
                    row[F_GAME_BONUS] = 0.0
            if zero_write:
                row[F_GAME_BONUS] = 0.0
            earned_after = earned or (is_number[c] and total_after >= THRESHOLD)
            banked_after = banked + p
            row[F_ESTIMATE] = np.float32(
                (estimate - banked_after - (NUMBERS_BONUS if earned_after else 0)) / ESTIMATE_SCALE
            )
            points_now[count] = now
            writes[count, 0], writes[count, 1] = c, p
            count += 1
    if not with_network or last_write:
        return
    forward(rows, count, weights, biases, scratch, outputs)
    for w in range(count):
        value = outputs[w, 0] * np.float32(scale)
        if baseline_index >= 0:
            value = value + rows[w, baseline_index] * np.float32(baseline_scale)
        table[writes[w, 0], writes[w, 1]] = points_now[w] + np.float64(value)


@numba.njit(cache=True)
def _write_tables(sheets, earned, tables, network, width, out):
    """:func:`_write_table` of every sheet (rows of ``sheets``, -1 open; ``earned``: the Numbers bonus)."""
    rows = np.zeros((MAX_WRITES, NUM_FEATURES), np.float32)
    points_now = np.zeros(MAX_WRITES)
    writes = np.zeros((MAX_WRITES, 2), np.int64)
    outputs = np.zeros((MAX_WRITES, 1), np.float32)
    scratch = np.zeros((3, MAX_WRITES, width), np.float32)
    for s in range(len(sheets)):
        _write_table(sheets[s], earned[s], tables, network, rows, points_now, writes, outputs, scratch, out[s])


_NO_NETWORK = ((np.zeros((0, 1), np.float32),), (np.zeros(1, np.float32),), 1.0, -1, 0.0)


def heuristic_tables(sheets: np.ndarray, earned: np.ndarray) -> np.ndarray:
    """``(S, 18, 37)``: :func:`~agents.six_hundred.heuristic.sheet_value` of each sheet after
    writing ``p`` points into ``c`` (``[s, c, p]``, -inf where ``c`` is closed or cannot hold
    ``p``), for ``S`` sheets (``(S, 18)`` points, -1 while open) and whether each has earned
    the Numbers bonus. Bit for bit the scalar function's values."""
    out = np.empty((len(sheets), NUM_CATEGORIES, POINT_VALUES))
    _write_tables(_int_sheets(sheets), np.asarray(earned, np.bool_), tuple(sheet_tables()), _NO_NETWORK, 1, out)
    return out


def td_tables(sheets: np.ndarray, earned: np.ndarray, network) -> np.ndarray:
    """``(S, 18, 37)``: points now + ``V`` of the sheet after each write (the settlement for the
    last write), ``network`` a :class:`agents.compiled_network.CompiledMLP` of the turn-value
    network with its ``scale`` and ``baseline``; as :func:`heuristic_tables` otherwise."""
    network.refresh()
    if network.weights[0].shape[0] != NUM_FEATURES:
        inputs = network.weights[0].shape[0]
        raise ValueError(f"six_hundred td: the network reads {inputs} features, not {NUM_FEATURES}")
    index, baseline_scale = network.baseline if network.baseline is not None else (-1, 0.0)
    arrays = (network.weights, network.biases, network.scale, index, baseline_scale)
    out = np.empty((len(sheets), NUM_CATEGORIES, POINT_VALUES))
    _write_tables(_int_sheets(sheets), np.asarray(earned, np.bool_), tuple(sheet_tables()), arrays, network.width, out)
    return out


def _int_sheets(sheets: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(sheets, np.int64).reshape(-1, NUM_CATEGORIES)


# -- the plan of a turn ------------------------------------------------------------------------

#: The sorted rolls of ``n`` dice, by ``n`` (0..6).
_ROLLS = np.array([len(keep_tables(n).rolls) for n in range(NUM_DICE + 1)])


@numba.njit(cache=True)
def _expected_partial(values, children, partial):
    """:meth:`~envs.games.dice_math.KeepTables.expected_partial` in place: ``values[:partial]``
    from the keeps one die larger, largest keeps first, each a six-term sum in face order."""
    for k in range(partial - 1, -1, -1):
        row = children[k]
        total = values[row[0]]
        for face in range(1, FACES):
            total += values[row[face]]
        values[k] = total * (1 / FACES)


@numba.njit(cache=True)
def _lock_values(roll_values, children, partial, fresh_dice, extended, one_left, two_left):
    """:func:`lock_values` of each row of ``roll_values`` (S, 462) into ``one_left``/``two_left`` (S, 924).

    With two rolls left, a lock ``L`` leaving ``n`` dice is worth the mean over the fresh roll
    ``F`` of the best ``one_left[L + S]``, ``S`` any sub-multiset of ``F``. The best is found
    by climbing the keeps of the ``n`` dice from the smallest up, each passing its best on to
    the keeps one die larger (a maximum is exact in any order); the mean is
    :func:`_expected_partial`'s, over the same array.
    """
    scratch = np.empty(one_left.shape[1])
    six = partial[NUM_DICE]
    for s in range(len(roll_values)):
        one = one_left[s]
        one[six:] = roll_values[s]
        _expected_partial(one, children[NUM_DICE], six)
        for lock in range(len(one)):
            n = fresh_dice[lock]
            ext = extended[lock]
            if n == 0:
                two_left[s, lock] = one[ext[0]]
                continue
            first = partial[n]
            grow = children[n]
            for k in range(first + _ROLLS[n]):
                scratch[k] = one[ext[k]]
            for k in range(first):
                best = scratch[k]
                for face in range(FACES):
                    child = grow[k, face]
                    if best > scratch[child]:
                        scratch[child] = best
            _expected_partial(scratch, grow, first)
            two_left[s, lock] = scratch[0]


@numba.njit(cache=True)
def _roll_values(tables, roll_points, best, values):
    """Each sorted roll's best write (the first best category) and its value, per sheet."""
    for s in range(len(tables)):
        table = tables[s]
        for r in range(len(roll_points)):
            best_value, best_category = -np.inf, 0
            for c in range(NUM_CATEGORIES):
                value = table[c, roll_points[r, c]]
                if value > best_value:
                    best_value, best_category = value, c
            best[s, r], values[s, r] = best_category, best_value


@numba.njit(cache=True)
def _turn_values(two_left, keeps_of_roll, first_roll, out):
    """E over the first roll of the best lock (or stop) with two rolls left, per sheet."""
    for s in range(len(two_left)):
        total = 0.0
        for r in range(len(first_roll)):
            best = -np.inf
            for k in keeps_of_roll[r]:
                if k < 0:
                    break
                if two_left[s, k] > best:
                    best = two_left[s, k]
            total += first_roll[r] * best
        out[s] = total


def lock_values(roll_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(one_left, two_left)``, each ``(S, 924)``: the value of every keep of six dice
    (``KEEP_TABLES.keeps``) with one and with two rolls left, for ``roll_values`` ``(S, 462)``,
    the value of stopping with each sorted roll (see
    :func:`agents.six_hundred.heuristic.lock_values`, which gives them keeps first)."""
    locks = lock_tables()
    roll_values = np.ascontiguousarray(roll_values, np.float64)
    one_left = np.empty((len(roll_values), len(KEEP_TABLES.keeps)))
    two_left = np.empty_like(one_left)
    _lock_values(
        roll_values,
        locks.children,
        locks.partial,
        locks.fresh_dice,
        locks.extended,
        one_left,
        two_left,
    )
    return one_left, two_left


class Plans(NamedTuple):
    """The plans of ``S`` sheets' turns (:func:`plan`)."""

    best_category: np.ndarray  #: (S, 462) the category to write each sorted roll into
    one_left: np.ndarray  #: (S, 924) every keep's value with one roll left
    two_left: np.ndarray  #: (S, 924) every keep's value with two rolls left


def plan(tables: np.ndarray) -> Plans:
    """The plans of the turns of ``S`` sheets from their write tables ``(S, 18, 37)``."""
    tables = np.ascontiguousarray(tables, np.float64)
    best = np.empty((len(tables), len(ROLL_POINTS)), np.int64)
    values = np.empty((len(tables), len(ROLL_POINTS)))
    _roll_values(tables, ROLL_POINTS, best, values)
    return Plans(best, *lock_values(values))


def turn_values(two_left: np.ndarray) -> np.ndarray:
    """``(S,)``: the expected value of each sheet's turn before its first roll, from the keeps'
    values with two rolls left (``(S, 924)``): the mean over the first roll of its best keep."""
    locks = lock_tables()
    out = np.empty(len(two_left))
    _turn_values(np.ascontiguousarray(two_left), locks.keeps_of_roll[NUM_DICE], locks.first_roll, out)
    return out
