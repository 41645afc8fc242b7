"""Bradley–Terry ratings on the Elo scale from a round-robin's results, with bootstrap intervals.

The model: agent ``i`` scores against ``j`` with probability
``1 / (1 + 10 ** ((r_j - r_i) / 400))`` (a draw counts half a win). The ratings are the
maximum-likelihood fit over every game played, by Hunter's (2004) minorise-maximise
iteration. An agent that won (or lost) every game would have an infinite rating, so
every pairing that was played also counts one virtual draw (half a win each way): a
weak prior that keeps all ratings finite and barely moves them at the game counts used.

Ratings are anchored: the ``anchor`` agent is 0 (e.g. ``random``). The 95% intervals
come from the bootstrap: each pairing's games are resampled with replacement, the
ratings refitted, and the 2.5th and 97.5th percentiles taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)  #: Elo points per natural-log unit of strength
VIRTUAL_DRAWS = 1.0  #: games of prior per played pairing, scored half to each side
BOOTSTRAP = 1000  #: bootstrap resamples behind the rating intervals


@dataclass
class Ratings:
    agents: list[str]
    elo: np.ndarray  #: fitted rating of each agent, the anchor at 0
    low: np.ndarray  #: 2.5th bootstrap percentile
    high: np.ndarray  #: 97.5th bootstrap percentile
    replicas: np.ndarray | None = None  #: every bootstrap draw's ratings (draws x agents)


def fit_bradley_terry(scores: np.ndarray, games: np.ndarray, anchor: int = 0, iterations: int = 2000) -> np.ndarray:
    """Elo ratings from ``scores[i, j]`` (points ``i`` took from ``j``) and ``games[i, j]``.

    Both matrices are symmetric in the sense ``scores[i, j] + scores[j, i] == games[i, j]``.
    """
    played = games > 0
    wins = scores + 0.5 * VIRTUAL_DRAWS * played
    n = games + VIRTUAL_DRAWS * played
    total_wins = wins.sum(axis=1)
    strength = np.ones(len(games))
    for _ in range(iterations):
        denominator = (n / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = total_wins / denominator
        updated /= np.exp(np.log(updated).mean())
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            strength = updated
            break
        strength = updated
    elo = ELO * np.log(strength)
    return elo - elo[anchor]


def rate(
    agents: list[str],
    outcomes: dict[tuple[int, int], np.ndarray],
    anchor: int = 0,
    bootstrap: int = BOOTSTRAP,
    seed: int = 0,
    opening: int = 1,
) -> Ratings:
    """Ratings from ``outcomes[(i, j)]``: agent ``i``'s +1 / 0 / -1 in each game against ``j``, in
    openings of ``opening`` consecutive games (seat-paired: the players), which the bootstrap
    resamples whole, as the independent samples they are."""
    k = len(agents)
    rng = np.random.default_rng(seed)

    def matrices(samples: dict) -> tuple[np.ndarray, np.ndarray]:
        scores, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), results in samples.items():
            points = float(((results + 1.0) / 2.0).sum())
            scores[i, j] += points
            scores[j, i] += len(results) - points
            games[i, j] += len(results)
            games[j, i] += len(results)
        return scores, games

    elo = fit_bradley_terry(*matrices(outcomes), anchor=anchor)
    replicas = np.empty((bootstrap, k))
    for b in range(bootstrap):
        resampled = {}
        for pair, results in outcomes.items():
            blocks = results.reshape(-1, opening)
            resampled[pair] = blocks[rng.integers(len(blocks), size=len(blocks))].ravel()
        replicas[b] = fit_bradley_terry(*matrices(resampled), anchor=anchor)
    low, high = np.percentile(replicas, [2.5, 97.5], axis=0)
    return Ratings(list(agents), elo, low, high, replicas)
