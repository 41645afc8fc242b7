"""Evaluation in batch against one game at a time: games/s per task, the same games both ways, the wall times.

    python benchmarks/eval_speed.py                          # ppo on every task of the suite
    python benchmarks/eval_speed.py --agent heuristic --games 100 --batch-games 1000
    python benchmarks/eval_speed.py --targets                # also the cost targets (minutes)
    python benchmarks/eval_speed.py --targets --page docs/benchmarks/eval_speed.md

Two tables, one run:

* **Tasks.** For every task of the suite (``--suite``), the agent under test (``--agent``,
  any spec) against the task's opponent plays the task's first ``--games`` games one at a
  time (:func:`agents.match.play_game`) and its first ``--batch-games`` games as rows of
  the batched twin (:func:`agents.match.play_games_in_batch`); games/s of both, their
  ratio, and how many of the games both played differ (their moves or their end): 0 is the
  contract, and the page prints it as measured.
* **Targets** (``--targets``). The wall time of what users run, each against its target:
  the whole suite for ``ppo`` (3 minutes) and for ``heuristic`` (2 minutes), ``--quick``
  for ``ppo`` (20 seconds), and the closing evaluation of every env's default config
  (60 seconds each), played on that env's shipped network at the config's games and
  opponents (the run's own closing evaluation, :func:`training.evaluation.report.evaluate_run`).
  ``make results`` times itself (its last line) against its 10 minutes.

The figures depend on the machine and its load, printed with them: compare within a run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.match import pairing_seats
from agents.registry import make_agent
from agents.shipped import shipped_network
from envs.registry import ENVS, make_game
from training.evaluation.benchmark import run_benchmark
from training.evaluation.candidate import NotPlayable, build_candidate
from training.evaluation.harness import DEFAULT_BATCH, played_in_batches
from training.evaluation.machine import MachineRecord, measurement_page
from training.evaluation.suite import SUITE_VERSION, SUITES, Task, suite, task_by_name
from training.framework.paths import config_path

#: The wall-time targets of ``--targets``, in seconds.
SUITE_TARGETS = {("ppo", False): 180, ("heuristic", False): 120, ("ppo", True): 20}
CLOSING_TARGET = 60


def task_games(task: Task, spec: str, games: int, batch: int) -> tuple[list[tuple], float]:
    """The task's first ``games`` games of ``spec`` against its opponent, ``batch`` at a time
    (0: one at a time): each game's ``(history, end)`` and the games/s."""
    game = make_game(task.env, **task.env_kwargs)
    candidate = build_candidate(spec, task, game)
    opponent = make_agent(task.env, task.opponent, game, seed=task.seed) if task.opponent else None
    table = [(0, lambda g: [candidate] if opponent is None else pairing_seats(game, candidate, opponent, g))]
    seeds = [task.game_seed(g) for g in range(games)]
    started = time.perf_counter()
    played = [
        (history, tuple(np.asarray(state.scores()).tolist()) + tuple(np.asarray(state.returns()).tolist()))
        for _, _, (state, history) in played_in_batches(game, table, seeds, task.random_opening_plies, batch)
    ]
    return played, games / (time.perf_counter() - started)


def tasks_table(args) -> tuple[list[str], list[list[str]]]:
    header = [
        "task",
        "table",
        "opponent",
        "games/s, one at a time",
        f"games/s, {args.batch} at a time",
        "ratio",
        "games compared",
        "games that differ",
    ]
    rows = []
    for task in args.tasks or suite(args.suite).tasks:
        table = ", ".join(f"{k}={v}" for k, v in task.env_kwargs.items())
        try:
            alone, alone_rate = task_games(task, args.agent, args.games, 0)
            batched, batch_rate = task_games(task, args.agent, max(args.batch_games, args.games), args.batch)
        except NotPlayable as error:
            print(f"{task.name:<14} not played: {error}", flush=True)
            rows.append(
                [task.name, table, f"`{task.opponent}`" if task.opponent else "—", "not played", "—", "—", "—", "—"]
            )
            continue
        differ = sum(a != b for a, b in zip(alone, batched))
        print(
            f"{task.name:<14} {alone_rate:>9.1f} games/s alone {batch_rate:>9.1f} in batch "
            f"{batch_rate / alone_rate:>6.1f}x  {differ} of {len(alone)} games differ",
            flush=True,
        )
        rows.append(
            [
                task.name,
                table,
                f"`{task.opponent}`" if task.opponent else "—",
                f"{alone_rate:,.1f}",
                f"{batch_rate:,.1f}",
                f"{batch_rate / alone_rate:.1f}×",
                str(len(alone)),
                str(differ),
            ]
        )
    return header, rows


def closing_evaluation_seconds(env: str) -> float:
    """The closing evaluation of ``env``'s default config (``configs/<env>.yaml``: its games,
    opponents and tables), timed on a copy of the shipped network's run folder with that
    evaluation section: what a default training run's closing evaluation plays."""
    import yaml  # noqa: PLC0415 (only --targets reads the configs)

    from training.evaluation.report import evaluate_run  # noqa: PLC0415 (as yaml)

    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        shutil.copytree(shipped_network(env), run)
        config = yaml.safe_load((run / "config.yaml").read_text())
        config["evaluation"] = yaml.safe_load(config_path(env).read_text()).get("evaluation") or {}
        (run / "config.yaml").write_text(yaml.safe_dump(config))
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            evaluate_run(run)
        return time.perf_counter() - started


def targets_table(args) -> tuple[list[str], list[list[str]]]:
    rows = []
    for (agent, quick), target in SUITE_TARGETS.items():
        started = time.perf_counter()
        run_benchmark(agent, quick=quick, workers=args.workers, show_progress=False, suite_version=args.suite)
        seconds = time.perf_counter() - started
        what = f"`tabletop benchmark --agent {agent}{' --quick' if quick else ''} --workers {args.workers}`"
        rows.append([what, f"{seconds:.0f}", f"{target}", "yes" if seconds <= target else "**no**"])
        print(f"{what}: {seconds:.0f} s (target {target} s)", flush=True)
    for env in ENVS:
        if not (shipped_network(env) / "config.yaml").is_file():
            continue
        seconds = closing_evaluation_seconds(env)
        what = f"closing evaluation of `configs/{env}.yaml`'s run"
        rows.append([what, f"{seconds:.0f}", f"{CLOSING_TARGET}", "yes" if seconds <= CLOSING_TARGET else "**no**"])
        print(f"{what}: {seconds:.0f} s (target {CLOSING_TARGET} s)", flush=True)
    return ["what", "wall time (s)", "target (s)", "met"], rows


NOTES = """The tasks table: the agent under test against each task's opponent, on the task's own
seeds and seat rotation, one game at a time and as rows of the batched twin. "games that
differ" compares, game by game, the moves played and the end (scores and returns) of the
games both ways played: every bot's and shipped network's `act_batch` plays what its `act`
plays (a network computes each row the same in any batch, `agents/inference.py`), so it
is 0 wherever the contract holds. The figures depend on the machine and its load: compare
the columns of one run."""


def fail(message: str) -> int:
    """Bad input: one line on stderr, exit code 2, before anything is measured."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="ppo", help="the agent under test (default ppo)")
    parser.add_argument("--suite", choices=sorted(SUITES), default=SUITE_VERSION, help="the suite's version")
    parser.add_argument("--games", type=int, default=100, help="games per task played one at a time (default 100)")
    parser.add_argument(
        "--batch-games",
        type=int,
        default=1000,
        help="games per task played in batch (default 1000; its first "
        "--games are compared with the games played one at a time)",
    )
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help=f"games at once (default {DEFAULT_BATCH})")
    parser.add_argument("--targets", action="store_true", help="also time the suite and the closing evaluations")
    parser.add_argument("--workers", type=int, default=2, help="processes of the timed suites (default 2)")
    parser.add_argument("--tasks", nargs="+", metavar="TASK", help="only these tasks of the suite (default all)")
    parser.add_argument("--page", type=Path, help="also write the tables as a docs page (Markdown)")
    args = parser.parse_args(argv)
    if min(args.games, args.batch_games, args.batch, args.workers) <= 0:
        return fail("--games, --batch-games, --batch and --workers must be positive")
    if args.page is not None and not args.page.parent.is_dir():
        return fail(f"--page {args.page}: no folder {args.page.parent}")
    try:
        args.tasks = [task_by_name(name, args.suite) for name in args.tasks] if args.tasks else None
    except KeyError as error:
        return fail(error.args[0])
    import torch  # noqa: PLC0415 (torch takes seconds to import; --help need not wait)

    torch.set_num_threads(1)
    record = MachineRecord()
    started = time.perf_counter()
    print(f"{args.agent} on suite v{args.suite}: games/s one at a time and in batch ({os.cpu_count()} CPUs)")
    header, rows = tasks_table(args)
    tables = [(header, rows)]
    if args.targets:
        tables.append(targets_table(args))
    print(f"measured in {time.perf_counter() - started:.0f} s")
    if args.page is not None:
        command = "python benchmarks/eval_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        page = measurement_page("Evaluation speed", command.strip(), record, *tables[0], NOTES)
        if args.targets:
            header, rows = tables[1]
            page += "\n".join(
                [
                    "",
                    "## Cost targets",
                    "",
                    "| " + " | ".join(header) + " |",
                    "|" + "---|" * len(header),
                    *("| " + " | ".join(row) + " |" for row in rows),
                    "",
                    "`make results` prints its own wall time on its last line (target: 10 minutes).",
                    "",
                ]
            )
        args.page.write_text(page)
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
