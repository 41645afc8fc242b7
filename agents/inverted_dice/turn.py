"""One turn of solitaire Inverted Dice, played exactly against the values of ending it.

A turn ends by writing one box: scoring the inverted sum shown, or crossing a box out.
Given, for a batch of score sheets, what each of those endings is worth (points now plus
the optimal future), :func:`plan_turn` solves the turn's three rolls by expectimax over
the 252 sorted rolls and the keeps between them (:mod:`envs.games.dice_math`), under the
rules of ``docs/rules/inverted_dice.md``:

* after rolls 1 and 2: score the inverted sum if its box is open, or reroll a non-empty
  subset of the dice (``free_cross_out``: or cross out any open box);
* after roll 3: score the inverted sum if its box is open (forced), otherwise cross out
  an open box (``free_cross_out``: crossing out is allowed instead of scoring too).

Alongside the expected value it carries the second moment of the same policy, so the
solver gets the exact variance of the final score. It returns the decisions as well:
the solver and :class:`agents.inverted_dice.optimal.OptimalAgent` run this one function,
so the agent plays exactly the policy whose value and variance were computed, ties
included (ties go to ending the turn, to scoring, to the lowest box crossed out, and as
:meth:`envs.games.dice_math.KeepTables.best_reroll` breaks them).

The plan keeps what every choice of the turn is worth (ending on each box, rerolling down
to each keep), so a planner also values every legal action of a position
(:meth:`TurnPlanningAgent.act_and_value_batch`): for the exact solver, the optimal action
values that a clone learns from (``warm_start.temperature``).
"""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments
from envs.games import inverted_dice as rules
from envs.games.dice_math import keep_tables, reroll_positions_for_keep

TABLES = keep_tables(rules.NUM_DICE)
#: Box (0-based) of the inverted sum of each sorted roll.
ROLL_BOX = np.array([rules.inverted_sum(roll) - 1 for roll in TABLES.rolls])
_FACE_POWERS = 6 ** np.arange(rules.NUM_DICE)
#: Row of each sorted roll by its code ``Σ (die − 1) · 6^position`` (-1: not a sorted roll).
_ROW_OF_CODE = np.full(6**rules.NUM_DICE, -1)
_ROW_OF_CODE[(np.array(TABLES.rolls) - 1) @ _FACE_POWERS] = np.arange(len(TABLES.rolls))


@dataclass
class TurnPlan:
    """The optimal play of one turn for a batch of ``B`` score sheets.

    ``stop[k]`` and ``keep[k]`` are the decisions after roll ``k + 1`` (rolls 1 and 2)
    for every sorted roll; ending the turn after a roll showing inverted sum ``s`` means
    scoring it when ``score[s - 1]`` holds, else crossing out box ``cross_box + 1``.
    """

    value: np.ndarray  #: (B,) expected points from this turn to the end of the game
    second_moment: np.ndarray  #: (B,) expected square of those points
    score: np.ndarray  #: (boxes, B) bool: ending on this inverted sum scores it
    cross_box: np.ndarray  #: (B,) the box (0-based) crossed out when a turn ends without scoring
    stop: np.ndarray  #: (rolls - 1, 252, B) bool: end the turn after this roll
    keep: np.ndarray  #: (rolls - 1, 252, B) keep row to reroll to when not stopping
    #: (boxes, B) the worth of ending the turn on each box (the arguments of :func:`plan_turn`):
    #: scoring it, crossing it out; ``-inf`` where the box is not open
    score_value: np.ndarray
    cross_value: np.ndarray
    #: (rolls - 1, partial keeps, B) the expected worth of rerolling down to each keep after
    #: roll ``k + 1``, playing on by the plan
    reroll_value: np.ndarray


def plan_turn(
    score_value: np.ndarray,
    cross_value: np.ndarray,
    score_moment: np.ndarray,
    cross_moment: np.ndarray,
    free_cross_out: bool,
) -> TurnPlan:
    """Solve one turn for a batch of score sheets.

    Every argument is ``(boxes, B)``: for box ``b`` (0-based) of sheet ``i``, what scoring
    it (``score_value``: its points, any bonus, then the optimal rest of the game) or
    crossing it out (``cross_value``) is worth, ``-inf`` where the box is not open, and
    the expected squares of those totals (``*_moment``). Every sheet needs an open box.
    """
    batch = score_value.shape[1]
    is_open = score_value > -np.inf
    cross_box = np.argmax(cross_value, axis=0)
    cross = np.take_along_axis(cross_value, cross_box[None], axis=0)
    cross_m = np.take_along_axis(cross_moment, cross_box[None], axis=0)
    # Ending the turn on each inverted sum: scoring when open (forced in the standard
    # rules), else the best cross-out.
    score = is_open & (score_value >= cross) if free_cross_out else is_open
    end = np.where(score, score_value, cross)
    end_m = np.where(score, score_moment, cross_m)
    # Ending early is scoring; with free cross-outs it is any ending.
    stop_value = end if free_cross_out else np.where(is_open, score_value, -np.inf)

    stops = np.empty((rules.MAX_ROLLS - 1, len(TABLES.rolls), batch), bool)
    keeps = np.empty(stops.shape, np.int16)
    reroll_values = np.empty((rules.MAX_ROLLS - 1, TABLES.num_partial_keeps, batch))
    value, moment = end[ROLL_BOX], end_m[ROLL_BOX]  # after the last roll
    for k in reversed(range(rules.MAX_ROLLS - 1)):
        reroll_values[k] = TABLES.expected_partial(value)
        reroll, keeps[k] = TABLES.best_reroll(reroll_values[k])
        reroll_m = np.take_along_axis(TABLES.expected_partial(moment), keeps[k], axis=0)
        now = stop_value[ROLL_BOX]
        stops[k] = now >= reroll
        value = np.where(stops[k], now, reroll)
        moment = np.where(stops[k], end_m[ROLL_BOX], reroll_m)
    return TurnPlan(
        value=TABLES.first_roll @ value,
        second_moment=TABLES.first_roll @ moment,
        score=score,
        cross_box=cross_box,
        stop=stops,
        keep=keeps,
        score_value=score_value,
        cross_value=cross_value,
        reroll_value=reroll_values,
    )


class TurnPlanningAgent(Agent):
    """A solitaire player that plays each turn by :func:`plan_turn`.

    Subclasses only say what ending a turn is worth on many score sheets at once
    (:meth:`plan_sheets`); reading the observation, planning once per turn, and turning
    the plan into action ids is shared. ``act`` caches the plan for as long as the sheet
    (open boxes and live sections) does not change, that is, for the three rolls of a
    turn. The agent draws nothing from its generator, and ``act_batch`` plans the
    distinct sheets of a batch of observations in one :meth:`plan_sheets` (each sheet a
    column of the plan, computed exactly as alone) and reads every row's action off
    that plan, move for move as ``act``.
    """

    def __init__(self, game, seed: int | None = None):
        if game.name != rules.InvertedDice.name:
            raise ValueError(f"{type(self).__name__} plays {rules.InvertedDice.name}, not {game.name}")
        super().__init__(game, seed)
        self._sheet_key: bytes | None = None
        self._plan: TurnPlan | None = None

    @abc.abstractmethod
    def plan_sheets(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """The plan of a turn on each of ``S`` sheets (``open_boxes`` ``(S, boxes)``, ``alive``
        ``(S, sections)``, bool): a plan of batch ``S``, sheet ``s`` in column ``s``, its
        decisions those of planning that sheet alone."""

    def plan_sheet(self, open_boxes: np.ndarray, alive: np.ndarray) -> TurnPlan:
        """The plan of a turn on a sheet with these open boxes and live bonus sections (a plan of batch 1)."""
        return self.plan_sheets(open_boxes[None], alive[None])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        open_boxes = observation[rules.OBS_OPEN_BOXES] > 0.5
        alive = observation[rules.OBS_SECTIONS_ALIVE] > 0.5
        key = open_boxes.tobytes() + alive.tobytes()
        if key != self._sheet_key:
            self._plan, self._sheet_key = self.plan_sheet(open_boxes, alive), key
        dice = tuple(int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, 6).argmax(axis=1) + 1)
        roll = int(observation[rules.OBS_ROLL].argmax()) + 1
        action = self.decide(self._plan, dice, roll)
        if not action_mask[action]:
            raise RuntimeError(
                f"{type(self).__name__} chose {self.game.action_name(action)!r}, which the action mask forbids "
                f"(dice {dice}, roll {roll}); are the game's options those it was planned for?"
            )
        return action

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` of every row: each distinct sheet planned once, every row's action read off its plan."""
        plan, rows, rolls, sheets, legal = self._plan_rows(observations, action_masks)
        return self._allowed(decide_rows(plan, rows, rolls, sheets), legal)

    def act_and_value_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`act_batch`'s actions and, from the same plan, ``(B, actions)``: what each legal
        action of every row is worth to this planner, in points from this decision to the end
        of the game (the points it scores, then the planned rest), ``-inf`` where the action is
        illegal. The action chosen has the row's largest value; equivalent actions (rerolling
        either of two equal dice) have equal values. For the exact solver these are the
        optimal action values: a teacher's soft targets that tell a costly mistake from a
        harmless one, labelled as it plays (``warm_start.temperature``)."""
        plan, rows, rolls, sheets, legal = self._plan_rows(observations, action_masks)
        actions = self._allowed(decide_rows(plan, rows, rolls, sheets), legal)
        return actions, np.where(legal, action_values_rows(plan, rows, rolls, sheets), -np.inf)

    def _allowed(self, actions: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``actions``, after checking that every row's mask allows its action."""
        forbidden = ~legal[np.arange(len(actions)), actions]
        if forbidden.any():
            row = int(np.flatnonzero(forbidden)[0])
            raise RuntimeError(
                f"{type(self).__name__} chose {self.game.action_name(int(actions[row]))!r} in row {row}, which its "
                "action mask forbids; are the game's options those it was planned for?"
            )
        return actions

    def _plan_rows(self, observations: np.ndarray, action_masks: np.ndarray):
        """The plan of a batch's distinct sheets, each row's roll row, roll number and sheet
        column in it, and the legal mask."""
        observations, legal = batch_arguments(self.game, observations, action_masks, f"inverted_dice {self.name}")
        sheets = np.concatenate(
            [observations[:, rules.OBS_OPEN_BOXES] > 0.5, observations[:, rules.OBS_SECTIONS_ALIVE] > 0.5], axis=1
        )
        codes = sheets @ (1 << np.arange(sheets.shape[1]))  # one integer per sheet: cheaper to sort than rows
        _, first_row, sheet_of_row = np.unique(codes, return_index=True, return_inverse=True)
        distinct = sheets[first_row]
        plan = self.plan_sheets(distinct[:, : rules.NUM_BOXES], distinct[:, rules.NUM_BOXES :])
        dice = observations[:, rules.OBS_DICE].reshape(-1, rules.NUM_DICE, 6).argmax(axis=2) + 1
        rolls = observations[:, rules.OBS_ROLL].argmax(axis=1) + 1
        return plan, roll_rows(dice), rolls, sheet_of_row, legal

    @staticmethod
    def decide(plan: TurnPlan, dice: tuple[int, ...], roll: int) -> int:
        """The planned action id with sorted ``dice`` showing after roll ``roll``."""
        row = TABLES.roll_index[dice]
        if roll == rules.MAX_ROLLS or plan.stop[roll - 1, row, 0]:
            box = ROLL_BOX[row]
            return rules.SCORE if plan.score[box, 0] else rules.cross_out_action(int(plan.cross_box[0]) + 1)
        keep = TABLES.keeps[plan.keep[roll - 1, row, 0]]
        return rules.reroll_action(reroll_positions_for_keep(dice, keep))


def roll_rows(dice: np.ndarray) -> np.ndarray:
    """``(B,)``: the row in ``TABLES.rolls`` of each sorted roll of ``dice`` (``(B, dice)``, values 1..6)."""
    return _ROW_OF_CODE[(dice - 1) @ _FACE_POWERS]


@functools.cache
def _reroll_actions() -> np.ndarray:
    """``[roll row, keep row]``: the action that rerolls that roll down to that keep (-1: not a keep of it)."""
    actions = np.full((len(TABLES.rolls), TABLES.num_partial_keeps), -1)
    for row, dice in enumerate(TABLES.rolls):
        for keep in TABLES.rerolls_of_roll[row]:
            if keep >= 0:
                actions[row, keep] = rules.reroll_action(reroll_positions_for_keep(dice, TABLES.keeps[keep]))
    return actions


@functools.cache
def _keep_of_reroll() -> np.ndarray:
    """``[roll row, reroll action]``: the keep row that reroll action leaves of that sorted roll."""
    keeps = np.empty((len(TABLES.rolls), rules.NUM_REROLLS), np.int64)
    for row, dice in enumerate(TABLES.rolls):
        for action in range(rules.NUM_REROLLS):
            rerolled = rules.reroll_positions(action)
            kept = tuple(d for position, d in enumerate(dice) if position not in rerolled)
            keeps[row, action] = TABLES.keep_index[kept]
    return keeps


def action_values_rows(plan: TurnPlan, rows: np.ndarray, rolls: np.ndarray, sheets: np.ndarray) -> np.ndarray:
    """``(B, actions)``: every action's worth under ``plan`` after roll ``rolls`` with the sorted
    roll of row ``rows`` showing, on the sheets ``sheets`` (columns of ``plan``), before the
    legal mask: scoring the roll's box, crossing out each box, and after rolls 1 and 2
    rerolling down to each keep (``-inf`` after roll 3, and where a box is not open)."""
    values = np.full((len(rows), rules.NUM_ACTIONS), -np.inf)
    values[:, rules.SCORE] = plan.score_value[ROLL_BOX[rows], sheets]
    values[:, rules.CROSS_OUT :] = plan.cross_value[:, sheets].T
    early = rolls < rules.MAX_ROLLS
    if early.any():
        index = np.flatnonzero(early)
        keeps = _keep_of_reroll()[rows[index]]  # (E, rerolls)
        values[index, : rules.NUM_REROLLS] = plan.reroll_value[rolls[index, None] - 1, keeps, sheets[index, None]]
    return values


def decide_rows(plan: TurnPlan, rows: np.ndarray, rolls: np.ndarray, sheets: np.ndarray) -> np.ndarray:
    """:meth:`TurnPlanningAgent.decide` of many positions: ``(B,)`` action ids after roll
    ``rolls`` with the sorted roll of row ``rows`` showing, on the sheets ``sheets`` (each a
    column of ``plan``, a plan of several sheets)."""
    early = np.minimum(rolls, rules.MAX_ROLLS - 1) - 1  # the decision index of rolls 1 and 2
    stop = (rolls == rules.MAX_ROLLS) | plan.stop[early, rows, sheets]
    scores = plan.score[ROLL_BOX[rows], sheets]
    ends = np.where(scores, rules.SCORE, rules.CROSS_OUT + plan.cross_box[sheets])
    rerolls = _reroll_actions()[rows, plan.keep[early, rows, sheets]]
    return np.where(stop, ends, rerolls)
