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
``act_batch`` (the heuristic's, with this bot's discard costs and turn decisions over
arrays) decides many positions at once, move for move as ``act``.
"""

from __future__ import annotations

import numpy as np

from agents.lost_dice.batch import Batch, read_sheets, row_means
from agents.lost_dice.heuristic import LostDiceHeuristic
from agents.lost_dice.planning import PlayValues
from agents.lost_dice.position import Position, read_position
from envs.games.lost_dice import DECLINE, OFFER, PASS, PLAY_THROW, ROLL, TAKE
from envs.games.lost_dice_faces import NUM_THROWS


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

    # -- many positions at once (the heuristic's act_batch calls these) -------------------

    def discard_values(self, batch: Batch, rows: np.ndarray) -> np.ndarray:
        """:meth:`discard_value` of rows ``rows``."""
        return -self._discard_cost_rows(batch, rows)[np.arange(len(rows)), batch.throw[rows]]

    def turn_rows(self, batch: Batch, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``act`` of rows ``rows``: each a turn's start or an offer, ``legal`` their masks."""
        me = read_sheets(self.game, batch, rows, 0)
        values = self.batch_model.throw_values(me, me.rolls_left - 1)
        roll = row_means(np.maximum(values, -self._discard_cost_rows(batch, rows)))
        offer = values[np.arange(len(rows)), batch.throw[rows]]  # a row without a throw cannot take
        take = legal[:, TAKE] & (offer > np.maximum(roll, 0.0))
        undecided = np.where(batch.phase[rows] == OFFER, DECLINE, np.where(roll >= 0.0, ROLL, PASS))
        return np.where(take, TAKE, undecided)

    def _discard_cost_rows(self, batch: Batch, rows: np.ndarray) -> np.ndarray:
        """:meth:`_discard_costs` of rows ``rows``: ``(rows, 216)``."""
        costs = np.zeros((len(rows), NUM_THROWS))
        if self.game.num_players < 2:
            return costs
        following = read_sheets(self.game, batch, rows, 1)
        rolling = np.flatnonzero(following.rolls_left > 0)
        if rolling.size:
            theirs_sheets = following.rows(rolling)
            theirs = self.batch_model.throw_values(theirs_sheets, theirs_sheets.rolls_left - 1)
            expected = row_means(np.maximum(theirs, 0.0))
            costs[rolling] = np.maximum(theirs - expected[:, None], 0.0)
        return costs
