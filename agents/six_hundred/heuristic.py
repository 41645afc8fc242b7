"""A heuristic for Six Hundred: exact within-turn play against a static value of the sheet.

The bot values a finished roll by the best *expected final score of the sheet* it can
write it into, the open part of the sheet estimated statically
(:func:`agents.six_hundred.estimate.sheet_value`: the categories' pars, the ladder's
chance, the two bonuses' chances). It then plays the three rolls exactly against those
values: with ``L`` locked the candidates are every lock ``L + S`` (``S`` some of the
unlocked dice), valued by enumeration of the dice still to come (:func:`lock_values`);
locking everything means scoring now. The plans come from the compiled planner
(:mod:`agents.six_hundred.compiled_plan`), many sheets at a time: ``act_batch`` plans every
distinct sheet of a batch in one call, move for move as ``act``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, check_generators
from agents.six_hundred import compiled_plan
from agents.six_hundred.estimate import KEEP_TABLES
from envs.games import six_hundred as rules
from envs.games.dice_math import keep_tables, reroll_positions_for_keep


def lock_values(roll_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The value of every keep (``KEEP_TABLES.keeps``) with one and with two rolls left.

    ``roll_values`` is ``(462, S)``: the value of stopping with each sorted roll, for ``S``
    sheets; the answers are ``(924, S)``. With one roll left a keep is worth the mean of the
    rolls it can become; with two, the mean over the fresh dice of the best keep that contains
    it (locks are permanent). Every expectation is a fixed sequence of sums
    (:func:`agents.six_hundred.compiled_plan.lock_values`), so each column comes out the same,
    bit for bit, whatever else is planned beside it: ``act`` and ``act_batch`` play the same moves.
    """
    one_left, two_left = compiled_plan.lock_values(np.asarray(roll_values).T)
    return one_left.T, two_left.T


def read_sheets(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sheets, earned)`` of a batch of observations: ``(S, 18)`` points written (-1 while
    open) and whether each has earned the Numbers bonus."""
    sheets = np.where(
        observations[:, rules.OBS_OPEN] > 0.5,
        -1,
        np.rint(observations[:, rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(np.int64),
    )
    return sheets, observations[:, rules.OBS_NUMBERS_BONUS] > 0.5


def read_sheet(observation: np.ndarray) -> list[int | None]:
    """The points written per category (None while open), off an observation."""
    is_open = observation[rules.OBS_OPEN] > 0.5
    points = np.rint(observation[rules.OBS_SHEET] * rules.MAX_CATEGORY_POINTS).astype(int)
    return [None if o else int(v) for o, v in zip(is_open, points)]


class TurnPlan(NamedTuple):
    """How the heuristic plays the turns of one sheet."""

    best_category: np.ndarray  #: (462,): the category to write each sorted roll into
    lock_values: dict[int, np.ndarray]  #: rolls made (1, 2) -> the value of every keep (by ``KEEP_TABLES.keep_index``)


#: Sheets whose plans ``act_batch`` keeps between calls (a plan is ~15 KB); beyond, they are planned afresh.
PLAN_CACHE_SIZE = 4096
#: Sheets planned in one :meth:`SixHundredHeuristic.plan_sheets` call (its write values take 66 KB each).
PLAN_CHUNK = 256


def sheet_key(observation: np.ndarray) -> bytes:
    """What identifies the sheet an observation shows (it changes once per turn)."""
    return observation[rules.OBS_OPEN.start : rules.OBS_SHEET.stop].tobytes()


class SixHundredHeuristic(Agent):
    """Expected-value play within the turn, against a static value of the score sheet.

    The bot has no randomness. ``act_batch`` plans each distinct sheet of the batch once
    (keeping the plans of up to :data:`PLAN_CACHE_SIZE` sheets between calls, until
    ``reset``: a game's three decisions of a turn share one) and reads every row's action
    off its plan exactly as ``act`` does.
    """

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        if game.name != rules.SixHundred.name:
            raise ValueError(f"SixHundredHeuristic plays six_hundred, not {game.name}")
        self._plans: dict[bytes, TurnPlan] = {}
        super().__init__(game, seed)
        self._planned_for: bytes | None = None
        self._plan: TurnPlan | None = None

    def reset(self, seed: int | None = None) -> None:
        """Reseed, and forget the plans ``act_batch`` kept (a subclass's values may have changed)."""
        super().reset(seed)
        self._plans.clear()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        key = sheet_key(observation)
        if key != self._planned_for:
            self._plan, self._planned_for = self.plan_turn(observation), key
        return self._decide(self._plan, observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row (the bot draws nothing, so ``rngs`` is only checked)."""
        observations, legal = batch_arguments(self.game, observations, action_masks, f"six_hundred {self.name}")
        check_generators(rngs, len(observations), f"six_hundred {self.name}")
        keys = [sheet_key(o) for o in observations]
        missing = {key: row for row, key in enumerate(keys) if key not in self._plans}
        if len(self._plans) + len(missing) > PLAN_CACHE_SIZE:
            self._plans.clear()
            missing = {key: row for row, key in enumerate(keys)}
        for start in range(0, len(missing), PLAN_CHUNK):
            rows = list(missing.values())[start : start + PLAN_CHUNK]
            self._plans.update(zip((keys[r] for r in rows), self.plan_sheets(observations[rows])))
        return np.array(
            [self._decide(self._plans[key], o, m) for key, o, m in zip(keys, observations, legal)], np.int64
        )

    def _decide(self, plan: TurnPlan, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action the plan gives for the observation's dice and roll (checked against the mask)."""
        dice = tuple(
            int(v) for v in observation[rules.OBS_DICE].reshape(rules.NUM_DICE, rules.FACES).argmax(axis=1) + 1
        )
        num_locked = int(round(observation[rules.OBS_LOCKED].sum()))
        roll = int(observation[rules.OBS_ROLL].argmax()) + 1
        action = self._choose(plan, dice[:num_locked], dice[num_locked:], roll)
        if not action_mask[action]:
            raise RuntimeError(f"heuristic chose illegal action {action} for dice {dice}, roll {roll}")
        return action

    def plan_turn(self, observation: np.ndarray) -> TurnPlan:
        """Value of writing every roll in every open category, and of every lock, for this sheet."""
        return self.plan_sheets(observation[None])[0]

    def plan_sheets(self, observations: np.ndarray) -> list[TurnPlan]:
        """:meth:`plan_turn` of the sheet of every row, planned together (each exactly as alone)."""
        plans = compiled_plan.plan(self.write_tables_of(observations))
        return [
            TurnPlan(plans.best_category[k], {2: plans.one_left[k], 1: plans.two_left[k]})
            for k in range(len(observations))
        ]

    def write_tables_of(self, observations: np.ndarray) -> np.ndarray:
        """``(S, 18, 37)``: what writing ``p`` points into category ``c`` is worth (-inf: closed),
        for the sheet of each observation.

        Here the estimated final score of the sheet it makes
        (:func:`~agents.six_hundred.compiled_plan.heuristic_tables`); any other valuation that
        ranks the writes plays through the same turn planner.
        """
        return compiled_plan.heuristic_tables(*read_sheets(observations))

    @staticmethod
    def _choose(plan: TurnPlan, locked: tuple[int, ...], free: tuple[int, ...], roll: int) -> int:
        """Score now, or the lock (a real roll) with the best value."""
        hand = tuple(sorted(locked + free))
        score = rules.score_action(int(plan.best_category[KEEP_TABLES.roll_index[hand]]))
        if roll == rules.MAX_ROLLS:
            return score
        values = plan.lock_values[roll]
        best_value, best_more = values[KEEP_TABLES.keep_index[hand]], free  # locking all = scoring
        fresh = keep_tables(len(free))
        for row in fresh.rerolls_of_roll[fresh.roll_index[free]]:
            if row < 0:
                break
            more = fresh.keeps[row]
            value = values[KEEP_TABLES.keep_index[tuple(sorted(locked + more))]]
            if value > best_value:
                best_value, best_more = value, more
        if best_more == free:
            return score
        rolled = set(reroll_positions_for_keep(free, best_more))
        return rules.lock_action(len(locked) + p for p in range(len(free)) if p not in rolled)
