"""The agent interface shared by bots, trained policies and the evaluation harness."""

from __future__ import annotations

import abc
import inspect

import numpy as np

from envs.core import Game


class Agent(abc.ABC):
    """A policy for one seat: observation and legal-action mask in, action id out.

    Agents see exactly what an env gives a player (``observation``, ``action_mask``), so
    the same object plays through the AEC env, the Gymnasium env's opponent seats and
    the evaluation harness. Any randomness comes from ``self.rng``, reseeded by
    ``reset(seed=...)`` so that seeded games are reproducible.

    An agent may also offer ``act_batch(observations, action_masks) -> actions``: the
    actions of many positions (rows) in one call, as ``act`` would choose them, in far less
    than a call per row (a network's one forward pass). It is optional and declared by its
    presence, which :func:`acts_in_batch` tells: the batched env's opponents
    (:mod:`envs.batched.vector_env`) and the rollout agent's base policy
    (:mod:`agents.rollout`) use it where it is there. There is deliberately no default that
    loops over ``act``: the batched env plays an agent without ``act_batch`` through one copy
    per game, reseeded as the single env reseeds it, and a default would hide that. An agent
    whose choices draw on its generator (the random agent, bots that break ties at random)
    takes a third argument, ``rngs`` (one generator per row, :func:`draws_per_row`), and
    draws row ``k``'s choices from ``rngs[k]`` as ``act`` draws from ``self.rng``: the
    batched env passes each game's own generator, reseeded per game, so it still plays the
    single env's games exactly.
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


def draws_per_row(agent: object) -> bool:
    """Whether ``agent``'s ``act_batch`` takes ``rngs``, one generator per row (see :class:`Agent`)."""
    act_batch = getattr(agent, "act_batch", None)
    return callable(act_batch) and "rngs" in inspect.signature(act_batch).parameters


def acts_in_batch(agent: object) -> bool:
    """Whether ``agent`` has a batched ``act_batch(observations, action_masks)`` of its own
    (see :class:`Agent`): a trained network's forward pass, the random agent's draws."""
    return callable(getattr(agent, "act_batch", None))


class RandomAgent(Agent):
    """Uniformly random over the legal actions: the floor every agent is measured against."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("random agent: the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """A uniform legal action of every row, all drawn at once from the agent's generator
        (one uniform number per row: the ``k``-th legal action, ``k`` below the row's count);
        with ``rngs`` (one generator per row), row ``k``'s is drawn from ``rngs[k]`` as :meth:`act`
        draws it, so each row plays what a copy of the agent with that generator would."""
        legal = np.asarray(action_masks) > 0
        counts = legal.sum(axis=1)
        if not counts.all():
            raise ValueError(f"random agent: the action mask of row {int(np.argmin(counts))} allows no action")
        if rngs is not None:
            if len(rngs) != len(counts):
                raise ValueError(f"random agent: rngs must hold one generator per row ({len(counts)}), got {len(rngs)}")
            picks = np.array([rng.integers(count) for rng, count in zip(rngs, counts.tolist())], np.int64)
        else:
            picks = (self.rng.random(len(counts)) * counts).astype(np.int64)
        return (legal.cumsum(axis=1) > picks[:, None]).argmax(axis=1)
