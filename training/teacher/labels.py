"""A teacher search's values of every move, as training targets, in worker processes.

A teacher is any agent with ``move_values(state) -> {action: value}``: the value of each
legal move for the player to move, an expected outcome in [-1, 1] (Invers' search bot
has it). Labelling positions with a search is the costly part of learning from one,
so :class:`TeacherLabels` spreads it over processes; positions travel as observations,
and the game rebuilds its states from them (:meth:`~envs.core.Game.state_from_observation`).
The warm start (``warm_start.label_with``) labels in :class:`TeacherLabels`' processes; expert
iteration's units label their own games with :func:`move_values_of`.
"""

from __future__ import annotations

import multiprocessing

import numpy as np

from agents.base import Agent
from agents.registry import make_agent
from envs.core import Game
from envs.registry import make_game
from training.framework.schema import ConfigError


def softmax(x: np.ndarray) -> np.ndarray:
    """The softmax of a vector of scores."""
    e = np.exp(x - x.max())
    return e / e.sum()


def teacher_targets(values: dict[int, float], num_actions: int, temperature: float) -> tuple[np.ndarray, float]:
    """The policy target (softmax of the teacher's move values at ``temperature``, zero
    on illegal moves) and the search value (the best move's value) of one position."""
    moves = np.fromiter(values, int)
    move_values = np.fromiter(values.values(), float)
    policy = np.zeros(num_actions, np.float32)
    policy[moves] = softmax(move_values / temperature)
    return policy, float(move_values.max())


def soft_targets(values: np.ndarray, temperature: float) -> np.ndarray:
    """``(..., actions)`` policy targets from action values (``-inf`` on illegal moves): the
    softmax of each row's values at ``temperature``, zero on the illegal moves."""
    scaled = (values - values.max(axis=-1, keepdims=True)) / temperature
    weights = np.exp(scaled)  # exp(-inf) = 0 on the illegal moves
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float32)


_worker_teacher: tuple[Game, Agent] | None = None


def _start_teacher(env: str, env_kwargs: dict, spec: str, seed: int) -> None:
    global _worker_teacher
    game = make_game(env, **env_kwargs)
    _worker_teacher = game, make_agent(env, spec, game, seed=seed)


def move_values_of(teacher: Agent, game: Game, observations: np.ndarray) -> list[dict[int, float]]:
    """``teacher``'s move values of the positions ``observations`` of ``game``: in one call where
    the teacher values many positions at once (``move_values_of_observations``, the compiled
    Invers searches), else position by position."""
    in_batch = getattr(teacher, "move_values_of_observations", None)
    if in_batch is not None:
        return in_batch(observations)
    return [teacher.move_values(game.state_from_observation(observation)) for observation in observations]


def _teacher_values(observations: np.ndarray) -> list[dict[int, float]]:
    """The worker's teacher's move values of a chunk of positions."""
    game, teacher = _worker_teacher
    return move_values_of(teacher, game, observations)


class TeacherLabels:
    """A teacher bot's move values for batches of positions, in ``workers`` processes
    (in this one when ``workers`` is 1). Positions travel as observations, so the game
    must rebuild states from them (:meth:`~envs.core.Game.state_from_observation`), in
    chunks of :attr:`chunk` positions."""

    chunk = 64  #: positions per task: a compiled teacher's batch, and the progress step

    def __init__(self, env: str, env_kwargs: dict, spec: str, seed: int, workers: int):
        _start_teacher(env, env_kwargs, spec, seed)
        if not callable(getattr(_worker_teacher[1], "move_values", None)):
            raise ConfigError(
                f"teacher {spec!r} cannot label positions: it has no move_values(state) "
                "(a search bot such as 'search:depth=4' has)"
            )
        #: positions a call of :meth:`label` needs to give every process work: a few chunks each
        self.batch_positions = 4 * self.chunk * max(1, workers)
        self.pool = None
        if workers > 1:
            context = multiprocessing.get_context("spawn")  # no forked copy of torch's threads
            self.pool = context.Pool(workers, initializer=_start_teacher, initargs=(env, env_kwargs, spec, seed))

    def label(self, observations: list[np.ndarray], progress=None) -> list[dict[int, float]]:
        """The teacher's move values of each position, in order; ``progress.advance()`` after each."""
        values = []
        chunks = [np.asarray(observations[i : i + self.chunk]) for i in range(0, len(observations), self.chunk)]
        found = map(_teacher_values, chunks) if self.pool is None else self.pool.imap(_teacher_values, chunks)
        for chunk_values in found:
            values.extend(chunk_values)
            if progress is not None:
                progress.advance(len(chunk_values))
        return values

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool = None
