"""The batched twin of Invers (:mod:`envs.games.invers`): ``N`` games as arrays, Numba kernels.

State, one row per game (``N`` rows):

* ``_board`` ``(N, 36)`` int8: the core's tile codes (bit 0 the colour, bit 1 flipped),
  row by row; ``_hands`` ``(N, 2)`` int8: each player's tile in hand (always flipped).
* ``_player`` ``(N,)`` int64 the player to move (the last mover's opponent once over),
  ``_ply`` ``(N,)`` int64 plies played, ``_unflipped`` ``(N, 2)`` int64 colour-side-up
  tiles of each colour on the board, ``_totals`` ``(N, 2)`` float64 flipped tiles of each
  colour anywhere (the core's ``scores()``, kept as counts), ``_winner`` ``(N,)`` int8
  (0, 1, or -1 while running or on a draw), ``_terminal`` / ``_truncated`` ``(N,)`` bool
  and ``_acting`` ``(N, 2)`` bool.

Invers has no chance: ``new_initial_state`` draws nothing, so ``_start`` leaves the
streams untouched and copies the core's set-up position, and a resample changes nothing. No rule looks at history (no
repetition rule): the position, the ply and the counts decide everything. A push moves
the six cells of the core's ``LINES[action]``; a push is legal unless the cell
``FAR_END[action]`` holds the opponent's flipped tile. The ends follow the core's order:
a colour with no tile left colour side up wins at once; otherwise the player to move is
blocked (only in constructed positions) when the opponent has at least ``len(BORDER)``
flipped tiles and every far end holds one of them; otherwise ``max_plies`` truncates.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched.rules import BatchedGame
from envs.games.invers import (
    BORDER,
    FAR_END,
    LINES,
    OBS_OPPONENT_HAND,
    OBS_OWN_HAND,
    OBS_PLIES,
    OBS_SEAT,
    OBS_TO_MOVE,
    PLANE_OF_SEEN,
    Invers,
    InversState,
)
from envs.games.invers_tiles import CELLS, FLIPPED, RED, YELLOW

#: ``_LINES[action]``: the pushed cells, entry point first, far end last (the core's ``LINES``).
_LINES = np.array(LINES, np.int64)
#: ``_FAR_END[action]``: the cell whose tile falls out (the core's ``FAR_END``).
_FAR_END = np.array(FAR_END, np.int64)
#: ``_PLANE_START[player, tile]``: the observation entry of ``tile`` on cell 0 as ``player`` sees it.
_PLANE_START = np.ascontiguousarray(PLANE_OF_SEEN, np.int64)
_NUM_BORDER = len(BORDER)


@numba.njit(cache=True)
def _start_kernel(
    rows,
    initial_board,
    initial_hands,
    initial_unflipped,
    initial_flipped,
    initial_player,
    board,
    hands,
    player,
    ply,
    unflipped,
    scores,
    winner,
    terminal,
    truncated,
    acting,
):
    """Put the set-up position (the core's, passed in) in every row of ``rows``."""
    for k in range(rows.shape[0]):
        row = rows[k]
        for cell in range(board.shape[1]):
            board[row, cell] = initial_board[cell]
        for p in range(2):
            hands[row, p] = initial_hands[p]
            unflipped[row, p] = initial_unflipped[p]
            scores[row, p] = initial_flipped[p]
            acting[row, p] = p == initial_player
        player[row] = initial_player
        ply[row] = 0
        winner[row] = -1
        terminal[row] = False
        truncated[row] = False


@numba.njit(cache=True)
def _apply_kernel(
    rows,
    seats,
    actions,
    lines,
    far_end,
    num_border,
    max_plies,
    board,
    hands,
    player,
    ply,
    unflipped,
    scores,
    winner,
    terminal,
    truncated,
    acting,
):
    """Push, flip the fallen tile into the mover's hand, then settle the end as the core does
    (all tiles of a colour flipped; the next player blocked; ``max_plies`` reached)."""
    for k in range(rows.shape[0]):
        row = rows[k]
        mover = seats[k]
        action = actions[k]
        fallen = board[row, lines[action, 5]]
        for i in range(5, 0, -1):
            board[row, lines[action, i]] = board[row, lines[action, i - 1]]
        board[row, lines[action, 0]] = hands[row, mover]
        hands[row, mover] = fallen | FLIPPED
        ply[row] += 1
        opponent = 1 - mover
        player[row] = opponent
        acting[row, mover] = False
        acting[row, opponent] = True
        if (fallen & FLIPPED) == 0:
            c = fallen & 1
            unflipped[row, c] -= 1
            scores[row, c] += 1.0
            if unflipped[row, c] == 0:  # every tile of colour c is flipped: c wins
                winner[row] = c
                terminal[row] = True
                acting[row, opponent] = False
                continue
        # The player to move (``opponent``) is blocked when the mover's flipped tile lies on
        # every far end; the core counts the mover's flipped tiles first.
        blocked = scores[row, mover] >= num_border
        if blocked:
            for a in range(far_end.shape[0]):
                if board[row, far_end[a]] != (FLIPPED | mover):
                    blocked = False
                    break
        if blocked:
            mine = scores[row, opponent]
            theirs = scores[row, mover]
            winner[row] = opponent if mine > theirs else (mover if theirs > mine else -1)
            terminal[row] = True
            acting[row, opponent] = False
        elif ply[row] >= max_plies:
            terminal[row] = True
            truncated[row] = True
            acting[row, opponent] = False


@numba.njit(cache=True)
def _legal_masks_kernel(rows, seats, far_end, board, player, terminal, out):
    """``out[k]``: 1 for each push whose falling tile is not the opponent's flipped tile,
    all zeros unless ``seats[k]`` is to move in a running game."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        if terminal[row] or seat != player[row]:
            for a in range(out.shape[1]):
                out[k, a] = 0
            continue
        blocking = FLIPPED | (1 - seat)
        for a in range(out.shape[1]):
            out[k, a] = board[row, far_end[a]] != blocking


@numba.njit(cache=True)
def _observe_kernel(rows, seats, plane_start, max_plies, board, hands, player, ply, terminal, out):
    """``out[k]``: the core's observation of game ``rows[k]`` by ``seats[k]`` (see the env card)."""
    cells = board.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        for i in range(out.shape[1]):
            out[k, i] = 0.0
        for cell in range(cells):
            out[k, plane_start[seat, board[row, cell]] + cell] = 1.0
        out[k, OBS_OWN_HAND + ((hands[row, seat] & 1) ^ seat)] = 1.0
        out[k, OBS_OPPONENT_HAND + ((hands[row, 1 - seat] & 1) ^ seat)] = 1.0
        if not terminal[row] and seat == player[row]:
            out[k, OBS_TO_MOVE] = 1.0
        out[k, OBS_SEAT] = seat
        out[k, OBS_PLIES] = np.float32(ply[row] / max_plies)


class BatchedInvers(BatchedGame):
    """``num_games`` games of Invers (see the module docstring for the state layout).

    ``returns`` follows the core's override (the winner's +1 / -1, zeros on a draw or a
    truncation, not read off the scores); ``truncated`` is the core's ``is_truncated``.
    """

    game_class = Invers

    def __init__(self, game: Invers, num_games: int) -> None:
        super().__init__(game, num_games)
        n = self.num_games
        initial = game.new_initial_state()
        self._initial_board = np.frombuffer(initial.board, np.uint8).astype(np.int8)
        self._initial_hands = np.array([initial.tile_in_hand(p) for p in range(2)], np.int8)
        self._initial_unflipped = np.array([initial.colour_side_up(p) for p in range(2)], np.int64)
        self._initial_flipped = np.array([initial.flipped_tiles(p) for p in range(2)], np.float64)
        self._initial_player = int(initial.to_move)
        self._board = np.zeros((n, CELLS), np.int8)
        self._hands = np.zeros((n, 2), np.int8)
        self._player = np.zeros(n, np.int64)
        self._ply = np.zeros(n, np.int64)
        self._unflipped = np.zeros((n, 2), np.int64)
        self._winner = np.full(n, -1, np.int8)
        self._truncated = np.zeros(n, bool)

    def _state_arrays(self):
        return (
            self._board,
            self._hands,
            self._player,
            self._ply,
            self._unflipped,
            self._totals,
            self._winner,
            self._terminal,
            self._truncated,
            self._acting,
        )

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _start_kernel(
            np.asarray(rows, np.int64),
            self._initial_board,
            self._initial_hands,
            self._initial_unflipped,
            self._initial_flipped,
            self._initial_player,
            *self._state_arrays(),
        )

    def _load(self, rows: np.ndarray, state: InversState) -> None:
        """The board, hands, player to move, ply, counts and end of ``state`` (its public views)."""
        players = (YELLOW, RED)
        self._board[rows] = np.frombuffer(state.board, np.uint8)
        self._hands[rows] = [state.tile_in_hand(p) for p in players]
        self._player[rows] = state.to_move
        self._ply[rows] = state.ply
        self._unflipped[rows] = [state.colour_side_up(p) for p in players]
        self._winner[rows] = state.winner if state.winner in players else -1
        self._truncated[rows] = state.is_truncated()

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Invers has no chance: the core's ``clone_resampled`` is its ``clone``, and draws nothing."""

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            np.asarray(actions, np.int64),
            _LINES,
            _FAR_END,
            _NUM_BORDER,
            self.game.max_plies,
            *self._state_arrays(),
        )

    def truncated(self) -> np.ndarray:
        """A view of the ``(N,)`` truncation flags (callers do not write to it)."""
        return self._truncated

    def returns(self) -> np.ndarray:
        """``(N, 2)``: +1 for the winner and -1 for the loser, zeros on a draw (truncation
        included) and in games still running: the core's ``returns``."""
        winner = self._winner.astype(np.int64)[:, None]
        return np.where(winner < 0, 0.0, np.where(np.arange(2) == winner, 1.0, -1.0))

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_masks_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            _FAR_END,
            self._board,
            self._player,
            self._terminal,
            out,
        )

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            _PLANE_START,
            self.game.max_plies,
            self._board,
            self._hands,
            self._player,
            self._ply,
            self._terminal,
            out,
        )


BATCHED_GAME = BatchedInvers
