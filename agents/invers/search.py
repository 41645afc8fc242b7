"""The Invers search bot (``search``), the strong baseline: the project's alpha-beta
(:class:`~agents.search.AlphaBeta`) with a hand-tuned evaluation (:class:`InversEvaluator`)."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.batched import act_row_by_row
from agents.invers.board import far_ends, read_position
from agents.search import AlphaBeta, Evaluator, SearchResult
from envs.core import Game
from envs.games.invers import InversState, flipped

# Evaluation weights of the search, in hundredths of a flipped tile; tuned in matches of
# depth-3 and depth-4 searches against each other (40 games a pairing, seats swapped).
TILE = 100  # per flipped tile of one's own colour, minus the opponent's
EDGE_TILE = 45  # per push that would flip one of one's own tiles, minus the opponent's
BLOCK = 3  # per push one's flipped tiles block for the opponent, minus the reverse
FLIP_NOW = 25  # the side to move can flip one of its own tiles at once
WIN = 1_000_000
#: Evaluation points per unit of ``atanh`` of the expected outcome: in positions of games
#: between searches of depth 1 to 4, the mover's mean outcome was close to
#: ``tanh(points / VALUE_SCALE)`` (e.g. 0.59 at 100 to 200 points, 0.82 at 200 to 400).
VALUE_SCALE = 200.0


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


class InversSearch(Agent):
    """Alpha-beta (negamax) search with iterative deepening and a transposition table
    (:class:`~agents.search.AlphaBeta` with :class:`InversEvaluator`).

    Args:
        depth: plies to look ahead, the deepest iteration. Default 4; each ply more
            costs several times the time per move (``benchmarks/search_speed.py``
            measures it).
        time_limit: seconds per move, or None (default) for a fixed-depth, reproducible
            search. When set, deepening stops once the time is spent and an unfinished
            iteration is discarded, so the move comes from the deepest finished one.

    The root moves are shuffled by the bot's generator first, so equally good moves are
    chosen at random.
    """

    name = "search"

    def __init__(self, game: Game, seed: int | None = None, depth: int = 4, time_limit: float | None = None):
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"invers search: depth must be a positive integer, got {depth!r}")
        if time_limit is not None and (
            isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0
        ):
            raise ValueError(f"invers search: time_limit must be positive seconds or None, got {time_limit!r}")
        self.depth = int(depth)
        self.time_limit = time_limit
        self.search = AlphaBeta(InversEvaluator(), self.depth, seconds=time_limit)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self._act(observation, action_mask, self.rng)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, one search after the other (see "In batch" in
        :mod:`agents.search`): the same pushes, and the generator left where ``act`` on the
        rows in order would leave it; with ``rngs``, row ``k``'s root moves are shuffled by
        ``rngs[k]``."""
        return act_row_by_row(self._act, self.game, self.rng, observations, action_masks, rngs, f"invers {self.name}")

    def _act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """:meth:`act`, the root moves shuffled by ``rng``."""
        state = read_position(self.game, observation, self.name)
        return self.search.search(state, rng).action

    def move_values(self, state: InversState) -> dict[int, float]:
        """Every legal push's value for the player to move, each searched to ``depth``
        with a full window (exact, not a bound): a teacher's targets for training.

        Values are expected outcomes in [-1, 1]: ``tanh(points / VALUE_SCALE)``, and ±1
        for a game decided within the horizon. ``time_limit`` is not used here.
        """
        if state.is_terminal():
            raise ValueError("invers search: the game is over, there is no move to value")
        points = self.search.exact_values(state).move_values
        return {
            action: float(np.sign(p)) if abs(p) > WIN // 2 else float(np.tanh(p / VALUE_SCALE))
            for action, p in points.items()
        }
