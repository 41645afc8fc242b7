"""Published baselines: every env's default recipe at a budget a laptop affords, five seeds each.

    python benchmarks/baselines.py                       # every env (make baselines)
    python benchmarks/baselines.py --envs roll_five      # one env again; the table keeps the others
    python benchmarks/baselines.py --report-only         # the table and its page from what is measured

For each env, its default config (``configs/<env>.yaml``: the recipe ``train.py --env E``
runs) at :data:`BUDGETS`' budget, a few minutes of training a run at most (the table gives
each env's measured training time a run): the budget key scaled down, a warm start shortened in proportion, the learning
curve taken five times a run, the closing evaluation at :data:`EVALUATION_GAMES` games
against the config's own opponents (its extra tables dropped). The config is written to
``results/baselines/configs/<env>.yaml`` and trained as a run set::

    python training/train.py --config results/baselines/configs/<env>.yaml --seeds 1 2 3 4 5

(two runs at a time on two cores). Its report, summary and curves are copied to
``results/baselines/<env>/`` with the wall time and the machine's load in ``<env>.json``;
``results/baselines/report.md`` (on the site ``docs/reports/baselines.md``, made by
``training/results_pages.py`` with every other report) is the table of every env: seeds,
budget, the aggregate over the five runs with its two-level bootstrap interval
(:mod:`training.evaluation.run_aggregate`), and the wall time. Compare your own algorithm with
them as ``docs/guides/baselines.md`` shows.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from agents.run_folder import METADATA_FILE
from training.evaluation.machine import MachineRecord, cpu_model, load_average
from training.evaluation.report_files import interval_cell
from training.evaluation.run_set_report import SET_REPORT_FILES
from training.framework.run_set_folder import seed_folder

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "baselines"
RUNS = ROOT / "checkpoints" / "baselines"  #: the run sets (git-ignored: only their reports are kept)
SEEDS = (1, 2, 3, 4, 5)

#: env -> (budget key, budget): sized at three minutes of training a run from the default runs' speed
#: (results/default_runs: e.g. Inverted Dice 3,000,320 steps in 29 min); the table gives what they took.
BUDGETS: dict[str, tuple[str, int]] = {
    "inverted_dice": ("total_timesteps", 300_000),
    "six_hundred": ("warm_start.games", 6_144),
    "invers": ("generations", 50),
    "roll_five": ("total_timesteps", 45_056),
    "lost_dice": ("total_timesteps", 230_000),
    "keldice": ("total_timesteps", 105_000),
}
#: Closing-evaluation games a run: every solitaire seed's dice alike; 400 seat-paired games a pairing.
EVALUATION_GAMES = {1: 1000, 2: 400}
CURVE_POINTS = 5


def nested(config: dict, key: str) -> tuple[dict, str]:
    """The mapping holding ``key`` (``"warm_start.games"``: the warm-start section) and the last name."""
    *path, last = key.split(".")
    for name in path:
        config = config[name]
    return config, last


def baseline_config(env: str) -> dict:
    """``configs/<env>.yaml`` at the baseline's budget (module docstring)."""
    config = yaml.safe_load((ROOT / "configs" / f"{env}.yaml").read_text())
    key, budget = BUDGETS[env]
    holder, name = nested(config, key)
    planned = holder[name]
    holder[name] = budget
    warm = config.get("warm_start") or {}
    if key == "total_timesteps" and warm.get("enabled", True) and warm.get("episodes"):
        warm["episodes"] = max(config.get("n_envs", 1), math.ceil(warm["episodes"] * budget / planned))
    curve = config.get("learning_curve")
    if curve and key != "warm_start.games":  # a warm start alone has no curve points but its first
        curve["every"] = max(1, budget // CURVE_POINTS)
    players = (config.get("env_kwargs") or {}).get("num_players", 2 if env in ("invers", "roll_five") else 1)
    evaluation = config.setdefault("evaluation", {})
    evaluation["games"] = EVALUATION_GAMES[min(players, 2)]
    evaluation.pop("tables", None)
    return config


def write_config(env: str) -> Path:
    """``results/baselines/configs/<env>.yaml``: the config the baseline trains."""
    configs = OUT / "configs"
    configs.mkdir(parents=True, exist_ok=True)
    path = configs / f"{env}.yaml"
    key, budget = BUDGETS[env]
    header = (
        f"# The baseline of {env}: configs/{env}.yaml with {key} {budget:,} (results/baselines/report.md), "
        "written by benchmarks/baselines.py; do not edit.\n"
    )
    path.write_text(header + yaml.safe_dump(baseline_config(env), sort_keys=False))
    return path


def train(env: str) -> dict:
    """Train the env's run set, copy its report; the record of the measurement."""
    path = write_config(env)
    key, budget = BUDGETS[env]
    run_set = RUNS / env
    if run_set.exists():
        shutil.rmtree(run_set)
    command = ["python", "training/train.py", "--config", str(path.relative_to(ROOT)), "--seeds", *map(str, SEEDS)]
    record = MachineRecord()
    started = time.perf_counter()
    subprocess.run([sys.executable, *command[1:], "--run-dir", str(run_set.relative_to(ROOT))], cwd=ROOT, check=True)
    wall = time.perf_counter() - started
    folder = OUT / env
    folder.mkdir(parents=True, exist_ok=True)
    for name in SET_REPORT_FILES:
        if (run_set / name).is_file():
            shutil.copy(run_set / name, folder / name)
    trained = [json.loads((seed_folder(run_set, s) / METADATA_FILE).read_text()) for s in SEEDS]
    measured = {
        "env": env,
        "command": " ".join(command),
        "seeds": list(SEEDS),
        "budget": f"{key} {budget:,}",
        "wall_time_s": round(wall, 1),
        "training_s": [round(sum(session.get("wall_time_s", 0) for session in m["sessions"]), 1) for m in trained],
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "load": f"{record.load_at_start} at the start, {load_average()} at the end",
    }
    (OUT / f"{env}.json").write_text(json.dumps(measured, indent=2) + "\n")
    return measured


def aggregate_cells(env: str) -> tuple[str, str, str]:
    """The run set's task, its mean over the runs and its IQM, each with its interval (summary.csv)."""
    with (OUT / env / "summary.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    digits = 1 if rows[0]["task"] == "score" else 3

    def cell(row: dict) -> str:
        value, low, high = (float(row[key]) for key in ("value", "ci95_low", "ci95_high"))
        return interval_cell(value, low, high, digits)

    first_task = [row for row in rows if row["run"] == "mean of runs"][0]
    iqm = [row for row in rows if row["run"] == "IQM"][0]
    return first_task["task"], cell(first_task), cell(iqm)


def report() -> str:
    """``results/baselines/report.md`` and its docs page, from every env measured."""
    lines = [
        "# Baselines",
        "",
        "<!-- Generated by `python benchmarks/baselines.py` (make baselines); run it again, do not edit. -->",
        "",
        "Every env's default recipe (`configs/<env>.yaml`) at a short budget (the training time a run is measured "
        "below: two runs at a time on two cores, Invers one, whose config keeps two workers), "
        f"{len(SEEDS)} seeds each (`train.py --config results/baselines/configs/<env>.yaml --seeds "
        f"{' '.join(map(str, SEEDS))}`), scored by each run's closing evaluation against its config's opponents. "
        "The first task is the headline: the mean score alone (one player) or the share (wins + ½ draws, seat-paired "
        "openings) against the config's first opponent; the IQM runs over every run and opponent. Intervals: 95%, a "
        "two-level bootstrap over the runs and each run's games, as docs/guides/evaluation.md describes.",
        "",
        "| env | seeds | budget a run | training a run (mean) | first task | mean of the runs, 95% CI "
        "| IQM over runs and tasks, 95% CI | wall time (5 runs and their evaluations) | machine; load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for env in BUDGETS:
        path = OUT / f"{env}.json"
        if not path.is_file():
            continue
        measured = json.loads(path.read_text())
        task, mean, iqm = aggregate_cells(env)
        lines.append(
            f"| {env} | {len(measured['seeds'])} | {measured['budget']} "
            f"| {sum(measured['training_s']) / len(measured['training_s']) / 60:.1f} min "
            f"| {task} | {mean} | {iqm} | {measured['wall_time_s'] / 60:.1f} min | {measured['machine']}; load "
            f"{measured['load']} |"
        )
    lines += [
        "",
        "Each env's report (every run by its seed, its own interval, the aggregate) and its learning curves "
        "(`curves.png`: each seed, their mean and a 95% band over the seeds) are in `results/baselines/<env>/`. "
        "Compare an algorithm of your own with them: docs/guides/baselines.md.",
    ]
    text = "\n".join(lines) + "\n"
    (OUT / "report.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", nargs="+", choices=list(BUDGETS), default=list(BUDGETS), help="envs to train")
    parser.add_argument("--report-only", action="store_true", help="only the table, from the envs measured")
    args = parser.parse_args(argv)
    if not args.report_only:
        for env in args.envs:
            measured = train(env)
            print(f"{env}: {measured['wall_time_s'] / 60:.1f} min", flush=True)
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
