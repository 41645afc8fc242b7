"""The Invers search bot (``search``), the strong baseline: alpha-beta with a hand-tuned evaluation."""

from __future__ import annotations

import time

import numpy as np

from agents.base import Agent
from agents.invers.board import far_ends as _far_ends, read_position as _position
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


class _OutOfTime(Exception):
    """Raised inside the search when the time limit is spent."""


class InversSearch(Agent):
    """Alpha-beta (negamax) search with iterative deepening and a transposition table.

    Args:
        depth: plies to look ahead, the deepest iteration. Default 4: 9 ms of CPU time a
            move, 43 ms at depth 5 (80 positions of random games, on a 2-core machine at
            load 8.6, where the wall time was 7 times that).
        time_limit: seconds per move, or None (default) for a fixed-depth, reproducible
            search. When set, deepening stops once the time is spent and an unfinished
            iteration is discarded, so the move comes from the deepest finished one.

    Leaves are scored for the side to move by the balance of flipped tiles, of own
    colour-side-up tiles waiting at a far end (each a flip to come), of pushes blocked
    by flipped tiles on the border, and whether it can flip a tile of its own at once.
    Wins score ``WIN`` less the ply, so quicker wins are preferred. Moves are tried in
    the order: the table's best move, then pushes flipping one's own tile, pushes of
    one's own flipped tile, pushes flipping the opponent's tile. The root moves are
    shuffled by the bot's generator first, so equally good moves are chosen at random.
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
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        state = _position(self.game, observation, self.name)
        moves = np.flatnonzero(action_mask).tolist()
        self.rng.shuffle(moves)
        self._table: dict = {}
        self._deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        self._nodes = 0
        best = moves[0]
        for depth in range(1, self.depth + 1):
            try:
                best = self._root(state, moves, depth)
            except _OutOfTime:
                break
            moves.remove(best)
            moves.insert(0, best)
        return best

    def move_values(self, state: InversState) -> dict[int, float]:
        """Every legal push's value for the player to move, each searched to ``depth``
        with a full window (exact, not a bound): a teacher's targets for training.

        Values are expected outcomes in [-1, 1]: ``tanh(points / VALUE_SCALE)``, and ±1
        for a game decided within the horizon. ``time_limit`` is not used here.
        """
        if state.is_terminal():
            raise ValueError("invers search: the game is over, there is no move to value")
        me = state.to_move
        moves = state.legal_actions(me)
        self._table, self._deadline, self._nodes = {}, None, 0
        for depth in range(1, self.depth):  # shallower iterations fill the table for ordering
            best = self._root(state, moves, depth)
            moves.remove(best)
            moves.insert(0, best)
        values = {}
        for action in moves:
            child = state.clone()
            child.apply(me, action)
            points = -self._negamax(child, self.depth - 1, -WIN - 1, WIN + 1)
            values[action] = float(np.sign(points)) if abs(points) > WIN // 2 else float(np.tanh(points / VALUE_SCALE))
        return values

    def _root(self, state: InversState, moves: list[int], depth: int) -> int:
        me = state.to_move
        alpha, best = -WIN - 1, moves[0]
        for action in moves:
            child = state.clone()
            child.apply(me, action)
            value = -self._negamax(child, depth - 1, -WIN - 1, -alpha)
            if value > alpha:
                alpha, best = value, action
        return best

    def _negamax(self, state: InversState, depth: int, alpha: int, beta: int) -> int:
        if state.is_terminal():
            outcome = state.returns()[state.to_move]
            return int(outcome) * (WIN - state.ply)
        if depth == 0:
            return self._evaluate(state)
        self._tick()
        key = (state.board, state.tile_in_hand(0), state.tile_in_hand(1), state.to_move, state.ply)
        entry = self._table.get(key)
        table_move = None
        if entry is not None:
            entry_depth, value, bound, table_move = entry
            if entry_depth >= depth and (
                bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha)
            ):
                return value
        me = state.to_move
        start_alpha, best_value, best_move = alpha, -WIN - 1, None
        for action in self._ordered_moves(state, me, table_move):
            child = state.clone()
            child.apply(me, action)
            value = -self._negamax(child, depth - 1, -beta, -alpha)
            if value > best_value:
                best_value, best_move = value, action
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        bound = 1 if best_value >= beta else -1 if best_value <= start_alpha else 0
        self._table[key] = (depth, best_value, bound, best_move)
        return best_value

    @staticmethod
    def _ordered_moves(state: InversState, me: int, first: int | None) -> list[int]:
        far = _far_ends(state.board)
        own, own_flipped, theirs = me, flipped(me), 1 - me
        moves = [a for a in range(24) if far[a] == own]
        moves += [a for a in range(24) if far[a] == own_flipped]
        moves += [a for a in range(24) if far[a] == theirs]
        if first is not None:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    @staticmethod
    def _evaluate(state: InversState) -> int:
        me = state.to_move
        far = _far_ends(state.board)
        balance = state.flipped_tiles(me) - state.flipped_tiles(1 - me)
        edge_tiles = far.count(me) - far.count(1 - me)
        blocks = far.count(flipped(me)) - far.count(flipped(1 - me))
        return TILE * balance + EDGE_TILE * edge_tiles + BLOCK * blocks + FLIP_NOW * (me in far)

    def _tick(self) -> None:
        self._nodes += 1
        if self._deadline is not None and self._nodes % 64 == 0 and time.perf_counter() > self._deadline:
            raise _OutOfTime
