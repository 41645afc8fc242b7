"""A rating ladder for any game of two or more players: a round-robin among agent specs.

    python training/ladder.py --env invers --agents random greedy search:depth=2 search:depth=4 ppo ppo+search:ms=15
    python training/ladder.py --env invers --agents ... --games 100 --out results/invers/ladder

Every pair of agents plays ``--games`` games (a multiple of the players) in seat-paired
openings: each opening once with each agent in every seat (in games of more than two
players the other seats are all the opponent), from random opening plies
(``--random-opening``, default the env config's) so that games between deterministic
players are still independent. ``--sprt 0,10`` stops each pairing as soon as a
sequential test decides whether one agent is at least 10 Elo stronger (fishtest's SPRT;
``--games`` is then the most a pairing plays). A run set (``train.py --seeds``) among
``--agents`` plays as its runs, each rated, and the report adds the set's rating: the mean
of its runs' with a two-level bootstrap interval (openings, then runs). The ratings are a Bradley–Terry fit on
the Elo scale over all games, with 95% bootstrap intervals (:mod:`training.evaluation.ratings`),
anchored at the first agent (0). Each agent's thinking time per move is measured over
the whole tournament (under whatever load the machine carries: compare agents within
one ladder, not across machines).

Written to ``--out`` (default a new dated ``./results/<env>/ladder-<date>-<time>/``, under the
current directory, :mod:`training.framework.paths`, as ``evaluate.py``'s reports: never over a
committed or earlier ladder): ``ladder.md`` (the rating table and every pairing),
``pairings.csv``, ``heatmap.png`` (score of each row agent against each column agent),
``ratings.png`` (ratings with their intervals) and ``timing.md`` (each agent's time per
move, with the machine and its load: the one file that changes from run to run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from envs.registry import get_entry
from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.ladder import check_distinct, run_ladder
from training.evaluation.sprt import SPRT_HELP, Sprt
from training.framework import paths
from training.framework.config import check_agent_spec
from training.framework.console import guarded
from training.framework.run_files import new_report_dir
from training.framework.run_set_folder import is_run_set
from training.framework.schema import ConfigError


def checked_arguments(args: argparse.Namespace) -> tuple[int, Path, Sprt | None]:
    """The command line's random opening plies and output directory, once every value the
    user gave is known to be usable (else a :class:`ConfigError` naming it); no agent is
    built here (:func:`run_ladder` builds them, and reports an agent that cannot play)."""
    if args.games <= 0:
        raise ConfigError(f"--games must be positive, got {args.games}")
    if args.workers <= 0:
        raise ConfigError(f"--workers must be positive, got {args.workers}")
    if args.batch < 0:
        raise ConfigError(f"--batch must be 0 (one game at a time) or a number of games, got {args.batch}")
    if args.random_opening is not None and args.random_opening < 0:
        raise ConfigError(f"--random-opening must be 0 or more, got {args.random_opening}")
    try:
        get_entry(args.env)
    except KeyError as error:
        raise ConfigError(f"--env: {error.args[0]}") from None
    check_distinct(args.agents)
    for spec in args.agents:
        if not is_run_set(Path(spec)):  # a run set's runs are checked as they are built
            check_agent_spec(args.env, spec, "--agents")
    plies = args.random_opening
    if plies is None:
        config_path = paths.config_path(args.env)
        config = yaml.safe_load(config_path.read_text()) if config_path.is_file() else {}
        plies = ((config or {}).get("evaluation") or {}).get("random_opening_plies", 0)
    out = Path(args.out) if args.out else new_report_dir(paths.results_root() / args.env, "ladder-")
    if out.is_dir() and any(out.iterdir()) and not args.overwrite:
        raise ConfigError(f"{out} already holds files (an earlier ladder?); choose another --out or pass --overwrite")
    return plies, out, None if args.sprt is None else Sprt.parse(args.sprt)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", required=True, help="env name")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs; the first is the rating anchor (0)")
    parser.add_argument("--games", type=int, default=40, help="games per pairing (default 40)")
    parser.add_argument("--seed", type=int, default=20_000, help="first game seed (default 20000)")
    parser.add_argument(
        "--random-opening",
        type=int,
        default=None,
        metavar="PLIES",
        help="random opening plies (default: configs/<env>.yaml's)",
    )
    parser.add_argument("--out", help="output directory (default: a new dated ./results/<env>/ladder-<date>-<time>)")
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier ladder")
    parser.add_argument(
        "--batch",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"play up to N games of a pairing at once as rows of the batched twin (default {DEFAULT_BATCH}); 0 plays "
        "one at a time. The results are the same; a pairing with an agent that cannot act in batch plays one at a time",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes playing the games (default 1); the results are the same"
    )
    parser.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]", help=SPRT_HELP)
    args = parser.parse_args(argv)
    return guarded(lambda: run(args), "ladder interrupted; nothing written")


def run(args: argparse.Namespace) -> int:
    """The ladder the command line asks for: checks, plays, writes and prints it."""
    plies, out, sprt = checked_arguments(args)
    report = run_ladder(
        args.env, args.agents, args.games, args.seed, out, plies, workers=args.workers, batch=args.batch, sprt=sprt
    )
    print(report)
    print(f"Ladder written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
