"""A run set's learning curves in one picture, ``curves.png``: each seed a thin line, their mean
and a 95% band over the seeds, as openrlbenchmark and RL Baselines3 Zoo publish curves over
seeds. Each run's curve is its ``learning_curve.csv`` (:mod:`training.framework.curve`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from training.framework.curve import read_curve
from training.framework.run_set_folder import read_run_set, run_label, runs_of

CURVES_FILE = "curves.png"


def curves_picture(run_set: Path, out: Path) -> Path | None:
    """Every run's learning curve (``learning_curve.csv``) in one picture: each seed a thin line,
    their mean and a 95% band over the seeds (the mean ± t · sd / √runs at each point the runs
    share). None where no run has a curve."""
    curves = {}
    for seed, run in runs_of(run_set).items():
        curve = read_curve(run)
        if curve is not None:
            unit, rows = curve
            measure = "mean_score" if rows and "mean_score" in rows[0] else "win_rate"
            curves[seed] = {float(row[unit]): float(row[measure]) for row in rows}
    if not curves:
        return None
    import matplotlib  # noqa: PLC0415 (matplotlib takes a second to import; only the picture needs it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 (as matplotlib, and after its backend is chosen)
    from scipy import stats  # noqa: PLC0415 (scipy loads in a second; only the picture's band needs its t quantile)

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for seed, curve in curves.items():
        ax.plot(list(curve), list(curve.values()), linewidth=0.8, marker=".", alpha=0.5, label=run_label(seed))
    shared = sorted(set.intersection(*(set(curve) for curve in curves.values())))
    if shared:
        values = np.array([[curve[x] for x in shared] for curve in curves.values()])
        mean = values.mean(axis=0)
        ax.plot(shared, mean, color="black", linewidth=2, marker="o", label=f"mean of {len(curves)} seeds")
        if len(curves) > 1:
            half = stats.t.ppf(0.975, len(curves) - 1) * values.std(axis=0, ddof=1) / np.sqrt(len(curves))
            ax.fill_between(shared, mean - half, mean + half, color="black", alpha=0.15, label="95% band over seeds")
    ax.set_xlabel(unit)
    ax.set_ylabel(
        "mean score on the curve's fixed games" if measure == "mean_score" else "win rate against the reference"
    )
    ax.set_title(f"{read_run_set(run_set)['env']}: {len(curves)} runs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
