"""The batched parts of :mod:`envs.games.dice_rounds`: the dice tape and the turn order.

Inverted Dice and Six Hundred are both parallel-solitaire dice games on
:class:`~envs.games.dice_rounds.DiceRoundsState`: every player's dice for the whole game
are drawn at the start (the tape), and turns go round the table for a fixed number of
rounds. Their twins (``envs/batched/inverted_dice.py``, ``envs/batched/six_hundred.py``)
share these kernels, and both resample a game as the core's ``clone_resampled`` does: the
whole tape drawn afresh (:func:`draw_dice_tapes`), the dice on the table kept.
"""

from __future__ import annotations

import numba

from envs.batched.streams import bounded
from envs.games.dice_rounds import FACES


@numba.njit(cache=True)
def draw_dice_tape(streams, row, tape_row):
    """``DiceRoundsGame.draw_tape``: ``rng.integers(1, 7, size=tape_shape)`` drawn from
    ``streams[row]`` into ``tape_row`` (a contiguous array of any shape, in C order)."""
    flat = tape_row.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = bounded(streams, row, 1, FACES + 1)


@numba.njit(cache=True)
def draw_dice_tapes(rows, streams, tape):
    """:func:`draw_dice_tape` of every game in ``rows`` (``tape[row]``: that game's tape)."""
    for k in range(rows.shape[0]):
        draw_dice_tape(streams, rows[k], tape[rows[k]])


@numba.njit(cache=True, inline="always")
def end_turn(row, num_players, num_rounds, player, round_, roll, terminal, acting):
    """``DiceRoundsState._end_turn`` in game ``row``: the next seat, the next round after the
    last seat, or the end of the game (then player 0 and round ``num_rounds``, the roll left
    as it was, ``terminal`` set). True when a new turn starts at roll 1, for the caller to roll."""
    acting[row, player[row]] = False
    following = player[row] + 1
    if following == num_players:
        following = 0
        round_[row] += 1
        if round_[row] == num_rounds:
            player[row] = 0
            terminal[row] = True
            return False
    player[row] = following
    roll[row] = 1
    acting[row, following] = True
    return True
