"""Several training runs of one recipe, one per seed, scored as one result: a **run set**'s report.

A run set (:mod:`training.framework.run_set_folder`) is scored from its runs' closing
evaluations. What a paper prints of it, written into the run set's folder:

* each run's closing evaluation, labelled by its seed (its own interval, from its games:
  :mod:`training.evaluation.run_scores`);
* the aggregate over the runs, the mean and the IQM, with a 95% interval from a two-level
  bootstrap that holds both the spread between seeds and each run's game noise
  (:mod:`training.evaluation.run_aggregate`; ``report.md`` and ``summary.csv``:
  :mod:`training.evaluation.run_aggregate_report`);
* the learning curves of all runs, each seed a thin line, their mean and a 95% band over
  the seeds (``curves.png``: :mod:`training.evaluation.run_set_curves`).
"""

from __future__ import annotations

from pathlib import Path

from training.evaluation.run_aggregate_report import REPORT_FILE, SUMMARY_FILE, write_aggregate
from training.evaluation.run_scores import closing_scores
from training.evaluation.run_set_curves import CURVES_FILE, curves_picture
from training.framework.run_set_folder import read_run_set, run_label, runs_of

#: What the report writes into the run set's folder.
SET_REPORT_FILES = (REPORT_FILE, SUMMARY_FILE, CURVES_FILE)


def run_set_report(run_set: Path) -> str:
    """Score the run set from its runs' closing evaluations: ``report.md``, ``summary.csv`` and
    ``curves.png`` written into it; the report returned."""
    run_set = Path(run_set)
    info = read_run_set(run_set)
    runs = [closing_scores(run, run_label(seed)) for seed, run in runs_of(run_set).items()]
    picture = curves_picture(run_set, run_set / CURVES_FILE)
    note = f"Command: `{info['command']}`." if info.get("command") else ""
    note += f" Learning curves: `{CURVES_FILE}` in the run set's folder." if picture else ""
    title = f"{info['env']}: {len(runs)} runs ({info.get('pipeline', 'runs')})"
    return write_aggregate(run_set, title, runs, note.strip())
