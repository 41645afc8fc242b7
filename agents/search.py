"""One alpha-beta search for two-player perfect-information games, and its network evaluator.

The search (:class:`AlphaBeta`) knows a game only through its rules core
(:class:`~envs.core.GameState`: ``clone``, ``apply``, ``legal_mask``, ``acting_players``,
``is_terminal``, ``returns``), so it searches every such game the same way. What a game
or a player brings is an :class:`Evaluator`: what a position is worth, in which order
moves are tried, and whether a transposition table is kept. Two plug into it:

* :class:`NetworkEvaluator` (here; agent spec ``ppo+search``, expert iteration): a
  policy-value network scores the last ply as one batch and orders moves by its
  policy head;
* :class:`~agents.invers.reference_search.InversEvaluator`: a hand-tuned integer
  evaluation, a static move order and a transposition table. The Invers bot ``search``
  runs this very search in compiled code (:mod:`agents.invers.compiled_search`); this
  one is kept as its reference, which the compiled one matches move for move.

**The search.** Negamax alpha-beta with iterative deepening up to ``depth`` plies: a
value is always for the player to move in the state it belongs to; a child whose mover
is the same player (an extra turn) keeps the sign, otherwise it flips.

* **The one-ply iteration** scores every root move (the evaluator's batch, or each child
  in turn) and picks the best; with a generator the moves are visited in a random order
  first, so equally good moves are chosen at random. Every deeper iteration searches
  the root moves in the order the evaluator ranks them (:meth:`Evaluator.rank_root`).
* **The root window.** A root move is searched with the window above the best value so
  far (a worse move gets an upper bound only); with ``exact_root`` every root move of
  every iteration gets the full window, so all root values are exact (training targets);
  :meth:`AlphaBeta.exact_values` gives only the deepest iteration the full window.
* **The last ply.** A batched evaluator expands a node one ply above the horizon whole
  (all children in one call, no cut-off: it costs little more than one position);
  otherwise each child at the horizon is scored by :meth:`Evaluator.leaf`, with the
  usual cut-offs. Finished games are scored by :meth:`Evaluator.terminal` (which prefers
  sooner wins).
* **Move order** inside the tree: the table's best move first when a table is kept, then
  the evaluator's order. The root's children are the exception: their moves follow the
  order the evaluator gives for all of them at once (:meth:`Evaluator.order_root_children`,
  after which the two-ply iteration is skipped) or their last one-ply expansion.
* **Budget**: with ``seconds`` it stops once the time per move is spent (the clock is
  read every :attr:`Evaluator.nodes_per_clock` inner nodes). A move is always chosen
  from the one-ply iteration at least; an unfinished iteration counts once its first
  (previously best) move is done if :attr:`Evaluator.keep_unfinished`, otherwise the
  deepest finished iteration decides. Deepening stops early once the evaluator calls
  the root value :meth:`~Evaluator.decided`.

**The network evaluator** (:class:`NetworkSearch` is the search with it):

* **Leaves** are scored by the network's value head (the value of the position for the
  player to move, clipped to [-1, 1]); decided games by their outcome, worth ``WIN``
  (more than any network value), a sooner win more than a later one. A game makes
  itself searchable by rebuilding its state from an observation
  (:meth:`~envs.core.Game.state_from_observation`) and lists its children with
  :meth:`~envs.core.GameState.children`.
* **Move order**: the policy head's logits at inner nodes; at the root, the values of
  the previous iteration. The root's children are ordered by one policy batch over all
  of them, taken with the one-ply values: what the two-ply iteration would have given
  the next one for a network batch per root move, it gives for one.
* It keeps no table, reads the clock at every inner node (a node costs a network call),
  lets an unfinished iteration count, and stops deepening once the game is decided
  within the horizon (a value beyond ±1).

**In batch.** The agents that play through this search (:class:`SearchAgent` here) have
an ``act_batch`` that runs the very search of ``act`` on each row in turn
(``search_observations``; the compiled search does all the rows in one call), the root
moves shuffled by the bot's generator or, with ``rngs``, by the row's own. A vectorised
search over the rows is not attempted: every position is a tree of its own, with its own
cut-offs. What ``act_batch`` gives is a seat at a table played in batch
(:func:`agents.match.play_games_in_batch`, the batched env's opponents), where the env and
the other seats act in batch. Nothing of one search
carries over to the next: the transposition table, the root children's move orders, the
clock and the counters are all started afresh by every :meth:`AlphaBeta.search`, so the
rows, whichever games they come from, cannot leak into each other, and each row's move
is ``act``'s. With a time limit each row has the whole time per move (a batch of ``N``
rows takes ``N`` times as long), and, as with ``act``, its move is then not
reproducible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Hashable

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, check_generators
from agents.compiled_searches import network_search_factory
from agents.network import PolicyValueNetwork
from envs.core import Children, Game, GameState

WIN = 2.0  #: a decided game's value for the network evaluator: above any network value
PLY_COST = 1e-3  #: a win is worth this much less per ply it takes (so sooner wins are chosen)
MAX_DEPTH = 64  #: the deepest iteration of a search limited by time only
#: the error of a search asked to move for a player who is not to move
NOT_TO_MOVE = "ppo+search: asked to move in a position where it is not this player's turn"
_INFINITY = float("inf")


class _OutOfTime(Exception):
    """Raised inside the search when the time per move is spent."""


@dataclass
class SearchResult:
    action: int  #: the chosen move
    value: float  #: its value for the player to move
    #: each root move's value at the deepest finished iteration, in the order searched
    #: (exact there; when the root is searched with alpha-beta, a move worse than the best
    #: has only an upper bound)
    move_values: dict[int, float] = field(default_factory=dict)
    depth: int = 1  #: the deepest iteration whose result was used
    leaves: int = 0  #: positions scored by the evaluator or by the rules


def mover(state: GameState) -> int:
    """The one player to act (the search covers sequential turns only)."""
    players = state.acting_players()
    if len(players) != 1:
        raise ValueError(f"search: needs one player to act at a time, got {list(players)}")
    return players[0]


class Evaluator:
    """What :class:`AlphaBeta` asks of a game's evaluation; values are numbers of one kind
    (floats or ints), for the player named, larger is better.

    A subclass gives :meth:`terminal`, :meth:`order` and either :meth:`leaf` or
    (``batched``) :meth:`expand`; the rest has defaults.
    """

    lowest: Any = -_INFINITY  #: below every value (a window's lower end, the worst start)
    highest: Any = _INFINITY  #: above every value
    #: scores the children of a node at the horizon all at once (:meth:`expand`) instead
    #: of each in turn (:meth:`leaf`)
    batched = False
    #: keep a transposition table (by :meth:`key`) for the length of one search
    keeps_table = False
    nodes_per_clock = 1  #: inner nodes searched between looks at the clock
    #: when the time runs out, the unfinished iteration counts once its first root move
    #: is searched (else the deepest finished iteration decides)
    keep_unfinished = True

    def mover(self, state: GameState) -> int:
        """The player to move in the unfinished ``state``."""
        return mover(state)

    def legal_moves(self, state: GameState, me: int) -> list[int]:
        """The legal moves of ``me`` in ``state``, ascending (the root's, when not batched)."""
        return np.flatnonzero(state.legal_mask(me)).tolist()

    def terminal(self, state: GameState, me: int, ply: int) -> Any:
        """The value for ``me`` of the finished game ``state``, ``ply`` plies below the root."""
        raise NotImplementedError

    def leaf(self, state: GameState, me: int) -> Any:
        """The value for ``me`` of the unfinished ``state`` at the horizon."""
        raise NotImplementedError

    def expand(self, state: GameState, me: int, ply: int) -> tuple[list[int], Any, Any]:
        """Every legal move of ``me`` in ``state`` (``ply`` plies below the root), the value
        for ``me`` of the position after each (a sequence), and what the evaluator wants
        to keep of the children for :meth:`order_root_children`."""
        raise NotImplementedError

    def order(self, state: GameState, me: int, first: int | None) -> list[int]:
        """The legal moves of ``me``, the most promising first; ``first`` (the table's best
        move, or None) goes first."""
        raise NotImplementedError

    def order_root_children(self, children: Any) -> dict[int, list[int]] | None:
        """Optionally, for each root move, its child's legal moves in the order to try them,
        from the root's expansion (``children``: what :meth:`expand` kept, None when not
        batched). None: no such order; the search then runs its two-ply iteration."""
        return None

    def rank_root(self, searched: list[int], result: SearchResult) -> list[int]:
        """The order in which the next iteration searches the root moves, from the last
        iteration's ``result`` (``searched``: the order it searched them in). Default:
        by the values, best first (ties in the order of ``result.move_values``)."""
        return sorted(result.move_values, key=result.move_values.get, reverse=True)

    def decided(self, value: Any) -> bool:
        """Whether a root value settles the game, so that deeper search changes nothing."""
        return False

    def key(self, state: GameState) -> Hashable:
        """The transposition table's key of ``state`` (only when :attr:`keeps_table`)."""
        raise NotImplementedError


class AlphaBeta:
    """Negamax alpha-beta with iterative deepening, a time budget and an evaluator; see the
    module docstring.

    Args:
        evaluator: scores positions and orders moves.
        depth: the deepest iteration in plies.
        seconds: time per move, or None for a fixed-depth, reproducible search.
        exact_root: search every root move with a full window at every iteration.
    """

    def __init__(self, evaluator: Evaluator, depth: int, seconds: float | None = None, exact_root: bool = False):
        self.evaluator = evaluator
        self.depth = depth
        self.seconds = seconds
        self.exact_root = exact_root

    def search(self, state: GameState, rng: np.random.Generator | None = None) -> SearchResult:
        """The best move for the player to move in ``state`` (left unchanged); with ``rng``,
        a random one of equally good moves."""
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        return self._search(state, rng, 1 if self.exact_root else None, deadline)

    def exact_values(self, state: GameState) -> SearchResult:
        """Every root move's exact value at ``depth`` (``move_values``), without a time limit:
        the shallower iterations search as in play, only ordering the moves (and filling
        the table), and the deepest gives every root move the full window."""
        return self._search(state, None, self.depth, None)

    # -- iterative deepening at the root ---------------------------------------------------
    def _search(
        self, state: GameState, rng: np.random.Generator | None, exact_from: int | None, deadline: float | None
    ) -> SearchResult:
        evaluator = self.evaluator
        self._deadline = deadline
        self._leaves = 0
        self._nodes = 0
        self._table: dict | None = {} if evaluator.keeps_table else None
        self._child_orders: dict[int, list[int]] = {}  # root move -> its child's moves, best first
        me = evaluator.mover(state)
        moves, values, children = self._expand(state, me, 0)
        if not moves:
            raise ValueError("search: the player to move has no legal move")
        first_deep = 2
        if self.depth >= 3:  # order each root child's moves in one go, and skip two plies
            orders = evaluator.order_root_children(children)
            if orders is not None:
                self._child_orders.update(orders)
                first_deep = 3
        order = list(range(len(moves)))
        if rng is not None:
            rng.shuffle(order)  # equal values: a random one of them
        result = SearchResult(-1, evaluator.lowest, {})
        for i in order:
            if values[i] > result.value:
                result.action, result.value = moves[i], float(values[i])
        result.move_values = dict(zip(moves, map(float, values)))
        searched = [moves[i] for i in order]
        for depth in range(first_deep, self.depth + 1):
            if evaluator.decided(result.value):
                break  # the game is decided within the horizon: deeper search changes nothing
            ranked = evaluator.rank_root(searched, result)
            partial = SearchResult(-1, evaluator.lowest, {}, depth)
            try:
                self._root(state, me, ranked, depth, partial, exact_from is not None and depth >= exact_from)
            except _OutOfTime:
                if evaluator.keep_unfinished and partial.move_values:
                    result = partial
                break
            result, searched = partial, ranked
        result.leaves = self._leaves
        return result

    def _root(self, state: GameState, me: int, moves: list[int], depth: int, result: SearchResult, exact: bool) -> None:
        lowest, highest = self.evaluator.lowest, self.evaluator.highest
        for action in moves:
            child = state.clone()
            child.apply(me, action)
            alpha = lowest if exact else result.value
            value = self._child_value(child, me, depth - 1, alpha, highest, 1, root_move=action)
            result.move_values[action] = value
            if value > result.value:
                result.action, result.value = action, value

    def _expand(self, state: GameState, me: int, ply: int):
        """Every legal move of ``me``, its one-ply value, and what the evaluator keeps of the
        children: the evaluator's batch, or each child scored in turn."""
        evaluator = self.evaluator
        if evaluator.batched:
            moves, values, children = evaluator.expand(state, me, ply)
            self._leaves += len(values)
            return moves, values, children
        moves = evaluator.legal_moves(state, me)
        values = []
        for action in moves:
            child = state.clone()
            child.apply(me, action)
            values.append(evaluator.terminal(child, me, ply + 1) if child.is_terminal() else evaluator.leaf(child, me))
        self._leaves += len(values)
        return moves, values, None

    # -- the tree ----------------------------------------------------------------------------
    def _child_value(
        self, child: GameState, me: int, depth: int, alpha: Any, beta: Any, ply: int, root_move: int | None = None
    ) -> Any:
        """The value for ``me`` of ``child``, searched ``depth`` plies deeper."""
        evaluator = self.evaluator
        if child.is_terminal():
            self._leaves += 1
            return evaluator.terminal(child, me, ply)
        if depth == 0:
            self._leaves += 1
            return evaluator.leaf(child, me)
        child_mover = evaluator.mover(child)
        if child_mover == me:
            return self._negamax(child, child_mover, depth, alpha, beta, ply, root_move)
        return -self._negamax(child, child_mover, depth, -beta, -alpha, ply, root_move)

    def _negamax(
        self, state: GameState, me: int, depth: int, alpha: Any, beta: Any, ply: int, root_move: int | None = None
    ) -> Any:
        """The value of the unfinished ``state`` for its mover ``me``. ``root_move``: set for a
        child of the root, whose moves follow the order remembered for it."""
        evaluator = self.evaluator
        self._nodes += 1
        if (
            self._deadline is not None
            and self._nodes % evaluator.nodes_per_clock == 0
            and time.perf_counter() > self._deadline
        ):
            raise _OutOfTime
        if evaluator.batched and depth <= 1:
            moves, values, _ = self._expand(state, me, ply)
            if root_move is not None:
                self._child_orders[root_move] = [moves[i] for i in np.argsort(-values, kind="stable")]
            return max(values)
        table, table_move = self._table, None
        if table is not None:
            key = evaluator.key(state)
            entry = table.get(key)
            if entry is not None:
                entry_depth, value, bound, table_move = entry
                if entry_depth >= depth and (
                    bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha)
                ):
                    return value
        start_alpha, best, best_move = alpha, evaluator.lowest, None
        ordered = self._child_orders.get(root_move) if root_move is not None else None
        child_depth, child_ply = depth - 1, ply + 1
        leaves = 0
        try:
            for action in ordered or evaluator.order(state, me, table_move):
                child = state.clone()
                child.apply(me, action)
                # _child_value, written out: this loop is the search's hot path
                if child.is_terminal():
                    leaves += 1
                    value = evaluator.terminal(child, me, child_ply)
                elif child_depth == 0:
                    leaves += 1
                    value = evaluator.leaf(child, me)
                else:
                    child_mover = evaluator.mover(child)
                    if child_mover == me:
                        value = self._negamax(child, child_mover, child_depth, alpha, beta, child_ply)
                    else:
                        value = -self._negamax(child, child_mover, child_depth, -beta, -alpha, child_ply)
                if value > best:
                    best, best_move = value, action
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            break
        finally:  # also when the time runs out
            self._leaves += leaves
        if table is not None:
            bound = 1 if best >= beta else -1 if best <= start_alpha else 0
            table[key] = (depth, best, bound, best_move)
        return best


class NetworkEvaluator(Evaluator):
    """A policy-value network's evaluation for :class:`AlphaBeta`; see the module docstring."""

    batched = True

    def __init__(self, network: PolicyValueNetwork):
        self.network = network

    def terminal(self, state: GameState, me: int, ply: int) -> float:
        return float(state.returns()[me]) * (WIN - PLY_COST * ply)

    def expand(self, state: GameState, me: int, ply: int) -> tuple[list[int], np.ndarray, Children]:
        """The network scores all the undecided children in one batch
        (:meth:`~envs.core.GameState.children`)."""
        children = state.children(me)
        values = children.outcomes * (WIN - PLY_COST * (ply + 1))
        going_on = np.flatnonzero(children.movers >= 0)
        if len(going_on):
            signs = np.where(children.movers[going_on] == me, 1.0, -1.0)
            values[going_on] = self.network.values(children.observations[going_on]) * signs
        return children.actions.tolist(), values, children

    def order(self, state: GameState, me: int, first: int | None) -> list[int]:
        mask = state.legal_mask(me)
        logits = self.network.logits(state.observe(me)[None])[0]
        logits[mask == 0] = -_INFINITY
        return [int(a) for a in np.argsort(-logits, kind="stable")[: int(mask.sum())]]

    def order_root_children(self, children: Children) -> dict[int, list[int]]:
        """Each undecided root child's legal moves, ranked by the policy head in one batch."""
        going_on = np.flatnonzero(children.movers >= 0)
        if not len(going_on):
            return {}
        logits = self.network.logits(children.observations[going_on])
        logits[children.masks[going_on] == 0] = -_INFINITY
        legal = children.masks[going_on].sum(axis=1)
        return {
            int(children.actions[i]): np.argsort(-logits[row], kind="stable")[:count].tolist()
            for row, (i, count) in enumerate(zip(going_on.tolist(), legal.tolist()))
        }

    def decided(self, value: float) -> bool:
        return abs(value) > 1.0


class NetworkSearch(AlphaBeta):
    """Alpha-beta with a policy-value network (:class:`NetworkEvaluator`); see the module docstring.

    Args:
        network: scores positions (``values``) and orders moves (``logits``).
        depth: deepest iteration in plies (default 3 without ``ms``, else no limit).
        ms: time per move in milliseconds, or None for a fixed depth.
        exact_root: search every root move with a full window, so that all root values
            are exact (training targets need them); play does not.
    """

    def __init__(
        self, network: PolicyValueNetwork, depth: int | None = None, ms: float | None = None, exact_root: bool = False
    ):
        self.network = network
        self.ms = ms
        depth = search_depth(depth, ms)
        super().__init__(NetworkEvaluator(network), depth, None if ms is None else ms / 1000.0, exact_root)

    def search_observations(
        self, game: Game, observations: np.ndarray, masks: np.ndarray | None, rngs: list | None, exact: bool = False
    ) -> list[SearchResult]:
        """The search of the position behind each observation, one after the other: ``search``
        with ``rngs[k]`` (``exact``: ``exact_values``). With ``masks``, each observer must be the
        player to move, with those legal moves (ValueError otherwise)."""
        results = []
        for k, observation in enumerate(observations):
            state = game.state_from_observation(observation)
            if state.is_terminal() or (
                masks is not None and not np.array_equal(state.legal_mask(mover(state)) > 0, masks[k] > 0)
            ):
                raise ValueError(NOT_TO_MOVE)
            results.append(self.exact_values(state) if exact else self.search(state, None if rngs is None else rngs[k]))
        return results


def search_depth(depth: int | None, ms: float | None) -> int:
    """The deepest iteration of a network search given ``depth`` and ``ms`` as the agent spec
    gives them (default 3 without ``ms``, else no limit); ValueError naming a bad one."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"search: depth must be a positive integer, got {depth!r}")
    if ms is not None and (isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms > 0):
        raise ValueError(f"search: ms must be a positive number of milliseconds, got {ms!r}")
    return int(depth) if depth is not None else (3 if ms is None else MAX_DEPTH)


def network_search(
    game: Game, network: PolicyValueNetwork, depth: int | None = None, ms: float | None = None, exact_root: bool = False
):
    """The network's search on ``game``: :class:`NetworkSearch`, or where the game's agents
    package has registered one (:func:`agents.compiled_searches.register_network_search`) and
    the network is Linear layers with ReLU between them, that search in compiled code, which
    gives the same moves many times faster (e.g. :mod:`agents.invers.compiled_network_search`).
    Both have ``search``, ``exact_values``, ``depth`` and ``ms``."""
    from agents import compiled_network  # noqa: PLC0415 (Numba: loaded when a search is made)

    compiled = network_search_factory(game.name)
    if compiled is not None and compiled_network.supports(network):
        return compiled(network, game.max_plies, depth=depth, ms=ms, exact_root=exact_root)
    return NetworkSearch(network, depth=depth, ms=ms, exact_root=exact_root)


def can_search(game: Game) -> bool:
    """Whether search can rebuild ``game``'s states from observations: the game overrides
    :meth:`~envs.core.Game.state_from_observation` (perfect information, no pending chance)."""
    return type(game).state_from_observation is not Game.state_from_observation


class SearchAgent(Agent):
    """A network playing through its search (agent spec ``ppo+search``): :func:`network_search`,
    in compiled code where the game has it."""

    name = "ppo+search"

    def __init__(
        self,
        game: Game,
        network: PolicyValueNetwork,
        seed: int | None = None,
        depth: int | None = None,
        ms: float | None = None,
    ):
        if game.num_players != 2:
            raise ValueError(f"search: plays two-player games only; {game.name} is set up for {game.num_players}")
        if not can_search(game):
            raise ValueError(
                "search: needs a game whose observation determines the state (perfect information); "
                f"{game.name}'s does not"
            )
        self.search = network_search(game, network, depth=depth, ms=ms)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, one search after the other (see "In batch" in the module
        docstring; the compiled search runs them all in one call): the same moves, and the
        generator left where ``act`` on the rows in order would leave it; with ``rngs``, row
        ``k``'s root moves are shuffled by ``rngs[k]``."""
        observations, legal = batch_arguments(self.game, observations, action_masks, self.name)
        check_generators(rngs, len(legal), self.name)
        generators = [self.rng if rngs is None else rngs[k] for k in range(len(legal))]
        results = self.search.search_observations(self.game, observations, legal, generators)
        return np.array([result.action for result in results], np.int64)

    def _check_fixed_depth(self) -> None:
        """Move values are exact values at ``depth``: a time-limited search has none to give."""
        if self.search.ms is not None:
            raise ValueError(f"{self.name}: move values need a fixed depth, not a time limit (ms={self.search.ms})")

    def move_values(self, state: GameState) -> dict[int, float]:
        """Every legal move's value for the player to move, each searched to ``depth`` with a
        full window (exact, not a bound): a teacher's targets for distilling the network's
        own search back into it (``teacher: "ppo+search:depth=2"``).

        Values are expected outcomes in [-1, 1]: the network's value at the frontier, and
        ±1 for a game decided within the horizon. A time-limited search (``ms``) has no
        fixed depth to make exact values at, so it refuses.
        """
        self._check_fixed_depth()
        if state.is_terminal():
            raise ValueError(f"{self.name}: the game is over, there is no move to value")
        return _outcome_values(self.search.exact_values(state).move_values)

    def move_values_of_observations(self, observations: np.ndarray) -> list[dict[int, float]]:
        """:meth:`move_values` of the positions behind many observations (in one call of the
        compiled search, where the game has one): a teacher's labels in batch."""
        self._check_fixed_depth()
        results = self.search.search_observations(self.game, np.asarray(observations), None, None, exact=True)
        return [_outcome_values(result.move_values) for result in results]


def _outcome_values(values: dict[int, float]) -> dict[int, float]:
    """Search values as expected outcomes in [-1, 1]: ±1 for a game decided within the horizon."""
    return {action: float(np.sign(v)) if abs(v) > 1.0 else float(v) for action, v in values.items()}
