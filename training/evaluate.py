"""Evaluate a trained agent against the bots of its game, with confidence intervals.

    python training/evaluate.py --env inverted_dice                    # latest run vs bots
    python training/evaluate.py --checkpoint checkpoints/inverted_dice/<run> --games 2000
    python training/evaluate.py --env inverted_dice --agents heuristic random   # bots only

One-player games report mean score (95% CI), the paired difference to the first agent,
per-game statistics (e.g. bonus rates) and the score distribution; games with several
players report win / draw / loss rates (95% CI) for every pairing, seats swapped. See
:mod:`training.evaluation.harness` for the method.

The report is printed and written as Markdown and CSV to a new, dated folder
(``<run>/evaluation-<date>-<time>/``, or ``results/<env>/<date>-<time>/`` without a
checkpoint), so no report is ever replaced; ``--out DIR`` writes to ``DIR`` and
refuses to replace a report there unless ``--overwrite``. Progress (games done / total,
time left) is shown on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.registry import bot_names
from agents.trained import CheckpointError
from envs.registry import get_entry
from training.evaluation.report import evaluate, latest_run, output_dir, run_config
from training.framework.cli import USER_ERRORS, fail, interrupted, yaml_mapping
from training.framework.run_files import CONFIG_FILE
from training.framework.schema import ConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="env name (default: the checkpoint's)")
    parser.add_argument("--checkpoint", help="trained run directory or model .zip (default: the latest run of the env)")
    parser.add_argument("--agents", nargs="+", help="agent specs to compare (default: the checkpoint and every bot)")
    parser.add_argument("--games", type=int, help="games per agent or pairing (default: the run's config, else 1000)")
    parser.add_argument("--seed", type=int, default=10_000, help="first game seed (default 10000)")
    parser.add_argument("--out", help="output directory (default: a new dated folder)")
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier report")
    parser.add_argument("--random-opening", type=int, default=None, metavar="PLIES",
                        help="random plies opening every game of several players (default: the run's config, else 0)")
    parser.add_argument("--env-kwargs", default=None, help='game options as YAML, e.g. "{num_players: 2}" (default: the run\'s)')
    args = parser.parse_args(argv)
    if not (args.env or args.checkpoint):
        parser.error("give --env NAME or --checkpoint RUN")
    try:
        if args.games is not None and args.games <= 0:
            raise ConfigError("--games must be positive")
        if args.random_opening is not None and args.random_opening < 0:
            raise ConfigError("--random-opening must be 0 or more")
        env_kwargs = yaml_mapping(args.env_kwargs, "--env-kwargs") if args.env_kwargs else None
        checkpoint = Path(args.checkpoint) if args.checkpoint else None
        if checkpoint is not None and not checkpoint.exists():
            raise CheckpointError(f"checkpoint {checkpoint} does not exist")
        trained = run_config(checkpoint) if checkpoint is not None else {}
        env = args.env or trained.get("env")
        if env is None:
            raise CheckpointError(f"checkpoint {checkpoint} has no {CONFIG_FILE} naming its env: pass --env")
        try:
            get_entry(env)
        except KeyError as error:
            raise ConfigError(error.args[0]) from None
        if trained.get("env") not in (None, env):
            raise CheckpointError(
                f"checkpoint {checkpoint} was trained on {trained['env']}, not {env}: use --env {trained['env']} (or leave --env out)"
            )
        if args.agents is None and checkpoint is None:
            checkpoint = latest_run(env)
        specs = ([str(checkpoint)] if checkpoint else []) + (args.agents if args.agents is not None else bot_names(env))
        trained_evaluation = trained.get("evaluation") or {}
        if env_kwargs is None:
            env_kwargs = trained.get("env_kwargs")
        random_opening = args.random_opening if args.random_opening is not None else trained_evaluation.get("random_opening_plies", 0)
        games = args.games or trained_evaluation.get("games") or 1000
        out = output_dir(args.out, args.overwrite, checkpoint, env)
        report = evaluate(env, specs, games, args.seed, out, env_kwargs, random_opening)
    except USER_ERRORS as error:
        return fail(error)
    except KeyboardInterrupt:
        print("\nevaluation interrupted; no report written", file=sys.stderr)
        return interrupted()
    print(report)
    print(f"Report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
