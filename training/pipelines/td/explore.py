"""Teacher games with one explored write each, played in batch: Monte Carlo values of the sheets a planner weighs.

The turn planner ranks every write of a turn by ``V`` of the sheet it would leave, and most
of those sheets are ones the teacher's own play never reaches: fitted to the teacher's
returns alone, ``V`` is a guess there, and the planner chases its errors (the
experiment log of Six Hundred). Here every teacher game writes **one** turn otherwise: at
a turn drawn uniformly (the last one excepted, which the planner settles exactly), the
turn-value agent's :meth:`~agents.turn_value.TurnValueAgent.explore_write` replaces the
teacher's write with one of the ``top`` best writes of that roll. Every turn *after* it is
a sample ``(sheet, points still to come)`` of the teacher's own play from a sheet it might
not have made: an unbiased Monte Carlo value of the teacher's policy there (the turns
before the explored write are not kept: their futures hold a write the teacher would not
make). Fitting ``V`` to them and planning against it is one step of policy iteration over
the teacher.

The games are rows of the game's batched twin (:mod:`envs.batched`), the teacher acting in
batch (``act_batch``), ``batch`` games at a time.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, acts_in_batch
from agents.turn_value import TurnValueAgent
from envs.batched import streams as random_streams
from envs.core import Game
from envs.registry import get_entry
from training.framework.progress import Progress
from training.framework.schema import ConfigError


def explored_teacher_turns(
    game: Game,
    teacher: Agent,
    recorder: TurnValueAgent,
    games: int,
    top: int,
    rng: np.random.Generator,
    batch: int = 1024,
    progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(features, targets)``: the turns after the explored write of ``games`` teacher games.

    ``recorder`` reads sheets off observations and explores the writes; ``progress``, if given,
    advances by each batch's games.
    """
    if not acts_in_batch(teacher):
        raise ConfigError(f"warm_start.explore_top plays the teacher in batch, and {teacher!r} has no act_batch")
    features, targets = [], []
    for start in range(0, games, batch):
        size = min(batch, games - start)
        found, returns = _explored_games(game, teacher, recorder, size, top, rng)
        features.append(found)
        targets.append(returns)
        if progress is not None:
            progress.advance(size)
    return np.concatenate(features), np.concatenate(targets)


def _explored_games(game, teacher, recorder, size, top, rng) -> tuple[np.ndarray, np.ndarray]:
    twin = get_entry(game.name).batched_class()(game, size)
    games = np.arange(size)
    streams = random_streams.new_streams(size)
    random_streams.seed_rows(streams, games, [int(s) for s in rng.integers(2**63, size=size)])
    twin.start(games, streams)
    explored_turn = rng.integers(game.num_rounds - 1, size=size)
    turn = np.full(size, -1)
    keys: list[bytes | None] = [None] * size
    observations = np.zeros((size, *game.observation_shape), np.float32)
    masks = np.zeros((size, game.num_actions), np.int8)
    kept_rows, kept_features, kept_scores = [], [], []
    while not twin.terminal().all():
        rows = np.flatnonzero(~twin.terminal())
        seats = np.zeros(rows.size, np.int64)
        seen, legal = observations[: rows.size], masks[: rows.size]
        twin.observe(rows, seats, seen)
        twin.legal_masks(rows, seats, legal)
        scores = twin.scores()
        for k, row in enumerate(rows.tolist()):
            key = recorder.sheet_key(seen[k])
            if key != keys[row]:
                keys[row] = key
                turn[row] += 1
                if turn[row] > explored_turn[row]:
                    kept_rows.append(row)
                    kept_features.append(recorder.sheet_features(seen[k]))
                    kept_scores.append(scores[row, 0])
        actions = np.asarray(teacher.act_batch(seen, legal), np.int64)
        for k in np.flatnonzero(turn[rows] == explored_turn[rows]).tolist():
            actions[k] = recorder.explore_write(seen[k], int(actions[k]), top, rng)
            if not legal[k, actions[k]]:
                raise RuntimeError(f"{type(recorder).__name__}.explore_write chose illegal action {actions[k]}")
        twin.apply(rows, seats, actions)
    final = twin.scores()[np.array(kept_rows, np.int64), 0]
    return np.array(kept_features, np.float32), final - np.array(kept_scores)
