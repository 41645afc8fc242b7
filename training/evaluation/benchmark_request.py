"""What a ``training/benchmark.py`` command line asks for, carried out: measuring the suite's
references, the leaderboard, or one agent (a spec, a mapping of env or task names to specs,
or a run set, and with ``--compare`` a second agent), each printed and written as its
report folder. Bad input raises a ``ConfigError`` naming it."""

from __future__ import annotations

import argparse
from pathlib import Path

from training.evaluation.benchmark_report import benchmark, write_leaderboard
from training.evaluation.benchmark_sets import benchmark_set
from training.evaluation.references import measure_anchors
from training.evaluation.report_files import output_dir
from training.evaluation.suite import agent_mapping, write_anchors
from training.framework.run_set_folder import is_run_set
from training.framework.schema import ConfigError


def benchmark_request(args: argparse.Namespace) -> int:
    """The benchmark the command line ``args`` asks for, printed and written; the exit code."""
    progress = not args.no_progress
    if args.measure_references:
        anchors = measure_anchors(args.workers, progress, args.suite, args.batch)
        path = write_anchors(anchors, version=args.suite)
        print(f"References written to {path}")
        return 0
    if args.leaderboard:
        print(
            write_leaderboard(
                Path(args.out or "results"),
                quick=args.quick,
                workers=args.workers,
                show_progress=progress,
                batch=args.batch,
                suite_version=args.suite,
            )
        )
        return 0
    agent = agent_mapping(args.agent)
    out = output_dir(args.out, args.overwrite, None, "benchmark")
    if args.compare is not None or (isinstance(agent, str) and is_run_set(Path(agent))):
        if not isinstance(agent, str):
            raise ConfigError("--compare and run sets take one plain --agent (a spec or a run set), not ENV=SPEC")
        options = dict(quick=args.quick, workers=args.workers, tasks=args.tasks, batch=args.batch)
        options.update(move_time_limit=args.move_time_limit, show_progress=progress, suite_version=args.suite)
        print(benchmark_set(agent, out, args.compare, **options))
        print(f"Report written to {out}")
        return 0
    summary = benchmark(
        agent,
        out,
        label=" ".join(args.agent),
        quick=args.quick,
        workers=args.workers,
        tasks=args.tasks,
        move_time_limit=args.move_time_limit,
        show_progress=progress,
        batch=args.batch,
        suite_version=args.suite,
    )
    print(summary.markdown())
    print(f"Report written to {out}")
    return 0
