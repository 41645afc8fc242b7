"""Several training runs of one recipe, one per seed, scored as one result: a **run set**.

A run set is a folder of run folders, ``seed<N>/`` each, with ``run_set.json`` naming the
env, the pipeline, the seeds and the command (:mod:`training.framework.run_set` trains it;
runs trained elsewhere make one with ``{"env": ..., "seeds": [...]}`` and their folders).
What a paper prints of it:

* each run's closing evaluation, labelled by its seed (its own interval, from its games);
* the aggregate over the runs, the mean and the IQM (rliable's interquartile mean over
  every run and task), with a 95% interval from a **two-level bootstrap**: the runs are
  resampled, and within each run drawn its games (openings, in a game of several players)
  are resampled too. The interval so holds both the spread between seeds and each run's
  game noise; a bootstrap over the runs' mean scores alone (what a hand-written rliable
  call over a runs x tasks table does) ignores the second, and its interval shrinks below
  one run's own with few seeds;
* the learning curves of all runs, each seed a thin line, their mean and a 95% band over
  the seeds (``curves.png``).

Two run sets (or a run set and a single run or agent) compare by rliable's **probability
of improvement**, P(X > Y): per task the chance that a run of X scores above a run of Y
(ties ½), averaged over the tasks, with its interval from the same two-level bootstrap.

A task is what a run's closing evaluation measures: in a one-player game the trained
agent's mean score; with several players its score (wins + ½ draws) against each opponent.

Anchors: rliable (Agarwal et al. 2021), whose IQM and probability of improvement these are;
openrlbenchmark and RL Baselines3 Zoo, which publish curves over seeds.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.run_folder import CURVE_FILE
from training.evaluation.bootstrap import BOOTSTRAP_REPS, BOOTSTRAP_SEED, padded, recentred
from training.evaluation.harness import Z95, opening_scores, paired_share_interval
from training.evaluation.report_files import write_csv
from training.framework.run_set_folder import closing_games, read_run_set, run_label, runs_of

REPORT_FILE = "report.md"
CURVES_FILE = "curves.png"


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


def _cell(value: tuple[float, float, float], digits: int) -> str:
    point, low, high = value
    return f"{point:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def aggregate_report(title: str, runs: list[RunScores], result: Aggregate, note: str = "") -> str:
    """Markdown: each run's score per task with its own interval, then the aggregate rows."""
    tasks = list(runs[0].tasks)
    digits = 1 if tasks == ["score"] else 3
    lines = [f"# {title}", ""]
    lines += ["| run | " + " | ".join(tasks) + " |", "|---|" + "---|" * len(tasks)]
    for run in runs:
        cells = [_cell((run.mean(task), *run.interval(task)), digits) for task in tasks]
        lines.append(f"| {run.label} | " + " | ".join(cells) + " |")
    lines.append(
        f"| **mean of {len(runs)} runs** | " + " | ".join(_cell(result.per_task[t], digits) for t in tasks) + " |"
    )
    lines += [
        "",
        "| aggregate over runs and tasks | value, 95% CI |",
        "|---|---|",
        f"| mean | {_cell(result.mean, digits)} |",
        f"| IQM | {_cell(result.iqm, digits)} |",
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
    """Aggregate ``runs`` (:func:`aggregate`) and write ``report.md`` and ``summary.csv`` into
    ``folder``; the report returned. What every command over several runs writes."""
    result = aggregate(runs)
    report = aggregate_report(title, runs, result, note)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / REPORT_FILE).write_text(report)
    write_csv(folder / "summary.csv", aggregate_rows(runs, result))
    return report


def curves_picture(run_set: Path, out: Path) -> Path | None:
    """Every run's learning curve (``learning_curve.csv``) in one picture: each seed a thin line,
    their mean and a 95% band over the seeds (the mean ± t · sd / √runs at each point the runs
    share). None where no run has a curve."""
    curves = {}
    for seed, run in runs_of(run_set).items():
        path = run / CURVE_FILE
        if path.is_file():
            with path.open() as handle:
                reader = csv.DictReader(handle)
                rows = list(reader)
                unit = reader.fieldnames[0]
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
