"""The Lost Dice / Keldice heuristic: greedy on the sheet model, takes offers worth a roll.

* With a throw to play: the play that raises the sheet's estimated final score most
  (:mod:`agents.lost_dice.values`); discard when every play would lower it (and the
  throw was not taken: a taken throw must be played).
* Offered a throw (at the start of its turn, or out of turn): take it when its best play
  gains more than a roll is expected to (the mean over the 216 throws of the best gain,
  a discard counting 0).
* Never passes.

The same code serves both variants: the sheet model knows each variant's scoring.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.lost_dice.planning import PlayValues
from agents.lost_dice.position import Position, read_position
from agents.lost_dice.values import SheetModel
from envs.core import Game
from envs.games.lost_dice import DECLINE, DISCARD, OFFER, PLAY, PLAY_THROW, ROLL, TAKE


class LostDiceHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: Game, seed: int | None = None):
        self.model = SheetModel(game)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        position = read_position(self.game, observation)
        if position.phase == PLAY_THROW:
            return self.play(position, action_mask, self.discard_value)
        me = position.sheets[0]
        if action_mask[TAKE]:
            values = PlayValues(self.model, me, me.rolls_left - 1)
            offer = values.best(self.game.table.plays[position.throw])
            if offer > self.roll_value(position, values):
                return TAKE
        return DECLINE if position.phase == OFFER else ROLL

    def play(self, position: Position, action_mask: np.ndarray, discard_value) -> int:
        """The play (or discard) of the throw on the table with the highest value."""
        me = position.sheets[0]
        values = PlayValues(self.model, me, me.rolls_left)
        slots = self.game.table.by_slot[position.throw]
        best, choices = -np.inf, []
        for action in np.flatnonzero(action_mask).tolist():
            value = discard_value(position) if action == DISCARD else values.gain(slots[action - PLAY])
            if value > best + 1e-9:
                best, choices = value, [action]
            elif value >= best - 1e-9:
                choices.append(action)
        return choices[self.rng.integers(len(choices))]

    def discard_value(self, position: Position) -> float:
        return 0.0

    def roll_value(self, position: Position, values: PlayValues) -> float:
        """The expected gain of a roll: the best play of each throw, or 0 by discarding it."""
        return float(np.maximum(values.throw_values(), 0.0).mean())
