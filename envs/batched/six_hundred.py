"""Batched twin of Six Hundred (:mod:`envs.games.six_hundred`): ``N`` games as arrays, rules in Numba kernels.

State, one row per game (``P`` players, 18 rounds, 3 rolls, 6 dice, 18 categories):

* ``_tape (N, P, 18, 3, 6) int8``: the dice tape of :mod:`envs.games.dice_rounds`, drawn at the
  start in C order; a roll of ``k`` dice reads the first ``k`` values of ``_tape[row, p, round, roll - 1]``;
* ``_dice (N, 6) int8``: the dice on the table in the shown order (locked ascending, then unlocked
  ascending); ``_turn (N, 5) int64``: columns ``PLAYER``, ``ROUND``, ``ROLL`` (1..3), ``LOCKED`` (how
  many dice are locked: dice ``0..LOCKED-1``) and ``HAND`` (the six dice's multiset, a row of
  ``HAND_POINTS`` / ``HAND_OBS``);
* ``_sheet (N, P, 18) int16``: points written per category, ``-1`` while open; ``_totals (N, P) float64``:
  the running scores; ``_numbers (N, P, 4) int64``: columns ``NUMBERS_TOTAL``, ``NUMBERS_BONUS_EARNED``,
  ``ZERO_WRITTEN`` (a 0 outside the Sextet), ``RUNG_PENALTY`` (each 0/1 but the first);
* ``_blocks (N, P, 49) float32``: each player's sheet block, observation entries ``OBS_OPEN.start``
  .. ``OBS_SCORE`` exactly as the core's ``_own_block`` makes them, updated entry by entry on a
  write (the rung windows only when a rung is written) and rebuilt at the start and the end; the
  opponents' 37 entries are read out of it (points, open flags, score);
* ``_acting (N, P) bool``, ``_terminal (N,) bool``: kept up to date, returned as views.

The dice are identified by the base-7 code of their face counts (``sum 7**(face-1)``, additive over
the dice, so no sort is needed for it): ``HAND_OF_CODE`` maps it to the multiset's row, and every
quantity of the dice (category points, face counts, the category-score observation entries) is a
table lookup; the dice on the table are re-sorted by one branch-free sorting network per roll
(:func:`_roll`). A game that ends keeps its last dice and roll on the table, as the core does.

The tape draw and the turn order (on the ``PLAYER`` / ``ROUND`` / ``ROLL`` columns of
``_turn``) are :mod:`envs.batched.dice_rounds`'s, shared with Inverted Dice's twin.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched.dice_rounds import draw_dice_tapes, end_turn
from envs.batched.rules import BatchedGame
from envs.games import six_hundred as core
from envs.games.dice_rounds import FACES
from envs.games.six_hundred import (
    GAME_BONUS,
    MAX_CATEGORY_POINTS,
    MAX_ROLLS,
    MAX_SCORE,
    MAX_TOTAL,
    MIN_TOTAL,
    NUM_CATEGORIES,
    NUM_DICE,
    NUM_LOCKS,
    NUM_ROUNDS,
    NUMBERS,
    NUMBERS_BONUS,
    NUMBERS_BONUS_THRESHOLD,
    OBS_CATEGORY_SCORES,
    OBS_DICE,
    OBS_FACE_COUNTS,
    OBS_LOCKED,
    OBS_MY_TURN,
    OBS_NUMBERS_PROGRESS,
    OBS_OPEN,
    OBS_ROLL,
    OBS_RUNG_WINDOWS,
    OBS_SCORE,
    OBS_SHEET,
    OPPONENT_SIZE,
    OWN_SIZE,
    RUNGS,
    SCORE,
    SEXTET,
    SixHundred,
    SixHundredState,
)

# -- tables, built once from the core's ------------------------------------------------
#: The 462 sorted rolls of six dice, in the order of the core's ``_CATEGORY_SCORES``.
HANDS = tuple(core._CATEGORY_SCORES)
#: ``POW7[face]``: a die's share of the dice code (``POW7[0]`` unused).
POW7 = np.array([0] + [7 ** (face - 1) for face in range(1, FACES + 1)], np.int64)
#: ``HAND_OF_CODE[code]``: the row of ``HANDS`` whose face counts have base-7 code ``code`` (-1: none).
HAND_OF_CODE = np.full(7**FACES, -1, np.int16)
HAND_OF_CODE[POW7[np.array(HANDS)].sum(axis=1)] = np.arange(len(HANDS))
#: ``HAND_POINTS[hand, c]``: the points the hand scores in category ``c`` (the core's table).
HAND_POINTS = np.array([core._CATEGORY_SCORES[h] for h in HANDS], np.int16)
#: ``HAND_OBS[hand]``: observation entries ``OBS_FACE_COUNTS.start .. OBS_CATEGORY_SCORES.stop``
#: (face counts / 6, category points / 36), as the core's ``_dice_block`` rounds them.
HAND_OBS = np.array(
    [core._dice_block((), h)[OBS_FACE_COUNTS.start : OBS_CATEGORY_SCORES.stop] for h in HANDS], np.float32
)
#: ``LOCK_MASKS[k]``: the legal lock actions with ``k`` dice locked; row ``NUM_DICE + 1``: none (last roll).
LOCK_MASKS = np.array([*core._LOCK_MASKS, core._NO_LOCKS], np.int8)
NO_LOCKS_ROW = NUM_DICE + 1
#: ``ROLL_OBS[roll - 1]``: the roll one-hot; ``TURN_OBS[turns_left, to_act]``: entries 118, 119.
ROLL_OBS = np.array(core._ROLL_ONE_HOT, np.float32)
TURN_OBS = np.array([[np.asarray(block) for block in pair] for pair in core._TURN_BLOCKS], np.float32)

# Columns of ``_turn`` and ``_numbers``.
PLAYER, ROUND, ROLL, LOCKED, HAND = range(5)
NUMBERS_TOTAL, NUMBERS_BONUS_EARNED, ZERO_WRITTEN, RUNG_PENALTY = range(4)

# Offsets inside the observation and inside a player's sheet block.
BLOCK_START = OBS_OPEN.start
BLOCK_SIZE = OBS_SCORE + 1 - BLOCK_START  # 49
B_SHEET = OBS_SHEET.start - BLOCK_START
B_WINDOWS = OBS_RUNG_WINDOWS.start - BLOCK_START
B_NUMBERS = OBS_NUMBERS_PROGRESS - BLOCK_START  # then numbers bonus, ladder alive, game bonus alive
B_SCORE = OBS_SCORE - BLOCK_START
DICE_START, LOCKED_START = OBS_DICE.start, OBS_LOCKED.start
HAND_START, ROLL_START = OBS_FACE_COUNTS.start, OBS_ROLL.start
TURN_START = OBS_MY_TURN - 1
HAND_OBS_SIZE = OBS_CATEGORY_SCORES.stop - OBS_FACE_COUNTS.start
RUNG_1 = RUNGS.start
NUM_RUNGS = len(RUNGS)
NUM_NUMBERS = len(NUMBERS)
NEVER_ZERO = SEXTET  # the one category whose 0 keeps the game bonus


# -- Six Hundred kernels --------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _sort6(a0, a1, a2, a3, a4, a5):
    """Six values in ascending order, by the 12-comparator sorting network (branch-free)."""
    a0, a5 = min(a0, a5), max(a0, a5)
    a1, a3 = min(a1, a3), max(a1, a3)
    a2, a4 = min(a2, a4), max(a2, a4)
    a1, a2 = min(a1, a2), max(a1, a2)
    a3, a4 = min(a3, a4), max(a3, a4)
    a0, a3 = min(a0, a3), max(a0, a3)
    a2, a5 = min(a2, a5), max(a2, a5)
    a0, a1 = min(a0, a1), max(a0, a1)
    a2, a3 = min(a2, a3), max(a2, a3)
    a4, a5 = min(a4, a5), max(a4, a5)
    a1, a2 = min(a1, a2), max(a1, a2)
    a3, a4 = min(a3, a4), max(a3, a4)
    return a0, a1, a2, a3, a4, a5


@numba.njit(cache=True, inline="always")
def _key(d, values, lock_bits, p, j):
    """Sort key of shown position ``p`` after a lock: the die itself when locked, else the
    ``j``-th rolled value + 8 (so the locked dice sort first); and the next ``j``."""
    if lock_bits >> p & 1:
        return np.int64(d[p]), j
    return np.int64(values[j]) + 8, j + 1


@numba.njit(cache=True, inline="always")
def _roll(tape, dice, turn, row, lock_bits, hand_of_code, pow7):
    """Lock the dice at the set bits of ``lock_bits`` (shown positions, those locked already
    included) and roll the others: the first ``6 - locked`` values of the tape row of the turn's
    current roll. The dice are then shown as the core shows them (locked ascending, then rolled
    ascending): one sort of six keys, the rolled values raised by 8. Also sets ``LOCKED`` and the
    hand's row (from the base-7 code of the six faces)."""
    d = dice[row]
    values = tape[row, turn[row, PLAYER], turn[row, ROUND], turn[row, ROLL] - 1]
    k0, j = _key(d, values, lock_bits, 0, 0)
    k1, j = _key(d, values, lock_bits, 1, j)
    k2, j = _key(d, values, lock_bits, 2, j)
    k3, j = _key(d, values, lock_bits, 3, j)
    k4, j = _key(d, values, lock_bits, 4, j)
    k5, j = _key(d, values, lock_bits, 5, j)
    k0, k1, k2, k3, k4, k5 = _sort6(k0, k1, k2, k3, k4, k5)
    d[0], d[1], d[2], d[3], d[4], d[5] = k0 & 7, k1 & 7, k2 & 7, k3 & 7, k4 & 7, k5 & 7
    turn[row, LOCKED] = NUM_DICE - j
    code = pow7[k0 & 7] + pow7[k1 & 7] + pow7[k2 & 7] + pow7[k3 & 7] + pow7[k4 & 7] + pow7[k5 & 7]
    turn[row, HAND] = hand_of_code[code]


@numba.njit(cache=True, inline="always")
def _rung_window(s, j):
    """The core's ``rung_windows`` for rung ``j`` of sheet row ``s``: the lowest value it may hold
    (the rungs below counted up from the last written one) and the highest (counted down)."""
    low = MIN_TOTAL
    for i in range(j):
        low = low + 1 if s[RUNG_1 + i] < 0 else s[RUNG_1 + i] + 1
    high = MAX_TOTAL
    for i in range(NUM_RUNGS - 1, j, -1):
        high = high - 1 if s[RUNG_1 + i] < 0 else s[RUNG_1 + i] - 1
    return low, high


@numba.njit(cache=True)
def _refresh_ladder(row, p, sheet, numbers, blocks):
    """Player ``p``'s rung windows, ladder-alive and game-bonus-alive entries (the core's
    ``_own_block`` with ``rung_windows``), after a rung is written, and at the end."""
    s = sheet[row, p]
    b = blocks[row, p]
    alive = numbers[row, p, RUNG_PENALTY] == 0
    for j in range(NUM_RUNGS):
        low, high = _rung_window(s, j)
        value = s[RUNG_1 + j]
        if low > high or (value >= 0 and not low <= value <= high):
            alive = False
    for j in range(NUM_RUNGS):
        low, high = _rung_window(s, j)
        value = s[RUNG_1 + j]
        if value >= 0:
            low = high = value
        b[B_WINDOWS + 2 * j] = np.float32(low / MAX_CATEGORY_POINTS) if alive else 0.0
        b[B_WINDOWS + 2 * j + 1] = np.float32(high / MAX_CATEGORY_POINTS) if alive else 0.0
    b[B_NUMBERS + 2] = 1.0 if alive else 0.0
    b[B_NUMBERS + 3] = 1.0 if alive and numbers[row, p, ZERO_WRITTEN] == 0 else 0.0


@numba.njit(cache=True, inline="always")
def _refresh_totals(row, p, totals, numbers, blocks):
    """Player ``p``'s Numbers progress, Numbers bonus and score entries."""
    b = blocks[row, p]
    b[B_NUMBERS] = np.float32(min(numbers[row, p, NUMBERS_TOTAL], NUMBERS_BONUS_THRESHOLD) / NUMBERS_BONUS_THRESHOLD)
    b[B_NUMBERS + 1] = numbers[row, p, NUMBERS_BONUS_EARNED]
    b[B_SCORE] = np.float32(totals[row, p] / MAX_SCORE)


@numba.njit(cache=True)
def _refresh_block(row, p, sheet, totals, numbers, blocks):
    """Rebuild player ``p``'s whole sheet block (the core's ``_own_block``) from the state."""
    s = sheet[row, p]
    b = blocks[row, p]
    for c in range(NUM_CATEGORIES):
        b[c] = 1.0 if s[c] < 0 else 0.0
        b[B_SHEET + c] = np.float32(max(s[c], 0) / MAX_CATEGORY_POINTS)
    _refresh_ladder(row, p, sheet, numbers, blocks)
    _refresh_totals(row, p, totals, numbers, blocks)


@numba.njit(cache=True, inline="always")
def _write(row, p, category, points, sheet, totals, numbers, blocks):
    """The core's ``_score``: write ``points`` into ``category``, pay the Numbers bonus when it is
    earned, and update the entries of player ``p``'s sheet block that the write changes."""
    sheet[row, p, category] = points
    totals[row, p] += points
    b = blocks[row, p]
    b[category] = 0.0
    b[B_SHEET + category] = np.float32(points / MAX_CATEGORY_POINTS)
    if category < NUM_NUMBERS:
        numbers[row, p, NUMBERS_TOTAL] += points
        if numbers[row, p, NUMBERS_BONUS_EARNED] == 0 and numbers[row, p, NUMBERS_TOTAL] >= NUMBERS_BONUS_THRESHOLD:
            numbers[row, p, NUMBERS_BONUS_EARNED] = 1
            totals[row, p] += NUMBERS_BONUS
    if points == 0 and category != NEVER_ZERO:  # never a rung: a rung holds the dice total
        numbers[row, p, ZERO_WRITTEN] = 1
        b[B_NUMBERS + 3] = 0.0  # the game bonus is lost
    elif RUNG_1 <= category < RUNG_1 + NUM_RUNGS:
        _refresh_ladder(row, p, sheet, numbers, blocks)
    _refresh_totals(row, p, totals, numbers, blocks)


@numba.njit(cache=True)
def _end_game(row, num_players, sheet, totals, numbers, blocks):
    """The core's ``_end_game``: the rung penalty unless the rungs ascend strictly, then the game bonus."""
    for p in range(num_players):
        s = sheet[row, p]
        broken = False
        for j in range(NUM_RUNGS - 1):
            if s[RUNG_1 + j] >= s[RUNG_1 + j + 1]:
                broken = True
        if broken:
            numbers[row, p, RUNG_PENALTY] = 1
            for j in range(NUM_RUNGS):
                totals[row, p] -= s[RUNG_1 + j]
        elif numbers[row, p, ZERO_WRITTEN] == 0:  # rungs are never 0 unless penalised
            totals[row, p] += GAME_BONUS
        _refresh_block(row, p, sheet, totals, numbers, blocks)


@numba.njit(cache=True)
def _refresh_blocks_kernel(rows, num_players, sheet, totals, numbers, blocks):
    """Rebuild every player's sheet block in the games of ``rows`` from their state (a loaded position)."""
    for k in range(rows.shape[0]):
        for p in range(num_players):
            _refresh_block(rows[k], p, sheet, totals, numbers, blocks)


@numba.njit(cache=True)
def _deal_kernel(
    rows, num_players, hand_of_code, pow7, tape, dice, turn, sheet, totals, numbers, blocks, acting, terminal
):
    """Set up new games in ``rows`` on the tapes they hold: clear the sheets, roll player 0's first roll."""
    for k in range(rows.shape[0]):
        row = rows[k]
        sheet[row] = -1
        totals[row] = 0.0
        numbers[row] = 0
        for p in range(num_players):
            _refresh_block(row, p, sheet, totals, numbers, blocks)
        turn[row, PLAYER] = 0
        turn[row, ROUND] = 0
        turn[row, ROLL] = 1
        _roll(tape, dice, turn, row, 0, hand_of_code, pow7)
        acting[row] = False
        acting[row, 0] = True
        terminal[row] = False


@numba.njit(cache=True)
def _apply_kernel(
    rows,
    actions,
    num_players,
    hand_of_code,
    pow7,
    hand_points,
    tape,
    dice,
    turn,
    sheet,
    totals,
    numbers,
    blocks,
    acting,
    terminal,
):
    """Legal actions of the acting players: lock and roll, or write the dice and end the turn."""
    for k in range(rows.shape[0]):
        row = rows[k]
        action = actions[k]
        if action < SCORE:
            turn[row, ROLL] += 1
            _roll(tape, dice, turn, row, action | ((1 << turn[row, LOCKED]) - 1), hand_of_code, pow7)
            continue
        p = turn[row, PLAYER]
        category = action - SCORE
        _write(row, p, category, hand_points[turn[row, HAND], category], sheet, totals, numbers, blocks)
        if end_turn(row, num_players, NUM_ROUNDS, turn[:, PLAYER], turn[:, ROUND], turn[:, ROLL], terminal, acting):
            _roll(tape, dice, turn, row, 0, hand_of_code, pow7)
        else:
            _end_game(row, num_players, sheet, totals, numbers, blocks)


@numba.njit(cache=True)
def _legal_kernel(rows, seats, lock_masks, turn, sheet, terminal, out):
    """The core's ``legal_mask``: the lock actions of the roll and locked count, then the open categories."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        o = out[k]
        if terminal[row] or seat != turn[row, PLAYER]:
            o[:] = 0
            continue
        locks = lock_masks[turn[row, LOCKED] if turn[row, ROLL] < MAX_ROLLS else NO_LOCKS_ROW]
        for a in range(NUM_LOCKS):
            o[a] = locks[a]
        s = sheet[row, seat]
        for c in range(NUM_CATEGORIES):
            o[SCORE + c] = 1 if s[c] < 0 else 0


@numba.njit(cache=True)
def _observe_kernel(rows, seats, num_players, hand_obs, roll_obs, turn_obs, dice, turn, blocks, terminal, out):
    """The core's ``observe``: the dice block, the roll, the own sheet block, the turn entries, then
    each opponent's points, open flags and score, in seat order after the observer."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        o = out[k]
        d = dice[row]
        locked = turn[row, LOCKED]
        for i in range(NUM_DICE * FACES):
            o[DICE_START + i] = 0.0
        for i in range(NUM_DICE):
            o[DICE_START + FACES * i + d[i] - 1] = 1.0
            o[LOCKED_START + i] = 1.0 if i < locked else 0.0
        h = hand_obs[turn[row, HAND]]
        for i in range(HAND_OBS_SIZE):
            o[HAND_START + i] = h[i]
        r = roll_obs[turn[row, ROLL] - 1]
        for i in range(MAX_ROLLS):
            o[ROLL_START + i] = r[i]
        own = blocks[row, seat]
        for i in range(BLOCK_SIZE):
            o[BLOCK_START + i] = own[i]
        player = turn[row, PLAYER]
        if terminal[row]:
            t = turn_obs[0, 0]
        else:
            t = turn_obs[NUM_ROUNDS - turn[row, ROUND] - (1 if player > seat else 0), 1 if player == seat else 0]
        o[TURN_START] = t[0]
        o[TURN_START + 1] = t[1]
        base = OWN_SIZE
        for q in range(1, num_players):
            other = blocks[row, (seat + q) % num_players]
            for c in range(NUM_CATEGORIES):
                o[base + c] = other[B_SHEET + c]
                o[base + NUM_CATEGORIES + c] = other[c]
            o[base + 2 * NUM_CATEGORIES] = other[B_SCORE]
            base += OPPONENT_SIZE


class BatchedSixHundred(BatchedGame):
    """``N`` games of Six Hundred (1 to 6 players) as arrays (layout: the module docstring)."""

    game_class = SixHundred

    def __init__(self, game: SixHundred, num_games: int) -> None:
        super().__init__(game, num_games)
        n, players = self.num_games, self.num_players
        self._tape = np.zeros((n, *game.tape_shape), np.int8)
        self._dice = np.zeros((n, NUM_DICE), np.int8)
        self._turn = np.zeros((n, 5), np.int64)
        self._sheet = np.full((n, players, NUM_CATEGORIES), -1, np.int16)
        self._numbers = np.zeros((n, players, 4), np.int64)
        self._blocks = np.zeros((n, players, BLOCK_SIZE), np.float32)

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        rows = np.asarray(rows, np.int64)
        draw_dice_tapes(rows, streams, self._tape)
        _deal_kernel(
            rows,
            self.num_players,
            HAND_OF_CODE,
            POW7,
            self._tape,
            self._dice,
            self._turn,
            self._sheet,
            self._totals,
            self._numbers,
            self._blocks,
            self._acting,
            self._terminal,
        )

    def _load(self, rows: np.ndarray, state: SixHundredState) -> None:
        """The core's tape, dice, turn and sheets (its own fields, which these arrays mirror);
        the sheet blocks rebuilt from them, as a start and the end rebuild them."""
        players = range(self.num_players)
        dice = np.array(state.dice)
        self._tape[rows] = state._tape
        self._dice[rows] = dice
        self._turn[rows] = (state._player, state._round, state.roll, len(state.locked), HAND_OF_CODE[POW7[dice].sum()])
        self._sheet[rows] = [[-1 if points is None else points for points in state.sheet(p)] for p in players]
        self._numbers[rows] = [
            (state._numbers_total[p], state._numbers_bonus[p], state._zero_written[p], state._rung_penalty[p])
            for p in players
        ]
        _refresh_blocks_kernel(rows, self.num_players, self._sheet, self._totals, self._numbers, self._blocks)

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        draw_dice_tapes(rows, streams, self._tape)

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            np.asarray(rows, np.int64),
            np.asarray(actions, np.int64),
            self.num_players,
            HAND_OF_CODE,
            POW7,
            HAND_POINTS,
            self._tape,
            self._dice,
            self._turn,
            self._sheet,
            self._totals,
            self._numbers,
            self._blocks,
            self._acting,
            self._terminal,
        )

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            LOCK_MASKS,
            self._turn,
            self._sheet,
            self._terminal,
            out,
        )

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            self.num_players,
            HAND_OBS,
            ROLL_OBS,
            TURN_OBS,
            self._dice,
            self._turn,
            self._blocks,
            self._terminal,
            out,
        )


BATCHED_GAME = BatchedSixHundred
