"""What the bots' ``act_batch`` share: their arguments checked, and ties broken as ``act`` breaks them.

``act_batch(observations, action_masks)`` chooses, for every row, the action ``act`` would
choose for that observation and mask. Bots that break ties at random take
``choices[rng.integers(len(choices))]`` of their best actions listed in ascending order
(``rng.integers(1)`` draws nothing, so a position without a tie leaves the generator as it
was). :func:`break_ties` does the same for many positions at once: one bounded draw per
row that has a tie, in row order (numpy's ``integers`` with an array of bounds draws them
in that order, as successive scalar calls do). So a bot's ``act_batch`` picks the moves,
and leaves its generator in the state, that ``act`` called on the rows one after the
other would.
"""

from __future__ import annotations

import numpy as np

from envs.core import Game


def batch_arguments(game: Game, observations, action_masks, bot: str) -> tuple[np.ndarray, np.ndarray]:
    """``(observations, legal)``: the observations as an array, the masks as bool, both
    checked to be ``(B, ...)`` rows of ``game``."""
    observations, legal = np.asarray(observations), np.asarray(action_masks) > 0
    if observations.shape[1:] != game.observation_shape or observations.ndim != 1 + len(game.observation_shape):
        raise ValueError(f"{bot}: observations must be (N, {game.observation_shape}) rows, got {observations.shape}")
    if legal.shape != (len(observations), game.num_actions):
        raise ValueError(
            f"{bot}: action masks must be ({len(observations)}, {game.num_actions}), one per observation, "
            f"got {legal.shape}"
        )
    return observations, legal


def break_ties(best: np.ndarray, rng: np.random.Generator, bot: str) -> np.ndarray:
    """``(B,)``: for each row of ``best`` (``(B, actions)`` bool: its best actions), the only
    one, or the ``k``-th in ascending order with ``k`` drawn from ``rng`` as above."""
    counts = best.sum(axis=1)
    if not counts.all():
        raise ValueError(f"{bot}: row {int(np.argmin(counts))} of the batch has no legal action to choose")
    picks = np.zeros(len(best), np.int64)
    tied = counts > 1
    if tied.any():
        picks[tied] = rng.integers(counts[tied])
    return (best.cumsum(axis=1) > picks[:, None]).argmax(axis=1)
