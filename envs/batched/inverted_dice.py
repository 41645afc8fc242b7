"""The batched twin of Inverted Dice (:mod:`envs.games.inverted_dice`): ``N`` games as arrays, Numba kernels.

State, one row per game (``N`` rows, ``P`` players):

* ``_tape`` ``(N, P * 20 * 3 * 5)`` int8: the game's dice tape (the core's
  ``tape[player][round][roll][die]``, flattened in C order), drawn whole at the start.
* ``_dice`` ``(N,)`` int64: the sorted dice on the table as a *roll id*, the row of the
  roll in :data:`ROLLS` (the 252 sorted rolls); every dice-dependent quantity (the dice
  block of the observation, the inverted sum, the hit chances) is a table row of it.
* ``_player``, ``_round``, ``_roll`` ``(N,)`` int64: the core's ``_player``, ``_round``
  and ``_roll`` (1..3); ``_terminal`` ``(N,)`` bool and ``_acting`` ``(N, P)`` bool.
* ``_scored``, ``_crossed`` ``(N, P)`` int64: bit ``b - 1`` set when box ``b`` holds a
  scored result / was crossed out (open boxes are neither; bonuses are full sections of
  ``_scored``); ``_totals`` ``(N, P)`` float64: the core's ``_totals`` (``scores()``).

A roll is found without sorting: a die showing face ``v`` adds ``FACE_KEY[v]`` (``6**(v-1)``
for faces 1..5, 0 for a six, whose count the other five imply) to a *key*, the count of
each face in base 6, and :data:`ID_OF_KEY` maps every key of five dice to its roll id. A
reroll's key is the kept dice's key (:data:`KEEP_KEY`, by roll id and action) plus the
faces of the first ``REROLL_COUNT[action]`` tape values of the new roll, which is exactly
the core's "the k-th die rerolled takes the k-th tape value, then sort".

At the end of the game the dice and the roll number stay as they were (the core does not
start a new turn), and ``_player`` / ``_round`` are 0 / 20, as in the core.

The tape draw and the turn order are :mod:`envs.batched.dice_rounds`'s, shared with Six
Hundred's twin.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched.dice_rounds import draw_dice_tape, draw_dice_tapes, end_turn
from envs.batched.rules import BatchedGame
from envs.games.dice_rounds import FACES
from envs.games.inverted_dice import (
    CROSS_OUT,
    DICE_FEATURES,
    HIT_CHANCES,
    MAX_ROLLS,
    MAX_SCORE,
    NUM_BOXES,
    NUM_DICE,
    NUM_REROLLS,
    NUM_ROUNDS,
    OBS_BONUSES,
    OBS_DICE,
    OBS_HIT_CHANCES,
    OBS_INVERTED_SUM,
    OBS_MY_TURN,
    OBS_OPEN_BOXES,
    OBS_ROLL,
    OBS_ROUNDS_LEFT,
    OBS_SCORE,
    OBS_SCORE_NOW,
    OBS_SECTION_PROGRESS,
    OBS_SECTIONS_ALIVE,
    OPPONENT_SIZE,
    OWN_SIZE,
    REROLL_POSITIONS,
    SCORE,
    SECTION_BONUS,
    SECTION_MASKS,
    SECTION_OF_BOX,
    SECTION_SIZES,
    InvertedDice,
    InvertedDiceState,
    inverted_sum,
)

# --- tables, built once from the core's ------------------------------------------------

#: The 252 sorted rolls of five dice; a roll id is an index into it.
ROLLS = tuple(DICE_FEATURES)
#: ``FACE_KEY[v]``: what a die showing ``v`` adds to a roll's key (index 0 unused).
FACE_KEY = np.array([0] + [FACES**v for v in range(FACES - 1)] + [0], np.int64)


def _key(dice) -> int:
    return int(sum(FACE_KEY[v] for v in dice))


def _id_of_key() -> np.ndarray:
    table = np.full(NUM_DICE * FACES ** (FACES - 2) + 1, -1, np.int64)
    for roll_id, roll in enumerate(ROLLS):
        table[_key(roll)] = roll_id
    return table


#: ``ID_OF_KEY[key]``: the roll id of five dice with that key (-1 for keys of no five dice).
ID_OF_KEY = _id_of_key()
#: ``KEEP_KEY[roll id, action]``: the key of the dice a reroll action keeps.
KEEP_KEY = np.array(
    [
        [_key(d for p, d in enumerate(roll) if p not in REROLL_POSITIONS[a]) for a in range(NUM_REROLLS)]
        for roll in ROLLS
    ],
    np.int64,
)
#: ``REROLL_COUNT[action]``: how many dice a reroll action rolls.
REROLL_COUNT = np.array([len(positions) for positions in REROLL_POSITIONS], np.int64)
#: ``INVERTED_SUM[roll id]``: 1..20.
INVERTED_SUM = np.array([inverted_sum(roll) for roll in ROLLS], np.int64)
#: ``ROLL_DICE_FEATURES[roll id]``: observation entries ``OBS_DICE`` .. ``OBS_INVERTED_SUM`` (the core's).
ROLL_DICE_FEATURES = np.stack([DICE_FEATURES[roll] for roll in ROLLS])
#: ``ROLL_HIT_CHANCES[roll id, roll - 1, box - 1]``: the core's hit chances (``OBS_HIT_CHANCES`` of an open box).
ROLL_HIT_CHANCES = np.stack([HIT_CHANCES[roll] for roll in ROLLS])
#: ``SECTION_MASK[s]``: the bits of section ``s``'s boxes; ``BOX_SECTION[box - 1]``: its section.
SECTION_MASK = np.array(SECTION_MASKS, np.int64)
BOX_SECTION = np.array(SECTION_OF_BOX, np.int64)
#: ``BIT_COUNT[bits]``: the set bits of ``bits`` (below ``2**10``, the largest section).
BIT_COUNT = np.array([bin(bits).count("1") for bits in range(2 ** int(SECTION_SIZES.max()))], np.int64)
#: ``SECTION_SHIFT[s]``: the bit of section ``s``'s first box.
SECTION_SHIFT = np.array([int(mask & -mask).bit_length() - 1 for mask in SECTION_MASKS], np.int64)


def _progress_table() -> np.ndarray:
    """``[section, boxes scored]``: ``OBS_SECTION_PROGRESS``, by the core's very expression."""
    table = np.zeros((len(SECTION_SIZES), int(SECTION_SIZES.max()) + 1), np.float32)
    for count in range(table.shape[1]):
        table[:, count] = [count / size for size in SECTION_SIZES]
    return table


def _score_now_table() -> np.ndarray:
    """``[inverted sum]``: ``OBS_SCORE_NOW`` when its box is open, by the core's expression."""
    table = np.zeros(NUM_BOXES + 1, np.float32)
    own = np.ones(1, np.int8)  # the core multiplies an int8 open flag
    for total in range(1, NUM_BOXES + 1):
        table[total] = own[0] * total / NUM_BOXES
    return table


SECTION_PROGRESS = _progress_table()
SCORE_NOW = _score_now_table()

_TURN_WIDTH = MAX_ROLLS * NUM_DICE  # tape entries per (player, round)
_DICE_END = OBS_INVERTED_SUM.stop
_ROLL_START = OBS_ROLL.start
_OPEN_START = OBS_OPEN_BOXES.start
_ALIVE_START = OBS_SECTIONS_ALIVE.start
_BONUS_START = OBS_BONUSES.start
_HIT_START = OBS_HIT_CHANCES.start
_PROGRESS_START = OBS_SECTION_PROGRESS.start
_NUM_SECTIONS = len(SECTION_MASKS)
assert OBS_DICE.start == 0 and ROLL_DICE_FEATURES.shape[1] == _DICE_END


# --- Inverted Dice ---------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _first_roll(tape, row, player, round_, face_key, id_of_key):
    """The roll id of roll 1 of ``player``'s turn in ``round_`` (all five dice from the tape)."""
    start = (player * NUM_ROUNDS + round_) * _TURN_WIDTH
    key = 0
    for j in range(NUM_DICE):
        key += face_key[tape[row, start + j]]
    return id_of_key[key]


@numba.njit(cache=True)
def _start_kernel(
    rows,
    streams,
    num_players,
    face_key,
    id_of_key,
    tape,
    dice,
    player,
    round_,
    roll,
    scored,
    crossed,
    totals,
    terminal,
    acting,
):
    """Draw the tape of every row in ``rows`` and set up round 1, player 0, roll 1."""
    for k in range(rows.shape[0]):
        row = rows[k]
        draw_dice_tape(streams, row, tape[row])
        for p in range(num_players):
            scored[row, p] = 0
            crossed[row, p] = 0
            totals[row, p] = 0.0
            acting[row, p] = p == 0
        player[row] = 0
        round_[row] = 0
        roll[row] = 1
        terminal[row] = False
        dice[row] = _first_roll(tape, row, 0, 0, face_key, id_of_key)


@numba.njit(cache=True)
def _apply_kernel(
    rows,
    actions,
    num_players,
    face_key,
    id_of_key,
    keep_key,
    reroll_count,
    inverted,
    section_mask,
    box_section,
    tape,
    dice,
    player,
    round_,
    roll,
    scored,
    crossed,
    totals,
    terminal,
    acting,
):
    """A reroll takes the next roll's tape values into the rerolled positions; scoring writes
    the inverted sum in its box (+50 on completing a section), crossing out writes 0; a
    write ends the turn (the seats' actions are those of ``_player``: legal by contract)."""
    for k in range(rows.shape[0]):
        row = rows[k]
        action = actions[k]
        p = player[row]
        if action < NUM_REROLLS:
            roll[row] += 1
            start = (p * NUM_ROUNDS + round_[row]) * _TURN_WIDTH + (roll[row] - 1) * NUM_DICE
            key = keep_key[dice[row], action]
            for j in range(reroll_count[action]):
                key += face_key[tape[row, start + j]]
            dice[row] = id_of_key[key]
            continue
        if action == SCORE:
            box = inverted[dice[row]]
            scored[row, p] |= 1 << (box - 1)
            totals[row, p] += box
            mask = section_mask[box_section[box - 1]]
            if scored[row, p] & mask == mask:
                totals[row, p] += SECTION_BONUS
        else:
            crossed[row, p] |= 1 << (action - CROSS_OUT)
        if end_turn(row, num_players, NUM_ROUNDS, player, round_, roll, terminal, acting):
            dice[row] = _first_roll(tape, row, player[row], round_[row], face_key, id_of_key)


@numba.njit(cache=True)
def _legal_kernel(rows, seats, free_cross_out, inverted, dice, player, roll, scored, crossed, terminal, out):
    """The core's ``legal_mask``: rerolls before roll 3, scoring when the inverted sum's box
    is open, crossing out open boxes after roll 3 with that box taken (any time if free)."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        mask = out[k]
        if terminal[row] or seat != player[row]:
            mask[:] = 0
            continue
        reroll = roll[row] < MAX_ROLLS
        for a in range(NUM_REROLLS):
            mask[a] = reroll
        closed = scored[row, seat] | crossed[row, seat]
        inverted_open = (closed >> (inverted[dice[row]] - 1)) & 1 == 0
        mask[SCORE] = inverted_open
        if free_cross_out or (not reroll and not inverted_open):
            for b in range(NUM_BOXES):
                mask[CROSS_OUT + b] = (closed >> b) & 1 == 0
        else:
            for b in range(NUM_BOXES):
                mask[CROSS_OUT + b] = 0


@numba.njit(cache=True)
def _observe_kernel(
    rows,
    seats,
    num_players,
    dice_features,
    hit_chances,
    inverted,
    section_mask,
    section_shift,
    bit_count,
    section_progress,
    score_now,
    dice,
    player,
    round_,
    roll,
    scored,
    crossed,
    totals,
    terminal,
    out,
):
    """The core's ``observe`` (v1, planning features included): the dice block and hit chances
    from tables of the roll id, the sheets from the bit masks, other seats in seat order."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        obs = out[k]
        d = dice[row]
        r = roll[row] - 1
        for i in range(_DICE_END):
            obs[i] = dice_features[d, i]
        for i in range(MAX_ROLLS):
            obs[_ROLL_START + i] = i == r
        own_scored = scored[row, seat]
        own_crossed = crossed[row, seat]
        closed = own_scored | own_crossed
        for b in range(NUM_BOXES):
            obs[_OPEN_START + b] = (closed >> b) & 1 == 0
        for s in range(_NUM_SECTIONS):
            m = section_mask[s]
            bonus = own_scored & m == m
            obs[_ALIVE_START + s] = own_crossed & m == 0 and not bonus
            obs[_BONUS_START + s] = bonus
            obs[_PROGRESS_START + s] = section_progress[s, bit_count[(own_scored & m) >> section_shift[s]]]
        obs[OBS_SCORE] = totals[row, seat] / MAX_SCORE
        current = player[row]
        over = terminal[row]
        if over:
            obs[OBS_ROUNDS_LEFT] = 0.0
        else:
            obs[OBS_ROUNDS_LEFT] = (NUM_ROUNDS - round_[row] - (current > seat)) / NUM_ROUNDS
        mine = seat == current and not over
        obs[OBS_MY_TURN] = mine
        if mine:
            for b in range(NUM_BOXES):
                obs[_HIT_START + b] = hit_chances[d, r, b] if (closed >> b) & 1 == 0 else 0.0
            total = inverted[d]
            obs[OBS_SCORE_NOW] = score_now[total] if (closed >> (total - 1)) & 1 == 0 else 0.0
        else:
            for b in range(NUM_BOXES):
                obs[_HIT_START + b] = 0.0
            obs[OBS_SCORE_NOW] = 0.0
        start = OWN_SIZE
        for j in range(1, num_players):
            other = (seat + j) % num_players
            other_closed = scored[row, other] | crossed[row, other]
            for b in range(NUM_BOXES):
                obs[start + b] = (other_closed >> b) & 1 == 0
            obs[start + NUM_BOXES] = totals[row, other] / MAX_SCORE
            start += OPPONENT_SIZE


class BatchedInvertedDice(BatchedGame):
    """``N`` games of Inverted Dice (any player count, either ``free_cross_out``).

    Only :class:`InvertedDice` itself: its v0 subclass (``InvertedDiceV0``, the legacy
    observation without planning features) and any other subclass are refused.
    """

    game_class = InvertedDice

    def __init__(self, game: InvertedDice, num_games: int) -> None:
        if isinstance(game, InvertedDice) and type(game) is not InvertedDice:
            raise TypeError(
                f"{type(self).__name__} batches InvertedDice games (the v1 observation) only, got {type(game).__name__}"
            )
        super().__init__(game, num_games)
        n, p = self.num_games, self.num_players
        self._free_cross_out = game.free_cross_out
        self._tape = np.zeros((n, p * NUM_ROUNDS * _TURN_WIDTH), np.int8)
        self._dice = np.zeros(n, np.int64)
        self._player = np.zeros(n, np.int64)
        self._round = np.zeros(n, np.int64)
        self._roll = np.ones(n, np.int64)
        self._scored = np.zeros((n, p), np.int64)
        self._crossed = np.zeros((n, p), np.int64)

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _start_kernel(
            rows,
            streams,
            self.num_players,
            FACE_KEY,
            ID_OF_KEY,
            self._tape,
            self._dice,
            self._player,
            self._round,
            self._roll,
            self._scored,
            self._crossed,
            self._totals,
            self._terminal,
            self._acting,
        )

    def _load(self, rows: np.ndarray, state: InvertedDiceState) -> None:
        """The core's tape, dice, turn and sheets: its own fields, which these arrays mirror."""
        self._tape[rows] = np.ravel(state._tape)
        self._dice[rows] = ID_OF_KEY[_key(state.dice)]
        self._player[rows] = state._player
        self._round[rows] = state._round
        self._roll[rows] = state.roll
        self._scored[rows] = state._scored
        self._crossed[rows] = state._crossed

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        draw_dice_tapes(rows, streams, self._tape)

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            rows,
            actions,
            self.num_players,
            FACE_KEY,
            ID_OF_KEY,
            KEEP_KEY,
            REROLL_COUNT,
            INVERTED_SUM,
            SECTION_MASK,
            BOX_SECTION,
            self._tape,
            self._dice,
            self._player,
            self._round,
            self._roll,
            self._scored,
            self._crossed,
            self._totals,
            self._terminal,
            self._acting,
        )

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_kernel(
            rows,
            seats,
            self._free_cross_out,
            INVERTED_SUM,
            self._dice,
            self._player,
            self._roll,
            self._scored,
            self._crossed,
            self._terminal,
            out,
        )

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            rows,
            seats,
            self.num_players,
            ROLL_DICE_FEATURES,
            ROLL_HIT_CHANCES,
            INVERTED_SUM,
            SECTION_MASK,
            SECTION_SHIFT,
            BIT_COUNT,
            SECTION_PROGRESS,
            SCORE_NOW,
            self._dice,
            self._player,
            self._round,
            self._roll,
            self._scored,
            self._crossed,
            self._totals,
            self._terminal,
            out,
        )


BATCHED_GAME = BatchedInvertedDice
