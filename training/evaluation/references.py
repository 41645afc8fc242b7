"""Measuring the benchmark suite's references: the constants of each task's normalized scale.

A task's normalized score is 0 at the uniform-random agent and 1 at its reference
(:mod:`training.evaluation.suite`). :func:`measure_anchors` measures both for every task of
a suite, on the task's own games (``python training/benchmark.py --measure-references``):
random's mean (score or share); and the reference: a game's exact optimum where the
project solves it (:func:`agents.registry.exact_optimum`, from the game's own package),
else the reference bot's mean score alone at the table, ½ at two players (the two seats'
shares add up to 1), or the reference's mean share against copies of itself at three or
more (:func:`self_play_share`). Each comes with where it came from, in words, for the
references file.
"""

from __future__ import annotations

import numpy as np

from agents.registry import exact_optimum, make_agent
from envs.registry import make_game
from training.evaluation.benchmark import run_benchmark
from training.evaluation.harness import DEFAULT_BATCH, played_in_batches
from training.evaluation.suite import SUITE_VERSION, Anchors, Task, suite


def measure_anchors(
    workers: int = 1, show_progress: bool = True, suite_version: str = SUITE_VERSION, batch: int = DEFAULT_BATCH
) -> dict[str, Anchors]:
    """Every task's anchors, measured on the default games of suite ``suite_version``."""
    tasks = suite(suite_version).tasks
    identity = Anchors(0.0, 1.0, "", "")  # raw scores: the run is scored against nothing yet
    raw = {task.name: identity for task in tasks}
    measured = dict(show_progress=show_progress, anchors=raw, batch=batch, suite_version=suite_version)
    random_run = run_benchmark("random", workers=workers, **measured)
    anchors = {}
    for task in tasks:
        (played,) = [r for r in random_run.tasks if r.task.name == task.name]
        random_mean = float(np.mean([r.raw for r in played.records]))
        random_source = f"random's {task.measure} over the task's {task.games} games"
        optimum = exact_optimum(task.env, make_game(task.env, **task.env_kwargs))
        if optimum is not None:
            reference, source = optimum
        elif task.players == 1:
            run = run_benchmark(task.reference, workers=workers, tasks=[task.name], **measured)
            reference = float(np.mean([r.raw for r in run.tasks[0].records]))
            source = f"{task.reference}'s mean score over the task's {task.games} games"
        elif task.players == 2:
            reference = 0.5
            source = f"{task.reference} against itself: exactly ½ (the two seats' scores add up to 1 in every game)"
        else:
            reference = self_play_share(task, batch)
            source = (
                f"{task.reference} against {task.players - 1} copies of itself: the mean share of all "
                f"{task.players} seats over the task's {task.games} games, measured"
            )
        anchors[task.name] = Anchors(random_mean, reference, random_source, source)
    return anchors


def self_play_share(task: Task, batch: int = DEFAULT_BATCH) -> float:
    """The reference's mean share at a table of itself: every seat of the task's games, counted
    (``batch`` games at a time as rows of the batched twin, the same games as one at a time)."""
    game = make_game(task.env, **task.env_kwargs)
    agents = [make_agent(task.env, task.opponent, game, seed=task.seed + seat) for seat in range(game.num_players)]
    seeds = [task.game_seed(number) for number in range(task.games)]
    total = 0.0
    for _, _, (state, _) in played_in_batches(game, [(0, lambda _: agents)], seeds, task.random_opening_plies, batch):
        total += float(((state.returns() + 1.0) / 2.0).sum())
    return total / (task.games * game.num_players)
