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

Keeps are listed by size, so the *partial* keeps (fewer dice than a full roll, the ones a
reroll can leave on the table) come first. :meth:`KeepTables.best_reroll` finds, for a
whole batch of value tables at once, every roll's best reroll by climbing the lattice of
sub-multisets (each keep against the keeps one die smaller) instead of comparing all 31
sub-multisets of each roll, and :meth:`KeepTables.expected_partial` gives every partial
keep's expected value by adding one die at a time (six terms per keep) instead of the
dense ``transition`` product.
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
    num_partial_keeps: int  #: keeps smaller than a full roll: ``keeps[:num_partial_keeps]``
    lattice: _RerollLattice  #: the sub-multiset lattice that :meth:`best_reroll` climbs
    #: ``(first, end, rows)`` per keep size, largest first: ``keeps[first:end]`` plus each face are ``keeps[rows]``
    growth: tuple

    @property
    def partial_transition(self) -> np.ndarray:
        """``transition`` restricted to the partial keeps: the only rows a reroll can reach."""
        return self.transition[: self.num_partial_keeps]

    def best_over_keeps(self, keep_values: np.ndarray, include_full_keep: bool = False) -> np.ndarray:
        """For each roll, the best of ``keep_values`` (``(keeps, ...)``) over its keeps.

        Keeping every die is excluded unless ``include_full_keep``: in most games
        rerolling nothing is not a reroll but a stop, valued separately. Rolls with no
        allowed keep get ``-inf``.
        """
        padded = np.concatenate([keep_values, np.full((1,) + keep_values.shape[1:], -np.inf)])
        rows = self.keeps_of_roll if include_full_keep else self.rerolls_of_roll
        return padded[rows].max(axis=1)

    def expected_partial(self, roll_values: np.ndarray) -> np.ndarray:
        """``partial_transition @ roll_values``, for ``(rolls, batch...)`` values, in O(6 x keeps).

        A keep of ``m`` dice is worth the mean, over the face of one more die, of the keeps of
        ``m + 1`` dice, so filling the keeps from the largest down costs six row additions per
        keep. It equals the matrix product up to rounding.
        """
        values = np.empty((len(self.keeps),) + roll_values.shape[1:])
        values[self.num_partial_keeps :] = roll_values  # the full keeps are the rolls, in order
        for first, end, rows in self.growth:
            block = values[rows[:, 0]]
            for face in range(1, FACES):
                block += values[rows[:, face]]
            block *= 1 / FACES
            values[first:end] = block
        return values[: self.num_partial_keeps]

    def best_reroll(self, partial_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every roll's best reroll: its value and the keep that achieves it.

        ``partial_values`` is ``(num_partial_keeps, batch...)``: the value of rerolling to
        each partial keep, for a batch of value tables (batch axes last). Returns
        ``(values, keeps)``, both ``(rolls, batch...)``; ``keeps`` holds keep rows (int16).
        Ties are broken by a fixed order of the lattice, the same on every call, so a
        solver and an agent replaying its policy pick the same keep.
        """
        return self.lattice.best(partial_values)


class _RerollLattice:
    """The sub-multiset lattice of the partial keeps and the rolls, in climbing order.

    The best keep inside a keep ``k`` is ``k`` itself or the best keep inside one of its
    *children* (``k`` minus one die, one child per distinct value), so climbing the keeps
    by size visits each (keep, child) pair once; a roll's best reroll is the best over its
    children. Within each size, keeps and rolls with more children come first, so the
    ``j``-th child of every item that has one is a contiguous block of rows.
    """

    def __init__(self, keeps, partial: int, rolls):
        index = {k: i for i, k in enumerate(keeps[:partial])}
        self.order = np.array(
            sorted(range(partial), key=lambda i: (len(keeps[i]), -len(set(keeps[i])))), dtype=np.int16
        )
        position = np.empty(partial, np.int64)
        position[self.order] = np.arange(partial)
        self.keep_steps = []  # (first row, [(end row, child rows), ...]) per keep size
        for size in range(1, len(rolls[0])):
            rows = [p for p, i in enumerate(self.order) if len(keeps[i]) == size]
            children = [[position[index[c]] for c in _children(keeps[self.order[p]])] for p in rows]
            self.keep_steps.append((rows[0], _slots(rows[0], children)))
        roll_order = sorted(range(len(rolls)), key=lambda r: -len(set(rolls[r])))
        self.roll_unorder = np.argsort(roll_order)
        self.roll_slots = _slots(0, [[position[index[c]] for c in _children(rolls[r])] for r in roll_order])

    def best(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batch = values.shape[1:]
        best = values[self.order]
        arg = np.empty(best.shape, np.int16)
        arg[...] = self.order.reshape((-1,) + (1,) * len(batch))
        for start, slots in self.keep_steps:
            for end, children in slots:
                _climb(best[start:end], arg[start:end], best[children], arg[children])
        (_, first), *rest = self.roll_slots
        roll_best, roll_arg = best[first], arg[first]
        for end, children in rest:
            _climb(roll_best[:end], roll_arg[:end], best[children], arg[children])
        return roll_best[self.roll_unorder], roll_arg[self.roll_unorder]


def _children(multiset: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The sub-multisets one die smaller, by increasing removed value."""
    return [multiset[:i] + multiset[i + 1 :] for i, v in enumerate(multiset) if i == multiset.index(v)]


def _slots(start: int, children: list[list[int]]) -> list[tuple[int, np.ndarray]]:
    """For each child slot ``j``: the end row of the items that have a ``j``-th child, and those children.

    ``children`` must be ordered by decreasing length (so those items are a prefix).
    """
    slots = []
    for j in range(max(map(len, children))):
        having = [c[j] for c in children if len(c) > j]
        slots.append((start + len(having), np.array(having, np.int64)))
    return slots


def _climb(best: np.ndarray, arg: np.ndarray, candidate: np.ndarray, candidate_arg: np.ndarray) -> None:
    """``best, arg <- candidate, candidate_arg`` where the candidate is strictly better (in place).

    The keep rows are selected with bit arithmetic (``arg ^= (arg ^ new) & -better``), not
    ``np.where``: a data-dependent select is a branch per element and costs several times more.
    """
    better = np.greater(candidate, best)
    np.maximum(best, candidate, out=best)
    select = better.view(np.int8).astype(arg.dtype)
    np.negative(select, out=select)
    change = np.bitwise_xor(arg, candidate_arg)
    change &= select
    arg ^= change


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
    partial = sum(len(k) < num_dice for k in keeps)
    growth = tuple(
        (
            keeps.index(sorted_rolls(size)[0]),
            keeps.index(sorted_rolls(size)[-1]) + 1,
            np.array(
                [[keep_index[tuple(sorted(k + (face,)))] for face in range(1, FACES + 1)] for k in sorted_rolls(size)]
            ),
        )
        for size in reversed(range(num_dice))
    )
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
        num_partial_keeps=partial,
        lattice=_RerollLattice(keeps, partial, rolls),
        growth=growth,
    )


@functools.cache
def lock_groups(num_dice: int) -> tuple[tuple[np.ndarray, np.ndarray, KeepTables], ...]:
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
    for lock_rows, extended, fresh in lock_groups(num_dice):
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
