"""A quick estimate of what a score sheet will be worth at the end of the game.

Both bots rank their options by the change this estimate makes. The model:

* Each future roll gives about ``PLAY_RATE`` writes. These are shared among the
  started columns in proportion to how often a throw offers a number each column can
  still take (``p[colour][value]``, exact from the 216 throws of the dice set), and no
  column is expected to take more numbers than it is likely to see at all.
* Lost Dice: a column is worth (sum + expected additions − 20) × (1 + investments),
  +20 as its expected entries reach eight. The additions average the values the column
  can still take, weighted by how often they come.
* Keldice: a column is worth the scoring table at its expected count of numbers (a
  column with one number may still go either way: the better side counts); wishing
  stones and VP score as written, and an extra roll is worth ``EXTRA_ROLL`` points.

Unstarted columns count 0: starting one is worth it only when its estimate, less what
it takes from the other columns' writes, beats the alternatives.
"""

from __future__ import annotations

import numpy as np

from agents.lost_dice.position import Column, Sheet
from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import INVESTMENT, MAX_VALUE, NUM_COLOURS, NUM_THROWS, Play

PLAY_RATE = 0.6  #: writes per remaining roll (the rest are discards, passes and dead throws)
EXTRA_ROLL = 2.0  #: Keldice: the worth of an extra roll, in points
_VALUES = np.arange(MAX_VALUE + 1)
_KELDICE_TABLE = rules.KELDICE_COLUMN_POINTS


def _keldice_points(count: float) -> float:
    """Keldice's column table at a fractional count of numbers (linear in between)."""
    if count >= len(_KELDICE_TABLE) - 1:
        return float(_KELDICE_TABLE[-1])
    low = int(count)
    return _KELDICE_TABLE[low] + (count - low) * (_KELDICE_TABLE[low + 1] - _KELDICE_TABLE[low])


class SheetModel:
    """End-of-game value estimates of score sheets under one game's dice and rules."""

    def __init__(self, game: rules.LostDice):
        self.game = game
        self.keldice = game.keldice
        offers = np.zeros((NUM_COLOURS, MAX_VALUE + 1))
        for plays in game.table.plays:
            for colour, value in {(p.colour, p.value) for p in plays}:
                offers[colour, value] += 1
        #: p[c, v]: chance that one throw offers number v in colour c (v = 0: an investment).
        self.p = offers / NUM_THROWS
        #: The distinct plays of the dice set (by what they write), and which throws offer each.
        distinct = {(p.colour, p.value, p.bonus): p for plays in game.table.plays for p in plays}
        self.distinct_plays = tuple(distinct.values())
        index = {key: k for k, key in enumerate(distinct)}
        self.offered_by = np.zeros((len(distinct), NUM_THROWS), bool)
        for t, plays in enumerate(game.table.plays):
            for p in plays:
                self.offered_by[index[(p.colour, p.value, p.bonus)], t] = True
        self._outlooks: dict[tuple[int, ...], tuple[float, float, float]] = {}

    def _reach(self, colour: int, last: int, count: int, direction: int) -> np.ndarray:
        """Mask over values 0..MAX_VALUE: the numbers the column can still take."""
        if not count:
            return _VALUES >= 2
        above = _VALUES > last
        if not self.keldice or direction > 0:
            return above
        below = (_VALUES < last) & (_VALUES >= 2)
        if direction < 0:
            return below
        p = self.p[colour]
        return above if p[above].sum() >= p[below].sum() else below

    def outlook(self, colour: int, last: int, count: int, direction: int) -> tuple[float, float, float]:
        """(chance per throw of a number the column can take, how many numbers it can still
        take, their mean weighted by how often they come), remembered."""
        key = (colour, last, count, direction)
        outlook = self._outlooks.get(key)
        if outlook is None:
            reach = self._reach(colour, last, count, direction)
            chance = self.p[colour][reach]
            total = float(chance.sum())
            size = float((chance > 0).sum())
            mean = float((_VALUES[reach] * chance).sum()) / total if total > 0 else 0.0
            outlook = self._outlooks[key] = (total, size, mean)
        return outlook

    def value(self, sheet: Sheet, rolls_left: int) -> float:
        """Estimated final score of ``sheet`` with ``rolls_left`` rolls still to come."""
        total = 0.0
        if self.keldice:
            total += rules.keldice_stone_points(sheet.stones) + rules.VP_POINTS * sheet.vp
        started = [(c, col) for c, col in enumerate(sheet.columns) if col.started]
        if not started:
            return total
        outlooks = [self.outlook(c, col.last, col.count, col.direction) for c, col in started]
        opportunity = sum(o[0] for o in outlooks)
        writes = rolls_left * PLAY_RATE
        for (c, column), (chance, size, mean) in zip(started, outlooks):
            arrivals = min(rolls_left * chance, writes * chance / opportunity) if opportunity > 0 else 0.0
            expected = size * arrivals / (arrivals + size) if arrivals > 0 else 0.0
            if self.keldice:
                total += _keldice_points(column.count + expected)
                continue
            entries = column.count + column.investments + expected
            bonus = rules.LONG_COLUMN_BONUS * min(1.0, max(0.0, entries - (rules.LONG_COLUMN - 1)))
            total += (column.total + expected * mean - rules.BREAK_EVEN) * (1 + column.investments) + bonus
        return total

    def after(self, sheet: Sheet, play: Play) -> Sheet:
        """The sheet once ``play`` is written."""
        columns = list(sheet.columns)
        old = columns[play.colour]
        if play.value == INVESTMENT:
            columns[play.colour] = Column(old.last, old.count, old.total, old.investments + 1, old.direction)
        else:
            direction = old.direction
            if self.keldice and old.count == 1:
                direction = 1 if play.value > old.last else -1
            columns[play.colour] = Column(play.value, old.count + 1, old.total + play.value, old.investments, direction)
        stones = sheet.stones + (play.bonus == "S")
        vp = sheet.vp + (play.bonus == "V")
        return Sheet(tuple(columns), stones, vp, sheet.rolls_left)

    def gain(self, sheet: Sheet, play: Play, rolls_left: int, base: float) -> float:
        """What writing ``play`` adds to the estimate (``base``: the sheet's own value)."""
        extra = EXTRA_ROLL if play.bonus == "E" else 0.0
        return self.value(self.after(sheet, play), rolls_left) - base + extra
