"""The return curve's measure: seat 0's mean return against random players, on fixed seeds.

Both examples (:mod:`training.integrations.tianshou_ppo`, :mod:`training.integrations.torchrl_ppo`)
print it after each epoch for their greedy learner and once for a random player, on the
same games, through the project's game loop (:func:`agents.match.play_game`), so a curve
reads the same whichever library trained it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

import numpy as np

from agents.base import Agent, RandomAgent
from agents.match import play_game
from envs.aec import reward_basis
from envs.core import Game, GameState

FIRST_SEED = 10_000  #: the evaluation's games are seeded FIRST_SEED, FIRST_SEED + 1, ...


def final_return(state: GameState, reward_mode: str, seat: int = 0) -> float:
    """What the env's rewards add up to for ``seat`` over a finished game (see :mod:`envs.aec`)."""
    return float(state.returns()[seat] if reward_mode == "win" else reward_basis(state, reward_mode)[seat])


def mean_return(game: Game, learner: Agent, games: int, reward_mode: str) -> float:
    """``learner``'s mean return in seat 0 against random players over ``games`` seeded games."""
    seats = [learner, *(RandomAgent(game) for _ in range(game.num_players - 1))]
    return float(np.mean([final_return(play_game(game, seats, FIRST_SEED + g)[0], reward_mode) for g in range(games)]))


class ReturnCurve:
    """The learning curve an example prints and keeps: after each ``unit`` (an epoch, an
    iteration) the learner's :func:`mean_return` over ``games`` games, beside a random
    player's on the same games, with the env steps so far and the seconds since it began."""

    def __init__(self, game: Game, games: int, reward_mode: str, unit: str, out: TextIO = sys.stdout):
        self.game, self.games, self.reward_mode, self.unit, self.out = game, games, reward_mode, unit, out
        self.random_return = mean_return(game, RandomAgent(game), games, reward_mode)
        self.points: list[dict[str, float]] = []
        self.start = time.perf_counter()

    def record(self, index: int, env_steps: int, learner: Agent) -> None:
        trained = mean_return(self.game, learner, self.games, self.reward_mode)
        self.points.append(
            {self.unit: index, "env_steps": env_steps, "return": trained, "random_return": self.random_return}
        )
        print(
            f"{self.unit} {index:3d}  env steps {env_steps:7d}  mean return {trained:8.3f}  "
            f"(random {self.random_return:.3f}, {self.games} games)  {time.perf_counter() - self.start:6.1f} s",
            file=self.out,
            flush=True,
        )
