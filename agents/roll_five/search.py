"""The strong Roll Five bot: exact expectimax over one's own rolls, against a model of the table.

A player's pairs depend only on their own cards, rolls and placements; the opponents
change who wins, never what one keeps. So the bot plays the exact expectimax of its own
row: the value of a position is

    V(uncovered cards, tallies) = Σ over the distinct faces S of the next roll
                                  P(S) · max over (die in S, uncovered card) V(child),

and a finished row is worth the **expected outcome** (+1 win, −1 loss) of its result,
max over the two bids, against a model of the other players: the distribution of
results (pairs kept, tie-break distance) that the heuristic reaches at the same table,
sampled once per table by Monte-Carlo play (``model_games`` games) — the only sampling
the bot needs, since the opponents' hidden cards and rolls enter only through that
distribution. So the bot takes more risk for a better tie-break exactly when the table
makes that pay.

Only the *set* of faces a roll shows matters (any die of a value may be placed), so a
roll of k dice has at most 63 outcomes, their probabilities computed once at import.
Positions are keyed by the uncovered card values and the tallies (pairs surviving each
bid and their tie-break gaps), so one cache serves every hand of a table. The bid is the
one whose result is worth more; ties go to the heuristic's choice.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from agents.base import Agent
from agents.batched import act_row_by_row
from agents.match import play_games_in_batch
from agents.roll_five.heuristic import RollFiveHeuristic, best_placement, bid_action, placement_key, planned_bid
from envs.core import Game
from envs.games.roll_five import (
    BID_HIGH,
    BID_LOW,
    CARDS_PER_PLAYER,
    FACES,
    HIGH_BEST,
    HIGH_LIMIT,
    PlayerView,
    keeps_high,
    keeps_low,
    read_observation,
)

MAX_DISTANCE = HIGH_BEST  #: no tie-break distance exceeds 35


def _face_sets(k: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Each set of distinct faces a roll of ``k`` dice can show, with its probability."""
    counts = Counter(tuple(sorted(set(roll))) for roll in itertools.product(range(1, FACES + 1), repeat=k))
    total = FACES**k
    return tuple((faces, n / total) for faces, n in sorted(counts.items()))


_FACE_SETS = {k: _face_sets(k) for k in range(1, CARDS_PER_PLAYER + 1)}


class TableModel:
    """Expected outcome of a final result at one table, and the expectimax over a row.

    ``utility[pairs, distance]`` is the expected outcome of finishing with ``pairs``
    kept at tie-break ``distance``, against ``num_players − 1`` independent opponents
    whose results follow the sampled distribution.
    """

    def __init__(self, game: Game, results: np.ndarray):
        tournament = game.mode == "tournament"
        pairs, distance = results[:, 0], results[:, 1]
        utility = np.zeros((CARDS_PER_PLAYER + 1, MAX_DISTANCE + 1))
        for p in range(CARDS_PER_PLAYER + 1):
            for d in range(MAX_DISTANCE + 1):
                better = (pairs > p) | (tournament & (pairs == p) & (distance < d))
                worse = (pairs < p) | (tournament & (pairs == p) & (distance > d))
                if game.num_players == 2:
                    utility[p, d] = worse.mean() - better.mean()
                else:
                    utility[p, d] = 2 * (1 - better.mean()) ** (game.num_players - 1) - 1
        self.utility = utility
        self.tournament = tournament
        self._cache: dict[tuple, float] = {}

    def final_value(self, high: int, high_gap: int, low: int, low_gap: int) -> float:
        """The better bid's utility; the gaps are Σ 7 − card − die and Σ card − die over kept pairs."""
        high_distance = high_gap + HIGH_LIMIT * (CARDS_PER_PLAYER - high)  # = |35 − Σ(card + die)|
        return max(self.utility[high, high_distance], self.utility[low, low_gap])

    def value(self, uncovered: tuple[int, ...], high: int, high_gap: int, low: int, low_gap: int) -> float:
        """Expected utility of a row with ``uncovered`` card values (ascending) left, playing on optimally."""
        key = (uncovered, high, high_gap, low, low_gap)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if not uncovered:
            result = self.final_value(high, high_gap, low, low_gap)
        else:
            cards = set(uncovered)
            best_by_die = [
                max(self.child_value(uncovered, card, die, high, high_gap, low, low_gap) for card in cards)
                for die in range(1, FACES + 1)
            ]
            result = sum(p * max(best_by_die[die - 1] for die in faces) for faces, p in _FACE_SETS[len(uncovered)])
        self._cache[key] = result
        return result

    def child_value(self, uncovered, card: int, die: int, high: int, high_gap: int, low: int, low_gap: int) -> float:
        rest = list(uncovered)
        rest.remove(card)
        if keeps_high(card, die):
            high, high_gap = high + 1, high_gap + (HIGH_LIMIT - card - die if self.tournament else 0)
        if keeps_low(card, die):
            low, low_gap = low + 1, low_gap + (card - die if self.tournament else 0)
        return self.value(tuple(rest), high, high_gap, low, low_gap)


def tallies(cards, dice, tournament: bool) -> tuple[int, int, int, int]:
    """Pairs surviving High, their gap, pairs surviving Low, their gap (gaps 0 in casual mode)."""
    high = [HIGH_LIMIT - c - d for c, d in zip(cards, dice) if d and keeps_high(c, d)]
    low = [c - d for c, d in zip(cards, dice) if d and keeps_low(c, d)]
    return len(high), sum(high) if tournament else 0, len(low), sum(low) if tournament else 0


#: The table models sampled in this process, by (players, mode, games sampled).
_MODELS: dict[tuple, TableModel] = {}


def table_model(game: Game, model_games: int) -> TableModel:
    """The model of ``game``'s table, sampled from ``model_games`` games of heuristic
    self-play (seeds 0 to ``model_games - 1``), once per process and table.

    Cost: the sampling plays ``model_games`` whole games of heuristic self-play, once, as rows
    of the batched twin (:func:`agents.match.play_games_in_batch`: the games of ``play_game``);
    the model then memoises the expectimax value of every row it is asked about (tens
    of thousands of entries after a few hundred games, some MB, kept for the life of
    the process).

    The model is a function of the table (player count and mode) and ``model_games``
    alone, so every agent of a process shares it, with its memo, instead of each paying
    the sampling again: a ladder or an evaluation builds an agent per spec and process,
    tests build dozens. Sharing changes no result (same games, same numbers), only the
    time the first agent takes to build.
    """
    key = (game.num_players, game.mode, model_games)
    if key not in _MODELS:
        heuristic = RollFiveHeuristic(game)
        tables = [[heuristic] * game.num_players] * model_games
        results = []
        for state, _ in play_games_in_batch(game, tables, list(range(model_games))):  # play_game's games, at once
            results += [(int(k), int(d)) for k, d in zip(state.scores(), state.tie_break_distances())]
        _MODELS[key] = TableModel(game, np.array(results))
    return _MODELS[key]


class RollFiveSearch(Agent):
    """Expectimax of its own row against a sampled model of the table (see the module docstring).

    Args:
        model_games: heuristic self-play games sampled to model the other players (once
            per table size and mode, per process: :func:`table_model`, about 0.5 s for
            1000 two-player games).
    """

    name = "search"

    def __init__(self, game: Game, seed: int | None = None, model_games: int = 1000):
        if model_games < 1:
            raise ValueError(f"roll_five search: model_games must be positive, got {model_games}")
        self.model = table_model(game, model_games)
        super().__init__(game, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self._act(observation, action_mask, self.rng)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """``act`` of every row, as if called on the rows in order: the same actions, and the
        generator left where ``act`` would leave it; with ``rngs``, row ``k``'s ties are drawn
        from ``rngs[k]`` instead (:mod:`agents.batched`).

        A loop over the rows: each placement is valued by the table model's memoised
        expectimax (a dictionary look-up once a row has been met, shared by all the rows, as
        it is by all the moves of ``act``), which does not vectorise. It lets the bot sit at
        a table played in batch, where the env and the other seats act in batch."""
        return act_row_by_row(
            self._act, self.game, self.rng, observations, action_masks, rngs, f"roll_five {self.name}"
        )

    def _act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """:meth:`act`, equal placements broken by ``rng``."""
        view = read_observation(observation)
        model = self.table_model_for(view)
        cards, dice = view.cards, view.dice
        high, high_gap, low, low_gap = tallies(cards, dice, model.tournament)
        if action_mask[BID_HIGH] or action_mask[BID_LOW]:
            return self._bid(model, cards, dice, high, high_gap, low, low_gap)
        uncovered = tuple(sorted(cards[slot] for slot in view.uncovered))
        plan = planned_bid(cards, dice)

        def key(die: int, slot: int) -> tuple:
            value = model.child_value(uncovered, cards[slot], die, high, high_gap, low, low_gap)
            return round(value, 12), placement_key(cards[slot], die, plan)

        return best_placement(view, key, rng, self.name)

    def table_model_for(self, view: PlayerView) -> TableModel:
        """The model of the table a decision is made against: the one sampled when the bot was
        built. A subclass may condition it on what the view shows (the opponents' placed dice,
        one's own cards): ``benchmarks/roll_five_headroom.py`` measures what that is worth."""
        return self.model

    def _bid(self, model: TableModel, cards, dice, high, high_gap, low, low_gap) -> int:
        utility = model.utility
        high_value = utility[high, high_gap + HIGH_LIMIT * (CARDS_PER_PLAYER - high)]
        low_value = utility[low, low_gap]
        if high_value == low_value:
            return bid_action(cards, dice)
        return BID_HIGH if high_value > low_value else BID_LOW
