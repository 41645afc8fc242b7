"""The Lost Dice / Keldice heuristic: greedy on the sheet model, takes offers worth a roll.

* With a throw to play: the play that raises the sheet's estimated final score most
  (:mod:`agents.lost_dice.values`); discard when every play would lower it (and the
  throw was not taken: a taken throw must be played).
* Offered a throw (at the start of its turn, or out of turn): take it when its best play
  gains more than a roll is expected to (the mean over the 216 throws of the best gain,
  a discard counting 0).
* Never passes.

The same code serves both variants: the sheet model knows each variant's scoring.
``act_batch`` decides many positions at once over arrays (:mod:`agents.lost_dice.batch`),
move for move as ``act`` (:mod:`agents.batched`: ties drawn from the same generator).
"""

from __future__ import annotations

import functools

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, break_ties, check_generators, row_generators
from agents.lost_dice.batch import Batch, BatchModel, best_within, read_batch, read_sheets, row_means
from agents.lost_dice.planning import PlayValues
from agents.lost_dice.position import Position, read_position
from agents.lost_dice.values import SheetModel
from envs.core import Game
from envs.games.lost_dice import DECLINE, DISCARD, OFFER, PLAY, PLAY_THROW, ROLL, TAKE

#: Plays whose values differ by no more than this are equally good (ties).
TIE_TOLERANCE = 1e-9


class LostDiceHeuristic(Agent):
    name = "heuristic"

    def __init__(self, game: Game, seed: int | None = None):
        self.model = SheetModel(game)
        super().__init__(game, seed)

    @functools.cached_property
    def batch_model(self) -> BatchModel:
        """The sheet model over arrays, built with the first ``act_batch`` (a few ms)."""
        return BatchModel(self.model)

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
            if value > best + TIE_TOLERANCE:
                best, choices = value, [action]
            elif value >= best - TIE_TOLERANCE:
                choices.append(action)
        return choices[self.rng.integers(len(choices))]

    def discard_value(self, position: Position) -> float:
        return 0.0

    def roll_value(self, position: Position, values: PlayValues) -> float:
        """The expected gain of a roll: the best play of each throw, or 0 by discarding it."""
        return float(np.maximum(values.throw_values(), 0.0).mean())

    # -- many positions at once -----------------------------------------------------------

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, as if called on the rows in order: the same actions, and
        the generator left where ``act`` would leave it; with ``rngs``, row ``k``'s ties are
        drawn from ``rngs[k]`` instead (:mod:`agents.batched`)."""
        observations, legal = batch_arguments(self.game, observations, action_masks, self.name)
        check_generators(rngs, len(legal), self.name)
        batch = read_batch(observations)
        actions = np.empty(len(legal), np.int64)
        playing = np.flatnonzero(batch.phase == PLAY_THROW)
        turns = np.flatnonzero(batch.phase != PLAY_THROW)
        if playing.size:
            actions[playing] = self.play_rows(batch, playing, legal[playing], row_generators(self.rng, rngs, playing))
        if turns.size:
            actions[turns] = self.turn_rows(batch, turns, legal[turns])
        return actions

    def play_rows(self, batch: Batch, rows: np.ndarray, legal: np.ndarray, rng) -> np.ndarray:
        """:meth:`play` of rows ``rows`` (a throw to play in each), ``legal`` their masks, ties
        drawn from ``rng`` (a generator, or one per row)."""
        me = read_sheets(self.game, batch, rows, 0)
        values = np.full(legal.shape, -np.inf)
        values[:, DISCARD] = self.discard_values(batch, rows)
        plays = self.batch_model.slot_plays[batch.throw[rows]]
        values[:, PLAY:] = self.batch_model.play_gains(me, me.rolls_left, plays)
        return break_ties(best_within(values, legal, TIE_TOLERANCE), rng, self.name)

    def discard_values(self, batch: Batch, rows: np.ndarray) -> np.ndarray:
        """:meth:`discard_value` of rows ``rows``."""
        return np.zeros(len(rows))

    def turn_rows(self, batch: Batch, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``act`` of rows ``rows``: each a turn's start or an offer, ``legal`` their masks."""
        actions = np.where(batch.phase[rows] == OFFER, DECLINE, ROLL)
        offered = np.flatnonzero(legal[:, TAKE])
        if offered.size:
            me = read_sheets(self.game, batch, rows[offered], 0)
            values = self.batch_model.throw_values(me, me.rolls_left - 1)
            offer = values[np.arange(len(offered)), batch.throw[rows[offered]]]
            actions[offered[offer > row_means(np.maximum(values, 0.0))]] = TAKE
        return actions
