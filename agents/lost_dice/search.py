"""One-ply expectimax for Lost Dice / Keldice: the strong ``search`` bot.

It values every decision by the sheet model (:mod:`agents.lost_dice.values`) one ply
deep, over all 216 throws, and counts what a discard gives away:

* a discard costs what the throw is worth to the next player beyond their own expected
  roll (they would take it only then);
* a roll is worth the mean over the 216 throws of the better of playing the throw and
  discarding it (at that cost); a pass is worth 0, so the bot passes when rolling is more
  likely to help the next player than itself (typically at the end of the game);
* an offer is taken when its best play beats both rolling and passing.

With three or four players only the next player's use of a discard is counted.
"""

from __future__ import annotations

import numpy as np

from agents.lost_dice.heuristic import LostDiceHeuristic
from agents.lost_dice.planning import PlayValues
from agents.lost_dice.position import Position, read_position
from envs.games.lost_dice import DECLINE, OFFER, PASS, PLAY_THROW, ROLL, TAKE


class LostDiceSearch(LostDiceHeuristic):
    name = "search"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        position = read_position(self.game, observation)
        if position.phase == PLAY_THROW:
            return self.play(position, action_mask, self.discard_value)
        me = position.sheets[0]
        values = PlayValues(self.model, me, me.rolls_left - 1)
        costs = self._discard_costs(position)
        roll = float(np.maximum(values.throw_values(), -costs).mean())
        if action_mask[TAKE] and values.best(self.game.table.plays[position.throw]) > max(roll, 0.0):
            return TAKE
        if position.phase == OFFER:
            return DECLINE
        return ROLL if roll >= 0.0 else PASS

    def discard_value(self, position: Position) -> float:
        return -float(self._discard_costs(position)[position.throw])

    def _discard_costs(self, position: Position) -> np.ndarray:
        """Per throw: what discarding it gives the next player beyond their expected roll."""
        if len(position.sheets) < 2:
            return np.zeros(len(self.game.table.plays))
        following = position.sheets[1]
        if following.rolls_left == 0:
            return np.zeros(len(self.game.table.plays))
        theirs = PlayValues(self.model, following, following.rolls_left - 1).throw_values()
        expected = float(np.maximum(theirs, 0.0).mean())
        return np.maximum(theirs - expected, 0.0)
