"""The benchmark suite over run sets: every run of a set through the suite, the aggregate over
runs and tasks, and two agents compared by rliable's probability of improvement.

An agent here is a run set (:mod:`training.framework.run_set_folder`: every run of it plays) or any
single agent spec (one run). Each run is benchmarked as ``benchmark.py --agent RUN`` is, its
report in ``<out>/<name>/``; its samples are each task's normalized scores per opening
(:func:`training.evaluation.benchmark_scores.per_task_normalized`), and the tasks are those every
run played. The aggregates (mean and IQM over runs and tasks) and the probability of
improvement take their intervals from the two-level bootstrap of
:func:`training.evaluation.run_aggregate.aggregate` (runs, then each run's openings), with the share
tasks' pseudo-openings, so that a few runs cannot hide the games' noise.
"""

from __future__ import annotations

from pathlib import Path

from training.evaluation.benchmark_report import benchmark
from training.evaluation.benchmark_scores import per_task_normalized
from training.evaluation.run_aggregate import probability_of_improvement
from training.evaluation.run_aggregate_report import write_aggregate
from training.evaluation.run_scores import RunScores
from training.framework.run_set_folder import is_run_set, run_label, runs_of


def members(source: str) -> dict[str, str]:
    """The runs an agent stands for, by name: a run set's seeds' runs, or the spec itself alone."""
    if is_run_set(Path(source)):
        return {run_label(seed): str(run) for seed, run in runs_of(Path(source)).items()}
    return {source: source}


def benchmarked_runs(source: str, out: Path, **options) -> list[RunScores]:
    """Every run of ``source`` through the suite (its report in ``out/<name>``): the runs' samples
    per task, on the tasks every run played, with the share tasks' normalized ranges."""
    runs, bounds = [], {}
    for name, spec in members(source).items():
        summary = benchmark(spec, out / name.replace(" ", ""), label=f"{source} ({name})", **options)
        played = summary.run.played
        runs.append(RunScores(name, dict(zip((t.task.name for t in played), per_task_normalized(summary.run)))))
        for task in played:
            if task.task.players > 1:
                anchors = summary.run.anchors[task.task.name]
                bounds[task.task.name] = (float(anchors.normalize(0.0)), float(anchors.normalize(1.0)))
    common = [task for task in runs[0].tasks if all(task in run.tasks for run in runs)]
    shares = {task: bounds[task] for task in common if task in bounds}
    return [RunScores(run.label, {task: run.tasks[task] for task in common}, shares) for run in runs]


def benchmark_set(source: str, out: Path, compare: str | None = None, **options) -> str:
    """Benchmark ``source`` (a run set or a spec) and, with ``compare``, the other agent too; the
    Markdown report (also written to ``out/report.md``, with ``summary.csv``): per run and task, the aggregates, and
    P(``source`` > ``compare``) with its interval."""
    runs = benchmarked_runs(source, out / "runs", **options)
    note = "Normalized scores (0: random, 1: the task's reference; docs/benchmark.md). "
    note += "Each run's own benchmark report is in `runs/<run>/`."
    if compare is not None:
        others = benchmarked_runs(compare, out / "compared", **options)
        shared = [task for task in runs[0].tasks if task in others[0].tasks]
        point, low, high = probability_of_improvement(runs, others)
        note += (
            f"\n\n**Probability of improvement** over `{compare}` ({len(others)} run(s), its reports in "
            f"`compared/`): P(X > Y) = **{point:.3f}** [{low:.3f}, {high:.3f}] over the {len(shared)} tasks both "
            "played: per task the chance that a run of this agent scores above a run of the other (ties ½), "
            "averaged over the tasks (rliable's), its interval from the same two-level bootstrap. Above 0.5 with "
            "its interval: this agent is better on a randomly drawn task."
        )
    return write_aggregate(out, f"Benchmark of {source}: {len(runs)} run(s)", runs, note)
