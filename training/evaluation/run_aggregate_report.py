"""The report of an aggregate over several runs: ``report.md`` and ``summary.csv``.

What every command over several runs writes (a run set's report, ``evaluate.py`` and
``benchmark.py`` over a run set): each run's score per task with its own interval, the mean
of the runs per task, and the mean and IQM over runs and tasks
(:func:`~training.evaluation.run_aggregate.aggregate`), with the line that says what the
two-level bootstrap's intervals hold. Its tables are :mod:`training.evaluation.report_files`'.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from training.evaluation.bootstrap import BOOTSTRAP_REPS
from training.evaluation.report_files import interval_cell, markdown_table, write_csv
from training.evaluation.run_aggregate import Aggregate, aggregate
from training.evaluation.run_scores import RunScores

REPORT_FILE = "report.md"
SUMMARY_FILE = "summary.csv"


def aggregate_report(title: str, runs: list[RunScores], result: Aggregate, note: str = "") -> str:
    """Markdown: each run's score per task with its own interval, then the aggregate rows."""
    tasks = list(runs[0].tasks)
    digits = 1 if tasks == ["score"] else 3
    rows = [
        [run.label, *(interval_cell(run.mean(task), *run.interval(task), digits) for task in tasks)] for run in runs
    ]
    rows.append([f"**mean of {len(runs)} runs**", *(interval_cell(*result.per_task[task], digits) for task in tasks)])
    aggregates = [["mean", interval_cell(*result.mean, digits)], ["IQM", interval_cell(*result.iqm, digits)]]
    lines = [
        f"# {title}",
        "",
        markdown_table(["run", *tasks], rows),
        "",
        markdown_table(["aggregate over runs and tasks", "value, 95% CI"], aggregates),
        "",
        f"Intervals of the aggregates: a two-level bootstrap ({BOOTSTRAP_REPS} draws): the {len(runs)} runs "
        "resampled, then each drawn run's openings (its games, in a one-player game), so that they hold the "
        f"spread between seeds and each run's game noise; one run's own interval is ±{result.game_noise:.{digits}f} "
        f"(the median half-width above), and the mean of {len(runs)} runs carries that noise divided by "
        f"√{len(runs)}, ±{result.game_noise / np.sqrt(len(runs)):.{digits}f}, below which its interval does not "
        "shrink (a bootstrap over the runs' means alone drops it). The IQM is rliable's, over every run and task.",
    ]
    if note:
        lines += ["", note]
    return "\n".join(lines) + "\n"


def aggregate_rows(runs: list[RunScores], result: Aggregate) -> list[dict]:
    """``summary.csv``: a row per run and task, then the aggregates."""
    rows = []
    for run in runs:
        for task in run.tasks:
            low, high = run.interval(task)
            rows.append({"run": run.label, "task": task, "value": run.mean(task), "ci95_low": low, "ci95_high": high})
    for task, (value, low, high) in result.per_task.items():
        rows.append({"run": "mean of runs", "task": task, "value": value, "ci95_low": low, "ci95_high": high})
    for name, (value, low, high) in (("mean", result.mean), ("IQM", result.iqm)):
        rows.append({"run": name, "task": "all", "value": value, "ci95_low": low, "ci95_high": high})
    return rows


def write_aggregate(folder: Path, title: str, runs: list[RunScores], note: str = "") -> str:
    """Aggregate ``runs`` (:func:`~training.evaluation.run_aggregate.aggregate`) and write ``report.md``
    and ``summary.csv`` into ``folder``; the report returned. What every command over several runs writes."""
    result = aggregate(runs)
    report = aggregate_report(title, runs, result, note)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REPORT_FILE).write_text(report)
    write_csv(folder / SUMMARY_FILE, aggregate_rows(runs, result))
    return report
