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

**The arrays** the kernels pass along: ``board, hand, to_move, ply, unflipped, flipped,
status``, the position per slot (slot 0 the root); ``moves, values, order``, per slot its
legal pushes, their values and the order to try them; ``child_orders, order_counts``, per
root move its child's pushes in the order to try them (count 0: none remembered);
``vw, vb, pw, pb``, the value and policy heads' weights and biases; ``obs, scratch,
head_out``, the forward pass's buffers; ``counters``: the leaves and the abort reason.
"""

from __future__ import annotations

import numba
import numpy as np

from agents.compiled_network import CompiledHeads, forward
from agents.invers.compiled_search import (
    DONE,
    GAME_OVER,
    OUT_OF_TIME,
    RUNNING,
    _load_root,
    _now,
    _push,
    legal_counts,
    position_slots,
)
from agents.search import NOT_TO_MOVE, PLY_COST, WIN, SearchResult, search_depth
from envs.games.invers import (
    FAR_END,
    NUM_ACTIONS,
    OBS_OPPONENT_HAND,
    OBS_OWN_HAND,
    OBS_PLIES,
    OBS_SEAT,
    OBS_SIZE,
    OBS_TO_MOVE,
    PLANE_OF_SEEN,
    position_of_state,
    positions_from_observations,
)
from envs.games.invers_tiles import CELLS, FLIPPED

_FAR_END = np.array(FAR_END, np.int64)
_PLANES = np.asarray(PLANE_OF_SEEN, np.int64)
_INFINITY = np.inf


@numba.njit(cache=True)
def _observe(board, hand, to_move, ply, s, max_plies, obs):
    """``obs`` := slot ``s`` as its player to move observes it (the rules core's ``observe``)."""
    player = to_move[s]
    obs[:] = 0.0
    for cell in range(CELLS):
        obs[_PLANES[player, board[s, cell]] + cell] = 1.0
    obs[OBS_OWN_HAND + ((hand[s, player] & 1) ^ player)] = 1.0
    obs[OBS_OPPONENT_HAND + ((hand[s, 1 - player] & 1) ^ player)] = 1.0
    obs[OBS_TO_MOVE] = 1.0
    obs[OBS_SEAT] = player
    obs[OBS_PLIES] = ply[s] / max_plies


@numba.njit(cache=True)
def _legal(board, to_move, s, moves):
    """The legal pushes of slot ``s``'s player to move into ``moves``, ascending; their number."""
    opponent = 1 - to_move[s]
    count = 0
    for a in range(NUM_ACTIONS):
        if board[s, _FAR_END[a]] != (FLIPPED | opponent):
            moves[count] = a
            count += 1
    return count


@numba.njit(cache=True)
def _terminal(status, t, me, ply):
    """The value for ``me`` of the finished game in slot ``t``, ``ply`` plies below the root."""
    outcome = 1.0 if status[t] == me else (-1.0 if status[t] == 1 - me else 0.0)
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
def _policy_order(board, hand, to_move, ply, s, max_plies, pw, pb, obs, scratch, head_out, moves, count, order):
    """``order[:count]`` := slot ``s``'s legal pushes (``moves[:count]``) by the policy head,
    best first (the generic evaluator's ``order``)."""
    _observe(board, hand, to_move, ply, s, max_plies, obs[0])
    forward(obs, 1, pw, pb, scratch, head_out)
    _rank(head_out[0], moves, count, order)


@numba.njit(cache=True)
def _expand(
    board, hand, to_move, ply, unflipped, flipped, status, moves, values,
    s, me, node_ply, max_plies, vw, vb, obs, scratch, head_out, counters,
):  # fmt: skip
    """Value every legal push of slot ``s`` for ``me`` (``moves[s]``, ``values[s]``): a finished
    game by its outcome, the running ones by one pass of the network's value head over all
    of them (the value for the child's player to move, clipped to [-1, 1], its sign turned
    when that is not ``me``); their number."""
    count = _legal(board, to_move, s, moves[s])
    rows = 0
    running = np.empty(count, np.int64)
    for i in range(count):
        _push(board, hand, to_move, ply, unflipped, flipped, status, s, moves[s, i], max_plies)
        if status[s + 1] != RUNNING:
            values[s, i] = _terminal(status, s + 1, me, node_ply + 1)
        else:
            _observe(board, hand, to_move, ply, s + 1, max_plies, obs[rows])
            running[rows] = i
            rows += 1
    if rows:
        forward(obs, rows, vw, vb, scratch, head_out)
    sign = 1.0 if to_move[s] != me else -1.0  # the children's player to move is the opponent of slot s's
    for r in range(rows):
        value = min(max(head_out[r, 0], np.float32(-1.0)), np.float32(1.0))
        values[s, running[r]] = sign * float(value)
    counters[0] += count
    return count


@numba.njit(cache=True)
def _enter(
    board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders, order_counts,
    nodes, windows, s, me, depth, alpha, beta, root_move, max_plies, deadline, vw, vb, pw, pb, obs, scratch,
    head_out, counters,
):  # fmt: skip
    """Start the search of the running slot ``s`` for its mover ``me``, ``depth`` plies deep in
    the window (``alpha``, ``beta``; ``root_move`` >= 0 for a child of the root): returns
    ``(True, value)`` when that is settled at once (one ply above the horizon, where the
    children are valued in one pass, or out of time: ``counters[1]`` set), else
    ``(False, 0)`` with the node's pushes ordered and its entries in ``nodes`` / ``windows``."""
    if deadline > 0.0 and _now() > deadline:
        counters[1] = OUT_OF_TIME
        return True, 0.0
    if depth <= 1:
        count = _expand(
            board, hand, to_move, ply, unflipped, flipped, status, moves, values,
            s, me, s, max_plies, vw, vb, obs, scratch, head_out, counters,
        )  # fmt: skip
        best = values[s, 0]
        for i in range(1, count):
            best = max(best, values[s, i])
        if root_move >= 0:
            ranked = np.argsort(-values[s, :count], kind="mergesort")
            for i in range(count):
                child_orders[root_move, i] = moves[s, ranked[i]]
            order_counts[root_move] = count
        return True, best
    if root_move >= 0 and order_counts[root_move] > 0:
        count = order_counts[root_move]
        for i in range(count):
            order[s, i] = child_orders[root_move, i]
    else:
        count = _legal(board, to_move, s, moves[s])
        _policy_order(
            board, hand, to_move, ply, s, max_plies, pw, pb, obs, scratch, head_out, moves[s], count, order[s]
        )
    nodes[s, 0] = me
    nodes[s, 1] = depth
    nodes[s, 2] = 0  # the next push to try
    nodes[s, 3] = count
    windows[s, 0] = alpha
    windows[s, 1] = beta
    windows[s, 2] = -_INFINITY  # the best value so far
    return False, 0.0


@numba.njit(cache=True)
def _negamax(
    board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders, order_counts,
    nodes, windows, top, me, depth, alpha, beta, root_move, max_plies, deadline, vw, vb, pw, pb, obs, scratch,
    head_out, counters,
):  # fmt: skip
    """The value for its mover ``me`` of the running slot ``top`` (``top`` plies below the
    root), ``depth`` plies deep in the window (``alpha``, ``beta``); ``root_move`` >= 0 for a
    child of the root. The generic search's recursion, kept on an explicit stack of slots
    (Numba's cache cannot hold a recursive function): slot ``s`` holds a node being searched,
    its mover, depth, next push and number of pushes in ``nodes``, its window and best value in
    ``windows``. Out of time: ``counters[1]`` is set and the value is meaningless."""
    settled, value = _enter(
        board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders, order_counts,
        nodes, windows, top, me, depth, alpha, beta, root_move, max_plies, deadline, vw, vb, pw, pb, obs, scratch,
        head_out, counters,
    )  # fmt: skip
    if settled:
        return value
    s = top
    while True:
        if nodes[s, 2] < nodes[s, 3]:  # the next push of the node in slot s
            action = order[s, nodes[s, 2]]
            nodes[s, 2] += 1
            t = s + 1
            _push(board, hand, to_move, ply, unflipped, flipped, status, s, action, max_plies)
            node_me = nodes[s, 0]
            if status[t] != RUNNING:
                counters[0] += 1
                value = _terminal(status, t, node_me, t)
            else:
                mover = to_move[t]
                same = mover == node_me
                settled, value = _enter(
                    board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders,
                    order_counts, nodes, windows, t, mover, nodes[s, 1] - 1,
                    windows[s, 0] if same else -windows[s, 1], windows[s, 1] if same else -windows[s, 0], -1,
                    max_plies, deadline, vw, vb, pw, pb, obs, scratch, head_out, counters,
                )  # fmt: skip
                if counters[1] != DONE:
                    return 0.0
                if not settled:
                    s = t  # search the child
                    continue
                if not same:
                    value = -value
        else:  # the node in slot s is done: hand its value to its parent
            value = windows[s, 2]
            if s == top:
                return value
            if nodes[s, 0] != nodes[s - 1, 0]:
                value = -value
            s -= 1
        # the child's value, for the node in slot s
        if value > windows[s, 2]:
            windows[s, 2] = value
            if value > windows[s, 0]:
                windows[s, 0] = value
                if value >= windows[s, 1]:
                    nodes[s, 2] = nodes[s, 3]  # a cut-off: no more pushes here


@numba.njit(cache=True)
def _search_row(
    board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders, order_counts,
    nodes, windows, root_order, depth, exact_from, max_plies, deadline, vw, vb, pw, pb, obs, scratch, head_out,
    counters, listed, listed_values,
):  # fmt: skip
    """Iterative deepening from the running slot 0 (``root_order``: indices into its ascending
    legal pushes, the order the one-ply iteration visits them). Writes the root moves in the
    order the deciding iteration searched them (``listed``) with their values, and returns
    ``(move, value, depth reached, number listed)``."""
    me = to_move[0]
    count = _expand(
        board, hand, to_move, ply, unflipped, flipped, status, moves, values,
        0, me, 0, max_plies, vw, vb, obs, scratch, head_out, counters,
    )  # fmt: skip
    for i in range(count):
        listed[i] = moves[0, i]
        listed_values[i] = values[0, i]
    order_counts[:] = 0
    first_deep = 2
    if depth >= 3:  # rank each root child's pushes by the policy head (one pass), and skip two plies
        rows = 0
        for i in range(count):
            action = moves[0, i]
            _push(board, hand, to_move, ply, unflipped, flipped, status, 0, action, max_plies)
            if status[1] == RUNNING:
                order_counts[action] = _legal(board, to_move, 1, child_orders[action])
                _observe(board, hand, to_move, ply, 1, max_plies, obs[rows])
                order[0, rows] = action
                rows += 1
        if rows:
            forward(obs, rows, pw, pb, scratch, head_out)
        for r in range(rows):
            action = order[0, r]
            _rank(head_out[r], child_orders[action].copy(), order_counts[action], child_orders[action])
        first_deep = 3
    best_move, best_value = -1, -_INFINITY
    for k in range(count):
        i = root_order[k]
        if values[0, i] > best_value:
            best_move, best_value = moves[0, i], values[0, i]
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
            _push(board, hand, to_move, ply, unflipped, flipped, status, 0, action, max_plies)
            if status[1] != RUNNING:
                counters[0] += 1
                v = _terminal(status, 1, me, 1)
            else:
                alpha = -_INFINITY if exact else value
                mover = to_move[1]
                v = _negamax(
                    board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders,
                    order_counts, nodes, windows, 1, mover, iteration - 1, alpha if mover == me else -_INFINITY,
                    _INFINITY if mover == me else -alpha, action, max_plies, deadline, vw, vb, pw, pb, obs,
                    scratch, head_out, counters,
                )  # fmt: skip
                if counters[1] != DONE:
                    break
                if mover != me:
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
        if counters[1] != DONE:
            break
    return best_move, best_value, reached, n_listed


@numba.njit(cache=True)
def _search_batch(
    boards, hands, players, plies, root_orders, depth, exact_from, max_plies, seconds, vw, vb, pw, pb, width,
    out_moves, out_values, out_depths, out_leaves, out_reasons, out_listed, out_counts, out_move_values,
):  # fmt: skip
    """Search every row in turn, each from scratch and with its own time (``seconds`` a row,
    0 for none)."""
    slots = depth + 2
    board, hand, to_move, ply, unflipped, flipped, status = position_slots(slots)
    moves = np.empty((slots, NUM_ACTIONS), np.int64)
    values = np.empty((slots, NUM_ACTIONS), np.float64)
    order = np.empty((slots, NUM_ACTIONS), np.int64)
    child_orders = np.empty((NUM_ACTIONS, NUM_ACTIONS), np.int64)
    order_counts = np.zeros(NUM_ACTIONS, np.int64)
    nodes = np.empty((slots, 4), np.int64)
    windows = np.empty((slots, 3), np.float64)
    obs = np.empty((NUM_ACTIONS, OBS_SIZE), np.float32)
    scratch = np.empty((3, NUM_ACTIONS, width), np.float32)
    head_out = np.empty((NUM_ACTIONS, NUM_ACTIONS), np.float32)
    counters = np.zeros(2, np.int64)
    for row in range(boards.shape[0]):
        _load_root(
            board, hand, to_move, ply, unflipped, flipped, status,
            boards[row], hands[row], players[row], plies[row], max_plies,
        )  # fmt: skip
        if status[0] != RUNNING:
            out_reasons[row] = GAME_OVER
            continue
        counters[:] = 0
        deadline = _now() + seconds if seconds > 0.0 else 0.0
        move, value, reached, listed = _search_row(
            board, hand, to_move, ply, unflipped, flipped, status, moves, values, order, child_orders,
            order_counts, nodes, windows, root_orders[row], depth, exact_from, max_plies, deadline, vw, vb, pw, pb, obs,
            scratch, head_out, counters, out_listed[row], out_move_values[row],
        )  # fmt: skip
        out_moves[row] = move
        out_values[row] = value
        out_depths[row] = reached
        out_leaves[row] = counters[0]
        out_reasons[row] = counters[1]
        out_counts[row] = listed


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
            legal = boards[:, _FAR_END] != (FLIPPED | (1 - players[:, None]))
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
        legal = legal_counts(boards, players)
        orders = np.zeros((rows, NUM_ACTIONS), np.int64)
        for k, count in enumerate(legal.tolist()):
            order = list(range(count))
            if rngs is not None and rngs[k] is not None:
                rngs[k].shuffle(order)
            orders[k, :count] = order
        if exact_from is None:
            exact_from = 1 if self.exact_root else 0
        self.heads.refresh()
        heads = self.heads
        out = (
            np.empty(rows, np.int64), np.empty(rows, np.float64), np.empty(rows, np.int64), np.empty(rows, np.int64),
            np.empty(rows, np.int64), np.full((rows, NUM_ACTIONS), -1, np.int64), np.zeros(rows, np.int64),
            np.zeros((rows, NUM_ACTIONS), np.float64),
        )  # fmt: skip
        _search_batch(
            np.ascontiguousarray(boards, np.int8), np.ascontiguousarray(hands, np.int8),
            np.ascontiguousarray(players, np.int64), np.ascontiguousarray(plies, np.int64), orders,
            self.depth, exact_from, self.max_plies, 0.0 if self.ms is None else self.ms / 1000.0,
            heads.value_weights, heads.value_biases, heads.policy_weights, heads.policy_biases, heads.width, *out,
        )  # fmt: skip
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
