"""The benchmark's scores: each task's raw and normalized mean with its interval, and the
aggregates over the tasks with theirs.

Scores per task (:func:`task_score`): the raw mean with its 95% interval (for a share, over
the task's seat-paired openings, always inside [0, 1]; the normal one for a mean score), and
both mapped to the normalized scale (:class:`~training.evaluation.suite.Anchors`).
Aggregates over the tasks played (:func:`aggregates`) are rliable's IQM, mean, median and
optimality gap, and the performance profile (:func:`performance_profile`) the fraction of
tasks above each threshold, each with a 95% stratified bootstrap interval
(:mod:`training.evaluation.bootstrap`). The games are played by
:mod:`training.evaluation.benchmark`; the report folder is written by
:mod:`training.evaluation.benchmark_report`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.evaluation.benchmark import BenchmarkRun, TaskRun
from training.evaluation.bootstrap import padded, recentred, stratified_interval
from training.evaluation.harness import mean_ci, opening_scores, paired_share_interval, share_interval
from training.evaluation.suite import Anchors

#: Normalized-score thresholds of the performance profile.
PROFILE_TAUS = np.linspace(-0.25, 2.0, 91)


@dataclass(frozen=True)
class TaskScore:
    task: str
    games: int
    raw: float
    raw_low: float
    raw_high: float
    normalized: float
    low: float
    high: float
    forfeits: dict[str, int]  #: kind -> games
    forfeit_examples: dict[str, str]  #: kind -> the first one's detail
    ms_per_move: float


def task_score(run: TaskRun, anchors: Anchors) -> TaskScore:
    """The raw mean and its 95% interval (the normal one for a mean score; for a share, over the
    openings where the task is seat-paired, :func:`~training.evaluation.harness.paired_share_interval`,
    else Wilson's), both also on the normalized scale."""
    raw = np.array([r.raw for r in run.records])
    if run.task.players == 1:
        mean, half = mean_ci(raw)
        low, high = mean - half, mean + half
    elif run.task.seat_paired:
        mean, low, high = paired_share_interval(raw, [run.task.opening(r.game) for r in run.records])
    else:
        mean, low, high = share_interval(raw)
    forfeits: dict[str, int] = {}
    examples: dict[str, str] = {}
    for record in run.records:
        if record.forfeit:
            forfeits[record.forfeit] = forfeits.get(record.forfeit, 0) + 1
            examples.setdefault(record.forfeit, f"game {record.game}: {record.detail}")
    moves = sum(r.moves for r in run.records)
    seconds = sum(r.think_seconds for r in run.records)
    return TaskScore(
        run.task.name,
        len(raw),
        mean,
        low,
        high,
        float(anchors.normalize(mean)),
        float(anchors.normalize(low)),
        float(anchors.normalize(high)),
        forfeits,
        examples,
        1000.0 * seconds / max(moves, 1),
    )


AGGREGATES = ("IQM", "mean", "median", "optimality gap")


def _aggregate(*task_scores: np.ndarray) -> np.ndarray:
    """rliable's aggregates over the tasks' mean normalized scores (one agent: one run per task)."""
    from rliable import metrics  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    means = np.array([[scores.mean() for scores in task_scores]])
    return np.array(
        [
            metrics.aggregate_iqm(means),
            metrics.aggregate_mean(means),
            metrics.aggregate_median(means),
            metrics.aggregate_optimality_gap(means, 1.0),
        ]
    )


def _profile(*task_scores: np.ndarray) -> np.ndarray:
    """The performance profile: the fraction of tasks whose mean normalized score exceeds each threshold."""
    means = np.array([scores.mean() for scores in task_scores])
    return (means[:, None] > PROFILE_TAUS[None, :]).mean(axis=0)


def per_task_normalized(run: BenchmarkRun) -> list[np.ndarray]:
    """Each task's normalized score per opening, the bootstrap's unit: the mean of its seat
    rotations' games in a seat-paired task (:meth:`Task.opening`), else per game."""
    return [
        opening_scores([r.normalized for r in task.records], [task.task.opening(r.game) for r in task.records])
        for task in run.played
    ]


def bootstrap_samples(run: BenchmarkRun) -> list[np.ndarray]:
    """:func:`per_task_normalized`, each share task with pseudo-openings at a share of 0 and as
    many at 1, normalized (:func:`~training.evaluation.bootstrap.padded`): else an aggregate of
    tasks whose openings all scored alike would get an interval of zero width. The point
    estimates are the games' own."""
    samples = []
    for task, values in zip(run.played, per_task_normalized(run)):
        if task.task.players > 1:
            ends = run.anchors[task.task.name].normalize(np.array([0.0, 1.0]))
            values = padded(values, ends)
        samples.append(values)
    return samples


def aggregates(run: BenchmarkRun) -> dict[str, tuple[float, float, float]]:
    """IQM, mean, median and optimality gap over the tasks played, each with its 95% interval
    from a stratified bootstrap over each task's openings (:func:`bootstrap_samples`), put about
    the games' point estimate (:func:`~training.evaluation.bootstrap.recentred`)."""
    point = _aggregate(*per_task_normalized(run))
    centre, interval = stratified_interval(bootstrap_samples(run), _aggregate)
    low, high = recentred(point, centre, interval[0], interval[1])
    return {name: (float(point[i]), float(low[i]), float(high[i])) for i, name in enumerate(AGGREGATES)}


def performance_profile(run: BenchmarkRun) -> tuple[np.ndarray, np.ndarray]:
    """The profile over :data:`PROFILE_TAUS` and its 95% band (2 x taus)."""
    _, band = stratified_interval(bootstrap_samples(run), _profile)
    return _profile(*per_task_normalized(run)), band
