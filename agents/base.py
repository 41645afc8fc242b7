"""The agent interface shared by bots, trained policies and the evaluation harness."""

from __future__ import annotations

import abc

import numpy as np

from envs.core import Game


class Agent(abc.ABC):
    """A policy for one seat: observation and legal-action mask in, action id out.

    Agents see exactly what an env gives a player (``observation``, ``action_mask``), so
    the same object plays through the AEC env, the Gymnasium env's opponent seats and
    the evaluation harness. Any randomness comes from ``self.rng``, reseeded by
    ``reset(seed=...)`` so that seeded games are reproducible.
    """

    #: Short name used on the command line and in result tables.
    name: str = "agent"

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode; reseed the agent's generator."""
        self.rng = np.random.default_rng(seed)

    @abc.abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action id to play; must be legal under ``action_mask``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game!r})"


class RandomAgent(Agent):
    """Uniformly random over the legal actions: the floor every agent is measured against."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("random agent: the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])
