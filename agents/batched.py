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

``act_batch(observations, action_masks, rngs=...)`` takes instead one generator per row:
row ``k``'s tie is drawn from ``rngs[k]`` as ``act`` draws it from its own, so a batch of
games each with its own bot copy's generator (the batched env's opponents, reseeded per
game as the single env reseeds them) plays each game's moves exactly.

A bot that decides one position at a time (a tree search, a look-ahead through the rules
core) acts in batch through :func:`act_row_by_row`: its ``act`` is one call of a per-row
method that takes the generator to draw from, and its ``act_batch`` calls that method on
every row in order, with the bot's own generator or the row's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def break_ties(best: np.ndarray, rng: np.random.Generator | Sequence[np.random.Generator], bot: str) -> np.ndarray:
    """``(B,)``: for each row of ``best`` (``(B, actions)`` bool: its best actions), the only
    one, or the ``k``-th in ascending order with ``k`` drawn from ``rng`` as above (a
    sequence of ``B`` generators: row ``k``'s from ``rng[k]``)."""
    counts = best.sum(axis=1)
    if not counts.all():
        raise ValueError(f"{bot}: row {int(np.argmin(counts))} of the batch has no legal action to choose")
    picks = np.zeros(len(best), np.int64)
    tied = counts > 1
    if tied.any():
        if isinstance(rng, np.random.Generator):
            picks[tied] = rng.integers(counts[tied])
        else:
            for k in np.flatnonzero(tied).tolist():
                picks[k] = rng[k].integers(counts[k])
    return (best.cumsum(axis=1) > picks[:, None]).argmax(axis=1)


def row_generators(
    rng: np.random.Generator, rngs: Sequence[np.random.Generator] | None, rows: np.ndarray
) -> np.random.Generator | list[np.random.Generator]:
    """What rows ``rows`` of a batch draw their ties from: the bot's own generator, or each row's of ``rngs``."""
    return rng if rngs is None else [rngs[row] for row in rows.tolist()]


def check_generators(rngs: Sequence[np.random.Generator] | None, rows: int, bot: str) -> None:
    """``rngs``, when given, is one generator per row."""
    if rngs is not None and len(rngs) != rows:
        raise ValueError(f"{bot}: rngs must hold one generator per observation ({rows}), got {len(rngs)}")


def act_row_by_row(
    act_row: Callable[[np.ndarray, np.ndarray, np.random.Generator], int],
    game: Game,
    rng: np.random.Generator,
    observations,
    action_masks,
    rngs: Sequence[np.random.Generator] | None,
    bot: str,
) -> np.ndarray:
    """``act_batch`` of a bot whose ``act(observation, mask)`` is ``act_row(observation, mask, rng)``
    with ``rng`` its own generator: ``act_row`` of every row, in row order, drawing from ``rng``
    (so it is left as ``act`` on the rows one after the other leaves it) or, with ``rngs``, row
    ``k`` from ``rngs[k]``; the arguments checked as above (the masks passed on as bool)."""
    observations, legal = batch_arguments(game, observations, action_masks, bot)
    check_generators(rngs, len(legal), bot)
    actions = np.empty(len(legal), np.int64)
    for k in range(len(legal)):
        actions[k] = act_row(observations[k], legal[k], rng if rngs is None else rngs[k])
    return actions
