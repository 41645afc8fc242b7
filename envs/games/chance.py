"""The chance events the games share, as exact distributions (:class:`envs.core.ChanceOutcomes`).

Computed once and shared by every game that plays chance explicitly
(:meth:`envs.core.Game.new_chance_state`):

* a roll of ``k`` fair d6 whose order does not matter, as the **multisets** of faces with
  their multinomial probabilities (252 outcomes for five dice instead of 7,776);
* one of ``n`` equally likely outcomes (a throw of Lost Dice's custom dice);
* one card drawn from what a deck still holds (Roll Five's deal, card by card).

Outcome ids are global per kind: a roll's id is the multiset's index in
:data:`DICE_MULTISETS` (rolls of fewer dice first), so a game that rolls up to ``n`` dice
needs :func:`num_dice_outcomes` ``(n)`` ids and can number its other outcomes after them.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

from envs.core import ChanceOutcomes

FACES = 6
MAX_DICE = 6

#: Every sorted roll of one to six dice: one die's six first, then two dice's 21, and so on.
DICE_MULTISETS = tuple(
    roll for k in range(1, MAX_DICE + 1) for roll in itertools.combinations_with_replacement(range(1, FACES + 1), k)
)
_FIRST_ID = {k: sum(math.comb(FACES + j - 1, j) for j in range(1, k)) for k in range(1, MAX_DICE + 2)}


def num_dice_outcomes(max_dice: int) -> int:
    """How many outcome ids the rolls of one to ``max_dice`` dice take."""
    return _FIRST_ID[max_dice + 1]


@functools.cache
def dice_roll(k: int) -> ChanceOutcomes:
    """A roll of ``k`` fair d6, as multisets: ``(1,1,2)`` has probability 3 / 6**3."""
    if not 1 <= k <= MAX_DICE:
        raise ValueError(f"a roll has 1..{MAX_DICE} dice, got {k}")
    first = _FIRST_ID[k]
    rolls = DICE_MULTISETS[first : _FIRST_ID[k + 1]]
    probabilities = tuple(
        float(Fraction(math.factorial(k), math.prod(math.factorial(roll.count(v)) for v in set(roll)) * FACES**k))
        for roll in rolls
    )
    names = tuple("roll " + ",".join(map(str, roll)) for roll in rolls)
    return ChanceOutcomes(tuple(range(first, first + len(rolls))), probabilities, rolls, names)


#: ``DICE_ROLLS[k]``: :func:`dice_roll` of ``k`` dice (index 0 unused), for the rules' hot paths.
DICE_ROLLS = (None, *(dice_roll(k) for k in range(1, MAX_DICE + 1)))


def uniform(names: tuple[str, ...], first_id: int = 0) -> ChanceOutcomes:
    """One of ``len(names)`` equally likely outcomes, valued 0, 1, .. (ids from ``first_id``)."""
    count = len(names)
    return ChanceOutcomes(tuple(range(first_id, first_id + count)), (1 / count,) * count, tuple(range(count)), names)


@functools.cache
def card_draw(counts: tuple[int, ...], first_id: int) -> ChanceOutcomes:
    """One card drawn from a deck holding ``counts[v - 1]`` cards of value ``v``: value ``v``
    is outcome ``first_id + v - 1``, with probability its share of the cards left."""
    left = sum(counts)
    if left == 0:
        raise ValueError("no card is left to draw")
    values = tuple(v + 1 for v, count in enumerate(counts) if count)
    return ChanceOutcomes(
        tuple(first_id + v - 1 for v in values),
        tuple(counts[v - 1] / left for v in values),
        values,
        tuple(f"deal a {v}" for v in values),
    )
