"""Batched twin of Lost Dice and Keldice (:mod:`envs.games.lost_dice`): ``N`` games as arrays.

One class serves both envs: Keldice is a ``LostDice`` with other dice and rules switched
by ``game.keldice``, and every table the kernels read (the throw table, the observation
blocks of a throw, the column rules and points) is built in ``__init__`` from the game
object, with the core's own functions (``allowed_values``, ``lost_dice_column_points``,
``keldice_column_points``, ``keldice_stone_points``) and tables (``throw_blocks``,
``dynamic_blocks``, ``table.by_slot``), so a custom ``dice_file`` works unchanged.

State of ``N`` games with ``P`` players (row = game):

* ``_tape[row, p, k]`` (``int16``): player ``p``'s ``k``-th throw of the game, drawn at the
  start exactly as ``rng.integers(NUM_THROWS, size=(P, tape_length))`` draws it (a resample
  draws it again and keeps the throws already thrown, as the core's ``clone_resampled``).
* ``_players[row, p, :]`` (``int64``): throws drawn from the tape, rolls left, turns to
  skip, wishing stones, VP symbols (columns ``P_*``).
* ``_columns[row, p, c, :]`` (``int64``): colour ``c``'s last number (0: none), count of
  numbers, their sum, investments, Keldice direction (+1 / -1 / 0) and the bits of what
  it accepts now (``allowed_values``) (columns ``C_*``).
* ``_blocks[row, p, :]`` (``float32``): the part of ``p``'s observation block that changes
  only when ``p`` writes (columns, stones, VP, score), rebuilt on every write, as the
  core's ``_settle`` rebuilds it; ``_totals[row, p]`` (``float64``): the running scores.
* ``_table[row, :]`` (``int64``): phase, whose turn, who acts, the throw shown (-1: none),
  whether it is on offer, whether it must be played, the discarder (-1: none), and the
  offer queue's length and next position (columns ``G_*``); ``_asked[row, :]`` is the
  queue itself: the players still to be asked about a discard in the offer phase.
* ``_acting[row, p]`` and ``_terminal[row]``: kept up to date by every start and action,
  returned as views.

Non-obvious points, each the core's behaviour: the acting player changes mid-turn when
an offer is taken out of turn order (``_player`` vs ``_turn``); "whose turn is next"
(``_next_turn``) consumes skipped turns, while the peek made when deciding whether an
offer folds into the next turn (``_peek_next_turn``) does not; a finished game keeps its
phase and players but shows an all-zero global block and no to-act / turn / discarder
flags.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.batched.rules import BatchedGame
from envs.batched.streams import bounded
from envs.games.lost_dice import (
    COL_COUNT,
    COL_DOWN,
    COL_INVESTMENTS,
    COL_LAST,
    COL_POINTS,
    COL_SUM,
    COL_UP,
    COLUMN_SIZE,
    COUNT_CAP,
    COUNT_SCALE,
    DECLINE,
    DISCARD,
    GLOBAL_SIZE,
    KELDICE_STONE_POINTS,
    MAX_INVESTMENTS,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    OBS_OFFERED,
    OBS_PHASE,
    OBS_PLAY_WRITABLE,
    OBS_THROW,
    OBS_TO_ACT,
    OFFER,
    PASS,
    PL_DISCARDER,
    PL_ROLLS_LEFT,
    PL_SCORE,
    PL_SKIPS,
    PL_STONES,
    PL_TO_ACT,
    PL_TURN,
    PL_VP,
    PLAY,
    PLAY_THROW,
    PLAYER_SIZE,
    ROLL,
    SUM_SCALE,
    TAKE,
    TURN_START,
    VP_POINTS,
    LostDice,
    LostDiceState,
    allowed_values,
    keldice_column_points,
    keldice_stone_points,
    lost_dice_column_points,
)
from envs.games.lost_dice_faces import BONUS_SYMBOLS, INVESTMENT, MAX_VALUE, NUM_COLOURS, NUM_THROWS

# Columns of the state arrays (see the module docstring).
P_DRAWN, P_ROLLS, P_SKIPS, P_STONES, P_VP = range(5)
PLAYER_FIELDS = 5
C_LAST, C_COUNT, C_SUM, C_INVESTMENTS, C_DIRECTION, C_ALLOWED = range(6)
COLUMN_FIELDS = 6
G_PHASE, G_TURN, G_PLAYER, G_THROW, G_OFFERED, G_MUST_PLAY, G_DISCARDER, G_ASKED_LEN, G_ASKED_POS = range(9)
TABLE_FIELDS = 9

#: Bonus codes of a play in ``slot_bonus``: 0 none, then 1 + index in BONUS_SYMBOLS.
BONUS_VP = 1 + BONUS_SYMBOLS.index("V")
BONUS_STONE = 1 + BONUS_SYMBOLS.index("S")
BONUS_EXTRA = 1 + BONUS_SYMBOLS.index("E")

# Observation offsets as plain ints (Numba freezes module-level ints as constants).
_PHASE0 = OBS_PHASE.start
_THROW0 = OBS_THROW.start
_WRITABLE0 = OBS_PLAY_WRITABLE.start
_LAST0 = COL_LAST.start
_INVESTMENTS0 = COL_INVESTMENTS.start
_STATIC_SIZE = PL_SCORE + 1  #: the cached part of a player block
_STONE_CAP = len(KELDICE_STONE_POINTS) - 1


def game_tables(game: LostDice) -> tuple:
    """The kernels' read-only tables for ``game``'s dice, variant and rolls, from the core.

    ``slot_bit[t, s]``: bit of play slot ``s``'s value (``1 << value``, 0 if throw ``t``
    has no such play); ``slot_value``, ``slot_bonus`` (codes above); ``throw_block[t]``:
    observation entries ``OBS_THROW..OBS_PLAY_BONUS``; ``allowed[last, count, investments,
    direction + 1]``: ``allowed_values``; ``points[sum, count, investments]``: a column's
    points; ``stone_points[stones]`` (capped index); ``dynamic[rolls_left, skips]``: the
    two player-block entries rolls left and skips.
    """
    keldice = game.keldice
    slot_bit = np.zeros((NUM_THROWS, NUM_PLAY_ACTIONS), np.int64)
    slot_value = np.zeros((NUM_THROWS, NUM_PLAY_ACTIONS), np.int64)
    slot_bonus = np.zeros((NUM_THROWS, NUM_PLAY_ACTIONS), np.int64)
    for t, slots in enumerate(game.table.by_slot):
        for s, play in enumerate(slots):
            if play is not None:
                slot_bit[t, s] = 1 << play.value
                slot_value[t, s] = play.value
                slot_bonus[t, s] = 0 if play.bonus is None else 1 + BONUS_SYMBOLS.index(play.bonus)
    throw_block = np.stack(game.throw_blocks).astype(np.float32)
    most_numbers = MAX_VALUE - 1  # strictly monotone columns over 2..MAX_VALUE
    allowed = np.zeros((MAX_VALUE + 1, most_numbers + 1, MAX_INVESTMENTS + 1, 3), np.int64)
    for index in np.ndindex(allowed.shape):
        last, count, investments, direction = index
        allowed[index] = allowed_values(last, count, investments, direction - 1, keldice)
    points = np.zeros((SUM_SCALE + 1, most_numbers + 1, MAX_INVESTMENTS + 1), np.int64)
    for total, count, investments in np.ndindex(points.shape):
        points[total, count, investments] = (
            keldice_column_points(count) if keldice else lost_dice_column_points(total, count, investments)
        )
    stone_points = np.array([keldice_stone_points(s) for s in range(_STONE_CAP + 1)], np.int64)
    dynamic = np.array([[block[:2] for block in by_skips] for by_skips in game.dynamic_blocks], np.float32)
    return slot_bit, slot_value, slot_bonus, throw_block, allowed, points, stone_points, dynamic


@numba.njit(cache=True)
def _settle(row, p, players, columns, blocks, totals, points, stone_points, keldice, column_scale, score_scale):
    """Recompute player ``p``'s score and cached observation block (the core's ``_settle``)."""
    total = 0
    for c in range(NUM_COLOURS):
        last = columns[row, p, c, C_LAST]
        count = columns[row, p, c, C_COUNT]
        numbers_sum = columns[row, p, c, C_SUM]
        investments = columns[row, p, c, C_INVESTMENTS]
        direction = columns[row, p, c, C_DIRECTION]
        column_points = points[numbers_sum, count, investments]
        total += column_points
        base = c * COLUMN_SIZE
        for i in range(COLUMN_SIZE):
            blocks[row, p, base + i] = 0.0
        blocks[row, p, base + _LAST0 + last] = 1.0
        blocks[row, p, base + COL_COUNT] = count / COUNT_SCALE
        blocks[row, p, base + COL_SUM] = numbers_sum / SUM_SCALE
        blocks[row, p, base + _INVESTMENTS0 + investments] = 1.0
        if direction > 0:
            blocks[row, p, base + COL_UP] = 1.0
        elif direction < 0:
            blocks[row, p, base + COL_DOWN] = 1.0
        blocks[row, p, base + COL_POINTS] = column_points / column_scale
    stones = players[row, p, P_STONES]
    vp = players[row, p, P_VP]
    if keldice:
        total += stone_points[min(stones, _STONE_CAP)] + VP_POINTS * vp
    totals[row, p] = total
    blocks[row, p, PL_STONES] = min(stones, COUNT_CAP) / COUNT_CAP
    blocks[row, p, PL_VP] = min(vp, COUNT_CAP) / COUNT_CAP
    blocks[row, p, PL_SCORE] = max(-1.0, min(1.0, total / score_scale))


@numba.njit(cache=True)
def _next_turn(row, owner, players):
    """The player whose turn follows ``owner``'s, consuming skipped turns (-1: game over)."""
    n = players.shape[1]
    anyone = False
    for p in range(n):
        if players[row, p, P_ROLLS] > 0:
            anyone = True
    if not anyone:
        return -1
    player = owner
    while True:
        player = (player + 1) % n
        if players[row, player, P_ROLLS] == 0:
            continue
        if players[row, player, P_SKIPS] > 0:
            players[row, player, P_SKIPS] -= 1
            continue
        return player


@numba.njit(cache=True)
def _peek_next_turn(row, owner, players):
    """What :func:`_next_turn` would return, without consuming skips: the first player
    after ``owner`` (cyclically, ``owner`` last) with rolls left and the fewest skips."""
    n = players.shape[1]
    best = -1
    best_skips = 0
    for k in range(1, n + 1):
        player = (owner + k) % n
        if players[row, player, P_ROLLS] > 0 and (best < 0 or players[row, player, P_SKIPS] < best_skips):
            best = player
            best_skips = players[row, player, P_SKIPS]
    return best


@numba.njit(cache=True)
def _start_turn(row, owner, players, table, terminal):
    """Hand the turn to the next player after ``owner`` who may roll, or end the game."""
    player = _next_turn(row, owner, players)
    table[row, G_THROW] = -1
    table[row, G_OFFERED] = 0
    table[row, G_MUST_PLAY] = 0
    table[row, G_DISCARDER] = -1
    if player < 0:
        terminal[row] = True
        return
    table[row, G_PHASE] = TURN_START
    table[row, G_TURN] = player
    table[row, G_PLAYER] = player


@numba.njit(cache=True)
def _can_use(row, p, throw, players, columns, slot_bit):
    """``p`` has a roll left and a legal play of ``throw``."""
    if players[row, p, P_ROLLS] == 0:
        return False
    for s in range(NUM_PLAY_ACTIONS):
        if slot_bit[throw, s] & columns[row, p, s % NUM_COLOURS, C_ALLOWED]:
            return True
    return False


@numba.njit(cache=True)
def _offer(row, discarder, throw, players, columns, table, asked, terminal, slot_bit):
    """Offer a discarded throw round the table from the discarder's left (the core's ``_offer``)."""
    n = players.shape[1]
    count = 0
    for k in range(1, n):
        p = (discarder + k) % n
        if _can_use(row, p, throw, players, columns, slot_bit):
            asked[row, count] = p
            count += 1
    turn = table[row, G_TURN]
    if count == 0:
        _start_turn(row, turn, players, table, terminal)
        return
    if count == 1 and asked[row, 0] == _peek_next_turn(row, turn, players):
        _start_turn(row, turn, players, table, terminal)
        table[row, G_THROW] = throw
        table[row, G_OFFERED] = 1
        table[row, G_DISCARDER] = discarder
        return
    table[row, G_PHASE] = OFFER
    table[row, G_PLAYER] = asked[row, 0]
    table[row, G_THROW] = throw
    table[row, G_OFFERED] = 1
    table[row, G_DISCARDER] = discarder
    table[row, G_ASKED_LEN] = count
    table[row, G_ASKED_POS] = 1


@numba.njit(cache=True)
def _take(row, p, players, table):
    """``p`` takes the throw on offer: it uses a roll and must be played now."""
    players[row, p, P_ROLLS] -= 1
    table[row, G_PHASE] = PLAY_THROW
    table[row, G_PLAYER] = p
    table[row, G_OFFERED] = 0
    table[row, G_MUST_PLAY] = 1
    table[row, G_DISCARDER] = -1
    table[row, G_ASKED_LEN] = 0
    table[row, G_ASKED_POS] = 0


@numba.njit(cache=True)
def _draw(row, p, tape, players):
    """Player ``p``'s next throw from their tape."""
    k = players[row, p, P_DRAWN]
    players[row, p, P_DRAWN] = k + 1
    return np.int64(tape[row, p, k])


@numba.njit(cache=True)
def _draw_throws(streams, row, tape, players):
    """Every player's throw tape drawn from ``streams[row]`` in C order, as ``rng.integers(NUM_THROWS,
    size=(P, tape_length))`` draws it, of which only the throws not yet thrown (from ``P_DRAWN`` on)
    are written: a new game's tape, and the core's ``clone_resampled`` of a game in progress."""
    for p in range(tape.shape[1]):
        for j in range(tape.shape[2]):
            throw = bounded(streams, row, 0, NUM_THROWS)
            if j >= players[row, p, P_DRAWN]:
                tape[row, p, j] = throw


@numba.njit(cache=True)
def _resample_kernel(rows, streams, tape, players):
    """Redraw the throws not yet thrown of every game in ``rows`` (see :func:`_draw_throws`)."""
    for k in range(rows.shape[0]):
        _draw_throws(streams, rows[k], tape, players)


@numba.njit(cache=True)
def _settle_kernel(rows, players, columns, blocks, totals, points, stone_points, keldice, column_scale, score_scale):
    """:func:`_settle` every player of the games in ``rows`` (a loaded position)."""
    for k in range(rows.shape[0]):
        for p in range(players.shape[1]):
            _settle(
                rows[k], p, players, columns, blocks, totals, points, stone_points, keldice, column_scale, score_scale
            )


@numba.njit(cache=True)
def _start_kernel(
    rows,
    streams,
    rolls,
    tape,
    players,
    columns,
    blocks,
    totals,
    table,
    acting,
    terminal,
    allowed,
    points,
    stone_points,
    keldice,
    column_scale,
    score_scale,
):
    """New games in ``rows``: empty sheets, the throw tapes drawn, player 0 to roll."""
    n = players.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        for p in range(n):
            players[row, p, P_DRAWN] = 0
            players[row, p, P_ROLLS] = rolls
            players[row, p, P_SKIPS] = 0
            players[row, p, P_STONES] = 0
            players[row, p, P_VP] = 0
            for c in range(NUM_COLOURS):
                for f in range(COLUMN_FIELDS):
                    columns[row, p, c, f] = 0
                columns[row, p, c, C_ALLOWED] = allowed[0, 0, 0, 1]
            _settle(row, p, players, columns, blocks, totals, points, stone_points, keldice, column_scale, score_scale)
            acting[row, p] = p == 0
        table[row, G_PHASE] = TURN_START
        table[row, G_TURN] = 0
        table[row, G_PLAYER] = 0
        table[row, G_THROW] = -1
        table[row, G_OFFERED] = 0
        table[row, G_MUST_PLAY] = 0
        table[row, G_DISCARDER] = -1
        table[row, G_ASKED_LEN] = 0
        table[row, G_ASKED_POS] = 0
        terminal[row] = False
        _draw_throws(streams, row, tape, players)


@numba.njit(cache=True)
def _apply_kernel(
    rows,
    seats,
    actions,
    tape,
    players,
    columns,
    blocks,
    totals,
    table,
    asked,
    acting,
    terminal,
    slot_bit,
    slot_value,
    slot_bonus,
    allowed,
    points,
    stone_points,
    keldice,
    column_scale,
    score_scale,
):
    """Player ``seats[k]`` takes the legal action ``actions[k]`` in game ``rows[k]`` (the core's ``apply``)."""
    n = players.shape[1]
    for k in range(rows.shape[0]):
        row = rows[k]
        p = seats[k]
        action = actions[k]
        phase = table[row, G_PHASE]
        if phase == PLAY_THROW:
            throw = table[row, G_THROW]
            if action == DISCARD:
                _offer(row, p, throw, players, columns, table, asked, terminal, slot_bit)
            else:
                slot = action - PLAY
                c = slot % NUM_COLOURS
                value = slot_value[throw, slot]
                if value == INVESTMENT:
                    columns[row, p, c, C_INVESTMENTS] += 1
                else:
                    if keldice and columns[row, p, c, C_COUNT] == 1:
                        columns[row, p, c, C_DIRECTION] = 1 if value > columns[row, p, c, C_LAST] else -1
                    columns[row, p, c, C_LAST] = value
                    columns[row, p, c, C_COUNT] += 1
                    columns[row, p, c, C_SUM] += value
                columns[row, p, c, C_ALLOWED] = allowed[
                    columns[row, p, c, C_LAST],
                    columns[row, p, c, C_COUNT],
                    columns[row, p, c, C_INVESTMENTS],
                    columns[row, p, c, C_DIRECTION] + 1,
                ]
                bonus = slot_bonus[throw, slot]
                if bonus == BONUS_VP:
                    players[row, p, P_VP] += 1
                elif bonus == BONUS_STONE:
                    players[row, p, P_STONES] += 1
                _settle(
                    row, p, players, columns, blocks, totals, points, stone_points, keldice, column_scale, score_scale
                )
                if bonus == BONUS_EXTRA:  # thrown at once by the same player, free to discard
                    table[row, G_THROW] = _draw(row, p, tape, players)
                    table[row, G_MUST_PLAY] = 0
                else:
                    _start_turn(row, table[row, G_TURN], players, table, terminal)
        elif phase == TURN_START:
            if action == ROLL:
                players[row, p, P_ROLLS] -= 1
                table[row, G_THROW] = _draw(row, p, tape, players)
                table[row, G_OFFERED] = 0
                table[row, G_DISCARDER] = -1
                table[row, G_PHASE] = PLAY_THROW
            elif action == PASS:
                players[row, p, P_ROLLS] -= 1
                _start_turn(row, p, players, table, terminal)
            else:  # TAKE the throw on offer, as this turn's roll
                _take(row, p, players, table)
        elif action == TAKE:  # offer phase, out of turn order: the taker skips a turn
            players[row, p, P_SKIPS] += 1
            _take(row, p, players, table)
        else:  # DECLINE
            position = table[row, G_ASKED_POS]
            if position < table[row, G_ASKED_LEN]:
                table[row, G_PLAYER] = asked[row, position]
                table[row, G_ASKED_POS] = position + 1
            else:
                _start_turn(row, table[row, G_TURN], players, table, terminal)
        for q in range(n):
            acting[row, q] = False
        if not terminal[row]:
            acting[row, table[row, G_PLAYER]] = True


@numba.njit(cache=True)
def _legal_kernel(rows, seats, out, columns, table, terminal, slot_bit):
    """``out[k]`` := the legal mask of ``seats[k]`` in game ``rows[k]`` (the core's ``legal_mask``)."""
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        for a in range(NUM_ACTIONS):
            out[k, a] = 0
        if terminal[row] or seat != table[row, G_PLAYER]:
            continue
        phase = table[row, G_PHASE]
        if phase == TURN_START:
            out[k, ROLL] = 1
            out[k, PASS] = 1
            if table[row, G_OFFERED]:
                out[k, TAKE] = 1
        elif phase == OFFER:
            out[k, TAKE] = 1
            out[k, DECLINE] = 1
        else:
            throw = table[row, G_THROW]
            for s in range(NUM_PLAY_ACTIONS):
                if slot_bit[throw, s] & columns[row, seat, s % NUM_COLOURS, C_ALLOWED]:
                    out[k, PLAY + s] = 1
            if not table[row, G_MUST_PLAY]:
                out[k, DISCARD] = 1


@numba.njit(cache=True)
def _observe_kernel(rows, seats, out, players, columns, blocks, table, terminal, slot_bit, throw_block, dynamic):
    """``out[k]`` := what ``seats[k]`` sees of game ``rows[k]`` (the core's ``observe``)."""
    n = players.shape[1]
    width = out.shape[1]
    block_width = throw_block.shape[1]
    skip_cap = dynamic.shape[1] - 1  # the observation shows min(skips, 3) / 3
    for k in range(rows.shape[0]):
        row = rows[k]
        seat = seats[k]
        for i in range(width):
            out[k, i] = 0.0
        over = terminal[row]
        if not over:
            out[k, _PHASE0 + table[row, G_PHASE]] = 1.0
            if seat == table[row, G_PLAYER]:
                out[k, OBS_TO_ACT] = 1.0
            throw = table[row, G_THROW]
            if throw >= 0:
                out[k, OBS_OFFERED] = table[row, G_OFFERED]
                for i in range(block_width):
                    out[k, _THROW0 + i] = throw_block[throw, i]
                for s in range(NUM_PLAY_ACTIONS):
                    if slot_bit[throw, s] & columns[row, seat, s % NUM_COLOURS, C_ALLOWED]:
                        out[k, _WRITABLE0 + s] = 1.0
        for j in range(n):
            p = (seat + j) % n
            base = GLOBAL_SIZE + j * PLAYER_SIZE
            for i in range(_STATIC_SIZE):
                out[k, base + i] = blocks[row, p, i]
            skips = min(players[row, p, P_SKIPS], skip_cap)
            out[k, base + PL_ROLLS_LEFT] = dynamic[players[row, p, P_ROLLS], skips, 0]
            out[k, base + PL_SKIPS] = dynamic[players[row, p, P_ROLLS], skips, 1]
        if not over:
            out[k, GLOBAL_SIZE + (table[row, G_PLAYER] - seat + n) % n * PLAYER_SIZE + PL_TO_ACT] = 1.0
            out[k, GLOBAL_SIZE + (table[row, G_TURN] - seat + n) % n * PLAYER_SIZE + PL_TURN] = 1.0
            discarder = table[row, G_DISCARDER]
            if discarder >= 0:
                out[k, GLOBAL_SIZE + (discarder - seat + n) % n * PLAYER_SIZE + PL_DISCARDER] = 1.0


class BatchedLostDice(BatchedGame):
    """``N`` games of Lost Dice or Keldice (any players, rolls and dice file), as arrays."""

    game_class = LostDice

    def __init__(self, game: LostDice, num_games: int) -> None:
        super().__init__(game, num_games)
        n, size = self.num_players, self.num_games
        (
            self._slot_bit,
            self._slot_value,
            self._slot_bonus,
            self._throw_block,
            self._allowed,
            self._points,
            self._stone_points,
            self._dynamic,
        ) = game_tables(game)
        self._keldice = bool(game.keldice)
        self._column_scale = float(game.column_scale)
        self._score_scale = float(game.score_scale)
        self._rolls = int(game.rolls_per_player)
        self._tape = np.zeros((size, n, game.tape_length), np.int16)
        self._players = np.zeros((size, n, PLAYER_FIELDS), np.int64)
        self._columns = np.zeros((size, n, NUM_COLOURS, COLUMN_FIELDS), np.int64)
        self._blocks = np.zeros((size, n, _STATIC_SIZE), np.float32)
        self._table = np.zeros((size, TABLE_FIELDS), np.int64)
        self._asked = np.zeros((size, max(n - 1, 1)), np.int64)

    def _start(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _start_kernel(
            np.asarray(rows, np.int64),
            streams,
            self._rolls,
            self._tape,
            self._players,
            self._columns,
            self._blocks,
            self._totals,
            self._table,
            self._acting,
            self._terminal,
            self._allowed,
            self._points,
            self._stone_points,
            self._keldice,
            self._column_scale,
            self._score_scale,
        )

    def _load(self, rows: np.ndarray, state: LostDiceState) -> None:
        """The core's tapes, players, columns, table and offer queue (its own fields, which these
        arrays mirror); the scores and blocks settled from them, as after a write."""
        lengths = sorted({len(throws) for throws in state._tape})
        if lengths != [self.game.tape_length]:
            raise ValueError(
                f"{type(self).__name__} holds whole tapes of {self.game.tape_length} throws a player, "
                f"got tapes of {lengths} throws"
            )
        players = range(self.num_players)
        self._tape[rows] = state._tape
        self._players[rows] = [
            (state._drawn[p], state._rolls_left[p], state._skips[p], state._stones[p], state._vp[p]) for p in players
        ]
        self._columns[rows] = [
            [
                (
                    numbers[-1] if numbers else 0,
                    len(numbers),
                    state._sums[p][c],
                    state._investments[p][c],
                    state._direction[p][c],
                    state._allowed[p][c],
                )
                for c, numbers in enumerate(state._numbers[p])
            ]
            for p in players
        ]
        asked = state._asked
        self._table[rows] = (
            state._phase,
            state._turn,
            state._player,
            state._throw,
            state._offered,
            state._must_play,
            state._discarder,
            len(asked),
            0,
        )
        self._asked[rows, : len(asked)] = asked
        _settle_kernel(
            rows,
            self._players,
            self._columns,
            self._blocks,
            self._totals,
            self._points,
            self._stone_points,
            self._keldice,
            self._column_scale,
            self._score_scale,
        )

    def _resample(self, rows: np.ndarray, streams: np.ndarray) -> None:
        _resample_kernel(rows, streams, self._tape, self._players)

    def _apply(self, rows: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        _apply_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            np.asarray(actions, np.int64),
            self._tape,
            self._players,
            self._columns,
            self._blocks,
            self._totals,
            self._table,
            self._asked,
            self._acting,
            self._terminal,
            self._slot_bit,
            self._slot_value,
            self._slot_bonus,
            self._allowed,
            self._points,
            self._stone_points,
            self._keldice,
            self._column_scale,
            self._score_scale,
        )

    def legal_masks(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _legal_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            out,
            self._columns,
            self._table,
            self._terminal,
            self._slot_bit,
        )

    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _observe_kernel(
            np.asarray(rows, np.int64),
            np.asarray(seats, np.int64),
            out,
            self._players,
            self._columns,
            self._blocks,
            self._table,
            self._terminal,
            self._slot_bit,
            self._throw_block,
            self._dynamic,
        )


BATCHED_GAME = BatchedLostDice
