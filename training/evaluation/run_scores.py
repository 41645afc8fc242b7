"""One run's scores, as the aggregates over several runs take them: its samples per task.

A task is what a run's evaluation measures: in a one-player game the trained agent's mean
score; with several players its score (wins + ½ draws) against each opponent. A run's
samples of a task are its games' scores in a one-player game, else its openings' (the mean
of each seat-paired opening's games: :func:`~training.evaluation.harness.opening_scores`),
the independent samples that :mod:`training.evaluation.run_aggregate` resamples. They are
read from an evaluation report's ``games.csv`` (:func:`evaluation_scores`; a run's closing
evaluation: :func:`closing_scores`), or handed over by the benchmark
(:mod:`training.evaluation.benchmark_sets`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from training.evaluation.harness import Z95, opening_scores, paired_share_interval
from training.framework.run_set_folder import closing_games


@dataclass
class RunScores:
    """One run's samples per task: for each task the scores of its openings (its games, alone),
    and the range of each share task (a share's 0 and 1, on the task's scale)."""

    label: str
    tasks: dict[str, np.ndarray]
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)

    def mean(self, task: str) -> float:
        return float(self.tasks[task].mean())

    def interval(self, task: str) -> tuple[float, float]:
        """The run's own 95% interval of a task: the normal one over its openings; for a share,
        :func:`~training.evaluation.harness.paired_share_interval`'s (inside its range, Wilson's
        where every opening scored alike), on the task's scale."""
        values = self.tasks[task]
        if task in self.bounds:
            low, high = self.bounds[task]
            _, share_low, share_high = paired_share_interval((values - low) / (high - low), np.arange(len(values)))
            return low + share_low * (high - low), low + share_high * (high - low)
        half = Z95 * float(values.std(ddof=1)) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
        return self.mean(task) - half, self.mean(task) + half


def closing_scores(run_dir: Path, label: str) -> RunScores:
    """The trained agent's samples in the run's closing evaluation (``evaluation/games.csv``)."""
    path = closing_games(run_dir)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist: the run has no closing evaluation with its games "
            f"(evaluate it with training/evaluate.py --checkpoint {run_dir} --out {path.parent} --overwrite)"
        )
    return evaluation_scores(path.parent, label)


def evaluation_scores(folder: Path, label: str) -> RunScores:
    """The first agent's samples in an evaluation report folder (its ``games.csv``): in a
    one-player game its score per game; against each opponent its score per opening."""
    path = Path(folder) / "games.csv"
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    if rows and "opening" not in rows[0]:  # one player: a column per agent, the trained agent's first
        agent = [name for name in rows[0] if name != "seed"][0]
        return RunScores(label, {"score": np.array([float(row[agent]) for row in rows])})
    agent = rows[0]["agent"]
    tasks: dict[str, np.ndarray] = {}
    for opponent in dict.fromkeys(row["opponent"] for row in rows if row["agent"] == agent):
        own = [row for row in rows if row["agent"] == agent and row["opponent"] == opponent]
        tasks[f"vs {opponent}"] = opening_scores(
            [float(row["score"]) for row in own], [int(row["opening"]) for row in own]
        )
    return RunScores(label, tasks, {task: (0.0, 1.0) for task in tasks})
