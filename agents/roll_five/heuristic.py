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
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs.games.roll_five import (
    BID_HIGH,
    BID_LOW,
    FACES,
    HIGH,
    HIGH_LIMIT,
    LOW,
    bid_distance,
    keeps_high,
    keeps_low,
    kept_pairs,
    place_action,
    read_observation,
)


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
