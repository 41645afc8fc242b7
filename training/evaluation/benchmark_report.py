"""The benchmark's report folder and the leaderboard: the one owner of their formats.

A report folder (:func:`write_report`) holds

* ``report.md``: the agent's normalized score on every task with its 95% interval, the
  aggregates (rliable's IQM, mean, median and optimality gap with stratified bootstrap
  intervals), the tasks not played and the games forfeited;
* ``benchmark.json``: the same figures and everything needed to compare them
  (:data:`SCHEMA_VERSION`, the suite's version, the package's and every env's versions,
  each task's seeds and games, the agent);
* ``timing.json`` and ``timing.md`` (:data:`~training.evaluation.machine.TIMING_FILE`):
  the machine, its load and the wall times, the only files that change from run to run;
* ``games.csv``: every game (task, number, seed, seat, raw and normalized score, forfeit);
* ``tasks.png`` (the per-task bar chart) and ``profile.png`` (the performance profile:
  the fraction of tasks whose normalized score exceeds each threshold, with its band).

Every figure is the same on every run (seeded games, a seeded bootstrap); only the
timings and the machine's load change, and they are kept apart so that a regenerated
report is the committed one, digit for digit. :func:`write_leaderboard` benchmarks every
bot and every shipped agent and writes ``leaderboard.md`` and ``leaderboard.json``, with
each agent's own report folder (and the wall times) under ``leaderboard/``.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

import numpy as np

from agents.registry import BOTS, NETWORK_AGENTS
from envs.registry import get_entry
from training.evaluation.benchmark import BenchmarkRun, TaskRun, run_benchmark
from training.evaluation.benchmark_scores import (
    AGGREGATES,
    PROFILE_TAUS,
    TaskScore,
    aggregates,
    performance_profile,
    task_score,
)
from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.machine import TIMING_FILE, load_average, machine
from training.evaluation.referee import GameRecord
from training.evaluation.report_files import interval_cell, markdown_table, report_folder, write_csv
from training.evaluation.suite import MEASURE_COMMAND, SUITE_VERSION, Task, suite

#: Version of ``benchmark.json`` and ``leaderboard.json``: bumped when a key changes meaning.
SCHEMA_VERSION = 1
DOCS = "docs/benchmark.md"
#: The columns of ``report.md``'s table of tasks.
TASK_COLUMNS = ["task", "table", "opponent", "games", "measure", "raw", "normalized", "forfeits"]


def package_version() -> str:
    try:
        return metadata.version("tabletop-dice-rl")
    except metadata.PackageNotFoundError:
        return "not installed"


def _table(task: Task) -> str:
    options = ", ".join(f"{k}={v}" for k, v in task.env_kwargs.items())
    return f"{get_entry(task.env).versioned_name}({options})"


class Summary:
    """Every figure of a benchmark run, computed once: task scores and aggregates."""

    def __init__(self, run: BenchmarkRun):
        self.run = run
        self.scores: dict[str, TaskScore] = {t.task.name: task_score(t, run.anchors[t.task.name]) for t in run.played}
        with warnings.catch_warnings():
            # rliable hands arch a RandomState, which arch now warns about; the draws are the same
            warnings.filterwarnings("ignore", message="random_state is deprecated", category=FutureWarning)
            self.aggregates = aggregates(run)
            self.profile, self.profile_band = performance_profile(run)

    def to_dict(self) -> dict:
        run = self.run
        return {
            "schema_version": SCHEMA_VERSION,
            "suite_version": run.suite_version,
            "package_version": package_version(),
            "envs": {t.task.env: get_entry(t.task.env).versioned_name for t in run.tasks},
            "agent": run.agent,
            "quick": run.quick,
            "move_time_limit": run.move_time_limit,
            "tasks": [
                {
                    "task": t.task.name,
                    "env": t.task.env,
                    "env_kwargs": t.task.env_kwargs,
                    "opponent": t.task.opponent,
                    "games": t.task.game_count(run.quick),
                    "first_seed": t.task.seed,
                    "random_opening_plies": t.task.random_opening_plies,
                    "measure": t.task.measure,
                    "anchors": asdict(run.anchors[t.task.name]),
                    "not_played": t.not_played or None,
                    "score": self._score_dict(self.scores.get(t.task.name)),
                }
                for t in run.tasks
            ],
            "aggregates": {
                "tasks": [t.task.name for t in run.played],
                **{name: {"value": v, "ci95": [low, high]} for name, (v, low, high) in self.aggregates.items()},
            },
            "performance_profile": {
                "tau": [round(float(x), 4) for x in PROFILE_TAUS],
                "fraction": [float(x) for x in self.profile],
                "ci95": [[float(x) for x in row] for row in self.profile_band],
            },
        }

    def timing_dict(self) -> dict:
        """The machine and the wall times (``timing.json``): they change from run to run, the figures do not."""
        run = self.run
        return {
            "schema_version": SCHEMA_VERSION,
            "agent": run.agent,
            "machine": machine(),
            "timings": {
                "wall_seconds": round(run.wall_seconds, 2),
                "workers": run.workers,
                "tasks": {
                    t.task.name: {
                        "wall_seconds": round(t.wall_seconds, 2),
                        "agent_ms_per_move": round(self.scores[t.task.name].ms_per_move, 3),
                    }
                    for t in run.played
                },
            },
        }

    @staticmethod
    def _score_dict(score: TaskScore | None) -> dict | None:
        if score is None:
            return None
        return {
            "raw": score.raw,
            "raw_ci95": [score.raw_low, score.raw_high],
            "normalized": score.normalized,
            "normalized_ci95": [score.low, score.high],
            "forfeits": score.forfeits,
            "forfeit_examples": score.forfeit_examples,
        }

    def markdown(self) -> str:
        run = self.run
        lines = [
            f"# Benchmark of `{run.agent}`",
            "",
            f"Suite version {run.suite_version}{' (--quick: the first games of each task only)' if run.quick else ''}; "
            f"package {package_version()}. Normalized score: 0 = uniform random, 1 = the task's reference "
            f"(see {DOCS}). Raw: the mean final score of a one-player game, or the share of a game of several "
            "(1 for a win, a shared one too, ½ for a draw, 0 for a loss). 95% intervals: Wilson's for a share, "
            "the normal one for a mean score.",
            "",
            markdown_table(TASK_COLUMNS, [self._task_row(t) for t in run.tasks]),
        ]
        played = len(run.played)
        lines += [
            "",
            f"Aggregates over the {played} task{'s' * (played != 1)} played "
            "(rliable; 95% stratified bootstrap intervals, each task's games resampled on their own):",
            "",
            markdown_table(list(AGGREGATES), [[interval_cell(*self.aggregates[name]) for name in AGGREGATES]]),
        ]
        lines += ["", how_played(run)]
        not_played = [t for t in run.tasks if t.not_played]
        if not_played:
            lines += [
                "",
                "Not played (the aggregates leave these out, so they compare only with runs of the same tasks):",
                "",
            ]
            lines += [f"* {t.task.name}: {t.not_played}" for t in not_played]
        forfeited = [(name, s) for name, s in self.scores.items() if s.forfeits]
        if forfeited:
            lines += ["", "Forfeited games (lost, and the suite went on):", ""]
            for name, s in forfeited:
                for kind, count in s.forfeits.items():
                    lines.append(
                        f"* {name}: {count} game{'s' * (count != 1)} for {kind}; the first, {s.forfeit_examples[kind]}"
                    )
        lines += [
            "",
            "The machine and the wall times, which change from run to run where the figures above do not, "
            f"are in `{TIMING_FILE}`.",
            "",
        ]
        return "\n".join(lines)

    def _task_row(self, t: TaskRun) -> list[str]:
        """A task's row of ``report.md``: its score with its interval, or that it was not played."""
        task = t.task
        opponent = f"`{task.opponent}`" if task.opponent else "—"
        if t.not_played:
            return [task.name, _table(task), opponent, "—", task.measure, "not played", "—", "—"]
        s = self.scores[task.name]
        digits = 1 if task.players == 1 else 3
        forfeits = ", ".join(f"{n} {kind}" for kind, n in s.forfeits.items()) or "0"
        return [
            task.name,
            _table(task),
            opponent,
            str(s.games),
            task.measure,
            interval_cell(s.raw, s.raw_low, s.raw_high, digits),
            interval_cell(s.normalized, s.low, s.high),
            forfeits,
        ]

    def timing_markdown(self) -> str:
        """``timing.md``: the wall time, the workers, the machine and its load."""
        load = load_average()
        return (
            f"# Benchmark of `{self.run.agent}`: machine and timing\n\n"
            f"{self.run.wall_seconds:.0f} s of wall time with "
            f"{self.run.workers} worker{'s' * (self.run.workers != 1)} on {os.cpu_count()} CPUs "
            f"(load average {load} at the end); these change from run to run, the figures of "
            "`report.md` do not.\n"
        )

    def write(self, out: Path) -> None:
        """The report folder, written together once every figure is known (:func:`report_folder`)."""
        with report_folder(out) as staging:
            (staging / "report.md").write_text(self.markdown())
            (staging / "benchmark.json").write_text(json.dumps(self.to_dict(), indent=2) + "\n")
            (staging / "timing.json").write_text(json.dumps(self.timing_dict(), indent=2) + "\n")
            (staging / TIMING_FILE).write_text(self.timing_markdown())
            write_csv(staging / "games.csv", [game_row(r) for t in self.run.played for r in t.records])
            self._plot(staging)

    def _plot(self, folder: Path) -> None:
        import matplotlib  # noqa: PLC0415 (matplotlib takes a second to import; only the figures need it)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415 (as matplotlib, and after its backend is chosen)
        from rliable import plot_utils  # noqa: PLC0415 (loads matplotlib, statsmodels and arch: only for the figures)

        names = list(self.scores)
        values = np.array([self.scores[n].normalized for n in names])
        errors = np.array(
            [
                [self.scores[n].normalized - self.scores[n].low for n in names],
                [self.scores[n].high - self.scores[n].normalized for n in names],
            ]
        )
        fig, ax = plt.subplots(figsize=(7, 0.9 + 0.45 * len(names)))
        y = np.arange(len(names))[::-1]
        ax.barh(y, values, xerr=errors, capsize=3, color="#4c72b0")
        ax.axvline(0, color="grey", linewidth=1)
        ax.axvline(1, color="black", linestyle="--", linewidth=1)
        ax.set_yticks(y, names)
        ax.set_xlabel("normalized score (0 = uniform random, 1 = reference: dashed), 95% interval")
        ax.set_title(f"{self.run.agent}: suite v{self.run.suite_version}{' (quick)' if self.run.quick else ''}")
        fig.tight_layout()
        fig.savefig(folder / "tasks.png", dpi=100)
        plt.close(fig)

        fig, ax = plt.subplots(figsize=(7, 4.5))
        plot_utils.plot_performance_profiles(
            {self.run.agent: self.profile},
            PROFILE_TAUS,
            performance_profile_cis={self.run.agent: self.profile_band},
            ax=ax,
            xlabel=r"normalized score $\tau$",
            ylabel=r"fraction of tasks with score $> \tau$",
        )
        ax.axvline(1, color="black", linestyle="--", linewidth=1)
        ax.set_title(f"performance profile over {len(names)} tasks (95% band)")
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(folder / "profile.png", dpi=100)
        plt.close(fig)


def game_row(r: GameRecord) -> dict:
    """A game's row of ``games.csv``."""
    return {
        "task": r.task,
        "game": r.game,
        "seed": r.seed,
        "seat": r.seat,
        "raw": f"{r.raw:g}",
        "normalized": f"{r.normalized:.6f}",
        "forfeit": r.forfeit,
        "detail": r.detail,
        "moves": r.moves,
    }


def how_played(run: BenchmarkRun) -> str:
    """The report's line on how the games were played: in batch, and which tasks one game at a time."""
    if run.batch <= 0:
        return "Every game was played one at a time (--batch 0)."
    alone = [t for t in run.played if t.one_at_a_time]
    line = f"The games were played up to {run.batch} at a time as rows of the batched twin (the same games as alone)"
    if not alone:
        return line + "."
    return line + "; one at a time: " + "; ".join(f"{t.task.name} ({t.one_at_a_time})" for t in alone) + "."


def benchmark(agent, out: str | Path | None = None, label: str | None = None, **options) -> Summary:
    """Benchmark ``agent`` (a spec, a mapping of task / env names to specs, a factory
    ``factory(game, seed=seed)`` or an agent object) and, given ``out``, write its report folder.

    ``options`` are :func:`~training.evaluation.benchmark.run_benchmark`'s: ``quick``,
    ``workers``, ``tasks``, ``move_time_limit``, ``show_progress``, ``batch``, ``suite_version``. The returned
    :class:`Summary` holds every figure: ``scores`` per task, ``aggregates``, ``to_dict()``.
    """
    summary = Summary(run_benchmark(agent, label=label, **options))
    if out is not None:
        summary.write(Path(out))
    return summary


# -- the leaderboard ---------------------------------------------------------------------
def leaderboard_agents() -> list[str]:
    """Every bot and every shipped agent, as the spec each is tried as at every task: where the
    task's game has no such agent (a bot of another game, no network shipped for that table,
    a search that needs perfect information), the task is not played and its report says why."""
    return ["random", *dict.fromkeys(name for bots in BOTS.values() for name in bots), *NETWORK_AGENTS, "td"]


def write_leaderboard(
    out: Path,
    quick: bool = False,
    workers: int = 1,
    show_progress: bool = True,
    batch: int = DEFAULT_BATCH,
    suite_version: str = SUITE_VERSION,
) -> str:
    """Benchmark every agent of :func:`leaderboard_agents`; write ``leaderboard.md``, ``leaderboard.json``
    and each agent's report folder under ``out/leaderboard/<agent>/``; return the Markdown."""
    summaries = {}
    for name in leaderboard_agents():
        run = run_benchmark(
            name,
            quick=quick,
            workers=workers,
            show_progress=show_progress,
            label=name,
            batch=batch,
            suite_version=suite_version,
        )
        summaries[name] = Summary(run)
        summaries[name].write(out / "leaderboard" / name.replace("+", "_"))
    tasks = [t.name for t in suite(suite_version).tasks]
    rows = []
    for name, summary in summaries.items():
        cells = [interval_cell(s.normalized, s.low, s.high, 2) if (s := summary.scores.get(t)) else "—" for t in tasks]
        rows.append([f"`{name}`", *cells, str(len(summary.scores)), interval_cell(*summary.aggregates["IQM"], 2)])
    lines = [
        f"# Leaderboard: every bot and shipped agent on the benchmark suite v{suite_version}"
        + (" (--quick)" if quick else ""),
        "",
        f"Normalized score per task (0 = uniform random, 1 = the task's reference; see {DOCS}), 95% intervals; "
        "IQM over the tasks each agent plays (rliable, stratified bootstrap 95% interval). "
        "Each agent is tried at every task; '—' is a task it cannot play (its report says why), "
        "so IQMs over different tasks do not compare. "
        f"Each agent's report folder is under `leaderboard/`. Regenerate: `make leaderboard` "
        f"(references: `{MEASURE_COMMAND} --suite {suite_version}`).",
        "",
        markdown_table(["agent", *tasks, "tasks", "IQM"], rows),
        "",
        f"The wall time of each agent's suite, which is the machine's, is in `leaderboard/{TIMING_FILE}`.",
        "",
    ]
    total = sum(s.run.wall_seconds for s in summaries.values())
    load = load_average()
    timing = [
        "# Leaderboard: wall time of each agent's suite",
        "",
        "The machine's, under its load; the scores do not depend on it.",
        "",
        markdown_table(
            ["agent", "wall time (s)"], [[f"`{name}`", f"{s.run.wall_seconds:.0f}"] for name, s in summaries.items()]
        ),
        "",
        f"{total:.0f} s in all with {workers} worker{'s' * (workers != 1)} on {os.cpu_count()} CPUs "
        f"(load average {load} at the end).",
        "",
    ]
    markdown = "\n".join(lines)
    out.mkdir(parents=True, exist_ok=True)
    (out / "leaderboard" / TIMING_FILE).write_text("\n".join(timing))
    (out / "leaderboard.md").write_text(markdown)
    (out / "leaderboard.json").write_text(
        json.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "suite_version": suite_version,
                "quick": quick,
                "agents": [summary.to_dict() for summary in summaries.values()],
            },
            indent=2,
        )
        + "\n"
    )
    return markdown
