"""Exact probability tables for "keep some dice, reroll the rest" games.

Rolls are handled as *multisets* (sorted tuples): five d6 have 252 distinct sorted
rolls, six d6 have 462. For ``k`` dice this module lists every sorted roll, every
*keep* (a sub-multiset of 0..k dice) and the matrix of probabilities

    transition[keep, roll] = P(keep plus freshly rolled dice = roll),

so the expected value of every keep, for any value of the resulting rolls, is one
matrix-vector product. Heuristic bots and the exact solver use it.

In games where set-aside dice are *locked* for the rest of the turn (Six Hundred), a
keep is a lock: later keeps must contain it. :func:`expect_after_lock` gives the value
of every lock when the player, seeing the fresh dice, may lock more of them.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

FACES = 6


def sorted_rolls(num_dice: int) -> list[tuple[int, ...]]:
    """All sorted rolls of ``num_dice`` d6, in lexicographic order."""
    return list(itertools.combinations_with_replacement(range(1, FACES + 1), num_dice))


def roll_probability(roll: tuple[int, ...]) -> float:
    """Probability that ``len(roll)`` fair dice show exactly this multiset."""
    counts = [roll.count(v) for v in set(roll)]
    ways = math.factorial(len(roll))
    for c in counts:
        ways //= math.factorial(c)
    return ways / FACES ** len(roll)


@dataclass(frozen=True)
class KeepTables:
    """Rolls, keeps and transition probabilities for ``num_dice`` dice."""

    num_dice: int
    rolls: tuple[tuple[int, ...], ...]  #: every sorted roll of ``num_dice`` dice
    roll_index: dict  #: roll -> row
    keeps: tuple[tuple[int, ...], ...]  #: every sorted sub-multiset of 0..num_dice dice
    keep_index: dict  #: keep -> row
    transition: np.ndarray  #: (keeps, rolls) probabilities; each row sums to 1
    first_roll: np.ndarray  #: (rolls,) probabilities of rolling all dice
    keeps_of_roll: np.ndarray  #: (rolls, width) keep rows that are sub-multisets of each roll, padded with -1
    rerolls_of_roll: np.ndarray  #: the same without the keep of the whole roll (a real reroll), padded with -1

    def best_over_keeps(self, keep_values: np.ndarray, include_full_keep: bool = False) -> np.ndarray:
        """For each roll, the best of ``keep_values`` (``(keeps, ...)``) over its keeps.

        Keeping every die is excluded unless ``include_full_keep``: in most games
        rerolling nothing is not a reroll but a stop, valued separately. Rolls with no
        allowed keep get ``-inf``.
        """
        padded = np.concatenate([keep_values, np.full((1,) + keep_values.shape[1:], -np.inf)])
        rows = self.keeps_of_roll if include_full_keep else self.rerolls_of_roll
        return padded[rows].max(axis=1)

    def best_keep(self, roll: tuple[int, ...], keep_values: np.ndarray) -> tuple[int, ...]:
        """The keep (a real reroll: not the whole roll) of ``roll`` with the highest value."""
        rows = self.rerolls_of_roll[self.roll_index[roll]]
        rows = rows[rows >= 0]
        return self.keeps[rows[np.argmax(keep_values[rows])]]


def _sub_multisets(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for r in range(len(roll) + 1) for c in itertools.combinations(roll, r)}


@functools.cache
def keep_tables(num_dice: int) -> KeepTables:
    """The tables for ``num_dice`` dice (computed once per process)."""
    rolls = tuple(sorted_rolls(num_dice))
    roll_index = {r: i for i, r in enumerate(rolls)}
    keeps = tuple(k for size in range(num_dice + 1) for k in sorted_rolls(size))
    keep_index = {k: i for i, k in enumerate(keeps)}
    transition = np.zeros((len(keeps), len(rolls)))
    for ki, keep in enumerate(keeps):
        for fresh in sorted_rolls(num_dice - len(keep)):
            transition[ki, roll_index[tuple(sorted(keep + fresh))]] += roll_probability(fresh)
    subs = [sorted(keep_index[k] for k in _sub_multisets(r)) for r in rolls]
    first_roll = transition[keep_index[()]].copy()
    return KeepTables(
        num_dice,
        rolls,
        roll_index,
        keeps,
        keep_index,
        transition,
        first_roll,
        keeps_of_roll=_padded(subs),
        rerolls_of_roll=_padded([[k for k in s if keeps[k] != r] for s, r in zip(subs, rolls)]),
    )


@functools.cache
def _lock_groups(num_dice: int) -> tuple[tuple[np.ndarray, np.ndarray, KeepTables], ...]:
    """Per lock size: the locks' rows, and for every lock the rows of lock + each keep of the fresh dice."""
    tables = keep_tables(num_dice)
    groups = []
    for size in range(num_dice + 1):
        locks = [k for k in tables.keeps if len(k) == size]
        fresh = keep_tables(num_dice - size)
        extended = [[tables.keep_index[tuple(sorted(lock + more))] for more in fresh.keeps] for lock in locks]
        groups.append((np.array([tables.keep_index[k] for k in locks]), np.array(extended), fresh))
    return tuple(groups)


def expect_after_lock(num_dice: int, lock_values: np.ndarray) -> np.ndarray:
    """The value of every lock when the unlocked dice are rolled once more.

    ``lock_values`` (``(keeps, ...)`` over ``keep_tables(num_dice).keeps``) values every
    lock; a lock of all ``num_dice`` dice is a finished roll, so its entry is the value
    of stopping with it. The answer is, for every lock ``K``,
    ``E over the fresh dice F of max over S ⊆ F of lock_values[K + S]``: after seeing F
    the player locks some more of them (all of them: stop). Applied to
    ``transition @ roll_values`` (one roll left) it gives the locks' values with two
    rolls left, and so on.
    """
    tables = keep_tables(num_dice)
    if lock_values.shape[0] != len(tables.keeps):
        raise ValueError(f"expected {len(tables.keeps)} lock values for {num_dice} dice, got {lock_values.shape[0]}")
    result = np.empty(lock_values.shape)
    for lock_rows, extended, fresh in _lock_groups(num_dice):
        values = lock_values[extended]  # (locks, fresh keeps, ...)
        padding = np.full((len(lock_rows), 1) + values.shape[2:], -np.inf)
        best = np.concatenate([values, padding], axis=1)[:, fresh.keeps_of_roll].max(axis=2)
        result[lock_rows] = np.einsum("lr...,r->l...", best, fresh.first_roll)
    return result


def _padded(rows: list[list[int]]) -> np.ndarray:
    table = np.full((len(rows), max(map(len, rows))), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        table[i, : len(row)] = row
    return table


def reroll_positions_for_keep(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Sorted positions of ``dice`` to reroll so that exactly ``keep`` stays on the table."""
    remaining = list(keep)
    reroll = []
    for position, value in enumerate(dice):
        if value in remaining:
            remaining.remove(value)
        else:
            reroll.append(position)
    if remaining:
        raise ValueError(f"{keep} is not a sub-multiset of {dice}")
    return tuple(reroll)
