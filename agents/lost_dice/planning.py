"""What each of the 216 throws is worth to a player, from the sheet model's estimates.

A throw's worth is the best gain among the plays the player could write (``-inf`` when
none is legal). Throws share their plays, so each distinct play is valued once per
decision and every throw reads its best off that small table: a one-ply expectation
over all 216 throws costs a few milliseconds.
"""

from __future__ import annotations

import numpy as np

from agents.lost_dice.position import Sheet
from agents.lost_dice.values import SheetModel
from envs.games.lost_dice import writable
from envs.games.lost_dice_faces import Play


class PlayValues:
    """The gain of every play ``sheet`` can write, valued on demand and remembered."""

    def __init__(self, model: SheetModel, sheet: Sheet, rolls_left: int):
        self.model = model
        self.sheet = sheet
        self.rolls_left = rolls_left
        self.base = model.value(sheet, rolls_left)
        self._gains: dict[tuple[int, int, str | None], float] = {}

    def gain(self, play: Play) -> float:
        """The estimate's change when ``play`` is written; ``-inf`` if it cannot be written."""
        key = (play.colour, play.value, play.bonus)
        if key not in self._gains:
            column = self.sheet.columns[play.colour]
            ok = writable(
                column.last, column.count, column.investments, column.direction, play.value, self.model.keldice
            )
            self._gains[key] = self.model.gain(self.sheet, play, self.rolls_left, self.base) if ok else -np.inf
        return self._gains[key]

    def best(self, plays) -> float:
        """The best gain among ``plays`` (``-inf`` if none can be written)."""
        return max(map(self.gain, plays), default=-np.inf)

    def throw_values(self) -> np.ndarray:
        """Best gain of each of the 216 throws (``-inf``: no legal play)."""
        gains = np.array([self.gain(play) for play in self.model.distinct_plays])
        return np.where(self.model.offered_by, gains[:, None], -np.inf).max(axis=0)
