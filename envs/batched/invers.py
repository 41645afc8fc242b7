"""The batched twin of Invers (:mod:`envs.games.invers`): ``N`` games as arrays, Numba kernels.

The games are an array of :data:`~envs.batched.invers_kernel.POSITION` records, one a game, and
the rules are the position kernel's (:mod:`envs.batched.invers_kernel`, which the compiled
searches run too); this module adds what a batch of games keeps beside its positions: the
base class's running scores (each colour's flipped tiles, the core's ``scores()``), end
flags and acting players.

Invers has no chance: ``new_initial_state`` draws nothing, so ``_start`` leaves the streams
untouched and copies the core's set-up position, and a resample changes nothing. No rule
looks at history (no repetition rule): the position, the ply and the counts decide everything.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched import invers_kernel as kernel
from envs.batched.rules import BatchedGame
from envs.games.invers import Invers, InversState


@numba.njit(cache=True)
def _start_kernel(rows, initial, positions, scores, terminal, acting):
    """Put the set-up position (``initial[0]``, the core's) in every row of ``rows``."""
    for k in range(rows.shape[0]):
        row = rows[k]
        positions[row] = initial[0]
        _settled(positions[row], row, scores, terminal, acting)


@numba.njit(cache=True)
def _apply_kernel(rows, actions, max_plies, positions, scores, terminal, acting):
    """Each game ``rows[k]``'s player to move pushes ``actions[k]``: the kernel's push, in place."""
    for k in range(rows.shape[0]):
        row = rows[k]
        kernel.push(positions, row, row, actions[k], max_plies)
        _settled(positions[row], row, scores, terminal, acting)


@numba.njit(cache=True)
def _settled(position, row, scores, terminal, acting):
    """The base class's arrays of game ``row`` from its ``position``: scores, end, who acts."""
    over = position.status != kernel.RUNNING
    for p in range(2):
        scores[row, p] = position.flipped[p]
        acting[row, p] = not over and p == position.to_move
    terminal[row] = over


@numba.njit(cache=True)
def _legal_masks_kernel(rows, seats, positions, out):
    """``out[k]``: 1 for each legal push, all zeros unless ``seats[k]`` is to move in a running game."""
    for k in range(rows.shape[0]):
        position = positions[rows[k]]
        playing = position.status == kernel.RUNNING and seats[k] == position.to_move
        for a in range(out.shape[1]):
            out[k, a] = playing and kernel.is_legal(position, a)


@numba.njit(cache=True)
def _observe_kernel(rows, seats, max_plies, positions, out):
    """``out[k]``: the core's observation of game ``rows[k]`` by ``seats[k]`` (see the env card)."""
    for k in range(rows.shape[0]):
        kernel.observe(positions[rows[k]], seats[k], max_plies, out[k])


class BatchedInvers(BatchedGame):
    """``num_games`` games of Invers (see the module docstring for the state).

    ``returns`` follows the core's override (the winner's +1 / -1, zeros on a draw or a
    truncation, not read off the scores); ``truncated`` is the core's ``is_truncated``.
    """

    game_class = Invers

    def __init__(self, game: Invers, num_games: int) -> None:
        super().__init__(game, num_games)
        self._initial = self._position_of(game.new_initial_state())
        self._positions = kernel.new_positions(self.num_games)

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _start_kernel(np.asarray(rows, np.int64), self._initial, *self._kernel_arrays())

    def _load(self, rows: np.ndarray, state: InversState) -> None:
        """The position of ``state`` in ``rows``."""
        self._positions[rows] = self._position_of(state)[0]

    def _position_of(self, state: InversState) -> np.ndarray:
        """``state`` as one :data:`~envs.batched.invers_kernel.POSITION` record (from its public
        views; the counts and status worked out by the kernel, as the core's constructor does)."""
        position = kernel.new_positions(1)
        board = np.frombuffer(state.board, np.uint8).astype(np.int8)
        hands = np.array([state.tile_in_hand(p) for p in range(2)], np.int8)
        kernel.load(position, 0, board, hands, state.to_move, state.ply, self.game.max_plies)
        return position

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        """Invers has no chance: the core's ``clone_resampled`` is its ``clone``, and draws nothing."""

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            np.asarray(rows, np.int64), np.asarray(actions, np.int64), self.game.max_plies, *self._kernel_arrays()
        )

    def _kernel_arrays(self) -> tuple:
        """What the kernels update: the positions and the base class's scores, end flags and acting players."""
        return self._positions, self._totals, self._terminal, self._acting

    def truncated(self) -> np.ndarray:
        """``(N,)`` bool: the game reached ``max_plies`` (the core's ``is_truncated``)."""
        return self._positions["status"] == kernel.TRUNCATED

    def returns(self) -> np.ndarray:
        """``(N, 2)``: +1 for the winner and -1 for the loser, zeros on a draw (truncation
        included) and in games still running: the core's ``returns``."""
        winner = self._positions["status"][:, None]
        return np.where(winner < 0, 0.0, np.where(np.arange(2) == winner, 1.0, -1.0))

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_masks_kernel(np.asarray(rows, np.int64), np.asarray(seats, np.int64), self._positions, out)

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            np.asarray(rows, np.int64), np.asarray(seats, np.int64), self.game.max_plies, self._positions, out
        )


BATCHED_GAME = BatchedInvers
