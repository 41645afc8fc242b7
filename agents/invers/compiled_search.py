"""The Invers search bot's alpha-beta in compiled code (Numba): the kernels behind ``search``.

This is the search that :class:`agents.search.AlphaBeta` runs with the Invers evaluation
(negamax, iterative deepening, a transposition table, the evaluation in hundredths of a
flipped tile), written out over arrays so that it runs in machine code: the same move,
the same values, for every position, at every depth (``tests/test_invers_compiled_search.py``
plays it move for move against the generic search with that evaluation, kept as the
reference in :mod:`agents.invers.reference_search`). What it adds is speed: tens of times
the nodes a second, so deeper searches are affordable and a batch of positions is one call.

**The position** is held per ply below the root (slot ``s``: the root is slot 0): the 36
tile codes (bit 0 the colour, bit 1 flipped), the tiles in hand, the player to move, the
game's ply, each colour's tiles still colour side up and flipped, and the status
(``RUNNING``, ``DRAWN``, or the winner). A push copies slot ``s`` into slot ``s + 1`` and
applies the rules core's push and endings there (:func:`_push`).

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

import time
from dataclasses import dataclass

import numba
import numpy as np

from envs.games.invers import FAR_END, LINES, NUM_ACTIONS
from envs.games.invers_tiles import CELLS, FLIPPED

# Evaluation weights, in hundredths of a flipped tile (tuned in matches of depth-3 and
# depth-4 searches against each other, 40 games a pairing, seats swapped).
TILE = 100  #: per flipped tile of one's own colour, minus the opponent's
EDGE_TILE = 45  #: per push that would flip one of one's own tiles, minus the opponent's
BLOCK = 3  #: per push one's flipped tiles block for the opponent, minus the reverse
FLIP_NOW = 25  #: the side to move can flip one of its own tiles at once
WIN = 1_000_000  #: a won game, less its ply
LOWEST, HIGHEST = -WIN - 1, WIN + 1  #: below and above every value
NODES_PER_CLOCK = 1024  #: inner nodes between looks at the clock

RUNNING, DRAWN = -2, -1  #: a slot's status when no one has won (else the winner, 0 or 1)
#: what a search returns besides its values: done, out of time, or the table was full
#: (or the root position is already over)
DONE, OUT_OF_TIME, TABLE_FULL, GAME_OVER = 0, 1, 2, 3

_LINES = np.array(LINES, np.int64)
_FAR_END = np.array(FAR_END, np.int64)
_NUM_BORDER = len(set(FAR_END))
#: per cell, the pushes whose far end it is (0 inside, 1 on an edge, 2 in a corner)
_FAR_END_COUNT = np.bincount(_FAR_END, minlength=CELLS).astype(np.int64)
_MAX_LOAD = 0.75  #: the table is full at this share of its slots


@numba.njit
def _now() -> float:
    with numba.objmode(now="float64"):
        now = time.perf_counter()
    return now


@numba.njit(cache=True)
def _settle(board, hand, to_move, ply, unflipped, flipped, status, s, max_plies):
    """The status of slot ``s`` from its counts, as the rules core settles a position."""
    if unflipped[s, 0] == 0 or unflipped[s, 1] == 0:
        status[s] = 0 if unflipped[s, 0] == 0 else 1
        return
    _settle_turn(board, to_move, ply, flipped, status, s, max_plies)


@numba.njit(cache=True)
def _settle_turn(board, to_move, ply, flipped, status, s, max_plies):
    """The status of slot ``s`` where no colour is all flipped: the player to move blocked (the
    opponent's flipped tile on every far end; the core counts those tiles first), else drawn at
    ``max_plies``, else running."""
    status[s] = RUNNING
    player = to_move[s]
    opponent = 1 - player
    if flipped[s, opponent] >= _NUM_BORDER:
        blocked = True
        for a in range(NUM_ACTIONS):
            if board[s, _FAR_END[a]] != (FLIPPED | opponent):
                blocked = False
                break
        if blocked:
            mine, theirs = flipped[s, player], flipped[s, opponent]
            status[s] = player if mine > theirs else (opponent if theirs > mine else DRAWN)
            return
    if ply[s] >= max_plies:
        status[s] = DRAWN


@numba.njit(cache=True)
def _push(board, hand, to_move, ply, unflipped, flipped, status, s, action, max_plies):
    """Slot ``s + 1``: slot ``s`` after its player to move pushes ``action`` (the core's ``apply``)."""
    t = s + 1
    for cell in range(CELLS):
        board[t, cell] = board[s, cell]
    mover = to_move[s]
    for p in range(2):
        hand[t, p] = hand[s, p]
        unflipped[t, p] = unflipped[s, p]
        flipped[t, p] = flipped[s, p]
    fallen = board[t, _LINES[action, 5]]
    for i in range(5, 0, -1):
        board[t, _LINES[action, i]] = board[t, _LINES[action, i - 1]]
    board[t, _LINES[action, 0]] = hand[s, mover]
    hand[t, mover] = fallen | FLIPPED
    ply[t] = ply[s] + 1
    to_move[t] = 1 - mover
    if (fallen & FLIPPED) == 0:
        c = fallen & 1
        unflipped[t, c] -= 1
        flipped[t, c] += 1
        if unflipped[t, c] == 0:  # every tile of colour c is flipped: c wins
            status[t] = c
            return
    _settle_turn(board, to_move, ply, flipped, status, t, max_plies)


@numba.njit(cache=True)
def _terminal_value(ply, status, t, me):
    """The value for ``me`` of the finished game in slot ``t``: ``WIN`` less its ply, or 0."""
    if status[t] == me:
        return WIN - ply[t]
    if status[t] == 1 - me:
        return -(WIN - ply[t])
    return 0


@numba.njit(cache=True)
def _far_end_tally(board, s, tally):
    """``tally[code]``: how many pushes of slot ``s`` have a tile of that code on their far end
    (what the evaluation counts: see :func:`_leaf_push_value`)."""
    for code in range(4):
        tally[code] = 0
    for a in range(NUM_ACTIONS):
        tally[board[s, _FAR_END[a]]] += 1


@numba.njit(cache=True)
def _leaf_push_value(board, hand, to_move, ply, unflipped, flipped, s, action, max_plies, tally, after):
    """The value for the mover of slot ``s`` of its push ``action`` where the search ends
    after it, without writing the child: a finished game ``WIN`` less its ply (a draw 0),
    as :func:`_push` and :func:`_terminal_value` settle it; else minus the evaluation points
    of the child for its mover: ``TILE`` per flipped tile of one's colour, minus the
    opponent's; ``EDGE_TILE`` per push that would flip one's own tile, minus the opponent's;
    ``BLOCK`` per push blocked by one's flipped tile on its far end, minus the reverse;
    ``FLIP_NOW`` if one can flip a tile at once. The child's far ends are counted as slot
    ``s``'s (``tally``, :func:`_far_end_tally`) corrected on the six cells the push moves
    (``after``: scratch)."""
    me = to_move[s]
    other = 1 - me
    for code in range(4):
        after[code] = tally[code]
    for i in range(6):
        cell = _LINES[action, i]
        weight = _FAR_END_COUNT[cell]
        if weight:
            after[board[s, cell]] -= weight
            after[hand[s, me] if i == 0 else board[s, _LINES[action, i - 1]]] += weight
    child_ply = ply[s] + 1
    mine, theirs = flipped[s, me], flipped[s, other]
    fallen = board[s, _LINES[action, 5]]
    if (fallen & FLIPPED) == 0:
        c = fallen & 1
        if unflipped[s, c] == 1:  # its colour's last tile: c wins
            return WIN - child_ply if c == me else -(WIN - child_ply)
        if c == me:
            mine += 1
        else:
            theirs += 1
    if mine >= _NUM_BORDER and after[FLIPPED | me] == NUM_ACTIONS:  # the opponent is blocked
        if theirs == mine:
            return 0
        return WIN - child_ply if mine > theirs else -(WIN - child_ply)
    if child_ply >= max_plies:
        return 0
    value = TILE * (theirs - mine) + EDGE_TILE * (after[other] - after[me])
    value += BLOCK * (after[FLIPPED | other] - after[FLIPPED | me]) + FLIP_NOW * (after[other] > 0)
    return -value


@numba.njit(cache=True)
def _key(board, hand, to_move, ply, s):
    """The whole position of slot ``s`` (board, hands, player to move, ply) as two words."""
    high = np.uint64(0)
    for cell in range(32):
        high = (high << np.uint64(2)) | np.uint64(board[s, cell])
    low = np.uint64(0)
    for cell in range(32, CELLS):
        low = (low << np.uint64(2)) | np.uint64(board[s, cell])
    low |= np.uint64(hand[s, 0]) << np.uint64(8)
    low |= np.uint64(hand[s, 1]) << np.uint64(10)
    low |= np.uint64(to_move[s]) << np.uint64(12)
    low |= np.uint64(ply[s]) << np.uint64(13)
    return high, low


@numba.njit(cache=True)
def _slot_of(high, low, mask):
    """The first slot to probe for a key (a multiplicative mix of both words)."""
    mixed = (high * np.uint64(0x9E3779B97F4A7C15)) ^ (low * np.uint64(0xC2B2AE3D27D4EB4F))
    mixed ^= mixed >> np.uint64(29)
    return np.int64(mixed & np.uint64(mask))


@numba.njit(cache=True)
def _enter(
    board, hand, to_move, ply, moves, nodes, table, counters, s, me, depth, alpha, beta, deadline
):  # fmt: skip
    """Start the node in slot ``s`` (its mover ``me``, ``depth`` plies to search, the window
    ``alpha``, ``beta``): count it, read the clock, look it up in the table, and order its
    moves. Returns ``(True, value)`` when the table settles it, else ``(False, 0)``; an
    abort sets ``counters[3]``."""
    table_high, table_low, table_stamp, table_depth, table_value, table_bound, table_move = table
    counters[0] += 1
    if deadline > 0.0 and counters[0] % NODES_PER_CLOCK == 0 and _now() > deadline:
        counters[3] = OUT_OF_TIME
        return True, 0
    high, low = _key(board, hand, to_move, ply, s)
    mask = table_high.shape[0] - 1
    slot = _slot_of(high, low, mask)
    stamp = counters[1]
    found = False
    while table_stamp[slot] == stamp:
        if table_high[slot] == high and table_low[slot] == low:
            found = True
            break
        slot = (slot + 1) & mask
    first = -1
    if found:
        first = table_move[slot]
        value = table_value[slot]
        bound = table_bound[slot]
        if table_depth[slot] >= depth and (
            bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha)
        ):
            return True, value
    # the move order: the table's move, then own tiles, own flipped tiles, the opponent's
    count = 0
    if first >= 0:
        moves[s, 0] = first
        count = 1
    for group in range(3):
        wanted = me if group == 0 else ((FLIPPED | me) if group == 1 else 1 - me)
        for a in range(NUM_ACTIONS):
            if a != first and board[s, _FAR_END[a]] == wanted:
                moves[s, count] = a
                count += 1
    # nodes[s]: mover, depth, alpha, beta, start alpha, best, best move, next move, moves, table slot, found, key words
    nodes[s, 0] = me
    nodes[s, 1] = depth
    nodes[s, 2] = alpha
    nodes[s, 3] = beta
    nodes[s, 4] = alpha
    nodes[s, 5] = LOWEST
    nodes[s, 6] = -1
    nodes[s, 7] = 0
    nodes[s, 8] = count
    nodes[s, 9] = slot
    nodes[s, 10] = found
    return False, 0


@numba.njit(cache=True)
def _store(nodes, table, counters, high, low, s):
    """Write the finished node of slot ``s`` to the table, as the generic search does: its
    depth, best value, bound and best move; a full table aborts (``TABLE_FULL``)."""
    table_high, table_low, table_stamp, table_depth, table_value, table_bound, table_move = table
    best, beta, start_alpha = nodes[s, 5], nodes[s, 3], nodes[s, 4]
    slot = nodes[s, 9]
    if not nodes[s, 10]:
        if counters[2] + 1 > _MAX_LOAD * table_high.shape[0]:
            counters[3] = TABLE_FULL
            return
        counters[2] += 1
        table_stamp[slot] = counters[1]
        table_high[slot] = high
        table_low[slot] = low
    table_depth[slot] = nodes[s, 1]
    table_value[slot] = best
    table_bound[slot] = 1 if best >= beta else (-1 if best <= start_alpha else 0)
    table_move[slot] = nodes[s, 6]


@numba.njit(cache=True)
def _negamax(
    board, hand, to_move, ply, unflipped, flipped, status, moves, nodes, table, counters,
    top, me, depth, alpha, beta, max_plies, deadline,
):  # fmt: skip
    """The value for its mover ``me`` of the unfinished position in slot ``top``, searched
    ``depth`` plies deep in the window (``alpha``, ``beta``): the generic search's negamax,
    its recursion kept on an explicit stack of slots (``nodes``, see :func:`_enter`).
    ``counters``: [nodes, the table's stamp, its entries, the abort reason]; an abort
    returns 0 with the reason set."""
    settled, value = _enter(
        board, hand, to_move, ply, moves, nodes, table, counters, top, me, depth, alpha, beta, deadline
    )
    if settled:
        return value
    tally = np.empty(4, np.int64)  # of the one node at depth 1 being searched, whose children are leaves
    after = np.empty(4, np.int64)
    s = top
    while True:
        if nodes[s, 7] < nodes[s, 8]:  # the next move of the node in slot s
            action = moves[s, nodes[s, 7]]
            if nodes[s, 1] == 1 and nodes[s, 7] == 0:
                _far_end_tally(board, s, tally)
            nodes[s, 7] += 1
            mover = nodes[s, 0]
            t = s + 1
            if nodes[s, 1] == 1:
                value = _leaf_push_value(
                    board, hand, to_move, ply, unflipped, flipped, s, action, max_plies, tally, after
                )
            else:
                _push(board, hand, to_move, ply, unflipped, flipped, status, s, action, max_plies)
                if status[t] != RUNNING:
                    value = _terminal_value(ply, status, t, mover)
                else:
                    settled, value = _enter(
                        board, hand, to_move, ply, moves, nodes, table, counters,
                        t, 1 - mover, nodes[s, 1] - 1, -nodes[s, 3], -nodes[s, 2], deadline,
                    )  # fmt: skip
                    if counters[3] != DONE:
                        return 0
                    if not settled:
                        s = t  # search the child
                        continue
                    value = -value
        else:  # the node in slot s is done: store it and hand its value to its parent
            high, low = _key(board, hand, to_move, ply, s)
            _store(nodes, table, counters, high, low, s)
            if counters[3] != DONE:
                return 0
            value = nodes[s, 5]
            if s == top:
                return value
            s -= 1
            value = -value
        # the child's value, for the node in slot s
        if value > nodes[s, 5]:
            nodes[s, 5] = value
            nodes[s, 6] = moves[s, nodes[s, 7] - 1]
            if value > nodes[s, 2]:
                nodes[s, 2] = value
                if value >= nodes[s, 3]:
                    nodes[s, 7] = nodes[s, 8]  # a cut-off: no more moves here


@numba.njit(cache=True)
def _search_slots(
    board, hand, to_move, ply, unflipped, flipped, status, moves, nodes, table, counters,
    root_order, depth, exact_from, max_plies, deadline, searched, values,
):  # fmt: skip
    """Iterative deepening from the position in slot 0 (running, its mover's pushes
    ``root_order`` indices into the ascending legal pushes). Writes the root moves in
    the order the deciding iteration searched them (``searched``) with their values
    (``values``) and returns ``(move, value, depth, reason)``; ``depth`` 1 gives the
    one-ply values in ascending order."""
    me = to_move[0]
    legal = 0
    for a in range(NUM_ACTIONS):
        if board[0, _FAR_END[a]] != (FLIPPED | (1 - me)):
            moves[0, legal] = a
            legal += 1
    one_ply = np.empty(legal, np.int64)
    tally, after = np.empty(4, np.int64), np.empty(4, np.int64)
    _far_end_tally(board, 0, tally)
    for i in range(legal):
        one_ply[i] = _leaf_push_value(
            board, hand, to_move, ply, unflipped, flipped, 0, moves[0, i], max_plies, tally, after
        )
    best_move, best_value = -1, LOWEST
    for k in range(legal):
        i = root_order[k]
        if one_ply[i] > best_value:
            best_move, best_value = moves[0, i], one_ply[i]
    for i in range(legal):
        searched[i] = moves[0, i]
        values[i] = one_ply[i]
    order = np.empty(legal, np.int64)
    for k in range(legal):
        order[k] = moves[0, root_order[k]]
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
            _push(board, hand, to_move, ply, unflipped, flipped, status, 0, action, max_plies)
            if status[1] != RUNNING:
                v = _terminal_value(ply, status, 1, me)
            else:
                alpha = LOWEST if exact else value
                v = -_negamax(
                    board, hand, to_move, ply, unflipped, flipped, status, moves, nodes, table, counters,
                    1, 1 - me, iteration - 1, -HIGHEST, -alpha, max_plies, deadline,
                )  # fmt: skip
                if counters[3] != DONE:
                    return best_move, best_value, reached, counters[3]
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
def position_slots(slots):
    """Unfilled position arrays for ``slots`` slots (see "The position" above): board, tiles in
    hand, player to move, ply, tiles colour side up and flipped per colour, status."""
    return (
        np.empty((slots, CELLS), np.int8),
        np.empty((slots, 2), np.int8),
        np.empty(slots, np.int64),
        np.empty(slots, np.int64),
        np.empty((slots, 2), np.int64),
        np.empty((slots, 2), np.int64),
        np.empty(slots, np.int64),
    )


@numba.njit(cache=True)
def _load_root(
    board, hand, to_move, ply, unflipped, flipped, status, root_board, root_hands, root_to_move, root_ply, max_plies
):
    """Slot 0 := the given position, its counts and status worked out as the core's constructor does."""
    for p in range(2):
        unflipped[0, p] = 0
        flipped[0, p] = 0
    for cell in range(CELLS):
        tile = root_board[cell]
        board[0, cell] = tile
        if tile & FLIPPED:
            flipped[0, tile & 1] += 1
        else:
            unflipped[0, tile & 1] += 1
    for p in range(2):
        hand[0, p] = root_hands[p]
        if root_hands[p] & FLIPPED:
            flipped[0, root_hands[p] & 1] += 1
        else:
            unflipped[0, root_hands[p] & 1] += 1
    to_move[0] = root_to_move
    ply[0] = root_ply
    _settle(board, hand, to_move, ply, unflipped, flipped, status, 0, max_plies)


@numba.njit(cache=True)
def _search_batch(
    boards, hands, players, plies, root_orders, legal_counts, depth, exact_from, max_plies, deadline_seconds,
    table_high, table_low, table_stamp, table_depth, table_value, table_bound, table_move, counters,
    out_moves, out_values, out_depths, out_reasons, out_searched, out_move_values,
):  # fmt: skip
    """Search every row in turn, each with a fresh table (a new stamp), each with its own
    time (``deadline_seconds`` per row, 0 for none); a row that the table cannot hold is
    marked ``TABLE_FULL`` and left for the caller."""
    slots = depth + 2
    board, hand, to_move, ply, unflipped, flipped, status = position_slots(slots)
    moves = np.empty((slots, NUM_ACTIONS), np.int64)
    nodes = np.empty((slots, 11), np.int64)
    table = (table_high, table_low, table_stamp, table_depth, table_value, table_bound, table_move)
    for row in range(boards.shape[0]):
        _load_root(
            board,
            hand,
            to_move,
            ply,
            unflipped,
            flipped,
            status,
            boards[row],
            hands[row],
            players[row],
            plies[row],
            max_plies,
        )
        if status[0] != RUNNING:
            out_reasons[row] = GAME_OVER
            continue
        counters[0] = 0
        counters[1] += 1
        counters[2] = 0
        counters[3] = DONE
        deadline = _now() + deadline_seconds if deadline_seconds > 0.0 else 0.0
        move, value, reached, reason = _search_slots(
            board, hand, to_move, ply, unflipped, flipped, status, moves, nodes, table, counters,
            root_orders[row, : legal_counts[row]], depth, exact_from, max_plies, deadline,
            out_searched[row], out_move_values[row],
        )  # fmt: skip
        out_moves[row] = move
        out_values[row] = value
        out_depths[row] = reached
        out_reasons[row] = reason


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
        self._counters = np.zeros(4, np.int64)
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        self._table = (
            np.zeros(capacity, np.uint64),  # the key's high word
            np.zeros(capacity, np.uint64),  # its low word
            np.zeros(capacity, np.int64),  # the stamp of the search that wrote the entry
            np.zeros(capacity, np.int64),  # the depth searched
            np.zeros(capacity, np.int64),  # the value
            np.zeros(capacity, np.int8),  # the bound: 1 lower, -1 upper, 0 exact
            np.zeros(capacity, np.int8),  # the best move
        )

    @property
    def capacity(self) -> int:
        """The table's size in entries."""
        return len(self._table[0])

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
        positions' :func:`legal_counts`, where the caller has them already."""
        legal = legal_counts(boards, players) if legal is None else legal
        positions = (
            np.ascontiguousarray(boards, np.int8),
            np.ascontiguousarray(hands, np.int8),
            np.ascontiguousarray(players, np.int64),
            np.ascontiguousarray(plies, np.int64),
            np.ascontiguousarray(root_orders, np.int64),
        )
        results = self._search_rows(positions, legal, exact)
        full = np.flatnonzero(results.reasons == TABLE_FULL)
        while len(full):  # rare: a search filled the table; grow it and search those rows again
            self._allocate(2 * self.capacity)
            retried = self._search_rows(tuple(array[full] for array in positions), legal[full], exact)
            for name in ("moves", "values", "depths", "reasons", "searched", "move_values"):
                getattr(results, name)[full] = getattr(retried, name)
            full = full[retried.reasons == TABLE_FULL]
        return results

    def _search_rows(self, positions: tuple[np.ndarray, ...], legal: np.ndarray, exact: bool) -> SearchResults:
        """One call of the kernel over every row of ``positions`` (contiguous arrays)."""
        results = SearchResults.empty(len(legal), legal)
        _search_batch(
            *positions,
            legal,
            self.depth,
            self.depth if exact else 0,
            self.max_plies,
            0.0 if self.seconds is None else float(self.seconds),
            *self._table,
            self._counters,
            results.moves,
            results.values,
            results.depths,
            results.reasons,
            results.searched,
            results.move_values,
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


def legal_counts(boards: np.ndarray, players: np.ndarray) -> np.ndarray:
    """The number of legal pushes of the player to move in each position: every push but
    those that would push out an opponent's flipped tile."""
    far = np.asarray(boards)[:, _FAR_END]
    return np.count_nonzero(far != (FLIPPED | (1 - np.asarray(players)[:, None])), axis=1).astype(np.int64)
