"""Batched twin of Roll Five (:mod:`envs.games.roll_five`): ``N`` games as arrays, rules in Numba kernels.

State, one row per game (``P`` players, five slots, six faces):

* ``cards (N, P, 5) int8``: each player's dealt row of cards, slot 0 first; ``tape (N, P, 5, 5)
  int8``: the roll tape, ``tape[row, p, t]`` whose first ``5 − t`` values are ``p``'s roll on turn ``t``;
* ``dice (N, P, 5) int8``: the die placed on each slot, 0 while uncovered; ``uncovered (N, P) int64``:
  bitset of the uncovered slots; ``placed (N, P, 6) int8``: count of each face among the placed dice
  (the opponents' observation blocks);
* ``roll (N, P, 6) int8``: count of each face in the current roll and ``faces (N, P) int64`` its
  bitset of faces (both zero during the bid); ``turn (N,) int64``: 0..4 placing, 5 the bid;
* ``pending (N, P) int64``: the action a player committed this round (hidden; read at the resolve);
  ``acting_ (N, P) bool``: still to commit this round; ``terminal_ (N,) bool``;
* ``_totals (N, P) float64`` (the base's): pairs kept under the bid (the scores, 0 until the reveal);
  ``distance (N, P) int64``: tournament tie-break; ``outcome (N, P) float64``: the core's ``returns()``
  (winners +1, others −1, all 0 when everyone shares the win), set at the reveal.

A round resolves when its last acting seat commits, whatever the order of the commits: each
commit only records ``pending`` and clears the seat's ``acting_`` flag. The observation is built
from tables made from the core's own (``_SLOT_BLOCKS``, ``_PHASES``, ``_roll_facts``), so every
float32 entry is the core's float64 value rounded once, as the core rounds it. ``returns()`` is
overridden: in tournament mode the win is not read off the scores alone.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched.rules import BatchedGame
from envs.batched.streams import bounded, shuffle
from envs.games import roll_five as core
from envs.games.roll_five import (
    BID_HIGH,
    CARDS_PER_PLAYER,
    FACES,
    HIGH,
    HIGH_BEST,
    MAX_OPPONENTS,
    NUM_ACTIONS,
    NUM_TURNS,
    OBS_KEPT,
    OBS_OPPONENTS,
    OBS_PHASE,
    OBS_ROLL,
    OBS_SIZE,
    OBS_TO_ACT,
    OBS_TOURNAMENT,
    OPPONENT_BLOCK,
    SLOT_BLOCK,
    RollFive,
    RollFiveState,
    keeps_high,
    keeps_low,
)

# -- tables, built once from the core's ------------------------------------------------
#: ``SLOT_TABLE[card, die]``: the 26 observation entries of a slot (``core._SLOT_BLOCKS``).
SLOT_TABLE = np.zeros((FACES + 1, FACES + 1, SLOT_BLOCK), np.float32)
for _card in range(1, FACES + 1):
    for _die in range(FACES + 1):
        SLOT_TABLE[_card, _die] = core._SLOT_BLOCKS[_card][_die]
#: ``KEEPS[bid, card, die]``: 1 when the pair survives the bid (``HIGH`` or ``LOW``).
KEEPS = np.array(
    [
        [[int(bool(d) and keep(c, d)) for d in range(FACES + 1)] for c in range(FACES + 1)]
        for keep in (keeps_high, keeps_low)
    ],
    np.int64,
)
#: ``PLACEMENT_MASKS[faces, uncovered]``: the core's ``_PLACEMENT_MASKS``; ``BID_MASK`` the bid's.
PLACEMENT_MASKS = np.array([[np.asarray(m) for m in row] for row in core._PLACEMENT_MASKS], np.int8)
BID_MASK = np.array(core._BID_MASK, np.int8)
#: ``ROLL_ENTRY[k]``: the roll entry of a face shown ``k`` times (the core's ``_roll_facts``);
#: also the kept-pairs entry of ``k`` pairs (``k / 5``).
ROLL_ENTRY = np.array([0.0] + [core._roll_facts((1,) * k)[1][0] for k in range(1, CARDS_PER_PLAYER + 1)], np.float32)
#: ``PLACED_ENTRY[k]``: an opponent's count entry of ``k`` placed dice of a face, summed as the core sums it.
PLACED_ENTRY = np.array([sum([1 / CARDS_PER_PLAYER] * k) for k in range(CARDS_PER_PLAYER + 1)], np.float32)
#: ``PHASE_TABLE[turn]``: the round's one-hot, row ``NUM_TURNS + 1`` (all zero) once over (``core._PHASES``).
PHASE_TABLE = np.array(core._PHASES, np.float32)
ALL_SLOTS = 2**CARDS_PER_PLAYER - 1
OBS_ROLL_START = OBS_ROLL.start
OBS_KEPT_START = OBS_KEPT.start
OBS_PHASE_START = OBS_PHASE.start
assert OBS_SIZE == OBS_OPPONENTS + MAX_OPPONENTS * OPPONENT_BLOCK and NUM_ACTIONS == PLACEMENT_MASKS.shape[2]


@numba.njit(cache=True)
def _roll_turn(row, turn, tape, roll, faces):
    """Every player's roll of ``turn`` read off the tape (counts and face bitset; zeros at the bid)."""
    players = roll.shape[1]
    for p in range(players):
        roll[row, p, :] = 0
        bits = 0
        if turn < NUM_TURNS:
            for i in range(NUM_TURNS - turn):
                value = np.int64(tape[row, p, turn, i])
                roll[row, p, value - 1] += 1
                bits |= 1 << (value - 1)
        faces[row, p] = bits


@numba.njit(cache=True)
def _draw_rolls(streams, row, tape, first_turn):
    """The roll tape drawn from ``streams[row]`` as ``integers(1, 7, size=(P, 5, 5))`` draws it (C
    order), of which only the turns from ``first_turn`` on are written: a new game's tape, and the
    core's ``clone_resampled`` (the turns already rolled kept)."""
    for p in range(tape.shape[1]):
        for t in range(NUM_TURNS):
            for c in range(CARDS_PER_PLAYER):
                value = bounded(streams, row, 1, FACES + 1)
                if t >= first_turn:
                    tape[row, p, t, c] = value


@numba.njit(cache=True)
def _resample_kernel(rows, streams, tape, turn):
    """Redraw the rolls of the turns to come of every game in ``rows`` (see :func:`_draw_rolls`)."""
    for k in range(rows.shape[0]):
        _draw_rolls(streams, rows[k], tape, turn[rows[k]] + 1)


@numba.njit(cache=True)
def _roll_kernel(rows, tape, roll, faces, turn):
    """Every player's roll of the current turn in the games of ``rows`` (a loaded position)."""
    for k in range(rows.shape[0]):
        _roll_turn(rows[k], turn[rows[k]], tape, roll, faces)


@numba.njit(cache=True)
def _start_kernel(
    rows,
    streams,
    deck,
    scratch,
    cards,
    tape,
    dice,
    uncovered,
    placed,
    roll,
    faces,
    turn,
    acting,
    terminal,
    kept,
    distance,
    outcome,
):
    """Deal and draw the tape as ``new_initial_state`` does (``permutation`` of the deck, then
    ``integers(1, 7, size=(P, 5, 5))`` in C order), then roll turn 1."""
    players = cards.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        scratch[:] = deck
        shuffle(streams, row, scratch)
        for p in range(players):
            for c in range(CARDS_PER_PLAYER):
                cards[row, p, c] = scratch[p * CARDS_PER_PLAYER + c]
        _draw_rolls(streams, row, tape, 0)
        dice[row] = 0
        placed[row] = 0
        uncovered[row] = ALL_SLOTS
        turn[row] = 0
        acting[row] = True
        terminal[row] = False
        kept[row] = 0.0
        distance[row] = 0
        outcome[row] = 0.0
        _roll_turn(row, 0, tape, roll, faces)


@numba.njit(cache=True)
def _reveal(row, tournament, keeps, cards, dice, pending, kept, distance, outcome):
    """The bids are in: pairs kept, tie-break distances, and the outcome (the core's ``_score``, ``returns``)."""
    players = cards.shape[1]
    for p in range(players):
        bid = pending[row, p] - BID_HIGH
        count = 0
        total = 0
        for c in range(CARDS_PER_PLAYER):
            card = np.int64(cards[row, p, c])
            die = np.int64(dice[row, p, c])
            if keeps[bid, card, die]:
                count += 1
                total += card + die if bid == HIGH else card - die
        kept[row, p] = count
        distance[row, p] = abs(HIGH_BEST - total) if bid == HIGH else total
    best = kept[row, 0]
    for p in range(1, players):
        best = max(best, kept[row, p])
    closest = np.int64(1 << 62)
    if tournament:
        for p in range(players):
            if kept[row, p] == best:
                closest = min(closest, distance[row, p])
    winners = 0
    for p in range(players):
        wins = kept[row, p] == best and (not tournament or distance[row, p] == closest)
        outcome[row, p] = 1.0 if wins else -1.0
        winners += wins
    if winners == players:
        outcome[row] = 0.0


@numba.njit(cache=True)
def _apply_kernel(
    rows,
    seats,
    actions,
    tournament,
    keeps,
    cards,
    tape,
    dice,
    uncovered,
    placed,
    roll,
    faces,
    turn,
    pending,
    acting,
    terminal,
    kept,
    distance,
    outcome,
):
    """Record each commit; the last acting seat of a round resolves it (placements, or the reveal)."""
    players = cards.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        pending[row, seats[k]] = actions[k]
        acting[row, seats[k]] = False
        waiting = False
        for p in range(players):
            waiting |= acting[row, p]
        if waiting:
            continue
        if turn[row] < NUM_TURNS:
            for p in range(players):
                value = pending[row, p] // CARDS_PER_PLAYER
                slot = pending[row, p] % CARDS_PER_PLAYER
                dice[row, p, slot] = value + 1
                uncovered[row, p] &= ~(1 << slot)
                placed[row, p, value] += 1
                acting[row, p] = True
            turn[row] += 1
            _roll_turn(row, turn[row], tape, roll, faces)
        else:
            _reveal(row, tournament, keeps, cards, dice, pending, kept, distance, outcome)
            terminal[row] = True


@numba.njit(cache=True)
def _legal_kernel(rows, seats, placement_masks, bid_mask, turn, acting, faces, uncovered, out):
    """The core's ``legal_mask``: zeros off turn, the bid pair at the bid, else the placement table."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        if not acting[row, seat]:
            out[k, :] = 0
        elif turn[row] == NUM_TURNS:
            out[k, :] = bid_mask
        else:
            out[k, :] = placement_masks[faces[row, seat], uncovered[row, seat]]


@numba.njit(cache=True)
def _observe_kernel(
    rows,
    seats,
    tournament,
    slot_table,
    keeps,
    roll_entry,
    placed_entry,
    phase_table,
    cards,
    dice,
    placed,
    roll,
    turn,
    acting,
    terminal,
    out,
):
    """The core's ``observe``, entry for entry, from the tables."""
    players = cards.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        kept_high = 0
        kept_low = 0
        for c in range(CARDS_PER_PLAYER):
            card = np.int64(cards[row, seat, c])
            die = np.int64(dice[row, seat, c])
            base = c * SLOT_BLOCK
            for i in range(SLOT_BLOCK):
                out[k, base + i] = slot_table[card, die, i]
            kept_high += keeps[0, card, die]
            kept_low += keeps[1, card, die]
        to_act = acting[row, seat]
        for v in range(FACES):
            out[k, OBS_ROLL_START + v] = roll_entry[roll[row, seat, v]] if to_act else 0.0
        out[k, OBS_KEPT_START] = roll_entry[kept_high]
        out[k, OBS_KEPT_START + 1] = roll_entry[kept_low]
        phase = NUM_TURNS + 1 if terminal[row] else turn[row]
        for i in range(NUM_TURNS + 1):
            out[k, OBS_PHASE_START + i] = phase_table[phase, i]
        out[k, OBS_TO_ACT] = 1.0 if to_act else 0.0
        out[k, OBS_TOURNAMENT] = 1.0 if tournament else 0.0
        for j in range(1, MAX_OPPONENTS + 1):
            base = OBS_OPPONENTS + (j - 1) * OPPONENT_BLOCK
            if j < players:
                other = (seat + j) % players
                out[k, base] = 1.0
                for v in range(FACES):
                    out[k, base + 1 + v] = placed_entry[placed[row, other, v]]
            else:
                for i in range(OPPONENT_BLOCK):
                    out[k, base + i] = 0.0


class BatchedRollFive(BatchedGame):
    """``N`` games of Roll Five (any player count, either mode); see the module docstring for the layout."""

    game_class = RollFive

    def __init__(self, game: RollFive, num_games: int) -> None:
        super().__init__(game, num_games)
        n, p = self.num_games, self.num_players
        self._tournament = game.mode == "tournament"
        self._deck = np.array(game.deck, np.int64)
        self._scratch = np.empty_like(self._deck)
        self._cards = np.zeros((n, p, CARDS_PER_PLAYER), np.int8)
        self._tape = np.zeros((n, p, NUM_TURNS, CARDS_PER_PLAYER), np.int8)
        self._dice = np.zeros((n, p, CARDS_PER_PLAYER), np.int8)
        self._uncovered = np.zeros((n, p), np.int64)
        self._placed = np.zeros((n, p, FACES), np.int8)
        self._roll = np.zeros((n, p, FACES), np.int8)
        self._faces = np.zeros((n, p), np.int64)
        self._turn = np.zeros(n, np.int64)
        self._pending = np.zeros((n, p), np.int64)
        self._distance = np.zeros((n, p), np.int64)
        self._outcome = np.zeros((n, p), np.float64)

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _start_kernel(
            np.asarray(rows, np.int64),
            streams,
            self._deck,
            self._scratch,
            self._cards,
            self._tape,
            self._dice,
            self._uncovered,
            self._placed,
            self._roll,
            self._faces,
            self._turn,
            self._acting,
            self._terminal,
            self._totals,
            self._distance,
            self._outcome,
        )

    def _load(self, rows: np.ndarray, state: RollFiveState) -> None:
        """The core's cards, roll tape, dice, turn, commits and reveal (its own fields and views,
        which these arrays mirror); the rolls on the table read off the tape, as a turn starts."""
        players = range(self.num_players)
        tape = np.zeros(self._tape.shape[1:], np.int8)  # the core keeps turn t's first 5 - t values at least
        for p, t in np.ndindex(tape.shape[:2]):
            values = state._rolls[p][t][:CARDS_PER_PLAYER]
            tape[p, t, : len(values)] = values
        self._cards[rows] = state._cards
        self._tape[rows] = tape
        self._dice[rows] = state._dice
        self._uncovered[rows] = state._uncovered
        self._placed[rows] = [[dice.count(face) for face in range(1, FACES + 1)] for dice in state._dice]
        self._turn[rows] = state._turn
        self._pending[rows] = [0 if state._pending[p] is None else state._pending[p] for p in players]
        self._distance[rows] = state.tie_break_distances()
        self._outcome[rows] = state.returns()
        _roll_kernel(rows, self._tape, self._roll, self._faces, self._turn)

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _resample_kernel(rows, streams, self._tape, self._turn)

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            np.asarray(actions, np.int64),
            self._tournament,
            KEEPS,
            self._cards,
            self._tape,
            self._dice,
            self._uncovered,
            self._placed,
            self._roll,
            self._faces,
            self._turn,
            self._pending,
            self._acting,
            self._terminal,
            self._totals,
            self._distance,
            self._outcome,
        )

    def returns(self) -> np.ndarray:
        """The core's ``returns()`` where the game is over (tournament ties broken by distance); zeros elsewhere."""
        return self._outcome

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            PLACEMENT_MASKS,
            BID_MASK,
            self._turn,
            self._acting,
            self._faces,
            self._uncovered,
            out,
        )

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            self._tournament,
            SLOT_TABLE,
            KEEPS,
            ROLL_ENTRY,
            PLACED_ENTRY,
            PHASE_TABLE,
            self._cards,
            self._dice,
            self._placed,
            self._roll,
            self._turn,
            self._acting,
            self._terminal,
            out,
        )


BATCHED_GAME = BatchedRollFive
