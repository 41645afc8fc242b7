"""A strong heuristic for Inverted Dice: exact within-turn play against a static box value.

Each turn the bot gives every way of ending the turn a static value:

* scoring the inverted sum ``s``: ``s`` points, +50 if it completes a bonus section,
  plus a share of the section bonus (``50 / section size``) while the section is alive;
* crossing out box ``b``: minus what the box is expected to be worth if kept open
  (``b`` times the chance of hitting ``b`` in one dedicated turn), minus the share of a
  live section bonus already built up (crossing out kills the bonus).

It then plays the three rolls *exactly* against those values: for every sorted roll
and every reroll, the expected value of the best continuation by enumeration of the
rerolled dice (:mod:`agents.dice_math`). The cross-out order this gives starts with the
rarely hit boxes 19 and 20, as the rule text advises.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.dice_math import keep_tables, reroll_positions_for_keep
from envs.games import inverted_dice as rules

_TABLES = keep_tables(rules.NUM_DICE)
_INVERTED_SUMS = np.array([rules.inverted_sum(r) for r in _TABLES.rolls])
_SECTION_OF_BOX = np.array([next(i for i, (_, lo, hi) in enumerate(rules.SECTIONS) if lo <= b <= hi) for b in range(1, 21)])
_SECTION_SIZE = np.array([hi - lo + 1 for _, lo, hi in rules.SECTIONS])
_BOXES = np.arange(1, rules.NUM_BOXES + 1)


def turn_hit_probability(box: int) -> float:
    """Chance of rolling inverted sum ``box`` within one three-roll turn aimed only at it."""
    hit = (_INVERTED_SUMS == box).astype(float)
    value = hit
    for _ in range(rules.MAX_ROLLS - 1):
        value = np.maximum(hit, _TABLES.best_over_keeps(_TABLES.transition @ value))
    return float(_TABLES.first_roll @ value)


_HIT_PROBABILITY = np.array([turn_hit_probability(b) for b in _BOXES])
#: What an open box is expected to bring if kept for later.
_KEEP_OPEN_VALUE = _BOXES * _HIT_PROBABILITY


class InvertedDiceHeuristic(Agent):
    """Expected-value play within the turn, against static values of the score sheet."""

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        if game.name != rules.InvertedDice.name:
            raise ValueError(f"InvertedDiceHeuristic plays inverted_dice, not {game.name}")
        super().__init__(game, seed)
        self._cached_sheet: bytes | None = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        open_boxes = observation[rules.OBS_OPEN_BOXES] > 0.5
        alive = observation[rules.OBS_SECTIONS_ALIVE] > 0.5
        dice = tuple(int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, 6).argmax(axis=1) + 1)
        roll = int(observation[rules.OBS_ROLL].argmax()) + 1
        sheet = open_boxes.tobytes() + alive.tobytes()
        if sheet != self._cached_sheet:
            self._plan_turn(open_boxes, alive)
            self._cached_sheet = sheet
        row = _TABLES.roll_index[dice]
        stop_action, stop_value = self._stop[roll - 1][row]
        if roll < rules.MAX_ROLLS:
            keep_values = self._keep_values[roll - 1]
            keep = _TABLES.best_keep(dice, keep_values)
            if keep_values[_TABLES.keep_index[keep]] > stop_value:
                stop_action = rules.reroll_action(reroll_positions_for_keep(dice, keep))
        if not action_mask[stop_action]:
            raise RuntimeError(f"heuristic chose illegal action {stop_action} for dice {dice}, roll {roll}")
        return stop_action

    def _plan_turn(self, open_boxes: np.ndarray, alive: np.ndarray) -> None:
        """Values of every roll at each roll number, for the current score sheet."""
        section_alive = alive[_SECTION_OF_BOX]
        completes = np.zeros(rules.NUM_BOXES, bool)
        for s, (_, lo, hi) in enumerate(rules.SECTIONS):
            if alive[s] and open_boxes[lo - 1 : hi].sum() == 1:
                completes[lo - 1 : hi] = True
        share = 50.0 / _SECTION_SIZE[_SECTION_OF_BOX]
        score_value = _BOXES + np.where(completes, rules.SECTION_BONUS, 0.0) + np.where(section_alive, share, 0.0)
        built_up = np.array([_SECTION_SIZE[s] - open_boxes[lo - 1 : hi].sum() for s, (_, lo, hi) in enumerate(rules.SECTIONS)])
        cross_value = -_KEEP_OPEN_VALUE - np.where(section_alive, share * built_up[_SECTION_OF_BOX], 0.0)
        cross_value = np.where(open_boxes, cross_value, -np.inf)
        best_cross = int(np.argmax(cross_value))

        can_score = open_boxes[_INVERTED_SUMS - 1]
        scored = np.where(can_score, score_value[_INVERTED_SUMS - 1], -np.inf)
        score_or_cross = np.where(scored >= cross_value[best_cross], scored, cross_value[best_cross])
        stop_is_score = scored >= cross_value[best_cross]
        cross_action = rules.cross_out_action(best_cross + 1)

        # After the last roll: forced score when possible, else the cheapest cross-out.
        last = np.where(can_score, scored, cross_value[best_cross])
        last_action = np.where(can_score, rules.SCORE, cross_action)
        if self.game.free_cross_out:
            last, last_action = score_or_cross, np.where(stop_is_score, rules.SCORE, cross_action)
            early, early_action = last, last_action
        else:
            early, early_action = scored, np.full(len(scored), rules.SCORE)

        self._stop = [None] * rules.MAX_ROLLS
        self._keep_values = [None] * (rules.MAX_ROLLS - 1)
        self._stop[-1] = list(zip(last_action.tolist(), last.tolist()))
        value = last
        for r in range(rules.MAX_ROLLS - 2, -1, -1):
            keep_values = _TABLES.transition @ value
            self._keep_values[r] = keep_values
            self._stop[r] = list(zip(early_action.tolist(), early.tolist()))
            value = np.maximum(early, _TABLES.best_over_keeps(keep_values))
