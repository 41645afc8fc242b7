"""A strong heuristic for Inverted Dice: exact within-turn play against a static box value.

The bot gives every way of ending the turn a static value:

* scoring the inverted sum ``s``: ``s`` points, +50 if it completes a bonus section,
  plus a share of the section bonus (``50 / section size``) while the section is alive;
* crossing out box ``b``: minus what the box is expected to be worth if kept open
  (``b`` times the chance of hitting ``b`` in one dedicated turn), minus the share of a
  live section bonus already built up (crossing out kills the bonus).

It then plays the three rolls *exactly* against those values, with the same turn
planner as the optimal agent (:func:`agents.inverted_dice.turn.plan_turn`): only the
values of ending the turn differ, static here, solved there. The cross-out order this
gives starts with the rarely hit boxes 19 and 20, as the rule text advises.

The bot has no randomness; its ``act_batch`` (:class:`~agents.inverted_dice.turn.TurnPlanningAgent`'s)
plans the distinct sheets of a batch of observations in one :func:`plan_turn`.
"""

from __future__ import annotations

import numpy as np

from agents.inverted_dice.turn import ROLL_BOX, TABLES, TurnPlan, TurnPlanningAgent, plan_turn
from envs.games import inverted_dice as rules

_BOXES = np.arange(1, rules.NUM_BOXES + 1)
_SECTION_OF_BOX = np.array([next(i for i, (_, lo, hi) in enumerate(rules.SECTIONS) if lo <= b <= hi) for b in _BOXES])
_SECTION_SIZE = np.array([hi - lo + 1 for _, lo, hi in rules.SECTIONS])
#: The share of its section's bonus that each box carries.
_BONUS_SHARE = rules.SECTION_BONUS / _SECTION_SIZE[_SECTION_OF_BOX]


def turn_hit_probability(box: int) -> float:
    """Chance of rolling inverted sum ``box`` within one three-roll turn aimed only at it."""
    hit = (ROLL_BOX == box - 1).astype(float)
    value = hit
    for _ in range(rules.MAX_ROLLS - 1):
        value = np.maximum(hit, TABLES.best_over_keeps(TABLES.transition @ value))
    return float(TABLES.first_roll @ value)


#: What an open box is expected to bring if kept for later.
_KEEP_OPEN_VALUE = _BOXES * np.array([turn_hit_probability(b) for b in _BOXES])


class InvertedDiceHeuristic(TurnPlanningAgent):
    """Expected-value play within the turn, against static values of the score sheet."""

    name = "heuristic"

    def plan_sheets(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """The static values of ending the turn on each sheet (above), played by :func:`plan_turn`."""
        section_alive = alive[:, _SECTION_OF_BOX]
        open_in_section = np.stack([open_boxes[:, lo - 1 : hi].sum(axis=1) for _, lo, hi in rules.SECTIONS], axis=1)
        completes = section_alive & (open_in_section[:, _SECTION_OF_BOX] == 1)
        score = _BOXES + np.where(completes, rules.SECTION_BONUS, 0.0) + np.where(section_alive, _BONUS_SHARE, 0.0)
        built_up = (_SECTION_SIZE - open_in_section)[:, _SECTION_OF_BOX]
        cross = -_KEEP_OPEN_VALUE - np.where(section_alive, _BONUS_SHARE * built_up, 0.0)
        closed = ~open_boxes
        score_value = np.where(closed, -np.inf, score).T
        cross_value = np.where(closed, -np.inf, cross).T
        no_moment = np.zeros_like(score_value)
        return plan_turn(score_value, cross_value, no_moment, no_moment, self.game.free_cross_out)
