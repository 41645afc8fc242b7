"""Playing agents against the games (the game loop: :mod:`agents.match`) and summarising
the results honestly.

* One-player games: every agent plays the same ``games`` seeds, so every agent gets the
  same dice (the games' chance does not depend on decisions: common random numbers).
  Reported: mean score with a 95% confidence interval, the paired difference to a
  reference agent with its own interval (much tighter, thanks to the shared dice), the
  rate of each per-game statistic the game reports (bonuses, ...) and the score
  distribution.
* Several players: each pairing plays ``games`` games in **seat-paired openings**: every
  opening (a seed: its dice, its random opening plies) is played once with the candidate in
  each seat and the opponent agent in the others (:func:`agents.match.pairing_seed`).
  Reported: win / draw / loss rates and the score (wins + half the draws), whose 95%
  interval is taken over the openings, the independent samples (:func:`paired_share_interval`:
  for two players the pentanomial model of chess engine testing). Two copies of one
  deterministic agent thus score exactly ½. A pairing may stop early once a sequential
  test decides it (:mod:`training.evaluation.sprt`).

A game without chance between two deterministic agents is the same game every time, so
its repetitions are not independent samples and an interval over them would be a lie.
``random_opening_plies`` plays the first plies of every game uniformly at random (from
the game's seed, the same opening for every pairing) before the agents take over, and
every report counts the distinct games actually played.

Confidence intervals use the normal approximation (1.96 standard errors) for mean scores
and for a pairing's score over its openings, clipped to [0, 1], and Wilson's interval for
rates, which stays inside [0, 1] at any game count (the normal approximation printed a
share of 0.995 as [0.985, 1.005]). A score of wins plus half the draws is a mean of values
in [0, 1], whose variance is at most p (1 - p): Wilson's interval for it is conservative
(:func:`share_interval`, for games not played in seat-paired openings).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent, acts_in_batch
from agents.match import GameEnd, pairing_seat, pairing_seats, pairing_seed, play_game, play_games_in_batch
from envs.core import Game, GameState
from training.evaluation.sprt import Sprt, SprtResult

Z95 = 1.959963984540054


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return float(values.mean()), float("nan")
    return float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


def wilson_interval(successes: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a rate."""
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    # the ends are exactly 0 at p = 0 and 1 at p = 1, where rounding would leave a trace
    return (0.0 if p == 0 else max(centre - half, 0.0)), (1.0 if p == 1 else min(centre + half, 1.0))


def share_interval(scores: np.ndarray) -> tuple[float, float, float]:
    """The mean of per-game scores in [0, 1] (1 win, ½ draw, 0 loss) and its 95% interval.

    Wilson's interval with the points as successes: exact in form for wins and losses,
    conservative with draws (a variable in [0, 1] with mean p has variance at most
    p (1 - p), the binomial's), and always inside [0, 1].
    """
    scores = np.asarray(scores, dtype=np.float64)
    low, high = wilson_interval(float(scores.sum()), len(scores))
    return float(scores.mean()) if len(scores) else float("nan"), low, high


def opening_scores(scores: np.ndarray, openings: np.ndarray) -> np.ndarray:
    """Each opening's mean score over its games (its seat rotations), in the openings' order."""
    scores, openings = np.asarray(scores, dtype=np.float64), np.asarray(openings)
    if len(scores) == 0:
        return scores
    numbers, index = np.unique(openings, return_inverse=True)
    return np.bincount(index, weights=scores, minlength=len(numbers)) / np.bincount(index, minlength=len(numbers))


def paired_share_interval(scores: np.ndarray, openings: np.ndarray) -> tuple[float, float, float]:
    """The mean of per-game scores in [0, 1] played in seat-paired openings, and its 95% interval
    over the openings (the independent samples: a game shares its dice and opening with the
    other games of its opening).

    The normal interval of the openings' mean scores, inside [0, 1]: for two players the
    pentanomial model of fishtest and fastchess (each game pair scores 0, ¼, ½, ¾ or 1), whose
    variance the pairing takes out of the seat's and the deal's luck. Where every opening
    scored alike the sample has no spread to take a variance from, and Wilson's interval over
    the openings stands in (two copies of one deterministic agent: ½ in every opening, ½ with
    Wilson's interval around it).
    """
    per_opening = opening_scores(scores, openings)
    if len(per_opening) == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(np.asarray(scores, dtype=np.float64).mean())
    if len(per_opening) < 2 or np.all(per_opening == per_opening[0]):
        low, high = wilson_interval(float(per_opening.sum()), len(per_opening))
        return mean, low, high
    half = Z95 * float(per_opening.std(ddof=1)) / math.sqrt(len(per_opening))
    return mean, max(mean - half, 0.0), min(mean + half, 1.0)


def clipped_mean_ci(values: np.ndarray, low: float, high: float) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% normal interval, intersected with ``[low, high]``, the
    range the mean can take (which keeps its coverage: the true mean lies in that range)."""
    mean, half = mean_ci(values)
    return mean, max(mean - half, low), min(mean + half, high)


@dataclass
class SolitaireResult:
    agent: str
    scores: np.ndarray
    stats: dict[str, np.ndarray] = field(default_factory=dict)


#: Games of a table played at once as rows of the batched twin, wherever an evaluation is not told
#: otherwise (``--batch``, ``evaluation.batch``): thousands, so that each agent's call and each
#: step of the twin serve many games, and few enough that a table's rows stay some MB.
DEFAULT_BATCH = 1000


def plays_in_batch(seats: Sequence[Agent]) -> bool:
    """Whether every agent of a table acts in batch (:func:`agents.base.acts_in_batch`), so that
    its games can be played as rows of the batched twin."""
    return all(acts_in_batch(agent) for agent in seats)


def tables_one_at_a_time(tables: Sequence[tuple[Hashable, Callable[[int], Sequence[Agent]]]]) -> list[Hashable]:
    """The keys of the tables that :func:`played_in_batches` plays one game at a time even in
    batch: those with an agent that cannot act in batch (a user's agent without ``act_batch``)."""
    return [key for key, seats_of in tables if not plays_in_batch(seats_of(0))]


def played_in_batches(
    game: Game,
    tables: Sequence[tuple[Hashable, Callable[[int], Sequence[Agent]]]],
    seeds: Sequence[int],
    random_opening_plies: int = 0,
    batch: int = 0,
    states: bool = True,
    progress: Callable[[], None] | None = None,
) -> Iterator[tuple[int, Hashable, tuple[GameState | GameEnd, tuple]]]:
    """Game ``i`` (seeded ``seeds[i]``) of every table ``(key, seats_of)``, its seats
    ``seats_of(i)`` (the same agents in every game, seats rotated as the caller likes):
    ``(i, key, (final state, history))``, game by game in the order ``i``, then the tables.

    ``batch`` 0 plays them one by one (:func:`agents.match.play_game`); above 0, ``batch``
    games of a table at a time as rows of the batched twin
    (:func:`agents.match.play_games_in_batch`), yielded in the same order. A table with an
    agent that cannot act in batch (:func:`tables_one_at_a_time`) plays its games one by one
    all the same, and only that table. The games are the same either way: the agents'
    ``act_batch`` plays what ``act`` plays, row by row (the tests check every bot and
    shipped agent), and every game is seeded by its seed alone. With ``states=False`` a game
    played in batch ends as a :class:`~agents.match.GameEnd` (its scores and returns, not
    replayed on the rules core), for callers that need no more.

    ``progress()``, if given, is called once per game as it ends: in batch, while the batch
    is being played, not when its games are yielded (a batch of 1000 games would otherwise
    report them all at once, at its end).
    """
    told = (lambda: None) if progress is None else progress
    if batch <= 0:
        for i, seed in enumerate(seeds):
            for key, seats_of in tables:
                played = play_game(game, seats_of(i), seed, random_opening_plies)
                told()
                yield i, key, played
        return
    one_at_a_time = set(tables_one_at_a_time(tables))

    def ended(count: int) -> None:
        for _ in range(count):
            told()

    for start in range(0, len(seeds), batch):
        numbers = range(start, min(start + batch, len(seeds)))
        played = {
            key: play_games_in_batch(
                game,
                [seats_of(i) for i in numbers],
                [seeds[i] for i in numbers],
                random_opening_plies,
                states,
                ended,
            )
            for key, seats_of in tables
            if key not in one_at_a_time
        }
        for i in numbers:
            for key, seats_of in tables:
                if key in one_at_a_time:
                    alone = play_game(game, seats_of(i), seeds[i], random_opening_plies)
                    told()
                    yield i, key, alone
                else:
                    yield i, key, played[key][i - start]


def evaluate_solitaire(
    game: Game, agents: dict[str, Agent], seeds: Sequence[int], progress=None, on_game=None, batch: int = 0
) -> list[SolitaireResult]:
    """Every agent plays one-player games on the same seeds.

    The games are played seed by seed (every agent's game of a seed, then the next seed), so
    that at any moment every agent's cost is in the time spent so far and ``progress``'s
    estimate of the time left holds from the first games on; the results do not depend on
    the order, every agent being reset for each game from its seed (:func:`agents.match.play_game`).
    ``on_game(seat_labels, seed, history, state)``, if given, sees every game played (to record it).
    ``batch`` above 0 plays ``batch`` seeds of an agent at once (:func:`played_in_batches`).
    """
    scores: dict[str, list[float]] = {label: [] for label in agents}
    stats: dict[str, dict[str, list]] = {label: {} for label in agents}
    tables = [(label, lambda _, agent=agent: [agent]) for label, agent in agents.items()]
    for i, label, (state, history) in played_in_batches(game, tables, list(seeds), 0, batch, progress=progress):
        if on_game is not None:
            on_game([label], seeds[i], history, state)
        scores[label].append(state.scores()[0])
        for key, value in state.stats(0).items():
            stats[label].setdefault(key, []).append(value)
    return [
        SolitaireResult(label, np.array(scores[label]), {k: np.array(v) for k, v in stats[label].items()})
        for label in agents
    ]


@dataclass
class PairingResult:
    candidate: str
    opponent: str
    outcomes: np.ndarray  #: the candidate's +1 / 0 / -1 per game
    seats: np.ndarray  #: the candidate's seat per game
    distinct_games: int  #: how many of the games differ in their moves
    openings: np.ndarray  #: each game's opening (:func:`agents.match.pairing_seed`: the games of one share its seed)
    sprt: SprtResult | None = None  #: how its sequential test ended, where one stopped it

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def scores(self) -> np.ndarray:
        """The candidate's score per game: 1 for a win (a shared one too), ½ for a draw, 0 for a loss."""
        return (self.outcomes + 1.0) / 2.0

    def share(self) -> tuple[float, float, float]:
        """The candidate's score (wins + half the draws, per game) and its 95% interval over the
        openings (:func:`paired_share_interval`)."""
        return paired_share_interval(self.scores, self.openings)

    def pentanomial(self) -> list[int]:
        """Two players: how many openings the candidate scored 0, ½, 1, 1½ and 2 points in over
        its two games (fastchess's LL, LD, DD + WL, WD, WW); complete openings only."""
        per_opening = opening_scores(self.scores, self.openings)
        counts = np.bincount(np.rint(per_opening * 4).astype(int), minlength=5)
        return counts.tolist()

    def counts(self) -> tuple[int, int, int]:
        """The candidate's wins, draws and losses."""
        wins, draws, losses = (int((self.outcomes == outcome).sum()) for outcome in (1, 0, -1))
        return wins, draws, losses

    def rate(self, outcome: int) -> tuple[float, float, float]:
        """Rate of ``outcome`` (+1 win, 0 draw, -1 loss) and its 95% Wilson interval."""
        count = int((self.outcomes == outcome).sum())
        low, high = wilson_interval(count, self.games)
        return count / self.games, low, high


def evaluate_pairing(
    game: Game,
    candidate: tuple[str, Agent],
    opponent: tuple[str, Agent],
    games: int,
    base_seed: int,
    random_opening_plies: int = 0,
    progress=None,
    on_game=None,
    batch: int = 0,
    sprt: Sprt | None = None,
) -> PairingResult:
    """``candidate`` in each seat in turn against ``opponent`` in all other seats, in seat-paired
    openings (:func:`agents.match.pairing_seed`).

    ``on_game(seat_labels, seed, history, state)``, if given, sees every game played (to record it).
    """
    [result] = evaluate_pairings(
        game, [(candidate, opponent)], games, base_seed, random_opening_plies, progress, on_game, batch, sprt
    )
    return result


def evaluate_pairings(
    game: Game,
    pairings: Sequence[tuple[tuple[str, Agent], tuple[str, Agent]]],
    games: int,
    base_seed: int,
    random_opening_plies: int = 0,
    progress=None,
    on_game=None,
    batch: int = 0,
    sprt: Sprt | None = None,
) -> list[PairingResult]:
    """Every ``(candidate, opponent)`` pairing, as :func:`evaluate_pairing` plays one.

    ``games`` must be a multiple of the players, so that every opening is played from every
    seat. The games are played in rounds, game ``g`` of every pairing before game ``g + 1`` of
    any, so that at any moment every pairing's cost is in the time spent so far: the pairings
    of a search bot cost many times the others, and ``progress``'s estimate of the time left,
    from the games played so far, would be far too short after the cheap pairings alone. A
    game depends only on its number (:func:`agents.match.pairing_games`), so the results are
    those of each pairing played on its own. ``batch`` above 0 plays ``batch`` games of a
    pairing at once (:func:`played_in_batches`).

    With ``sprt``, the games come in stretches of ``batch`` games (of whole openings; one
    opening where ``batch`` is 0), and a pairing its test has decided plays no further
    stretch: at most ``games`` games each, and the same games as without the test up to
    where it stopped.
    """
    players = game.num_players
    if games % players:
        raise ValueError(
            f"games ({games}) must be a multiple of the {players} players, so that every opening "
            "is played once from every seat"
        )
    outcomes: list[list[int]] = [[] for _ in pairings]
    histories: list[set[tuple]] = [set() for _ in pairings]
    tables = [
        (k, lambda g, candidate=candidate[1], opponent=opponent[1]: pairing_seats(game, candidate, opponent, g))
        for k, (candidate, opponent) in enumerate(pairings)
    ]
    decisions: dict[int, SprtResult] = {}
    stretch = games if sprt is None else max(players, batch - batch % players)
    for first in range(0, games, stretch):
        playing = [table for table in tables if table[0] not in decisions]
        if not playing:
            break
        numbers = range(first, min(first + stretch, games))
        seeds = [pairing_seed(game, base_seed, g) for g in numbers]
        shifted = [(k, lambda i, seats_of=seats_of: seats_of(first + i)) for k, seats_of in playing]
        played = played_in_batches(
            game, shifted, seeds, random_opening_plies, batch, states=on_game is not None, progress=progress
        )
        for i, k, (state, history) in played:
            candidate, opponent = pairings[k]
            seat = pairing_seat(game, first + i)
            if on_game is not None:
                labels = [candidate[0] if p == seat else opponent[0] for p in range(players)]
                on_game(labels, seeds[i], history, state)
            outcomes[k].append(state.returns()[seat])
            histories[k].add(history)
        if sprt is not None:
            for k, _ in playing:
                per_opening = opening_scores(
                    (np.array(outcomes[k]) + 1.0) / 2.0, np.arange(len(outcomes[k])) // players
                )
                decision = sprt.decision(per_opening)
                if decision is not None or first + stretch >= games:
                    decisions[k] = SprtResult(sprt, decision, sprt.llr(per_opening))
    results = []
    for k, (candidate, opponent) in enumerate(pairings):
        numbers = np.arange(len(outcomes[k]))
        results.append(
            PairingResult(
                candidate[0],
                opponent[0],
                np.array(outcomes[k]),
                numbers % players,
                len(histories[k]),
                numbers // players,
                decisions.get(k),
            )
        )
    return results
