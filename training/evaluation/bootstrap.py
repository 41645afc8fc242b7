"""What the evaluations' bootstraps share: their draws and seed, the pseudo-openings of a share
task, the interval put about the point, and the benchmark's seeded stratified bootstrap.

Two bootstraps put intervals on aggregates over tasks: the benchmark's over one agent's
tasks, each task's openings resampled on their own (rliable's stratified bootstrap,
:func:`stratified_interval`, :mod:`training.evaluation.benchmark_scores`), and the run sets'
two-level one over several runs, then each drawn run's openings
(:mod:`training.evaluation.run_aggregate`). They draw differently, but they take as many draws
from the same seed, and they treat a share task alike: its openings get
:data:`PSEUDO_OPENINGS` pseudo-openings at each end of the share's range (:func:`padded`),
and the bootstrap's spread about its own centre is put about the games' point estimate
(:func:`recentred`). Every interval is the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

#: Draws of every aggregate's bootstrap, and the seed they are drawn from.
BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 0

#: Pseudo-openings per share task that an aggregate's bootstrap adds at each end of the share's
#: range (Agresti and Coull's "add two successes and two failures", which Wilson's interval
#: approximates): a task whose games all ended alike keeps the uncertainty its interval shows.
PSEUDO_OPENINGS = 2


def padded(values: np.ndarray, ends: Sequence[float] | np.ndarray) -> np.ndarray:
    """A share task's opening scores with :data:`PSEUDO_OPENINGS` pseudo-openings at each of
    ``ends`` (the share's 0 and 1, on the task's scale): a task whose openings all scored alike
    (an agent that lost every game) still carries the uncertainty of its own Wilson-like
    interval into an aggregate, where resampling its openings alone would give none."""
    return np.concatenate([values, np.repeat(ends, PSEUDO_OPENINGS)])


def recentred(point, centre, low, high):
    """The interval ``[low, high]`` of a bootstrap centred on ``centre`` (its pseudo-openings move
    it, towards ½ on a share task, as Wilson's centre moves) put about the games' ``point``: the
    bootstrap's spread about its own centre, so that the interval always holds the point, and
    is the plain percentile interval where the games are many. Scalars or arrays alike."""
    return point - (centre - low), point + (high - centre)


def stratified_interval(per_task: list[np.ndarray], func: Callable[..., np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``func`` of the tasks' samples (``func(*per_task)``) and its 95% stratified bootstrap
    interval over :data:`BOOTSTRAP_REPS` draws: each task's samples resampled on their own
    (rliable's ``StratifiedIndependentBootstrap``)."""
    from rliable import library  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    # rliable's StratifiedIndependentBootstrap draws its indices from numpy's global generator
    # (its random_state goes unused): seeded here, for the same intervals on every run, and restored
    saved = np.random.get_state()
    np.random.seed(BOOTSTRAP_SEED)
    try:
        point, interval = library.get_interval_estimates(
            {"agent": per_task}, func, reps=BOOTSTRAP_REPS, random_state=np.random.RandomState(BOOTSTRAP_SEED)
        )
    finally:
        np.random.set_state(saved)
    return np.asarray(point["agent"]), np.asarray(interval["agent"])
