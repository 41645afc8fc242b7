"""Evaluate a trained agent against the bots of its game, with confidence intervals.

    python training/evaluate.py --env inverted_dice                    # latest run vs bots
    python training/evaluate.py --checkpoint checkpoints/inverted_dice/<run> --games 2000
    python training/evaluate.py --env inverted_dice --agents heuristic random   # bots only

A run is any run folder of the project's pipelines (or its checkpoint file): ``model.zip``
(``train.py``'s PPO, ``expert_iteration.py``) plays as its policy, ``value.pt``
(``train_td.py``) as the game's ``td`` agent on that network, ``rllib_checkpoint.zip``
(``train_rllib.py``) as the RLlib module's greedy masked action where Ray is installed,
``tianshou_policy.pt`` (``python -m training.integrations.tianshou_ppo``) as the actor's
greedy masked action where Tianshou is installed (else refused in one line naming what
to install). Without ``--checkpoint`` or
``--agents`` the latest run of the env under ``checkpoints/<env>/`` is scored, and without
``--agents`` a run meets the opponents of its own closing evaluation (its config's
``evaluation.opponents``; every bot of the game when it names none).

The game is the one the run was trained for: its config's ``env_kwargs`` (game options),
``evaluation.random_opening_plies`` and ``evaluation.games``, unless ``--env-kwargs``
(over the run's options), ``--random-opening`` or ``--games`` ask otherwise; the run is
``--checkpoint``, else the latest run, else the first trained agent of ``--agents``
(runs trained at different games are refused without ``--env-kwargs``). One line before
the games, and the report's first line, say which run and which game were played and
where each setting came from, e.g. (one line, wrapped here)::

    Run: checkpoints/roll_five/<run> (the latest run of roll_five); game RollFive(num_players=2,
      mode='tournament') (the run's env_kwargs), 0 random opening plies (the run's
      evaluation.random_opening_plies), 1000 games per pairing (the run's evaluation.games), seed 10000.

One-player games report mean score (95% CI), the paired difference to the first agent,
per-game statistics (e.g. bonus rates) and the score distribution; games with several
players report win / draw / loss rates (95% CI) for every pairing, seats swapped, and so
need two agents or more. See :mod:`training.evaluation.harness` for the method.

The report is printed and written as Markdown and CSV to a new, dated folder
(``<run>/evaluation-<date>-<time>/``, or ``results/<env>/<date>-<time>/`` without a
run folder, a bare model file included), so no report is ever replaced; ``--out DIR`` writes to ``DIR`` and
refuses to replace a report there unless ``--overwrite``. The files are written together
once every game is played: an evaluation that fails leaves none. Progress (games done /
total, time left) is shown on stderr. ``--record-games DIR`` also writes every game to
``DIR`` as a record (``<seat labels>-<seed>.jsonl``, :mod:`training.records.game_record`), which
``tabletop serve`` replays step by step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.registry import bot_names
from agents.run_folder import CONFIG_FILE, CheckpointError, read_config, read_metadata
from envs.registry import get_entry
from training.console import guarded, yaml_mapping
from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.report import (
    Setup,
    evaluate,
    latest_run,
    output_dir,
    trained_runs,
)
from training.framework.config import make_checked_game
from training.framework.paths import checkpoint_root
from training.framework.schema import ConfigError


def game_options(env: str, trained: dict, runs: list[Path], asked: dict | None, setup: Setup) -> dict:
    """The game options to play: the run's (``env_kwargs`` of its config), with ``--env-kwargs`` over them.

    Without ``--env-kwargs``, trained agents that were trained at different games are
    refused: no single game is the one each of them was trained for.
    """
    own = trained.get("env_kwargs") or {}
    if asked is not None:
        setup.env_kwargs_source = "--env-kwargs" + (f" over the run's {own}" if own else "")
        return {**own, **asked}
    for run in runs:
        theirs = read_config(run).get("env_kwargs") or {}
        if run != setup.run and make_checked_game(env, theirs).options() != make_checked_game(env, own).options():
            raise ConfigError(
                f"the trained agents were trained at different games: {setup.run} at {own or 'the defaults'}, "
                f"{run} at {theirs or 'the defaults'}; choose the game with --env-kwargs"
            )
    setup.env_kwargs_source = "the run's env_kwargs" if setup.run is not None else "the game's defaults"
    return dict(own)


def setting(given: int | None, option: str, evaluation: dict, key: str, default: int) -> tuple[int, str]:
    """A setting of the evaluation and where it came from: the command line, the run's config, or the default."""
    if given is not None:
        return given, option
    if evaluation.get(key) is not None:
        return evaluation[key], f"the run's evaluation.{key}"
    return default, "default"


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", help="env name (default: the checkpoint's)")
    parser.add_argument(
        "--checkpoint",
        help="trained run folder (PPO, expert iteration, TD, RLlib, Tianshou) or its checkpoint file "
        "(default: the latest run of the env)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        help="agent specs to compare (default: the checkpoint and its closing evaluation's opponents, else every bot)",
    )
    parser.add_argument("--games", type=int, help="games per agent or pairing (default: the run's config, else 1000)")
    parser.add_argument("--seed", type=int, default=10_000, help="first game seed (default 10000)")
    parser.add_argument("--out", help="output directory (default: a new dated folder)")
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier report")
    parser.add_argument(
        "--random-opening",
        type=int,
        default=None,
        metavar="PLIES",
        help="random plies opening every game of several players (default: the run's config, else 0)",
    )
    parser.add_argument(
        "--record-games",
        metavar="DIR",
        default=None,
        help="also write every game played to DIR as a record (JSON lines) that `tabletop serve` replays",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"play N games of a pairing at once as rows of the batched twin (default {DEFAULT_BATCH}); 0 plays one "
        "at a time. The games are the same either way; a pairing with an agent that cannot act in batch "
        "(no act_batch) plays one at a time, and the report says so",
    )
    parser.add_argument(
        "--env-kwargs",
        default=None,
        help="game options as YAML, e.g. \"{num_players: 2}\", over the run's (default: the run's)",
    )
    args = parser.parse_args(argv)
    if not (args.env or args.checkpoint):
        parser.error("give --env NAME or --checkpoint RUN")
    return guarded(lambda: run(args), "evaluation interrupted; no report written")


def run_opponents(checkpoint: Path | None, env: str) -> list[str]:
    """The opponents a run is scored against without ``--agents``: those of its own closing
    evaluation (its config's ``evaluation.opponents``), else every bot of the game."""
    own = (read_config(checkpoint).get("evaluation") or {}).get("opponents") if checkpoint is not None else None
    return list(own) if own else bot_names(env)


def run(args: argparse.Namespace) -> int:
    """The evaluation the command line asks for: checks, plays, writes and prints the report."""
    if args.games is not None and args.games <= 0:
        raise ConfigError("--games must be positive")
    if args.random_opening is not None and args.random_opening < 0:
        raise ConfigError("--random-opening must be 0 or more")
    if args.batch < 0:
        raise ConfigError("--batch must be 0 (one game at a time) or a number of games")
    asked_kwargs = yaml_mapping(args.env_kwargs, "--env-kwargs") if args.env_kwargs else None
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    if checkpoint is not None and not checkpoint.exists():
        raise CheckpointError(f"checkpoint {checkpoint} does not exist")
    trained = read_config(checkpoint) if checkpoint is not None else {}
    env = args.env or trained.get("env")
    if env is None:
        raise CheckpointError(f"checkpoint {checkpoint} has no {CONFIG_FILE} naming its env: pass --env")
    try:
        get_entry(env)
    except KeyError as error:
        raise ConfigError(error.args[0]) from None
    setup = Setup(checkpoint, "--checkpoint") if checkpoint is not None else Setup()
    if args.agents is None and checkpoint is None:
        checkpoint = latest_run(env)
        setup = Setup(
            checkpoint,
            f"the latest run of {env}"
            if checkpoint
            else f"no run of {env} in {checkpoint_root() / env}: the bots only",
        )
    specs = ([str(checkpoint)] if checkpoint else []) + (
        args.agents if args.agents is not None else run_opponents(checkpoint, env)
    )
    runs = trained_runs(env, specs)
    if setup.run is None and runs:
        setup = Setup(runs[0], "the first trained agent of --agents")
    trained = read_config(setup.run) if setup.run is not None else {}
    for run in runs:
        read_metadata(run)  # a damaged run is named before any game
        other = read_config(run).get("env")
        if other not in (None, env):
            raise CheckpointError(
                f"checkpoint {run} was trained on {other}, not {env}: use --env {other} (or leave --env out)"
            )
    env_kwargs = game_options(env, trained, runs, asked_kwargs, setup)
    trained_evaluation = trained.get("evaluation") or {}
    random_opening, setup.random_opening_source = setting(
        args.random_opening, "--random-opening", trained_evaluation, "random_opening_plies", 0
    )
    games, setup.games_source = setting(args.games, "--games", trained_evaluation, "games", 1000)
    out = output_dir(args.out, args.overwrite, checkpoint, env)
    record_games = Path(args.record_games) if args.record_games else None
    if record_games is not None and record_games.exists() and not record_games.is_dir():
        raise ConfigError(f"--record-games {record_games} is a file; give a folder to write the games to")
    report = evaluate(env, specs, games, args.seed, out, env_kwargs, random_opening, setup, record_games, args.batch)
    print(report)
    print(f"Report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
