"""The return curve's measure: seat 0's mean return against random players, on fixed seeds.

Both examples (:mod:`training.integrations.tianshou_ppo`, :mod:`training.integrations.torchrl_ppo`)
print it after each epoch for their greedy learner and once for a random player, on the
same games, through the project's game loop (:func:`agents.match.play_game`), so a curve
reads the same whichever library trained it.
"""

from __future__ import annotations

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
