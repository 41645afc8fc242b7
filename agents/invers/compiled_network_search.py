"""The network's own search on Invers (``ppo+search``) in compiled code (Numba).

This is the search that :class:`agents.search.NetworkSearch` runs (negamax alpha-beta with
iterative deepening, the network's value at the horizon and its policy ordering the moves),
written out over the Invers position arrays of :mod:`agents.invers.compiled_search` with
the network's forward pass compiled too (:mod:`agents.compiled_network`), so that a move
costs no call into Python or torch. Step for step it is the generic search's:

* the one-ply iteration values every legal push (ascending) and picks the first best in
  the root order the caller gives (shuffled by the agent's generator, as the generic
  search shuffles it); at depth 3 and more each undecided root child's pushes are then
  ranked by the policy head, and the two-ply iteration is skipped;
* every deeper iteration searches the root moves by the last iteration's values, best
  first (ties in the order they were listed), each with the window above the best value
  so far (the full window from ``exact_from`` on), and stops deepening once the value
  says the game is decided within the horizon;
* a node one ply above the horizon values all its children at once and takes the best (a
  finished game ``WIN`` less ``PLY_COST`` a ply, for whoever won); a deeper node tries its
  pushes in the order remembered for it (a root child) or the policy head's, with the
  usual cut-offs, and keeps no table.

Given the same network values it makes the same moves, values, depths and leaf counts as
the generic search (``tests/test_invers_compiled_network_search.py`` checks it against the
generic search run with this module's forward pass). Against the generic search with
torch's forward pass, values differ in their last bits (torch's order of adding products
depends on the batch and the CPU: see :mod:`agents.compiled_network`), which tips a move
only where two moves' values tie to within that rounding.

**Time.** With a time per move each row's clock starts when its search does; the clock is
read at every inner node, and an iteration cut short counts once its first root move is
searched (the generic search's ``keep_unfinished``).

**The state** is arrays of named records: the position in each slot below the root,
:data:`~envs.batched.invers_kernel.POSITION` records pushed and observed by the position
kernel (:mod:`envs.batched.invers_kernel`, the batched env's own); each slot's node
(:data:`NODE`: its window, its legal pushes, their values and the order to try them); per
root move its child's pushes in the order to try them (:data:`ROOT_CHILD`); the network's
heads and the forward pass's buffers (:class:`Network`); the search's settings and
progress (:data:`PROGRESS`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from agents.compiled_network import CompiledHeads, forward
from agents.compiled_searches import DONE, GAME_OVER, OUT_OF_TIME, now, root_orders
from agents.search import NOT_TO_MOVE, PLY_COST, WIN, SearchResult, search_depth
from envs.batched import invers_kernel as kernel
from envs.batched.invers_kernel import RUNNING
from envs.games.invers import NUM_ACTIONS, OBS_SIZE, OBS_TO_MOVE, position_of_state, positions_from_observations

_INFINITY = np.inf

#: A node being searched, one a slot below the root.
NODE = np.dtype(
    [
        ("mover", np.int64),  # the player to move, for whom ``best`` counts
        ("depth", np.int64),  # plies still to search
        ("alpha", np.float64),  # the window, alpha raised as better pushes are found
        ("beta", np.float64),
        ("best", np.float64),  # the best value so far
        ("moves", np.int64, (NUM_ACTIONS,)),  # the legal pushes, ascending
        ("values", np.float64, (NUM_ACTIONS,)),  # their values (a node one ply above the horizon)
        ("order", np.int64, (NUM_ACTIONS,)),  # the pushes in the order to try them
        ("push_count", np.int64),
        ("next_push", np.int64),  # the index of the next one to try
    ],
    align=True,
)

#: A root move's child: its pushes in the order to try them, remembered from the last iteration.
ROOT_CHILD = np.dtype([("order", np.int64, (NUM_ACTIONS,)), ("count", np.int64)], align=True)  # count 0: none

#: One search's settings and tally: the game's ply limit, its deadline (0: none), the leaves
#: valued, why it ended.
PROGRESS = np.dtype(
    [("max_plies", np.int64), ("deadline", np.float64), ("leaves", np.int64), ("reason", np.int64)], align=True
)


class Network(NamedTuple):
    """The network's heads as :func:`~agents.compiled_network.forward` runs them, and its buffers.

    The kernels receive it as a plain tuple and unpack it in this order: Numba's dispatcher types
    a NamedTuple argument on a slow path, which cost a one-position search a tenth of its time."""

    value_weights: tuple  # the value head's layers (:class:`~agents.compiled_network.CompiledHeads`)
    value_biases: tuple
    policy_weights: tuple  # the policy head's
    policy_biases: tuple
    observations: np.ndarray  # (24, OBS_SIZE) float32: the input rows
    scratch: np.ndarray  # (3, 24, width) float32: the layers' buffers
    head_out: np.ndarray  # (24, 24) float32: a head's outputs


@numba.njit(cache=True)
def _terminal(position, me, ply):
    """The value for ``me`` of the finished game ``position``, ``ply`` plies below the root."""
    outcome = 1.0 if position.status == me else (-1.0 if position.status == 1 - me else 0.0)
    return outcome * (WIN - PLY_COST * ply)


@numba.njit(cache=True)
def _rank(logits, moves, count, order):
    """``order[:count]`` := ``moves[:count]`` by their ``logits``, highest first, ties in the
    order listed (the generic evaluator's stable sort)."""
    keys = np.empty(count, np.float32)
    for i in range(count):
        keys[i] = -logits[moves[i]]
    ranked = np.argsort(keys, kind="mergesort")
    for i in range(count):
        order[i] = moves[ranked[i]]


@numba.njit(cache=True)
def _policy_order(position, node, network, max_plies):
    """``node.order[:push_count]`` := the position's legal pushes (``node.moves``) by the policy
    head, best first (the generic evaluator's ``order``)."""
    _, _, policy_weights, policy_biases, observations, scratch, head_out = network
    kernel.observe(position, position.to_move, max_plies, observations[0])
    forward(observations, 1, policy_weights, policy_biases, scratch, head_out)
    _rank(head_out[0], node.moves, node.push_count, node.order)


@numba.njit(cache=True)
def _expand(positions, nodes, network, progress, s, me):
    """Value every legal push of slot ``s`` (``s`` plies below the root) for ``me`` (its node's
    ``moves`` and ``values``): a finished game by its outcome, the running ones by one pass of
    the network's value head over all of them (the value for the child's player to move,
    clipped to [-1, 1], its sign turned when that is not ``me``); their number."""
    value_weights, value_biases, _, _, observations, scratch, head_out = network
    node = nodes[s]
    count = kernel.legal_pushes(positions[s], node.moves)
    rows = 0
    running = np.empty(count, np.int64)
    for i in range(count):
        kernel.push(positions, s, s + 1, node.moves[i], progress.max_plies)
        child = positions[s + 1]
        if child.status != RUNNING:
            node.values[i] = _terminal(child, me, s + 1)
        else:
            kernel.observe(child, child.to_move, progress.max_plies, observations[rows])
            running[rows] = i
            rows += 1
    if rows:
        forward(observations, rows, value_weights, value_biases, scratch, head_out)
    sign = 1.0 if positions[s].to_move != me else -1.0  # the children's player to move is the opponent of slot s's
    for r in range(rows):
        value = min(max(head_out[r, 0], np.float32(-1.0)), np.float32(1.0))
        node.values[running[r]] = sign * float(value)
    progress.leaves += count
    return count


@numba.njit(cache=True)
def _enter(positions, nodes, children, network, progress, s, me, depth, alpha, beta, root_move):
    """Start the search of the running slot ``s`` for its mover ``me``, ``depth`` plies deep in
    the window (``alpha``, ``beta``; ``root_move`` >= 0 for a child of the root): returns
    ``(True, value)`` when that is settled at once (one ply above the horizon, where the
    children are valued in one pass, or out of time: ``progress.reason`` set), else
    ``(False, 0)`` with the node's pushes ordered and its record in ``nodes[s]``."""
    if progress.deadline > 0.0 and now() > progress.deadline:
        progress.reason = OUT_OF_TIME
        return True, 0.0
    node = nodes[s]
    if depth <= 1:
        count = _expand(positions, nodes, network, progress, s, me)
        best = node.values[0]
        for i in range(1, count):
            best = max(best, node.values[i])
        if root_move >= 0:
            child = children[root_move]
            ranked = np.argsort(-node.values[:count], kind="mergesort")
            for i in range(count):
                child.order[i] = node.moves[ranked[i]]
            child.count = count
        return True, best
    if root_move >= 0 and children[root_move].count > 0:
        child = children[root_move]
        node.push_count = child.count
        for i in range(child.count):
            node.order[i] = child.order[i]
    else:
        node.push_count = kernel.legal_pushes(positions[s], node.moves)
        _policy_order(positions[s], node, network, progress.max_plies)
    node.mover = me
    node.depth = depth
    node.next_push = 0
    node.alpha = alpha
    node.beta = beta
    node.best = -_INFINITY
    return False, 0.0


@numba.njit(cache=True)
def _negamax(positions, nodes, children, network, progress, top, me, depth, alpha, beta, root_move):
    """The value for its mover ``me`` of the running slot ``top`` (``top`` plies below the
    root), ``depth`` plies deep in the window (``alpha``, ``beta``); ``root_move`` >= 0 for a
    child of the root. The generic search's recursion, kept on an explicit stack of slots
    (Numba's cache cannot hold a recursive function): slot ``s`` holds a node being searched
    (``nodes[s]``). Out of time: ``progress.reason`` is set and the value is meaningless."""
    settled, value = _enter(positions, nodes, children, network, progress, top, me, depth, alpha, beta, root_move)
    if settled:
        return value
    s = top
    while True:
        node = nodes[s]
        if node.next_push < node.push_count:  # the next push of the node in slot s
            action = node.order[node.next_push]
            node.next_push += 1
            t = s + 1
            kernel.push(positions, s, t, action, progress.max_plies)
            if positions[t].status != RUNNING:
                progress.leaves += 1
                value = _terminal(positions[t], node.mover, t)
            else:
                mover = positions[t].to_move
                same = mover == node.mover
                settled, value = _enter(
                    positions, nodes, children, network, progress, t, mover, node.depth - 1,
                    node.alpha if same else -node.beta, node.beta if same else -node.alpha, -1,
                )  # fmt: skip
                if progress.reason != DONE:
                    return 0.0
                if not settled:
                    s = t  # search the child
                    continue
                if not same:
                    value = -value
        else:  # the node in slot s is done: hand its value to its parent
            value = node.best
            if s == top:
                return value
            if node.mover != nodes[s - 1].mover:
                value = -value
            s -= 1
            node = nodes[s]
        # the child's value, for the node in slot s
        if value > node.best:
            node.best = value
            if value > node.alpha:
                node.alpha = value
                if value >= node.beta:
                    node.next_push = node.push_count  # a cut-off: no more pushes here


@numba.njit(cache=True)
def _rank_root_children(positions, nodes, children, network, progress, count):
    """Rank each running root child's pushes by the policy head, in one pass over them all."""
    _, _, policy_weights, policy_biases, observations, scratch, head_out = network
    root = nodes[0]
    rows = 0
    for i in range(count):
        action = root.moves[i]
        kernel.push(positions, 0, 1, action, progress.max_plies)
        child = positions[1]
        if child.status == RUNNING:
            children[action].count = kernel.legal_pushes(child, children[action].order)
            kernel.observe(child, child.to_move, progress.max_plies, observations[rows])
            root.order[rows] = action
            rows += 1
    if rows:
        forward(observations, rows, policy_weights, policy_biases, scratch, head_out)
    for r in range(rows):
        child = children[root.order[r]]
        _rank(head_out[r], child.order.copy(), child.count, child.order)


@numba.njit(cache=True)
def _search_row(positions, nodes, children, network, progress, root_order, depth, exact_from, listed, listed_values):
    """Iterative deepening from the running slot 0 (``root_order``: indices into its ascending
    legal pushes, the order the one-ply iteration visits them). Writes the root moves in the
    order the deciding iteration searched them (``listed``) with their values, and returns
    ``(move, value, depth reached, number listed)``."""
    me = positions[0].to_move
    root = nodes[0]
    count = _expand(positions, nodes, network, progress, 0, me)
    for i in range(count):
        listed[i] = root.moves[i]
        listed_values[i] = root.values[i]
    for action in range(NUM_ACTIONS):
        children[action].count = 0
    first_deep = 2
    if depth >= 3:  # rank each root child's pushes by the policy head (one pass), and skip two plies
        _rank_root_children(positions, nodes, children, network, progress, count)
        first_deep = 3
    best_move, best_value = -1, -_INFINITY
    for k in range(count):
        i = root_order[k]
        if root.values[i] > best_value:
            best_move, best_value = root.moves[i], root.values[i]
    reached, n_listed = 1, count
    ranked = np.empty(count, np.int64)
    partial = np.empty(count, np.float64)
    for iteration in range(first_deep, depth + 1):
        if abs(best_value) > 1.0:
            break  # decided within the horizon
        by_value = np.argsort(-listed_values[:n_listed], kind="mergesort")
        for k in range(count):
            ranked[k] = listed[by_value[k]]
        exact = exact_from > 0 and iteration >= exact_from
        move, value, searched = -1, -_INFINITY, 0
        for k in range(count):
            action = ranked[k]
            kernel.push(positions, 0, 1, action, progress.max_plies)
            if positions[1].status != RUNNING:
                progress.leaves += 1
                v = _terminal(positions[1], me, 1)
            else:
                alpha = -_INFINITY if exact else value
                mover = positions[1].to_move
                same = mover == me
                v = _negamax(
                    positions, nodes, children, network, progress, 1, mover, iteration - 1,
                    alpha if same else -_INFINITY, _INFINITY if same else -alpha, action,
                )  # fmt: skip
                if progress.reason != DONE:
                    break
                if not same:
                    v = -v
            partial[k] = v
            searched += 1
            if v > value:
                move, value = action, v
        if searched:  # finished, or cut short after its first root move
            best_move, best_value, reached, n_listed = move, value, iteration, searched
            for k in range(searched):
                listed[k] = ranked[k]
                listed_values[k] = partial[k]
        if progress.reason != DONE:
            break
    return best_move, best_value, reached, n_listed


@numba.njit(cache=True)
def _search_batch(roots, root_orders, depth, exact_from, seconds, search, results):
    """Search every row of ``roots`` (boards, hands, players to move, plies) in turn, each from
    scratch and with its own time (``seconds`` a row, 0 for none), into ``results`` (moves,
    values, depths, leaves, reasons, root moves listed, their number, their values).
    ``search``: the positions, nodes, root children, network and progress it works in."""
    boards, hands, players, plies = roots
    moves, values, depths, leaves, reasons, listed, counts, move_values = results
    positions, nodes, children, network, progress_record = search
    progress = progress_record[0]
    for row in range(boards.shape[0]):
        kernel.load(positions, 0, boards[row], hands[row], players[row], plies[row], progress.max_plies)
        if positions[0].status != RUNNING:
            reasons[row] = GAME_OVER
            continue
        progress.leaves = 0
        progress.reason = DONE
        progress.deadline = now() + seconds if seconds > 0.0 else 0.0
        moves[row], values[row], depths[row], counts[row] = _search_row(
            positions, nodes, children, network, progress, root_orders[row], depth, exact_from, listed[row],
            move_values[row],
        )  # fmt: skip
        leaves[row] = progress.leaves
        reasons[row] = progress.reason


class CompiledNetworkSearch:
    """:class:`agents.search.NetworkSearch` on Invers, in compiled code; see the module docstring.

    Args:
        network: a :class:`~agents.network.PolicyValueNetwork` of Linear layers with ReLU
            between them (:func:`agents.compiled_network.supports`); weights that training
            changes in place are read again before the next search.
        max_plies: the game's ply limit (a game reaching it is drawn).
        depth, ms, exact_root: as :class:`~agents.search.NetworkSearch` takes them.
    """

    def __init__(
        self, network, max_plies: int, depth: int | None = None, ms: float | None = None, exact_root: bool = False
    ):
        self.network = network
        self.heads = CompiledHeads(network)
        self.max_plies = max_plies
        self.ms = ms
        self.depth = search_depth(depth, ms)
        self.exact_root = exact_root
        self._tree: tuple | None = None

    def search(self, state, rng: np.random.Generator | None = None) -> SearchResult:
        """:meth:`agents.search.AlphaBeta.search` of one ``InversState``."""
        return self.search_positions(position_of_state(state), [rng])[0]

    def exact_values(self, state) -> SearchResult:
        """:meth:`agents.search.AlphaBeta.exact_values` of one ``InversState``."""
        return self.search_positions(position_of_state(state), None, exact_from=self.depth)[0]

    def search_observations(
        self, game, observations: np.ndarray, masks: np.ndarray | None, rngs: list | None, exact: bool = False
    ) -> list[SearchResult]:
        """:meth:`agents.search.NetworkSearch.search_observations` in one compiled call: the
        search of the position behind each observation (``exact``: every root move's exact
        value at ``depth``). With ``masks``, each observer must be the player to move, with
        those legal pushes (ValueError otherwise)."""
        positions = positions_from_observations(game, observations)
        if masks is not None:
            boards, _, players, _ = positions
            legal = kernel.legal_masks(boards, players)
            if not (np.asarray(observations)[:, OBS_TO_MOVE] > 0.5).all() or not np.array_equal(legal, masks > 0):
                raise ValueError(NOT_TO_MOVE)
        return self.search_positions(positions, rngs, exact_from=self.depth if exact else None)

    def search_positions(
        self, positions: tuple[np.ndarray, ...], rngs: list | None, exact_from: int | None = None
    ) -> list[SearchResult]:
        """The search of each position (``positions_from_observations``'s arrays): with
        ``rngs`` (one generator or None per row), row ``k``'s one-ply iteration visits its
        pushes in the order ``rngs[k]`` shuffles them to; ``exact_from``: the first iteration
        whose root moves get the full window (default: every one with ``exact_root``, else none)."""
        boards, hands, players, plies = positions
        rows = len(boards)
        legal = kernel.legal_counts(boards, players)
        orders = root_orders(legal, rngs, NUM_ACTIONS)
        if exact_from is None:
            exact_from = 1 if self.exact_root else 0
        out = (
            np.empty(rows, np.int64), np.empty(rows, np.float64), np.empty(rows, np.int64), np.empty(rows, np.int64),
            np.empty(rows, np.int64), np.full((rows, NUM_ACTIONS), -1, np.int64), np.zeros(rows, np.int64),
            np.zeros((rows, NUM_ACTIONS), np.float64),
        )  # fmt: skip
        roots = (
            np.ascontiguousarray(boards, np.int8),
            np.ascontiguousarray(hands, np.int8),
            np.ascontiguousarray(players, np.int64),
            np.ascontiguousarray(plies, np.int64),
        )
        seconds = 0.0 if self.ms is None else self.ms / 1000.0
        _search_batch(roots, orders, self.depth, exact_from, seconds, self._current_tree(), out)
        moves, values, depths, leaves, reasons, listed, counts, move_values = out
        if (reasons == GAME_OVER).any():
            raise ValueError(NOT_TO_MOVE + " (the game is over)")
        return [
            SearchResult(
                int(moves[k]),
                float(values[k]),
                dict(zip(listed[k, : counts[k]].tolist(), move_values[k, : counts[k]].tolist())),
                int(depths[k]),
                int(leaves[k]),
            )
            for k in range(rows)
        ]

    def _current_tree(self) -> tuple:
        """The search's state (see "The state" in the module docstring), made once and kept
        (each row starts afresh in it), with the network's heads as they are now (read again
        where training changed the weights)."""
        heads = self.heads
        heads.refresh()
        if self._tree is None or self._tree[3][0] is not heads.value_weights:
            slots = self.depth + 2
            network = Network(
                heads.value_weights,
                heads.value_biases,
                heads.policy_weights,
                heads.policy_biases,
                np.empty((NUM_ACTIONS, OBS_SIZE), np.float32),
                np.empty((3, NUM_ACTIONS, heads.width), np.float32),
                np.empty((NUM_ACTIONS, NUM_ACTIONS), np.float32),
            )
            progress = np.zeros(1, PROGRESS)
            progress[0]["max_plies"] = self.max_plies
            self._tree = (
                kernel.new_positions(slots),
                np.zeros(slots, NODE),
                np.zeros(NUM_ACTIONS, ROOT_CHILD),
                network,
                progress,
            )
        return self._tree
