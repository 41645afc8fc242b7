"""The Invers search bot's alpha-beta in compiled code (Numba): the kernels behind ``search``.

This is the search that :class:`agents.search.AlphaBeta` runs with the Invers evaluation
(negamax, iterative deepening, a transposition table, the evaluation in hundredths of a
flipped tile), written out over arrays so that it runs in machine code: the same move,
the same values, for every position, at every depth (``tests/test_invers_compiled_search.py``
plays it move for move against the generic search with that evaluation, kept as the
reference in :mod:`agents.invers.reference_search`). What it adds is speed: tens of times
the nodes a second, so deeper searches are affordable and a batch of positions is one call.

**The state** is four arrays of named records: the position in each slot below the root
(slot ``s`` a ply deep, the root slot 0), :data:`~envs.batched.invers_kernel.POSITION`
records whose push and endings are the position kernel's (:mod:`envs.batched.invers_kernel`,
the batched env's own), so the search cannot disagree with the env about the rules; each
slot's node (:data:`NODE`); the transposition table (:data:`TABLE_ENTRY`); the search's
settings and progress (:data:`PROGRESS`). This module adds the evaluation
(:mod:`agents.invers.evaluation`) and the alpha-beta.

**The search**, as the generic one with the Invers evaluator does it:

* the one-ply iteration scores every legal push (ascending), visits them in the root
  order the caller gives (shuffled by the bot's generator in Python, so that the
  generator draws exactly what it drew before), and picks the first best;
* every deeper iteration searches the root moves in the order last searched with the best
  move moved to the front; a root move gets the window above the best value so far,
  or the full window at the iterations from ``exact_from`` on (move values);
* inside the tree: the table's entry cuts off when deep enough and its bound allows, its
  best move is tried first, then pushes flipping one's own tile, pushes of one's own
  flipped tile, pushes flipping the opponent's tile; every inner node is stored (a
  dictionary in the generic search: here an open-addressing table keyed by the whole
  position, which never loses an entry; when it fills, the search stops and the caller
  retries with a table twice as large, so the result is the same);
* a leaf is worth the evaluation points of the side to move; a finished game ``WIN`` less
  the game's ply, a draw 0.

**Time.** With a deadline (``time.perf_counter`` seconds) the clock is read every
:data:`NODES_PER_CLOCK` inner nodes and an unfinished iteration is discarded, as the
generic search with this evaluation does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from agents.compiled_searches import DONE, GAME_OVER, OUT_OF_TIME, TABLE_FULL, now
from agents.invers.evaluation import BLOCK, EDGE_TILE, FLIP_NOW, TILE, WIN
from envs.batched import invers_kernel as kernel
from envs.batched.invers_kernel import FAR_ENDS, PUSH_LINES, RUNNING
from envs.games.invers import NUM_ACTIONS
from envs.games.invers_tiles import CELLS, FLIPPED

LOWEST, HIGHEST = -WIN - 1, WIN + 1  #: below and above every value
NODES_PER_CLOCK = 1024  #: inner nodes between looks at the clock
#: per cell, the pushes whose far end it is (0 inside, 1 on an edge, 2 in a corner)
FAR_END_COUNT = np.bincount(FAR_ENDS, minlength=CELLS).astype(np.int64)
MAX_LOAD = 0.75  #: the table is full at this share of its slots

#: A node being searched, one a slot below the root.
NODE = np.dtype(
    [
        ("mover", np.int64),  # the player to move, for whom ``best`` counts
        ("depth", np.int64),  # plies still to search
        ("alpha", np.int64),  # the window, alpha raised as better moves are found
        ("beta", np.int64),
        ("start_alpha", np.int64),  # alpha on entry: tells an exact value from a bound
        ("best", np.int64),  # the best value so far, and its move
        ("best_move", np.int64),
        ("moves", np.int64, (NUM_ACTIONS,)),  # the moves in the order to try them
        ("move_count", np.int64),
        ("next_move", np.int64),  # the index of the next one to try
        ("table_slot", np.int64),  # the node's entry in the table, and whether it was there
        ("found", np.bool_),
    ],
    align=True,
)

#: An entry of the transposition table (open addressing, keyed by the whole position).
TABLE_ENTRY = np.dtype(
    [
        ("key_high", np.uint64),  # the key's words (:func:`_key`)
        ("key_low", np.uint64),
        ("stamp", np.int64),  # the search that wrote the entry (another stamp: empty)
        ("depth", np.int64),  # the depth searched
        ("value", np.int64),
        ("bound", np.int8),  # 1 a lower bound, -1 an upper one, 0 exact
        ("move", np.int8),  # the best move
    ],
    align=True,
)

#: One search's settings and tally: the game's ply limit, its deadline (0: none), the
#: table's stamp for it and the entries it wrote, its inner nodes, why it ended, and the
#: far ends by tile code of the node whose children are leaves and of the child being
#: valued (:func:`_leaf_push_value`).
PROGRESS = np.dtype(
    [
        ("max_plies", np.int64),
        ("deadline", np.float64),
        ("stamp", np.int64),
        ("entries", np.int64),
        ("nodes", np.int64),
        ("reason", np.int64),
        ("tally", np.int64, (4,)),
        ("after", np.int64, (4,)),
    ],
    align=True,
)


@numba.njit(cache=True)
def _terminal_value(position, me):
    """The value for ``me`` of the finished game ``position``: ``WIN`` less its ply, or 0."""
    if position.status == me:
        return WIN - position.ply
    if position.status == 1 - me:
        return -(WIN - position.ply)
    return 0


@numba.njit(cache=True)
def _far_end_tally(position, tally):
    """``tally[code]``: how many pushes have a tile of that code on their far end (what the
    evaluation counts: see :func:`_leaf_push_value`)."""
    for code in range(4):
        tally[code] = 0
    for a in range(NUM_ACTIONS):
        tally[position.board[FAR_ENDS[a]]] += 1


@numba.njit(cache=True)
def _leaf_push_value(positions, progress, s, action):
    """The value for the mover of slot ``s`` of its push ``action`` where the search ends after
    it: the child, pushed into slot ``s + 1``, by its outcome if the game is over, else minus
    the evaluation (:mod:`agents.invers.evaluation`) for its mover. The child's far ends are
    counted as slot ``s``'s (``progress.tally``, :func:`_far_end_tally`) corrected on the six
    cells the push moves."""
    kernel.push(positions, s, s + 1, action, progress.max_plies)
    parent, child = positions[s], positions[s + 1]
    me = parent.to_move
    other = 1 - me
    if child.status != RUNNING:
        return _terminal_value(child, me)
    after = progress.after
    for code in range(4):
        after[code] = progress.tally[code]
    for i in range(6):
        cell = PUSH_LINES[action, i]
        weight = FAR_END_COUNT[cell]
        if weight:
            after[parent.board[cell]] -= weight
            after[child.board[cell]] += weight
    mine, theirs = child.flipped[me], child.flipped[other]
    value = TILE * (theirs - mine) + EDGE_TILE * (after[other] - after[me])
    value += BLOCK * (after[FLIPPED | other] - after[FLIPPED | me]) + FLIP_NOW * (after[other] > 0)
    return -value


@numba.njit(cache=True)
def _key(position):
    """The whole position (board, hands, player to move, ply) as two words."""
    board = position.board
    high = np.uint64(0)
    for cell in range(32):
        high = (high << np.uint64(2)) | np.uint64(board[cell])
    low = np.uint64(0)
    for cell in range(32, CELLS):
        low = (low << np.uint64(2)) | np.uint64(board[cell])
    low |= np.uint64(position.hands[0]) << np.uint64(8)
    low |= np.uint64(position.hands[1]) << np.uint64(10)
    low |= np.uint64(position.to_move) << np.uint64(12)
    low |= np.uint64(position.ply) << np.uint64(13)
    return high, low


@numba.njit(cache=True)
def _slot_of(high, low, mask):
    """The first table slot to probe for a key (a multiplicative mix of both words)."""
    mixed = (high * np.uint64(0x9E3779B97F4A7C15)) ^ (low * np.uint64(0xC2B2AE3D27D4EB4F))
    mixed ^= mixed >> np.uint64(29)
    return np.int64(mixed & np.uint64(mask))


@numba.njit(cache=True)
def _enter(positions, nodes, table, progress, s, me, depth, alpha, beta):
    """Start the node in slot ``s`` (its mover ``me``, ``depth`` plies to search, the window
    ``alpha``, ``beta``): count it, read the clock, look it up in the table, and order its
    moves. Returns ``(True, value)`` when the table settles it, else ``(False, 0)``; an
    abort sets ``progress.reason``."""
    progress.nodes += 1
    if progress.deadline > 0.0 and progress.nodes % NODES_PER_CLOCK == 0 and now() > progress.deadline:
        progress.reason = OUT_OF_TIME
        return True, 0
    position = positions[s]
    high, low = _key(position)
    mask = table.shape[0] - 1
    slot = _slot_of(high, low, mask)
    found = False
    while table[slot].stamp == progress.stamp:
        if table[slot].key_high == high and table[slot].key_low == low:
            found = True
            break
        slot = (slot + 1) & mask
    first = -1
    if found:
        entry = table[slot]
        first = entry.move
        if entry.depth >= depth and (
            entry.bound == 0 or (entry.bound > 0 and entry.value >= beta) or (entry.bound < 0 and entry.value <= alpha)
        ):
            return True, entry.value
    # the move order: the table's move, then own tiles, own flipped tiles, the opponent's
    node = nodes[s]
    moves = node.moves
    count = 0
    if first >= 0:
        moves[0] = first
        count = 1
    for group in range(3):
        wanted = me if group == 0 else ((FLIPPED | me) if group == 1 else 1 - me)
        for a in range(NUM_ACTIONS):
            if a != first and position.board[FAR_ENDS[a]] == wanted:
                moves[count] = a
                count += 1
    node.mover = me
    node.depth = depth
    node.alpha = alpha
    node.beta = beta
    node.start_alpha = alpha
    node.best = LOWEST
    node.best_move = -1
    node.move_count = count
    node.next_move = 0
    node.table_slot = slot
    node.found = found
    return False, 0


@numba.njit(cache=True)
def _store(positions, nodes, table, progress, s):
    """Write the finished node of slot ``s`` to the table, as the generic search does: its
    depth, best value, bound and best move; a full table aborts (``TABLE_FULL``)."""
    node = nodes[s]
    entry = table[node.table_slot]
    if not node.found:
        if progress.entries + 1 > MAX_LOAD * table.shape[0]:
            progress.reason = TABLE_FULL
            return
        progress.entries += 1
        entry.key_high, entry.key_low = _key(positions[s])
        entry.stamp = progress.stamp
    entry.depth = node.depth
    entry.value = node.best
    entry.bound = 1 if node.best >= node.beta else (-1 if node.best <= node.start_alpha else 0)
    entry.move = node.best_move


@numba.njit(cache=True)
def _negamax(positions, nodes, table, progress, top, me, depth, alpha, beta):
    """The value for its mover ``me`` of the unfinished position in slot ``top``, searched
    ``depth`` plies deep in the window (``alpha``, ``beta``): the generic search's negamax,
    its recursion kept on an explicit stack of slots (``nodes``, see :func:`_enter`). An
    abort returns 0 with ``progress.reason`` set."""
    settled, value = _enter(positions, nodes, table, progress, top, me, depth, alpha, beta)
    if settled:
        return value
    s = top
    while True:
        node = nodes[s]
        if node.next_move < node.move_count:  # the next move of the node in slot s
            action = node.moves[node.next_move]
            if node.depth == 1 and node.next_move == 0:
                _far_end_tally(positions[s], progress.tally)
            node.next_move += 1
            t = s + 1
            if node.depth == 1:
                value = _leaf_push_value(positions, progress, s, action)
            else:
                kernel.push(positions, s, t, action, progress.max_plies)
                if positions[t].status != RUNNING:
                    value = _terminal_value(positions[t], node.mover)
                else:
                    settled, value = _enter(
                        positions, nodes, table, progress, t, 1 - node.mover, node.depth - 1, -node.beta, -node.alpha
                    )
                    if progress.reason != DONE:
                        return 0
                    if not settled:
                        s = t  # search the child
                        continue
                    value = -value
        else:  # the node in slot s is done: store it and hand its value to its parent
            _store(positions, nodes, table, progress, s)
            if progress.reason != DONE:
                return 0
            value = node.best
            if s == top:
                return value
            s -= 1
            node = nodes[s]
            value = -value
        # the child's value, for the node in slot s
        if value > node.best:
            node.best = value
            node.best_move = node.moves[node.next_move - 1]
            if value > node.alpha:
                node.alpha = value
                if value >= node.beta:
                    node.next_move = node.move_count  # a cut-off: no more moves here


@numba.njit(cache=True)
def _search_root(positions, nodes, table, progress, root_order, depth, exact_from, searched, values):
    """Iterative deepening from the position in slot 0 (running, its mover's pushes
    ``root_order`` indices into the ascending legal pushes). Writes the root moves in
    the order the deciding iteration searched them (``searched``) with their values
    (``values``) and returns ``(move, value, depth, reason)``; ``depth`` 1 gives the
    one-ply values in ascending order."""
    me = positions[0].to_move
    moves = np.empty(NUM_ACTIONS, np.int64)
    legal = kernel.legal_pushes(positions[0], moves)
    one_ply = np.empty(legal, np.int64)
    _far_end_tally(positions[0], progress.tally)
    for i in range(legal):
        one_ply[i] = _leaf_push_value(positions, progress, 0, moves[i])
    best_move, best_value = -1, LOWEST
    for k in range(legal):
        i = root_order[k]
        if one_ply[i] > best_value:
            best_move, best_value = moves[i], one_ply[i]
    for i in range(legal):
        searched[i] = moves[i]
        values[i] = one_ply[i]
    order = np.empty(legal, np.int64)
    for k in range(legal):
        order[k] = moves[root_order[k]]
    reached = 1
    ranked = np.empty(legal, np.int64)
    partial = np.empty(legal, np.int64)
    for iteration in range(2, depth + 1):
        ranked[0] = best_move
        n = 1
        for k in range(legal):
            if order[k] != best_move:
                ranked[n] = order[k]
                n += 1
        exact = exact_from > 0 and iteration >= exact_from
        move, value = -1, LOWEST
        for k in range(legal):
            action = ranked[k]
            kernel.push(positions, 0, 1, action, progress.max_plies)
            if positions[1].status != RUNNING:
                v = _terminal_value(positions[1], me)
            else:
                alpha = LOWEST if exact else value
                v = -_negamax(positions, nodes, table, progress, 1, 1 - me, iteration - 1, -HIGHEST, -alpha)
                if progress.reason != DONE:
                    return best_move, best_value, reached, progress.reason
            partial[k] = v
            if v > value:
                move, value = action, v
        best_move, best_value, reached = move, value, iteration
        for k in range(legal):
            order[k] = ranked[k]
            searched[k] = ranked[k]
            values[k] = partial[k]
    return best_move, best_value, reached, DONE


@numba.njit(cache=True)
def _search_batch(roots, root_orders, legal_counts, depth, exact_from, seconds, search, results):
    """Search every row of ``roots`` (boards, hands, players to move, plies) in turn, each with
    a fresh table (a new stamp), each with its own time (``seconds`` a row, 0 for none), into
    ``results`` (moves, values, depths, reasons, searched, move values); a row the table cannot
    hold is marked ``TABLE_FULL`` and left for the caller. ``search``: the positions, nodes,
    table and progress the search works in."""
    boards, hands, players, plies = roots
    moves, values, depths, reasons, searched, move_values = results
    positions, nodes, table, progress_record = search
    progress = progress_record[0]
    for row in range(boards.shape[0]):
        kernel.load(positions, 0, boards[row], hands[row], players[row], plies[row], progress.max_plies)
        if positions[0].status != RUNNING:
            reasons[row] = GAME_OVER
            continue
        progress.nodes = 0
        progress.stamp += 1
        progress.entries = 0
        progress.reason = DONE
        progress.deadline = now() + seconds if seconds > 0.0 else 0.0
        moves[row], values[row], depths[row], reasons[row] = _search_root(
            positions, nodes, table, progress, root_orders[row, : legal_counts[row]], depth, exact_from,
            searched[row], move_values[row],
        )  # fmt: skip


class CompiledSearch:
    """The compiled search at a fixed ``depth`` (and optionally a time per position), with
    its transposition table kept between calls (each search starts it afresh by a new stamp).

    Args:
        depth: the deepest iteration in plies.
        max_plies: the game's ply limit (a game reaching it is drawn).
        seconds: time per position, or None for a fixed-depth, reproducible search.
        capacity: the table's first size in entries (a power of two; doubled when a search fills it).
            Small by default: a depth-4 search stores a few hundred positions, and a table that
            fits the cache makes each move faster (``benchmarks/search_speed.py`` times it);
            deeper searches grow it once and keep it.
    """

    def __init__(self, depth: int, max_plies: int, seconds: float | None = None, capacity: int = 1 << 12):
        self.depth = depth
        self.max_plies = max_plies
        self.seconds = seconds
        slots = depth + 2
        self._positions = kernel.new_positions(slots)
        self._nodes = np.zeros(slots, NODE)
        self._table = np.zeros(capacity, TABLE_ENTRY)
        self._progress = np.zeros(1, PROGRESS)
        self._progress[0]["max_plies"] = max_plies

    @property
    def capacity(self) -> int:
        """The table's size in entries."""
        return len(self._table)

    def search(
        self,
        boards: np.ndarray,
        hands: np.ndarray,
        players: np.ndarray,
        plies: np.ndarray,
        root_orders: np.ndarray,
        exact: bool = False,
        legal: np.ndarray | None = None,
    ) -> SearchResults:
        """Search each position (``(B, 36)`` tile codes, ``(B, 2)`` tiles in hand, the player
        to move and the ply of each): ``root_orders[k]`` lists row ``k``'s legal pushes'
        indices (into its ascending legal pushes) in the order the one-ply iteration visits
        them; ``exact`` gives the deepest iteration's root moves the full window; ``legal``: the
        positions' :func:`~envs.batched.invers_kernel.legal_counts`, where the caller has them already."""
        legal = kernel.legal_counts(boards, players) if legal is None else legal
        positions = (
            np.ascontiguousarray(boards, np.int8),
            np.ascontiguousarray(hands, np.int8),
            np.ascontiguousarray(players, np.int64),
            np.ascontiguousarray(plies, np.int64),
        )
        orders = np.ascontiguousarray(root_orders, np.int64)
        results = self._search_rows(positions, orders, legal, exact)
        full = np.flatnonzero(results.reasons == TABLE_FULL)
        while len(full):  # rare: a search filled the table; grow it and search those rows again
            self._table = np.zeros(2 * self.capacity, TABLE_ENTRY)
            retried = self._search_rows(tuple(array[full] for array in positions), orders[full], legal[full], exact)
            for name in ("moves", "values", "depths", "reasons", "searched", "move_values"):
                getattr(results, name)[full] = getattr(retried, name)
            full = full[retried.reasons == TABLE_FULL]
        return results

    def _search_rows(self, positions: tuple, orders: np.ndarray, legal: np.ndarray, exact: bool) -> SearchResults:
        """One call of the kernel over every row of ``positions`` (contiguous arrays)."""
        results = SearchResults.empty(len(legal), legal)
        _search_batch(
            positions,
            orders,
            legal,
            self.depth,
            self.depth if exact else 0,
            0.0 if self.seconds is None else float(self.seconds),
            (self._positions, self._nodes, self._table, self._progress),
            (results.moves, results.values, results.depths, results.reasons, results.searched, results.move_values),
        )
        return results


@dataclass
class SearchResults:
    """What :meth:`CompiledSearch.search` finds for ``B`` positions: per row the move, its
    value (evaluation points), the depth of the iteration that decided, why the search
    ended (``DONE``, ``OUT_OF_TIME``, ``GAME_OVER``), the number of legal pushes, and the
    root moves in the order the deciding iteration searched them with their values (the
    first ``legal[k]`` entries of row ``k``)."""

    moves: np.ndarray
    values: np.ndarray
    depths: np.ndarray
    reasons: np.ndarray
    legal: np.ndarray
    searched: np.ndarray
    move_values: np.ndarray

    @classmethod
    def empty(cls, rows: int, legal: np.ndarray) -> SearchResults:
        return cls(
            np.empty(rows, np.int64),
            np.empty(rows, np.int64),
            np.empty(rows, np.int64),
            np.empty(rows, np.int64),
            legal,
            np.full((rows, NUM_ACTIONS), -1, np.int64),
            np.zeros((rows, NUM_ACTIONS), np.int64),
        )

    def root_values(self, row: int) -> dict[int, int]:
        """Row ``row``'s root moves and their values, in the order searched."""
        n = int(self.legal[row])
        return dict(zip(self.searched[row, :n].tolist(), self.move_values[row, :n].tolist()))
