"""The Inverted Dice turn-value agent: the exact turn planner against a learned ``V(sheet)``.

The sheet between turns is the solver's state (:mod:`agents.inverted_dice.solver`): the
open boxes and which bonus sections are still alive. Ending a turn by scoring box ``b``
is worth its points (``b``, +50 when it completes a live section) plus ``V`` of the sheet
it leaves; crossing ``b`` out is worth ``V`` of that sheet. The turn's three rolls are
then played by :func:`agents.inverted_dice.turn.plan_turn`, the planner the heuristic
and the optimal agent use: only the values of ending a turn differ (static, learned,
solved).

Features of a sheet (26): the 20 open-box flags, the 3 live-section flags (canonical, as
the solver stores them), and per section the fraction of its boxes still open. A sheet
with no open box is worth 0 (the game is over), not what the network says.
"""

from __future__ import annotations

import numpy as np

from agents.inverted_dice.optimal import sheet_state, sheet_states
from agents.inverted_dice.solver import NUM_SECTIONS, ending_states
from agents.inverted_dice.turn import TurnPlan, TurnPlanningAgent, plan_turn
from agents.turn_value import TurnValueAgent
from envs.games import inverted_dice as rules

_BOX_BITS = np.arange(rules.NUM_BOXES, dtype=np.int64)
_SECTION_BITS = np.arange(NUM_SECTIONS, dtype=np.int64)
#: (boxes, sections): box b belongs to section s, divided by the section's size.
_SECTION_SHARE = np.array(
    [
        [1.0 / (hi - lo + 1) if lo <= b + 1 <= hi else 0.0 for _, lo, hi in rules.SECTIONS]
        for b in range(rules.NUM_BOXES)
    ]
)


def state_features(states: np.ndarray) -> np.ndarray:
    """Feature rows (float32, 26 each) of solver states (``open boxes << 3 | alive``)."""
    states = np.asarray(states, np.int64)
    open_flags = (states[:, None] >> (NUM_SECTIONS + _BOX_BITS) & 1).astype(np.float32)
    alive = (states[:, None] >> _SECTION_BITS & 1).astype(np.float32)
    return np.concatenate([open_flags, alive, (open_flags @ _SECTION_SHARE).astype(np.float32)], axis=1)


class InvertedDiceTD(TurnValueAgent, TurnPlanningAgent):
    """Solitaire Inverted Dice: each turn planned exactly against the learned sheet value.

    ``act_batch`` (the turn planner's) plans a batch's sheets in one :meth:`plan_sheets` and
    records no :attr:`last_turn_value`: training plays through ``act``.
    """

    env = rules.InvertedDice.name
    num_features = 26

    @staticmethod
    def sheet_key(observation: np.ndarray) -> bytes:
        return (observation[rules.OBS_OPEN_BOXES] > 0.5).tobytes() + (
            observation[rules.OBS_SECTIONS_ALIVE] > 0.5
        ).tobytes()

    @staticmethod
    def sheet_features(observation: np.ndarray) -> np.ndarray:
        open_boxes = observation[rules.OBS_OPEN_BOXES] > 0.5
        alive = observation[rules.OBS_SECTIONS_ALIVE] > 0.5
        return state_features(np.array([sheet_state(open_boxes, alive)]))[0]

    def state_values(self, states: np.ndarray) -> np.ndarray:
        """``V`` of solver states; 0 for a finished sheet."""
        values = self.values(state_features(states))
        return np.where(states >> NUM_SECTIONS == 0, 0.0, values)

    def plan_sheets(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """Points plus ``V`` of the sheet each ending leaves, for every sheet: ``V`` of all of
        them in one network call (each row's value is the one it gets alone)."""
        is_open, points, scored, crossed = ending_states(sheet_states(open_boxes, alive))
        after = self.state_values(np.concatenate([scored.ravel(), crossed.ravel()])).reshape(2, *scored.shape)
        score_value = np.where(is_open, points + after[0], -np.inf)
        cross_value = np.where(is_open, after[1], -np.inf)
        no_moment = np.zeros_like(score_value)
        return plan_turn(score_value, cross_value, no_moment, no_moment, self.game.free_cross_out)

    def plan_sheet(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """The turn's plan, its backed-up value recorded for training (``act`` plans through here)."""
        plan = super().plan_sheet(open_boxes, alive)
        self.last_turn_value = float(plan.value[0])
        return plan
