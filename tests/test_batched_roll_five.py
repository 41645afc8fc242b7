"""The batched Roll Five twin (envs/batched/roll_five.py) against its rules core.

``tests.batched_check.compare`` commits each simultaneous round in seat order (first acting
seat first); the order test here commits the last seat first, then in random orders, and
checks the tournament tie-break (returns not read off the scores) is actually reached.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.roll_five import BatchedRollFive
from envs.core import outcome_from_scores
from envs.games.roll_five import RollFive
from tests.batched_check import Lockstep, compare, random_actions

VARIANTS = [(players, mode) for players in (2, 3, 4) for mode in ("casual", "tournament")]


@pytest.mark.parametrize("players,mode", VARIANTS)
def test_matches_core(players, mode):
    assert compare(BatchedRollFive, RollFive(players, mode=mode), num_games=16, steps=60, seed=players) == 16 * 60


def _play_in_order(players: int, mode: str, num_games: int, steps: int, pick: str, seed: int) -> int:
    """Random games on both sides, each game's committing seat chosen by ``pick`` ("last" or
    "random" among the acting seats); everything compared after every commit. Returns the
    number of finished games whose returns differ from the plain outcome of the scores."""
    pair = Lockstep(BatchedRollFive, RollFive(players, mode=mode), num_games, seed)
    chooser = np.random.default_rng(seed)
    tie_breaks = 0
    for _ in range(steps):
        ended = np.flatnonzero(pair.batched.terminal())
        for row in ended:
            core = pair.cores[row]
            tie_breaks += not np.array_equal(outcome_from_scores(core.scores()), core.returns())
        if ended.size:
            pair.start(ended)
        acting = pair.batched.acting()
        if pick == "last":
            seats = players - 1 - acting[:, ::-1].argmax(axis=1)
        else:
            seats = np.array([chooser.choice(np.flatnonzero(a)) for a in acting])
        pair.play(pair.rows, seats, random_actions(pair, pair.rows, seats, chooser))
    return tie_breaks


@pytest.mark.parametrize("players", (2, 4))
def test_any_commit_order(players):
    """The last seat commits first, then random orders: a round resolves only with its last commit."""
    _play_in_order(players, "casual", num_games=8, steps=6 * players * 2, pick="last", seed=11)
    tie_breaks = _play_in_order(players, "tournament", num_games=16, steps=6 * players * 6, pick="random", seed=23)
    assert tie_breaks > 0  # some finished games were won on the tournament tie-break
