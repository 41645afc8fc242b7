"""Several runs of one recipe scored as one result: the aggregate over the runs, and two
agents of several runs compared.

:func:`aggregate` gives the mean and the IQM (rliable's interquartile mean over every run and
task), and each task's mean over the runs, with a 95% interval from a **two-level
bootstrap**: the runs are resampled, and within each run drawn its games (openings, in a
game of several players) are resampled too. The interval so holds both the spread between
seeds and each run's game noise; a bootstrap over the runs' mean scores alone (what a
hand-written rliable call over a runs x tasks table does) ignores the second, and its
interval shrinks below one run's own with few seeds.

Two run sets (or a run set and a single run or agent) compare by rliable's **probability of
improvement** (:func:`probability_of_improvement`), P(X > Y): per task the chance that a run
of X scores above a run of Y (ties ½), averaged over the tasks, with its interval from the
same two-level bootstrap.

A task and a run's samples of it are :mod:`training.evaluation.run_scores`'. Anchors:
rliable (Agarwal et al. 2021), whose IQM and probability of improvement these are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.evaluation.bootstrap import BOOTSTRAP_REPS, BOOTSTRAP_SEED, padded, recentred
from training.evaluation.run_scores import RunScores


def _iqm(matrix: np.ndarray) -> float:
    """rliable's interquartile mean of a runs x tasks table."""
    from rliable import metrics  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    return float(metrics.aggregate_iqm(matrix))


def _table(runs: list[RunScores], tasks: list[str], draws: list[dict[str, np.ndarray]] | None = None) -> np.ndarray:
    """Runs x tasks means (of the resampled openings ``draws`` where given)."""
    if draws is None:
        return np.array([[run.mean(task) for task in tasks] for run in runs])
    return np.array([[float(draw[task].mean()) for task in tasks] for draw in draws])


def with_pseudo_openings(runs: list[RunScores]) -> list[RunScores]:
    """Each run's openings of every share task (its ``bounds``: 0 and 1, or their normalized
    values) with pseudo-openings at each end (:func:`~training.evaluation.bootstrap.padded`),
    as the benchmark's bootstrap adds them."""
    return [
        RunScores(
            run.label,
            {
                task: padded(values, run.bounds[task]) if task in run.bounds else values
                for task, values in run.tasks.items()
            },
            run.bounds,
        )
        for run in runs
    ]


def _resampled(runs: list[RunScores], tasks: list[str], rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """One draw of the two-level bootstrap: runs with replacement, then each drawn run's openings."""
    drawn = rng.integers(len(runs), size=len(runs))
    return [
        {
            task: runs[k].tasks[task][rng.integers(len(runs[k].tasks[task]), size=len(runs[k].tasks[task]))]
            for task in tasks
        }
        for k in drawn
    ]


@dataclass(frozen=True)
class Aggregate:
    mean: tuple[float, float, float]  #: point, 95% low, 95% high
    iqm: tuple[float, float, float]
    per_task: dict[str, tuple[float, float, float]]  #: task -> the mean over runs and its interval
    game_noise: float  #: the median half-width of the runs' own intervals (their game noise)


def aggregate(runs: list[RunScores], reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED) -> Aggregate:
    """Mean and IQM over the runs and tasks, each task's mean over the runs, with 95% intervals
    from the two-level bootstrap (runs, then each run's openings). Share tasks (the runs'
    ``bounds``) get pseudo-openings in the bootstrap (:func:`with_pseudo_openings`), whose spread
    about its own centre is then put about the point, as the benchmark's aggregates do, and
    their intervals stay inside the shares' range."""
    tasks = list(runs[0].tasks)
    bounds = runs[0].bounds
    rng = np.random.default_rng(seed)
    point = _table(runs, tasks)
    drawn_from = with_pseudo_openings(runs) if bounds else runs
    centre = _table(drawn_from, tasks)
    means, iqms, per_task = [], [], []
    for _ in range(reps):
        table = _table(drawn_from, tasks, _resampled(drawn_from, tasks, rng))
        means.append(table.mean())
        iqms.append(_iqm(table))
        per_task.append(table.mean(axis=0))
    per_task = np.array(per_task)

    def with_interval(value: float, draws, centred: float, within: list[str]) -> tuple[float, float, float]:
        low, high = recentred(value, centred, *np.percentile(draws, [2.5, 97.5]))
        if within and all(task in bounds for task in within):  # shares: never outside their range
            low = max(low, min(bounds[task][0] for task in within))
            high = min(high, max(bounds[task][1] for task in within))
        return float(value), float(low), float(high)

    halves = [(run.interval(task)[1] - run.interval(task)[0]) / 2 for run in runs for task in tasks]
    return Aggregate(
        with_interval(point.mean(), means, centre.mean(), tasks),
        with_interval(_iqm(point), iqms, _iqm(centre), tasks),
        {
            task: with_interval(point[:, j].mean(), per_task[:, j], centre[:, j].mean(), [task])
            for j, task in enumerate(tasks)
        },
        float(np.nanmedian(halves)),
    )


def probability_of_improvement(
    x: list[RunScores], y: list[RunScores], reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float, float]:
    """rliable's P(X > Y) over the tasks both score, with its 95% two-level bootstrap interval."""
    from rliable import metrics  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    tasks = [task for task in x[0].tasks if task in y[0].tasks]
    if not tasks:
        raise ValueError("the two have no task in common (the same game and opponents) to compare on")
    rng = np.random.default_rng(seed)
    point = float(metrics.probability_of_improvement(_table(x, tasks), _table(y, tasks)))
    draws = [
        metrics.probability_of_improvement(
            _table(x, tasks, _resampled(x, tasks, rng)), _table(y, tasks, _resampled(y, tasks, rng))
        )
        for _ in range(reps)
    ]
    low, high = np.percentile(draws, [2.5, 97.5])
    return point, float(low), float(high)
