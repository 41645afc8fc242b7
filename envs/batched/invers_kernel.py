"""The Invers position kernel: the rules core's push, endings, legal pushes and observation
(:mod:`envs.games.invers`) over arrays of positions, in Numba, written once.

Three users run it: the batched twin (:mod:`envs.batched.invers`, one position a game), the
search bot (:mod:`agents.invers.compiled_search`) and the network's search
(:mod:`agents.invers.compiled_network_search`), one position a ply below the root. The twin
is checked against the rules core after every action (``tests/batched_check.py``), so the
searches push tiles and end games exactly as the env does.

Positions are records of the structured dtype :data:`POSITION`, one an entry of an array,
each with the counts the rules core keeps beside the board, so that no rule needs a scan:

* ``board`` (36 int8): tile codes (bit 0 the colour, bit 1 flipped), row by row;
* ``hands`` (2 int8): each player's tile in hand (always flipped);
* ``to_move``: the player to move (once over, the last mover's opponent);
* ``ply``: plies played;
* ``unflipped`` / ``flipped`` (2 each): tiles of each colour colour side up on the board,
  and flipped anywhere (the core's ``scores()``);
* ``status``: :data:`RUNNING`, :data:`DRAWN` (a blocked player with as many flipped tiles
  as the blocker), :data:`TRUNCATED` (``max_plies`` reached), or the winner.

One array holds them all, rather than an array a field, because a kernel that passes
several arrays to another pays for counting references to each at every call: a search
calls the push at every node.

The rules, as the core applies them: a push moves the six cells of ``LINES[action]`` and is
legal unless the cell ``FAR_END[action]`` holds the opponent's flipped tile; the fallen tile,
flipped, goes to the mover's hand. Then a colour with no tile left colour side up wins at
once; otherwise the player to move is blocked when the opponent has at least ``len(BORDER)``
flipped tiles and every far end holds one of them (only in constructed positions), and the
one with more flipped tiles wins; otherwise ``max_plies`` truncates the game.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.games.invers import (
    BORDER,
    FAR_END,
    LINES,
    NUM_ACTIONS,
    OBS_OPPONENT_HAND,
    OBS_OWN_HAND,
    OBS_PLIES,
    OBS_SEAT,
    OBS_TO_MOVE,
    PLANE_OF_SEEN,
)
from envs.games.invers_tiles import CELLS, FLIPPED

#: A position's ``status`` while no one has won (else the winner, 0 or 1).
RUNNING, DRAWN, TRUNCATED = -2, -1, -3

#: ``PUSH_LINES[action]``: the pushed cells, entry point first, far end last (the core's ``LINES``).
PUSH_LINES = np.array(LINES, np.int64)
#: ``FAR_ENDS[action]``: the cell whose tile falls out (the core's ``FAR_END``).
FAR_ENDS = np.array(FAR_END, np.int64)
#: ``PLANE_START[player, tile]``: the observation entry of ``tile`` on cell 0 as ``player`` sees it.
PLANE_START = np.ascontiguousarray(PLANE_OF_SEEN, np.int64)
#: The fewest flipped tiles that can block the opponent: one on every border cell.
BLOCKING_TILES = len(BORDER)


#: One position (see the module docstring).
POSITION = np.dtype(
    [
        ("board", np.int8, (CELLS,)),
        ("hands", np.int8, (2,)),
        ("to_move", np.int64),
        ("ply", np.int64),
        ("unflipped", np.int64, (2,)),
        ("flipped", np.int64, (2,)),
        ("status", np.int64),
    ],
    align=True,
)


def new_positions(n: int) -> np.ndarray:
    """``n`` unfilled positions (fill each with :func:`load` or :func:`push`)."""
    return np.zeros(n, POSITION)


@numba.njit(cache=True)
def load(positions, s, board, hands, to_move, ply, max_plies):
    """Entry ``s`` := the position of tile codes ``board``, ``hands``, ``to_move`` and ``ply``,
    its counts and status worked out as the core's constructor does (it may be over already)."""
    position = positions[s]
    for p in range(2):
        position.unflipped[p] = 0
        position.flipped[p] = 0
    for cell in range(CELLS):
        position.board[cell] = board[cell]
        _count(position, board[cell])
    for p in range(2):
        position.hands[p] = hands[p]
        _count(position, hands[p])
    position.to_move = to_move
    position.ply = ply
    if position.unflipped[0] == 0 or position.unflipped[1] == 0:
        position.status = 0 if position.unflipped[0] == 0 else 1
    else:
        _settle_turn(position, max_plies)


@numba.njit(cache=True)
def _count(position, tile):
    """Count ``tile`` in the position's colour-side-up or flipped tiles."""
    if tile & FLIPPED:
        position.flipped[tile & 1] += 1
    else:
        position.unflipped[tile & 1] += 1


@numba.njit(cache=True)
def is_legal(position, action):
    """Whether the player to move may push ``action``: its far end does not hold the
    opponent's flipped tile."""
    return position.board[FAR_ENDS[action]] != (FLIPPED | (1 - position.to_move))


@numba.njit(cache=True)
def legal_pushes(position, out):
    """The legal pushes of the player to move into ``out``, ascending; their number."""
    count = 0
    for action in range(NUM_ACTIONS):
        if is_legal(position, action):
            out[count] = action
            count += 1
    return count


@numba.njit(cache=True)
def push(positions, s, t, action, max_plies):
    """Entry ``t`` := entry ``s`` after its player to move pushes ``action`` (``t == s``: in
    place), then the game's end settled: the core's ``apply``. ``action`` must be legal."""
    if t != s:
        positions[t] = positions[s]
    position = positions[t]
    board, hands = position.board, position.hands
    mover = position.to_move
    fallen = board[PUSH_LINES[action, 5]]
    for i in range(5, 0, -1):
        board[PUSH_LINES[action, i]] = board[PUSH_LINES[action, i - 1]]
    board[PUSH_LINES[action, 0]] = hands[mover]
    hands[mover] = fallen | FLIPPED
    position.ply += 1
    position.to_move = 1 - mover
    if (fallen & FLIPPED) == 0:
        c = fallen & 1
        position.unflipped[c] -= 1
        position.flipped[c] += 1
        if position.unflipped[c] == 0:  # every tile of colour c is flipped: c wins
            position.status = c
            return
    _settle_turn(position, max_plies)


@numba.njit(cache=True)
def _settle_turn(position, max_plies):
    """The status where no colour is all flipped: the player to move blocked (the opponent's
    flipped tile on every far end; the core counts those tiles first), else truncated at
    ``max_plies``, else running."""
    player = position.to_move
    opponent = 1 - player
    flipped = position.flipped
    if flipped[opponent] >= BLOCKING_TILES:
        blocked = True
        for action in range(NUM_ACTIONS):
            if is_legal(position, action):
                blocked = False
                break
        if blocked:
            mine, theirs = flipped[player], flipped[opponent]
            position.status = player if mine > theirs else (opponent if theirs > mine else DRAWN)
            return
    position.status = TRUNCATED if position.ply >= max_plies else RUNNING


@numba.njit(cache=True)
def observe(position, seat, max_plies, out):
    """``out`` := the position as player ``seat`` observes it (the core's ``observe``)."""
    out[:] = 0.0
    for cell in range(CELLS):
        out[PLANE_START[seat, position.board[cell]] + cell] = 1.0
    out[OBS_OWN_HAND + ((position.hands[seat] & 1) ^ seat)] = 1.0
    out[OBS_OPPONENT_HAND + ((position.hands[1 - seat] & 1) ^ seat)] = 1.0
    if position.status == RUNNING and seat == position.to_move:
        out[OBS_TO_MOVE] = 1.0
    out[OBS_SEAT] = seat
    out[OBS_PLIES] = np.float32(position.ply / max_plies)


def legal_masks(boards: np.ndarray, players: np.ndarray) -> np.ndarray:
    """``(B, 24)`` bool: the legal pushes of ``players[k]`` on ``boards[k]`` (tile codes), as
    :func:`is_legal` tells them, for callers holding positions as plain arrays."""
    return np.asarray(boards)[:, FAR_ENDS] != (FLIPPED | (1 - np.asarray(players)[:, None]))


def legal_counts(boards: np.ndarray, players: np.ndarray) -> np.ndarray:
    """``(B,)`` int64: how many legal pushes ``players[k]`` has on ``boards[k]``."""
    return np.count_nonzero(legal_masks(boards, players), axis=1).astype(np.int64)
