"""The Invers search bot (``search``), the strong baseline: negamax alpha-beta with iterative
deepening, a transposition table and a hand-tuned evaluation, in compiled code
(:mod:`agents.invers.compiled_search`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, check_generators
from agents.compiled_searches import GAME_OVER, root_orders
from agents.invers.compiled_search import CompiledSearch, SearchResults
from agents.invers.evaluation import WIN
from envs.batched.invers_kernel import legal_counts
from envs.core import Game
from envs.games.invers import NUM_ACTIONS, OBS_TO_MOVE, InversState, position_of_state, positions_from_observations

#: Evaluation points per unit of ``atanh`` of the expected outcome: in positions of games
#: between searches of depth 1 to 4, the mover's mean outcome was close to
#: ``tanh(points / VALUE_SCALE)`` (e.g. 0.59 at 100 to 200 points, 0.82 at 200 to 400).
VALUE_SCALE = 200.0


class InversSearch(Agent):
    """Alpha-beta (negamax) search with iterative deepening and a transposition table, in
    compiled code (:mod:`agents.invers.compiled_search`).

    Args:
        depth: plies to look ahead, the deepest iteration. Default 4; each ply more
            costs several times the time per move (``benchmarks/search_speed.py``
            measures it).
        time_limit: seconds per move, or None (default) for a fixed-depth, reproducible
            search. When set, deepening stops once the time is spent and an unfinished
            iteration is discarded, so the move comes from the deepest finished one.

    The root moves are shuffled by the bot's generator first (``rng.shuffle`` of the list
    of their indices, as before the search was compiled), so equally good moves are
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
        self.search = CompiledSearch(self.depth, game.max_plies, seconds=time_limit)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, rngs: Sequence[np.random.Generator] | None = None
    ) -> np.ndarray:
        """``act`` of every row, searched in one compiled call: the same pushes as ``act`` on
        the rows in order, the bot's generator left where that would leave it (each row's
        root order is drawn in row order); with ``rngs``, row ``k``'s root moves are
        shuffled by ``rngs[k]``. Each row's search starts afresh (its own table, and with a
        time limit its own time), so rows from different games cannot leak into each other."""
        observations, legal = batch_arguments(self.game, observations, action_masks, f"invers {self.name}")
        check_generators(rngs, len(legal), f"invers {self.name}")
        if not (observations[:, OBS_TO_MOVE] > 0.5).all():
            raise ValueError(f"invers {self.name}: asked to move when it is not this player's turn")
        positions = positions_from_observations(self.game, observations)
        results = self._search(positions, [self.rng if rngs is None else rngs[k] for k in range(len(legal))])
        return results.moves.copy()

    def move_values(self, state: InversState) -> dict[int, float]:
        """Every legal push's value for the player to move, each searched to ``depth``
        with a full window (exact, not a bound): a teacher's targets for training.

        Values are expected outcomes in [-1, 1]: ``tanh(points / VALUE_SCALE)``, and ±1
        for a game decided within the horizon, in the order the deepest iteration searched
        the moves. ``time_limit`` is not used here.
        """
        if state.is_terminal():
            raise ValueError("invers search: the game is over, there is no move to value")
        return self.move_values_batch(position_of_state(state))[0]

    def move_values_of_observations(self, observations: np.ndarray) -> list[dict[int, float]]:
        """:meth:`move_values` of the positions behind many observations, in one compiled call."""
        return self.move_values_batch(positions_from_observations(self.game, observations))

    def move_values_batch(self, positions: tuple[np.ndarray, ...]) -> list[dict[int, float]]:
        """:meth:`move_values` of positions given as arrays (``positions_from_observations``'s)."""
        results = self._search(positions, None)
        return [
            {
                action: float(np.sign(p)) if abs(p) > WIN // 2 else float(np.tanh(p / VALUE_SCALE))
                for action, p in results.root_values(row).items()
            }
            for row in range(len(results.moves))
        ]

    def _search(self, positions: tuple[np.ndarray, ...], rngs: Sequence[np.random.Generator] | None) -> SearchResults:
        """The compiled search of ``positions``; with ``rngs`` (one per row, in row order)
        the one-ply iteration visits each row's root moves in a shuffled order and the
        deepest iteration is a play search, else the order is ascending and the deepest
        iteration exact (move values)."""
        boards, hands, players, plies = positions
        legal = legal_counts(boards, players)
        orders = root_orders(legal, rngs, NUM_ACTIONS)
        results = self.search.search(boards, hands, players, plies, orders, exact=rngs is None, legal=legal)
        if (results.reasons == GAME_OVER).any():
            raise ValueError(f"invers {self.name}: asked to move when it is not this player's turn (the game is over)")
        return results
