"""Benchmark an agent on the whole suite: normalized scores, aggregates with intervals, a report folder.

    python training/benchmark.py --agent heuristic --agent invers=greedy     # a bot, another in Invers
    python training/benchmark.py --agent my_agents:Greedy --quick            # your own agent, a few games
    python training/benchmark.py --agent checkpoints/lost_dice/<run> --workers 2
    python training/benchmark.py --leaderboard --out results                 # every bot and shipped agent

The suite (:mod:`training.evaluation.suite`, version-stamped) is every env at its
standard table plus Lost Dice at three and four players and Roll Five at four, each
against its strongest bot, with fixed seeds, game counts and seat rotation. Each task
reports a normalized score (0 = uniform random, 1 = the task's reference) with its 95%
interval; the aggregates over the tasks are rliable's IQM, mean, median and optimality
gap with stratified bootstrap intervals. See docs/benchmark.md.

``--agent RUN_SET`` (``train.py --seeds``) plays every run of the set and aggregates over the
runs and tasks; ``--compare OTHER`` (a run set or a spec) benchmarks that one too and prints
the probability of improvement P(agent > OTHER) with its interval
(:mod:`training.evaluation.benchmark_sets`).

``--agent SPEC`` is any agent spec (a bot, ``ppo``, a run folder or ``model.zip``, an
RLlib or Tianshou run, or your own ``module:attr``); ``--agent ENV=SPEC`` (or
``TASK=SPEC``; a task's own entry wins) gives another one for that env's (task's) tasks,
and tasks with no spec are not played. A task the agent cannot
be built for is not played and named; a game in which it raises, plays an illegal
action or passes ``--move-time-limit`` is lost and counted. The report folder
(``--out``, default a new ``results/benchmark/<date>-<time>/``) holds ``report.md``,
``benchmark.json``, ``games.csv``, ``tasks.png`` and ``profile.png``.
"""

from __future__ import annotations

import argparse
import sys

from training.evaluation.benchmark_request import benchmark_request
from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.suite import SUITE_VERSION, SUITES, TASKS
from training.framework.console import fail, guarded
from training.framework.schema import ConfigError


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="the agent: a spec or a run set (train.py --seeds), or ENV=SPEC / TASK=SPEC for some tasks (repeatable)",
    )
    parser.add_argument(
        "--compare",
        metavar="OTHER",
        help="also benchmark OTHER (a run set or a spec) and print the probability that --agent is better, P(X > Y)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="the first few games of every task (a smoke test: under a minute)"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes playing the games (default 1); the figures are the same"
    )
    parser.add_argument(
        "--suite",
        choices=sorted(SUITES),
        default=SUITE_VERSION,
        help=f"the suite's version (default {SUITE_VERSION}; 2 for figures measured before seat-paired openings)",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"play up to N games of a task at once as rows of the batched twin (default {DEFAULT_BATCH}); 0 plays "
        "one at a time. The figures are the same; a task with an agent that cannot act in batch plays one at a time",
    )
    parser.add_argument(
        "--tasks", nargs="+", metavar="TASK", help=f"only these tasks (default all: {', '.join(t.name for t in TASKS)})"
    )
    parser.add_argument(
        "--move-time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a move over this loses its game (default none)",
    )
    parser.add_argument(
        "--out", help="report folder (default a new results/benchmark/<date>-<time>/; with --leaderboard: results)"
    )
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier report")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    group = parser.add_argument_group("the suite's own results")
    group.add_argument(
        "--leaderboard", action="store_true", help="benchmark every bot and shipped agent: OUT/leaderboard.md and .json"
    )
    group.add_argument(
        "--measure-references",
        action="store_true",
        help="measure the normalization's constants of --suite again (its references file)",
    )
    args = parser.parse_args(argv)
    if sum(map(bool, (args.agent, args.leaderboard, args.measure_references))) != 1:
        return fail(ConfigError("give --agent SPEC, --leaderboard or --measure-references (one of them)"))
    if args.batch < 0:
        return fail(ConfigError(f"--batch must be 0 (one game at a time) or a number of games, got {args.batch}"))
    return guarded(lambda: benchmark_request(args), "benchmark interrupted; no report written")


if __name__ == "__main__":
    sys.exit(main())
