"""The Invers search bot as it was written before it was compiled: the project's generic
alpha-beta (:class:`agents.search.AlphaBeta`) with the hand-tuned Invers evaluation.

Kept as the reference of :mod:`agents.invers.compiled_search`, which must choose the
same move and give the same values in every position: ``tests/test_invers_compiled_search.py``
checks it and ``benchmarks/search_speed.py`` times both. It is no agent (no spec plays
it). Both read the weights of :mod:`agents.invers.evaluation`, so the two cannot drift
apart on them; everything else (the search, the evaluation, the move order, the table) is written here
independently of the kernels, on the rules core's ``clone``/``apply``.
"""

from __future__ import annotations

import numpy as np

from agents.invers.board import far_ends
from agents.invers.evaluation import BLOCK, EDGE_TILE, FLIP_NOW, TILE, WIN
from agents.search import AlphaBeta, Evaluator, SearchResult
from envs.games.invers import InversState, flipped


class InversEvaluator(Evaluator):
    """Integer points (:meth:`leaf`) at the horizon; a won game is worth ``WIN`` less the
    game's ply, so quicker wins are preferred. Moves are tried in the order: the table's
    best move, then pushes flipping one's own tile, pushes of one's own flipped tile, pushes
    flipping the opponent's tile. The root moves keep the order they were shuffled into,
    with each iteration's best moved to the front. A transposition table is kept; the
    clock is read every 64 inner nodes, and a timed-out iteration is discarded."""

    lowest, highest = -WIN - 1, WIN + 1
    keeps_table = True
    nodes_per_clock = 64
    keep_unfinished = False

    def mover(self, state: InversState) -> int:
        return state.to_move

    def legal_moves(self, state: InversState, me: int) -> list[int]:
        return state.legal_actions(me)

    def terminal(self, state: InversState, me: int, ply: int) -> int:
        mover = state.to_move
        value = int(state.returns()[mover]) * (WIN - state.ply)
        return value if mover == me else -value

    def leaf(self, state: InversState, me: int) -> int:
        """The points of the side to move: the balance of flipped tiles, of own
        colour-side-up tiles waiting at a far end (each a flip to come), of pushes blocked
        by flipped tiles on the border, and whether it can flip a tile of its own at once."""
        mover = state.to_move
        far = far_ends(state.board)
        balance = state.flipped_tiles(mover) - state.flipped_tiles(1 - mover)
        edge_tiles = far.count(mover) - far.count(1 - mover)
        blocks = far.count(flipped(mover)) - far.count(flipped(1 - mover))
        value = TILE * balance + EDGE_TILE * edge_tiles + BLOCK * blocks + FLIP_NOW * (mover in far)
        return value if mover == me else -value

    def key(self, state: InversState) -> tuple:
        return (state.board, state.tile_in_hand(0), state.tile_in_hand(1), state.to_move, state.ply)

    def order(self, state: InversState, me: int, first: int | None) -> list[int]:
        far = far_ends(state.board)
        own, own_flipped, theirs = me, flipped(me), 1 - me
        moves = [a for a in range(24) if far[a] == own]
        moves += [a for a in range(24) if far[a] == own_flipped]
        moves += [a for a in range(24) if far[a] == theirs]
        if first is not None:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def rank_root(self, searched: list[int], result: SearchResult) -> list[int]:
        ranked = list(searched)
        ranked.remove(result.action)
        ranked.insert(0, result.action)
        return ranked


def oracle_move(state: InversState, depth: int, rng: np.random.Generator | None, seconds: float | None = None) -> int:
    """The move the Python search chooses in ``state`` at ``depth``, its root shuffled by ``rng``."""
    return AlphaBeta(InversEvaluator(), depth, seconds=seconds).search(state, rng).action


def oracle_points(state: InversState, depth: int) -> dict[int, int]:
    """Every root move's exact points at ``depth``, in the order the deepest iteration searched them."""
    return AlphaBeta(InversEvaluator(), depth).exact_values(state).move_values
