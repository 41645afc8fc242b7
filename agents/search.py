"""Alpha-beta search guided by a trained network, for any two-player perfect-information game.

The search knows a game only through its rules core (:class:`~envs.core.GameState`:
``clone``, ``apply``, ``legal_mask``, ``acting_players``, ``is_terminal``, ``returns``,
``observe``), so it plays every such game the same way; a game makes itself searchable
by rebuilding its state from an observation (:meth:`~envs.core.Game.state_from_observation`).

* **Leaves** are scored by the network's value head (the value of the position for the
  player to move, clipped to [-1, 1]); decided games by their outcome, worth ``WIN``
  (more than any network value), a sooner win more than a later one.
* **Batched frontier**: the last ply is expanded whole and all its children go through
  the network in one batch, which costs little more than one position.
* **Move order**: the policy head's logits at inner nodes (good moves first give the
  alpha-beta cut-offs); at the root, the values of the previous iteration. The root's
  children are ordered by one policy batch over all of them, taken with the one-ply
  values.
* **Budget**: iterative deepening up to ``depth`` plies, and with ``ms`` it stops when
  the time per move is spent. A move is always chosen from the one-ply iteration at
  least; an unfinished iteration counts once its first (previously best) move is done.
  A search that may go deeper than two plies skips the two-ply iteration: it costs a
  network batch per root move, and what it gave the next one (an order for the root
  children's moves) the policy batch gives for one.

Negamax: a value is always for the player to move in the state it belongs to. A child
whose mover is the same player (an extra turn) keeps the sign, otherwise it flips.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from agents.network import PolicyValueNetwork
from envs.core import Game, GameState

WIN = 2.0  #: a decided game's value: above any network value
PLY_COST = 1e-3  #: a win is worth this much less per ply it takes (so sooner wins are chosen)
MAX_DEPTH = 64  #: the deepest iteration of a search limited by time only
_INFINITY = float("inf")


class _OutOfTime(Exception):
    """Raised inside the search when the time per move is spent."""


@dataclass
class SearchResult:
    action: int  #: the chosen move
    value: float  #: its value for the player to move
    #: each root move's value at the deepest finished iteration (exact there; when the root
    #: is searched with alpha-beta, a move worse than the best has only an upper bound)
    move_values: dict[int, float] = field(default_factory=dict)
    depth: int = 1  #: the deepest iteration whose result was used
    leaves: int = 0  #: positions scored by the network or by the rules


def mover(state: GameState) -> int:
    """The one player to act (the search covers sequential turns only)."""
    players = state.acting_players()
    if len(players) != 1:
        raise ValueError(f"search: needs one player to act at a time, got {list(players)}")
    return players[0]


class NetworkSearch:
    """Alpha-beta with a policy-value network; see the module docstring.

    Args:
        network: scores positions (``values``) and orders moves (``logits``).
        depth: deepest iteration in plies (default 3 without ``ms``, else no limit).
        ms: time per move in milliseconds, or None for a fixed depth.
        exact_root: search every root move with a full window, so that all root values
            are exact (training targets need them); play does not.
    """

    def __init__(self, network: PolicyValueNetwork, depth: int | None = None, ms: float | None = None, exact_root: bool = False):
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
            raise ValueError(f"search: depth must be a positive integer, got {depth!r}")
        if ms is not None and (isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms > 0):
            raise ValueError(f"search: ms must be a positive number of milliseconds, got {ms!r}")
        self.network = network
        self.depth = int(depth) if depth is not None else (3 if ms is None else MAX_DEPTH)
        self.ms = ms
        self.exact_root = exact_root

    def search(self, state: GameState, rng: np.random.Generator | None = None) -> SearchResult:
        """The best move for the player to move in ``state`` (left unchanged)."""
        self._deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000.0
        self._leaves = 0
        self._child_orders: dict[int, list[int]] = {}  # root move -> its child's moves, best first
        me = mover(state)
        moves, values, children = self._expand(state, me, 0)
        if not moves:
            raise ValueError("search: the player to move has no legal move")
        first_deep = 2
        if self.depth >= 3:  # order each root child's moves by the policy, all in one batch, and skip two plies
            self._order_root_children(children)
            first_deep = 3
        order = list(range(len(moves)))
        if rng is not None:
            rng.shuffle(order)  # equal values: a random one of them
        result = SearchResult(-1, -_INFINITY, {})
        for i in order:
            if values[i] > result.value:
                result.action, result.value = moves[i], float(values[i])
        result.move_values = {m: float(v) for m, v in zip(moves, values)}
        for depth in range(first_deep, self.depth + 1):
            if abs(result.value) > 1.0:
                break  # the game is decided within the horizon: deeper search changes nothing
            ranked = sorted(result.move_values, key=result.move_values.get, reverse=True)
            partial = SearchResult(-1, -_INFINITY, {}, depth)
            try:
                self._root(state, me, ranked, depth, partial)
            except _OutOfTime:
                if partial.move_values:
                    result = partial
                break
            result = partial
        result.leaves = self._leaves
        return result

    # -- the tree ------------------------------------------------------------------------
    def _root(self, state: GameState, me: int, moves: list[int], depth: int, result: SearchResult) -> None:
        for action in moves:
            child = state.clone()
            child.apply(me, action)
            alpha = -_INFINITY if self.exact_root else result.value
            value = self._child_value(child, me, depth - 1, alpha, _INFINITY, 1, root_move=action)
            result.move_values[action] = value
            if value > result.value:
                result.action, result.value = action, value

    def _child_value(
        self, child: GameState, me: int, depth: int, alpha: float, beta: float, ply: int, root_move: int | None = None
    ) -> float:
        """The value for ``me`` of ``child``, searched ``depth`` plies deeper."""
        if child.is_terminal():
            self._leaves += 1
            return float(child.returns()[me]) * (WIN - PLY_COST * ply)
        if mover(child) == me:
            return self._negamax(child, depth, alpha, beta, ply, root_move)
        return -self._negamax(child, depth, -beta, -alpha, ply, root_move)

    def _negamax(self, state: GameState, depth: int, alpha: float, beta: float, ply: int, root_move: int | None = None) -> float:
        """``root_move``: set for a child of the root, whose moves are ordered by their
        values from the previous iteration (remembered here) instead of the policy head."""
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise _OutOfTime
        me = mover(state)
        if depth <= 1:
            moves, values, _ = self._expand(state, me, ply)
            if root_move is not None:
                self._child_orders[root_move] = [moves[i] for i in np.argsort(-values, kind="stable")]
            return max(values)
        best = -_INFINITY
        ordered = self._child_orders.get(root_move) if root_move is not None else None
        for action in ordered or self._ordered_moves(state, me):
            child = state.clone()
            child.apply(me, action)
            value = self._child_value(child, me, depth - 1, alpha, beta, ply + 1)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def _order_root_children(self, children) -> None:
        """Each undecided root child's legal moves, ranked by the policy head in one batch."""
        going_on = np.flatnonzero(children.movers >= 0)
        if not len(going_on):
            return
        logits = self.network.logits(children.observations[going_on])
        logits[children.masks[going_on] == 0] = -_INFINITY
        legal = children.masks[going_on].sum(axis=1)
        for row, (i, count) in enumerate(zip(going_on.tolist(), legal.tolist())):
            self._child_orders[int(children.actions[i])] = np.argsort(-logits[row], kind="stable")[:count].tolist()

    def _expand(self, state: GameState, me: int, ply: int):
        """Every legal move of ``me`` and its one-ply value (and the children themselves):
        the network scores all the undecided children in one batch
        (:meth:`~envs.core.GameState.children`)."""
        children = state.children(me)
        values = children.outcomes * (WIN - PLY_COST * (ply + 1))
        going_on = np.flatnonzero(children.movers >= 0)
        if len(going_on):
            signs = np.where(children.movers[going_on] == me, 1.0, -1.0)
            values[going_on] = self.network.values(children.observations[going_on]) * signs
        self._leaves += len(values)
        return children.actions.tolist(), values, children

    def _ordered_moves(self, state: GameState, me: int) -> list[int]:
        mask = state.legal_mask(me)
        logits = self.network.logits(state.observe(me)[None])[0]
        logits[mask == 0] = -_INFINITY
        return [int(a) for a in np.argsort(-logits, kind="stable")[: int(mask.sum())]]


class SearchAgent(Agent):
    """A network playing through :class:`NetworkSearch` (agent spec ``ppo+search``)."""

    name = "ppo+search"

    def __init__(self, game: Game, network: PolicyValueNetwork, seed: int | None = None, depth: int | None = None, ms: float | None = None):
        if game.num_players != 2:
            raise ValueError(f"search: plays two-player games only; {game.name} is set up for {game.num_players}")
        self.search = NetworkSearch(network, depth=depth, ms=ms)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        state = self.game.state_from_observation(observation)
        if state.is_terminal() or not np.array_equal(state.legal_mask(mover(state)), np.asarray(action_mask, np.int8)):
            raise ValueError(f"{self.name}: asked to move in a position where it is not this player's turn")
        return self.search.search(state, self.rng).action
