"""A Roll Five heuristic: pick the likely bid from the cards, fit dice inside its limit.

* **Plan**: the bid with more pairs expected to survive: the pairs surviving it so far,
  plus, per uncovered card, the chance that a single fair die would fit it under that
  bid (High: card + die <= 7, so (7 − card) / 6; Low: die <= card, so card / 6). Low
  cards favour High and high cards favour Low; the plan is re-read every turn.
* **Placing**: among the legal placements, one that survives the plan, fitting as
  tightly as possible (card + die = 7 for High, die = card for Low: a tight fit spends
  the card's room exactly and is the best tie-break score), on the hardest card to fit
  first; with no fit, the die goes on the card least likely to survive the plan anyway,
  preferring a placement that would at least survive the other bid.
* **Bid**: the bid under which more pairs survive; equal, the one with the better
  tournament tie-break; still equal, High.

``act_batch`` applies the same rules to many observations at once over arrays, move for
move as ``act`` (:mod:`agents.batched`: ties drawn from the same generator).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.batched import batch_arguments, break_ties, check_generators, row_generators
from envs.games.roll_five import (
    BID_HIGH,
    BID_LOW,
    CARDS_PER_PLAYER,
    FACES,
    HIGH,
    HIGH_BEST,
    HIGH_LIMIT,
    LOW,
    NUM_PLACEMENTS,
    OBS_ROLL,
    SLOT_BLOCK,
    SLOT_CARD,
    SLOT_DIE,
    bid_distance,
    keeps_high,
    keeps_low,
    kept_pairs,
    place_action,
    read_observation,
)

#: Die value and slot of every placement action id (``place_action``'s inverse), as arrays.
_PLACED_DIE, _PLACED_SLOT = np.divmod(np.arange(NUM_PLACEMENTS), CARDS_PER_PLAYER)
_PLACED_DIE = _PLACED_DIE + 1


def best_bid(cards, dice) -> int:
    """``HIGH`` or ``LOW``: more surviving pairs, then the closer tie-break score, then High."""
    return min((HIGH, LOW), key=lambda bid: (-kept_pairs(cards, dice, bid), bid_distance(cards, dice, bid), bid))


def bid_action(cards, dice) -> int:
    return BID_HIGH if best_bid(cards, dice) == HIGH else BID_LOW


def planned_bid(cards, dice) -> int:
    """The bid with more pairs expected to survive (see the module docstring); High on a tie."""
    high = kept_pairs(cards, dice, HIGH) + sum((HIGH_LIMIT - c) / FACES for c, d in zip(cards, dice) if not d)
    low = kept_pairs(cards, dice, LOW) + sum(c / FACES for c, d in zip(cards, dice) if not d)
    return HIGH if high >= low else LOW


def placement_key(card: int, die: int, plan: int) -> tuple:
    """Larger is better: fits the plan, fits tightly, hardest card; else fits the other bid, least hopeful card."""
    fits_high, fits_low = keeps_high(card, die), keeps_low(card, die)
    if plan == HIGH:
        if fits_high:
            return (1, -(HIGH_LIMIT - card - die), card)
        return (0, fits_low, card)
    if fits_low:
        return (1, -(card - die), -card)
    return (0, fits_high, -card)


def best_placement(view, key, rng: np.random.Generator, bot: str) -> int:
    """The placement (a die value of the roll on an uncovered card) with the highest
    ``key(die, slot)``; equal keys are broken by ``rng``."""
    best_key, best = None, []
    for die in sorted(set(view.roll)):
        for slot in view.uncovered:
            value = key(die, slot)
            if best_key is None or value > best_key:
                best_key, best = value, [place_action(die, slot)]
            elif value == best_key:
                best.append(place_action(die, slot))
    if not best:
        raise ValueError(f"roll_five {bot}: asked to act with nothing to place or bid")
    return best[rng.integers(len(best))]


class RollFiveHeuristic(Agent):
    """The rules of thumb of the module docstring; ties broken by the bot's generator."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        view = read_observation(observation)
        if action_mask[BID_HIGH] or action_mask[BID_LOW]:
            return bid_action(view.cards, view.dice)
        plan = planned_bid(view.cards, view.dice)
        return best_placement(view, lambda die, slot: placement_key(view.cards[slot], die, plan), self.rng, self.name)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, as if called on the rows in order: the same actions, and
        the generator left where ``act`` would leave it; with ``rngs``, row ``k``'s ties are
        drawn from ``rngs[k]`` instead (:mod:`agents.batched`)."""
        observations, legal = batch_arguments(self.game, observations, action_masks, f"roll_five {self.name}")
        check_generators(rngs, len(legal), f"roll_five {self.name}")
        slots = observations[:, : OBS_ROLL.start].reshape(-1, CARDS_PER_PLAYER, SLOT_BLOCK)
        cards = slots[:, :, SLOT_CARD].argmax(axis=2) + 1
        dice = np.where(slots[:, :, SLOT_DIE].any(axis=2), slots[:, :, SLOT_DIE].argmax(axis=2) + 1, 0)
        placed = dice > 0
        fits_high, fits_low = placed & (cards + dice <= HIGH_LIMIT), placed & (cards - dice >= 0)
        kept_high, kept_low = fits_high.sum(axis=1), fits_low.sum(axis=1)
        bidding = legal[:, BID_HIGH] | legal[:, BID_LOW]
        actions = np.empty(len(legal), np.int64)
        # the bid: more pairs, then the closer tie-break score, then High (best_bid)
        high_distance = np.abs(HIGH_BEST - np.where(fits_high, cards + dice, 0).sum(axis=1))
        low_distance = np.where(fits_low, cards - dice, 0).sum(axis=1)
        high_first = (kept_high > kept_low) | ((kept_high == kept_low) & (high_distance <= low_distance))
        actions[bidding] = np.where(high_first, BID_HIGH, BID_LOW)[bidding]
        placing = np.flatnonzero(~bidding)
        if placing.size:
            actions[placing] = self._placements(
                cards[placing],
                placed[placing],
                kept_high[placing],
                kept_low[placing],
                observations[placing],
                row_generators(self.rng, rngs, placing),
            )
        return actions

    def _placements(self, cards, placed, kept_high, kept_low, observations, rng) -> np.ndarray:
        """The placements of ``act`` for rows that place a die (see :func:`best_placement`), ties
        drawn from ``rng`` (a generator, or one per row)."""
        # the plan (planned_bid): the odds of the uncovered cards, added slot by slot as act adds them
        high, low = 0.0, 0.0
        for slot in range(CARDS_PER_PLAYER):
            open_card = ~placed[:, slot]
            high = high + np.where(open_card, (HIGH_LIMIT - cards[:, slot]) / FACES, 0.0)
            low = low + np.where(open_card, cards[:, slot] / FACES, 0.0)
        plan_high = (kept_high + high >= kept_low + low)[:, None]
        # placement_key of every placement id, as one integer that orders as its tuple
        card, die = cards[:, _PLACED_SLOT], _PLACED_DIE[None, :]
        fit_high, fit_low = card + die <= HIGH_LIMIT, card - die >= 0
        fits_plan = np.where(plan_high, fit_high, fit_low)
        tightness = np.where(plan_high, HIGH_LIMIT - card - die, card - die)
        hardness = np.where(plan_high, card, -card)
        fits_other = np.where(plan_high, fit_low, fit_high)
        key = 10_000 * fits_plan + 100 * np.where(fits_plan, -tightness, fits_other) + hardness
        # the candidates act ranks: each die value of the roll on each uncovered card
        rolled = np.rint(observations[:, OBS_ROLL].astype(np.float64) * CARDS_PER_PLAYER) > 0
        candidates = rolled[:, _PLACED_DIE - 1] & ~placed[:, _PLACED_SLOT]
        best = candidates & (key == np.where(candidates, key, np.iinfo(key.dtype).min).max(axis=1, keepdims=True))
        return break_ties(best, rng, f"roll_five {self.name}")
