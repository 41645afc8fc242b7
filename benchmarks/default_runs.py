"""Every env's default training run, as a new user starts it, timed and judged against its bot.

    python benchmarks/default_runs.py                     # every default run, one after the other (make default-runs)
    python benchmarks/default_runs.py --runs invers roll_five
    python benchmarks/default_runs.py --report-only       # rebuild report.md from the runs already measured

Each run is the documented command with nothing added but its run folder
(``python training/train.py --env E``, closing evaluation included; the turn-value
pipeline's own default too). For each, ``results/default_runs/<run>.json`` keeps:

* the wall time of the whole command (training and closing evaluation) against the
  30-minute budget, and the training's own wall time and budget from the run's
  ``metadata.json`` (:func:`budget`: a turn-value run's games counted with its warm
  start's);
* the machine (CPU, cores) and what else ran on it: the 1-minute load average sampled
  every 10 seconds (start, mean, max) and the other processes seen using a core (in the
  report's detail under the table, not in the table, which the README shows);
* the result, read off the run's closing evaluation, with its 95% interval and games,
  against the bar the project sets for a default run: a solitaire run's paired score
  difference to the heuristic above 0; a two-player run's share (wins + half the draws)
  against the heuristic above 0.5 (Invers, which has no heuristic: against
  ``search:depth=3``);
* one line on how the shipped agent's recipe differs from the default (the report
  prints :data:`RUNS`' line, which follows what is shipped now).

``report.md`` is then made from every ``<run>.json`` there, so runs measured apart (one
at a time on an idle machine, as the budget assumes) make one table; ``make results``
turns it into a docs page and the README's default-runs table. The run folders go to
``--runs-dir`` (not committed: a warm start's demonstrations can be a gigabyte); each
run's closing evaluation report is copied beside its JSON.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from training.evaluation.machine import cpu_model

BUDGET_S = 30 * 60


@dataclass(frozen=True)
class DefaultRun:
    """One documented default: its command, the bot its result is read against, and the shipped agent's recipe."""

    name: str
    command: tuple[str, ...]
    reference: str
    shipped: str


RUNS = (
    DefaultRun(
        "inverted_dice",
        ("training/train.py", "--env", "inverted_dice"),
        "heuristic",
        "shipped `ppo`: the solver cloned through the softmax of its action values from 60,000 games (three "
        "times this run's), then 1,000,000 guided PPO steps (`configs/inverted_dice_soft_clone.yaml`)",
    ),
    DefaultRun(
        "inverted_dice_td",
        ("training/train_td.py", "--env", "inverted_dice"),
        "heuristic",
        "shipped `td`: this very recipe (`configs/inverted_dice_td.yaml`)",
    ),
    DefaultRun(
        "six_hundred",
        ("training/train.py", "--env", "six_hundred"),
        "heuristic",
        "shipped `td`: this very recipe, the turn-value pipeline (`configs/six_hundred.yaml`)",
    ),
    DefaultRun(
        "invers",
        ("training/train.py", "--env", "invers"),
        "search:depth=3",
        "shipped `ppo`: expert iteration, first from `search:depth=4`'s labels (`configs/invers_distill.yaml`, "
        "55 min), then twice from the network's own two-ply search (`configs/invers_search_distill.yaml`, 38 min; "
        "`configs/invers_search_distill_2.yaml`, 60 min), then from its three-ply search "
        "(`configs/invers_more_compute.yaml`, 51 generations); the default does the first three in one run of at "
        "most 25 min: `search:depth=4`'s labels, then its own network's two-ply search, that network frozen afresh "
        "every 65 generations",
    ),
    DefaultRun(
        "roll_five",
        ("training/train.py", "--env", "roll_five"),
        "heuristic",
        "shipped `ppo`: this very recipe (`configs/roll_five.yaml`)",
    ),
    DefaultRun(
        "lost_dice",
        ("training/train.py", "--env", "lost_dice"),
        "heuristic",
        "shipped `ppo`: this recipe at 2,500,000 PPO steps where the default stops at 2,000,000",
    ),
    DefaultRun(
        "keldice",
        ("training/train.py", "--env", "keldice"),
        "heuristic",
        "shipped `ppo`: this recipe at 2,500,000 PPO steps where the default stops at 1,000,000",
    ),
)
RUNS_BY_NAME = {run.name: run for run in RUNS}


class LoadWatch:
    """The 1-minute load average and the other busy processes, sampled every ``every`` seconds
    in a thread while a run goes on (``exclude``: the run's own process tree)."""

    def __init__(self, every: float = 10.0):
        self.every, self.loads, self.others = every, [], set()
        self.root_pid = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self.loads.append(os.getloadavg()[0])
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.loads.append(os.getloadavg()[0])

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            self.loads.append(os.getloadavg()[0])
            self.others |= busy_processes(exclude_tree=self.root_pid)

    def summary(self) -> dict:
        return {
            "load_start": round(self.loads[0], 2),
            "load_mean": round(sum(self.loads) / len(self.loads), 2),
            "load_max": round(max(self.loads), 2),
            "other_processes": sorted(self.others),
        }


def busy_processes(exclude_tree: int | None, threshold: float = 30.0) -> set[str]:
    """Short names of the processes using more than ``threshold`` % of a core (``ps``'s figure: its
    CPU time over its life), outside the process tree rooted at ``exclude_tree`` and this process;
    a stopped process (``kill -STOP``) uses none, whatever its past."""
    try:
        lines = subprocess.run(
            ["ps", "-eo", "pid=,ppid=,pcpu=,stat=,args="], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return set()
    table = []
    for line in lines:
        pid, ppid, cpu, state, *args = line.split(None, 4)
        if not state.startswith("T"):
            table.append((int(pid), int(ppid), float(cpu), args[0] if args else ""))
    parents = {pid: ppid for pid, ppid, _, _ in table}
    mine = {os.getpid(), exclude_tree}

    def in_tree(pid: int) -> bool:
        while pid > 1:
            if pid in mine:
                return True
            pid = parents.get(pid, 1)
        return False

    return {short_command(args) for pid, _, cpu, args in table if cpu > threshold and not in_tree(pid)}


def short_command(args: str) -> str:
    """``python training/train.py --env invers ...`` -> ``training/train.py --env invers`` (60 characters at most)."""
    words = [w for w in args.split() if not w.endswith(("python", "python3")) and "/bin/" not in w]
    return " ".join(words)[:60] or args[:60]


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def judged(run: DefaultRun, evaluation: Path) -> dict:
    """The run's result against ``run.reference``, read off its closing evaluation's ``summary.csv``."""
    rows = read_csv(evaluation / "summary.csv")
    candidate = rows[0]["agent"]
    if "opponent" not in rows[0]:  # one player: every agent on the same dice; the candidate's row comes first
        reference = next(r for r in rows if r["agent"] == run.reference)
        difference, half = -float(reference["diff_vs_reference"]), float(reference["diff_ci95_half_width"])
        low, high = difference - half, difference + half
        return {
            "measure": f"mean score − {run.reference}'s, paired",
            "value": round(difference, 2),
            "low": round(low, 2),
            "high": round(high, 2),
            "games": int(reference["games"]),
            "candidate_mean": float(rows[0]["mean"]),
            "reference_mean": float(reference["mean"]),
            "passed": low > 0,
        }
    row = next(r for r in rows if r["agent"] == candidate and r["opponent"] == run.reference)
    low = float(row["score_ci95_low"])
    return {
        "measure": f"share against {run.reference} (wins + ½ draws)",
        "value": float(row["score"]),
        "low": low,
        "high": float(row["score_ci95_high"]),
        "games": int(row["games"]),
        "passed": low > 0.5,
    }


def measure(run: DefaultRun, runs_dir: Path, out: Path) -> dict:
    """Run ``run`` start to end, then write and return its record (``out/<name>.json``)."""
    run_dir = runs_dir / run.name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    runs_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, *run.command, "--run-dir", str(run_dir), "--no-progress"]
    log = runs_dir / f"{run.name}.log"
    print(f"[{time.strftime('%H:%M:%S')}] {run.name}: {' '.join(run.command)} (log: {log})", flush=True)
    with open(log, "w") as output, LoadWatch() as watch:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        watch.root_pid = process.pid
        code = process.wait()
        wall = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"{run.name}: the run failed with exit code {code}; see {log}")
    metadata = json.loads((run_dir / "metadata.json").read_text())
    record = {
        "name": run.name,
        "command": "python " + " ".join(run.command),
        "wall_s": round(wall),
        "training_wall_s": round(sum(s["wall_time_s"] for s in metadata["sessions"])),
        "budget": budget(metadata),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        **watch.summary(),
        "result": judged(run, run_dir / "evaluation"),
        "shipped": run.shipped,
        "date": time.strftime("%Y-%m-%d"),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{run.name}.json").write_text(json.dumps(record, indent=2) + "\n")
    evaluation_copy = out / run.name
    if evaluation_copy.exists():
        shutil.rmtree(evaluation_copy)
    shutil.copytree(run_dir / "evaluation", evaluation_copy, ignore=shutil.ignore_patterns("*.png", "games.csv"))
    print(f"  {record['wall_s']} s, {record['result']}", flush=True)
    return record


def budget(metadata: dict) -> str:
    """What the run trained on, from its ``metadata.json``: PPO's timesteps, expert iteration's
    generations, or a turn-value run's games, its warm start's counted too (Six Hundred's default
    is a warm start alone: "32,768 warm-start games, no self-play", never "0 games")."""
    unit = next(k for k in ("timesteps", "games", "generations", "iterations") if k in metadata)
    if unit != "games":
        return f"{metadata[unit]:,} {unit}"
    warm = (metadata["sessions"][0]["config"].get("warm_start") or {}).get("games", 0)
    if not warm:
        return f"{metadata['games']:,} games"
    if not metadata["games"]:
        return f"{warm:,} warm-start games, no self-play"
    return f"{warm:,} warm-start + {metadata['games']:,} self-play games"


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def report(out: Path) -> str:
    """``report.md`` from every ``<run>.json`` in ``out``, in the order of :data:`RUNS`."""
    records = [json.loads((out / f"{r.name}.json").read_text()) for r in RUNS if (out / f"{r.name}.json").is_file()]
    lines = [
        "# Default training runs",
        "",
        "Every env's documented training command, run as a new user runs it (`python benchmarks/default_runs.py`, "
        "`make default-runs`), closing evaluation included. The bar: a solitaire run's score above the heuristic's "
        "on the same dice (paired difference, 95% interval above 0); a two-player run's share against the "
        "heuristic above 0.5 (Invers: against `search:depth=3`), 95% interval; the whole command within 30 minutes "
        "on 2 idle cores. The load is the 1-minute load average over the run (start / mean / max): above 2, "
        "other work shared the two cores and the wall time is longer than an idle machine's (the processes seen "
        "are listed under the table).",
        "",
        "| command | wall time (training, budget) | within 30 min | result, 95% CI (games) | bar met "
        "| machine; load (start / mean / max); date |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        result = r["result"]
        lines.append(
            f"| `{r['command']}` | {minutes(r['wall_s'])} ({minutes(r['training_wall_s'])}, {r['budget']}) | "
            f"{'yes' if r['wall_s'] <= BUDGET_S else 'no'} | {result['measure']}: "
            f"**{result['value']:+g}** [{result['low']:+g}, {result['high']:+g}] ({result['games']:,}) | "
            f"{'yes' if result['passed'] else '**no**'} | {r['machine']}; load {r['load_start']} / {r['load_mean']} / "
            f"{r['load_max']}; {r['date']} |"
        )
    lines += ["", "How each shipped agent's recipe differs from its env's default run:", ""]
    lines += [f"* **{r['name']}**: {RUNS_BY_NAME[r['name']].shipped}" for r in records]
    lines += ["", "Other processes seen using a core during each run (the load above is theirs and the run's):", ""]
    for r in records:
        others = ", ".join(f"`{p}`" for p in r["other_processes"]) or "none"
        lines.append(f"* **{r['name']}**: {others}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", nargs="+", help=f"the runs to make (default: all of {', '.join(RUNS_BY_NAME)})")
    parser.add_argument("--out", type=Path, default=Path("results/default_runs"), help="where the records go")
    parser.add_argument(
        "--runs-dir", type=Path, default=Path("checkpoints/default_runs"), help="where the run folders go"
    )
    parser.add_argument("--report-only", action="store_true", help="only rebuild report.md from the records")
    args = parser.parse_args(argv)
    unknown = [name for name in args.runs or [] if name not in RUNS_BY_NAME]
    if unknown:
        print(f"error: unknown run {unknown[0]!r}; the default runs: {', '.join(RUNS_BY_NAME)}", file=sys.stderr)
        return 2
    if not args.report_only:
        for name in args.runs or list(RUNS_BY_NAME):
            measure(RUNS_BY_NAME[name], args.runs_dir, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(report(args.out))
    print(f"wrote {args.out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
