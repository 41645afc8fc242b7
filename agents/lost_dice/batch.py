"""The sheet model over a batch of positions: what the bots' ``act_batch`` reads and ranks.

The one-position code (:mod:`agents.lost_dice.position`, :mod:`agents.lost_dice.planning`,
:mod:`agents.lost_dice.values`) reads an observation into dataclasses and values plays
one at a time. Here the same reading and the same estimates run over arrays, one row per
position, with no Python loop over the rows:

* :func:`read_batch` decodes many observations at once (:class:`Batch`, :class:`Sheets`);
* :class:`BatchModel` gives every row the gain of every play its sheet could write, and
  every throw's worth (:meth:`BatchModel.play_gains`, :meth:`BatchModel.throw_values`).

The results are the one-position code's to the last bit, not just close: the bots compare
gains with a tolerance and break ties, so a rounding difference could change a move. The
arithmetic is the same operations in the same order (sums run over the colours in sheet
order, an unstarted column adds an exact 0), the outlooks are the model's own numbers,
and averages over the 216 throws are numpy's, row by row.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from agents.lost_dice.values import EXTRA_ROLL, PLAY_RATE, SheetModel
from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import FACES_PER_DIE, INVESTMENT, MAX_VALUE, NUM_COLOURS, NUM_DICE

#: Bonus codes of a play in the arrays: none, then Keldice's symbols.
NO_BONUS, VP_BONUS, STONE_BONUS, EXTRA_ROLL_BONUS = range(4)
_BONUS_CODES = {None: NO_BONUS, "V": VP_BONUS, "S": STONE_BONUS, "E": EXTRA_ROLL_BONUS}
_DIRECTIONS = 3  #: -1, 0, +1, stored at index direction + 1


@dataclass(frozen=True)
class Sheets:
    """One score sheet per row: ``(B, colours)`` column arrays, ``(B,)`` the rest."""

    last: np.ndarray  #: the last number written (0: none)
    count: np.ndarray  #: numbers written
    total: np.ndarray  #: their sum
    investments: np.ndarray
    direction: np.ndarray  #: Keldice: +1 up, -1 down, 0 not fixed yet
    stones: np.ndarray
    vp: np.ndarray
    rolls_left: np.ndarray

    def rows(self, index) -> Sheets:
        """The sheets of rows ``index`` (a bool mask or row numbers)."""
        return Sheets(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


@dataclass(frozen=True)
class Batch:
    """Many observations of one game, decoded: :class:`agents.lost_dice.position.Position` as arrays."""

    observations: np.ndarray  #: ``(B, observation size)``, as given
    phase: np.ndarray  #: ``rules.TURN_START``, ``PLAY_THROW`` or ``OFFER``
    throw: np.ndarray  #: the throw shown, -1 when none


def read_batch(observations: np.ndarray) -> Batch:
    """The phase and throw of every row of ``observations`` (sheets: :func:`read_sheets`)."""
    faces = observations[:, rules.OBS_THROW].reshape(-1, NUM_DICE, FACES_PER_DIE)
    shown = faces.argmax(axis=2)
    throw = (shown[:, 0] * FACES_PER_DIE + shown[:, 1]) * FACES_PER_DIE + shown[:, 2]
    return Batch(
        observations=observations,
        phase=observations[:, rules.OBS_PHASE].argmax(axis=1),
        throw=np.where(faces.any(axis=(1, 2)), throw, -1),
    )


def _count(entries: np.ndarray, scale: int) -> np.ndarray:
    """Counts stored as ``count / scale``, read back as the one-position reader rounds them."""
    return np.rint(entries.astype(np.float64) * scale).astype(np.int64)


def read_sheets(game: rules.LostDice, batch: Batch, rows, block: int) -> Sheets:
    """The sheets in player block ``block`` (0: the observer's, then seat order after them) of ``rows``."""
    start = rules.GLOBAL_SIZE + rules.PLAYER_SIZE * block
    players = batch.observations[rows, start : start + rules.PLAYER_SIZE]
    columns = players[:, rules.PL_COLUMNS].reshape(-1, NUM_COLOURS, rules.COLUMN_SIZE)
    up, down = columns[:, :, rules.COL_UP] > 0.5, columns[:, :, rules.COL_DOWN] > 0.5
    return Sheets(
        last=columns[:, :, rules.COL_LAST].argmax(axis=2),
        count=_count(columns[:, :, rules.COL_COUNT], MAX_VALUE - 1),
        total=_count(columns[:, :, rules.COL_SUM], rules.SUM_SCALE),
        investments=columns[:, :, rules.COL_INVESTMENTS].argmax(axis=2),
        direction=np.where(up, 1, np.where(down, -1, 0)),
        stones=_count(players[:, rules.PL_STONES], 10),
        vp=_count(players[:, rules.PL_VP], 10),
        rolls_left=_count(players[:, rules.PL_ROLLS_LEFT], game.rolls_per_player),
    )


class BatchModel:
    """:class:`agents.lost_dice.values.SheetModel`'s estimates for a batch of sheets.

    Plays are the model's distinct plays (``model.distinct_plays``, by what they write),
    ``D`` of them, addressed by index, and index ``D``: no play (a slot that a throw does
    not offer; never writable). :attr:`slot_plays` maps a throw's play slots to them.
    """

    def __init__(self, model: SheetModel):
        self.keldice = model.keldice
        plays = model.distinct_plays
        self.colour = np.array([p.colour for p in plays] + [-1])
        self.value = np.array([p.value for p in plays] + [INVESTMENT])
        self.bonus = np.array([_BONUS_CODES[p.bonus] for p in plays] + [NO_BONUS])
        index = {(p.colour, p.value, p.bonus): d for d, p in enumerate(plays)}
        #: ``slot_plays[t, slot]``: the play in throw ``t``'s play slot (``D``: none).
        self.slot_plays = np.array(
            [
                [len(plays) if p is None else index[(p.colour, p.value, p.bonus)] for p in slots]
                for slots in model.game.table.by_slot
            ]
        )
        # model.outlook at every column state it can tell apart: (colour, last, started, direction)
        shape = (NUM_COLOURS, MAX_VALUE + 1, 2, _DIRECTIONS)
        outlooks = np.array(
            [
                model.outlook(colour, last, count, direction)
                for colour in range(NUM_COLOURS)
                for last in range(MAX_VALUE + 1)
                for count in (0, 1)
                for direction in (-1, 0, 1)
            ]
        )
        self.chance, self.size, self.mean = (outlooks[:, k].reshape(shape) for k in range(3))
        self.keldice_points = np.array(rules.KELDICE_COLUMN_POINTS)
        self.stone_points = np.array(rules.KELDICE_STONE_POINTS)

    # -- the estimate -------------------------------------------------------------------

    def sheet_values(self, columns, stones, vp, rolls_left) -> np.ndarray:
        """:meth:`SheetModel.value` of sheets given per colour as ``(last, count, total,
        investments, direction)`` arrays; all arrays broadcast together (the result's shape)."""
        total = 0.0
        if self.keldice:
            total += self.stone_points[np.minimum(stones, len(self.stone_points) - 1)] + rules.VP_POINTS * vp
        started, outlooks = [], []
        for colour, (last, count, _, investments, direction) in enumerate(columns):
            started.append(count + investments > 0)
            at = (colour, last, np.minimum(count, 1), direction + 1)
            outlooks.append((self.chance[at], self.size[at], self.mean[at]))
        opportunity = 0.0
        for is_started, (chance, _, _) in zip(started, outlooks):
            opportunity = opportunity + np.where(is_started, chance, 0.0)
        writes = rolls_left * PLAY_RATE
        with np.errstate(divide="ignore", invalid="ignore"):
            for (_, count, sum_, investments, _), is_started, (chance, size, mean) in zip(columns, started, outlooks):
                share = np.minimum(rolls_left * chance, writes * chance / opportunity)
                arrivals = np.where(opportunity > 0, share, 0.0)
                expected = np.where(arrivals > 0, size * arrivals / (arrivals + size), 0.0)
                if self.keldice:
                    points = self._keldice_column(count + expected)
                else:
                    entries = count + investments + expected
                    fill = np.minimum(1.0, np.maximum(0.0, entries - (rules.LONG_COLUMN - 1)))
                    bonus = rules.LONG_COLUMN_BONUS * fill
                    points = (sum_ + expected * mean - rules.BREAK_EVEN) * (1 + investments) + bonus
                total = total + np.where(is_started, points, 0.0)
        return total

    def _keldice_column(self, count: np.ndarray) -> np.ndarray:
        """Keldice's column table at fractional counts (as ``values._keldice_points``)."""
        table = self.keldice_points
        top = len(table) - 1
        low = np.minimum(count, top - 1).astype(np.int64)
        between = table[low] + (count - low) * (table[low + 1] - table[low])
        return np.where(count >= top, np.float64(table[-1]), between)

    @staticmethod
    def _columns(sheets: Sheets) -> list[tuple[np.ndarray, ...]]:
        return [
            tuple(a[:, c] for a in (sheets.last, sheets.count, sheets.total, sheets.investments, sheets.direction))
            for c in range(NUM_COLOURS)
        ]

    # -- plays --------------------------------------------------------------------------

    def _writable(self, column: tuple[np.ndarray, ...], value: np.ndarray) -> np.ndarray:
        """``rules.writable`` of number (or investment) ``value`` in columns in this state."""
        last, count, _, investments, direction = column
        investment = (count <= rules.MAX_NUMBERS_FOR_INVESTMENT) & (investments < rules.MAX_INVESTMENTS)
        above, below = value > last, value < last
        if self.keldice:
            number = np.where(direction > 0, above, np.where(direction < 0, below, above | below))
        else:
            number = above
        return np.where(value == INVESTMENT, investment, (count == 0) | number)

    def after_plays(self, sheets: Sheets, plays: np.ndarray) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
        """The sheets that writing each of ``plays`` (``(B, K)`` or ``(K,)`` distinct-play
        indices) would make: per colour ``(last, count, total, investments, direction)``
        arrays of shape ``(B, K)``, then ``stones`` and ``vp`` ``(B, K)``, and ``(B, K)``
        whether each play can be written at all."""
        plays = np.broadcast_to(plays, (len(sheets.rolls_left), np.shape(plays)[-1]))
        colour, value, bonus = self.colour[plays], self.value[plays], self.bonus[plays]
        writable = np.zeros(plays.shape, bool)
        after = []
        for c, column in enumerate(self._columns(sheets)):
            last, count, sum_, investments, direction = (a[:, None] for a in column)
            here = colour == c
            writable |= here & self._writable((last, count, sum_, investments, direction), value)
            number = here & (value != INVESTMENT)
            invested = here & (value == INVESTMENT)
            turned = np.where(value > last, 1, -1)
            if self.keldice:
                direction = np.where(number & (count == 1), turned, direction)
            after.append(
                (
                    np.where(number, value, last),
                    count + number,
                    sum_ + np.where(number, value, 0),
                    investments + invested,
                    direction,
                )
            )
        stones = sheets.stones[:, None] + (bonus == STONE_BONUS)
        vp = sheets.vp[:, None] + (bonus == VP_BONUS)
        return after, stones, vp, writable

    def play_gains(self, sheets: Sheets, rolls_left: np.ndarray, plays: np.ndarray) -> np.ndarray:
        """``(B, K)``: what writing each of ``plays`` (``(B, K)`` or ``(K,)`` distinct-play
        indices) adds to each sheet's estimate; ``-inf`` where it cannot be written
        (:meth:`agents.lost_dice.planning.PlayValues.gain`)."""
        plays = np.broadcast_to(plays, (len(rolls_left), np.shape(plays)[-1]))
        base = self.sheet_values(self._columns(sheets), sheets.stones, sheets.vp, rolls_left)
        after, stones, vp, writable = self.after_plays(sheets, plays)
        extra = np.where(self.bonus[plays] == EXTRA_ROLL_BONUS, EXTRA_ROLL, 0.0)
        gains = self.sheet_values(after, stones, vp, rolls_left[:, None]) - base[:, None] + extra
        return np.where(writable, gains, -np.inf)

    def throw_values(self, sheets: Sheets, rolls_left: np.ndarray) -> np.ndarray:
        """``(B, 216)``: each throw's best gain for each sheet, ``-inf`` with no legal play
        (:meth:`agents.lost_dice.planning.PlayValues.throw_values`)."""
        gains = self.play_gains(sheets, rolls_left, np.arange(len(self.colour)))
        return np.ascontiguousarray(gains[:, self.slot_plays].max(axis=2))


def row_means(values: np.ndarray) -> np.ndarray:
    """Each row's mean, bit for bit the mean numpy gives that row alone (rows contiguous)."""
    return np.ascontiguousarray(values).mean(axis=1)


def best_within(values: np.ndarray, legal: np.ndarray, tolerance: float) -> np.ndarray:
    """``(B, actions)`` bool: each row's best legal actions as the one-position bots list
    them, scanning the legal actions in ascending order: a value above the best so far by
    more than ``tolerance`` starts the list afresh, one no more than ``tolerance`` below
    it joins the list."""
    best = np.full(len(values), -np.inf)
    chosen = np.zeros(values.shape, bool)
    for action in range(values.shape[1]):
        value = values[:, action]
        better = legal[:, action] & (value > best + tolerance)
        joins = legal[:, action] & ~better & (value >= best - tolerance)
        chosen[better] = False
        chosen[better | joins, action] = True
        best = np.where(better, value, best)
    return chosen
