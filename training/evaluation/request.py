"""What an evaluation the command line asks for resolves to, before a game is played: the
run (``--checkpoint``, else the env's latest run, else the first trained agent of
``--agents``), the agents (a run meets its own closing evaluation's opponents without
``--agents``), the game options (the run's ``env_kwargs``, with ``--env-kwargs`` over them),
the random opening plies and the games (the command line, else the run's config, else
the default), each with where it came from, so that the report can say so.

Bad input (a missing or damaged run, runs of other envs or of different games, a
setting out of range) raises a ``ConfigError`` or ``CheckpointError`` that names it.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from agents.registry import bot_names
from agents.run_folder import CONFIG_FILE, EVALUATION_DIR, CheckpointError, read_config, read_metadata
from envs.registry import get_entry
from training.evaluation.report import Setup, evaluate
from training.evaluation.report_files import output_dir
from training.evaluation.run_aggregate_report import write_aggregate
from training.evaluation.run_scores import evaluation_scores
from training.evaluation.sprt import Sprt
from training.evaluation.trained_runs import latest_run, trained_runs
from training.framework.config import make_checked_game
from training.framework.console import yaml_mapping
from training.framework.paths import checkpoint_root
from training.framework.run_files import new_report_dir
from training.framework.run_set_folder import is_run_set, read_run_set, run_label, runs_of, seed_folder
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


def run_opponents(checkpoint: Path | None, env: str) -> list[str]:
    """The opponents a run is scored against without ``--agents``: those of its own closing
    evaluation (its config's ``evaluation.opponents``), else every bot of the game."""
    own = (read_config(checkpoint).get("evaluation") or {}).get("opponents") if checkpoint is not None else None
    return list(own) if own else bot_names(env)


def evaluate_run_set(args: argparse.Namespace, run_set: Path) -> tuple[str, Path]:
    """``--checkpoint RUN_SET``: every run of the set evaluated as ``--checkpoint RUN`` is (the same
    agents, games and seeds), each into ``seed<N>/`` of the report folder, then the aggregate over
    the runs (:mod:`training.evaluation.run_aggregate`): the report's text and its folder."""
    info = read_run_set(run_set)
    if args.env and args.env != info["env"]:
        raise CheckpointError(f"run set {run_set} trained {info['env']}, not {args.env}: use --env {info['env']}")
    out = Path(args.out) if args.out else new_report_dir(run_set, f"{EVALUATION_DIR}-")
    if args.out and out.is_dir() and any(out.iterdir()) and not args.overwrite:
        raise ConfigError(f"{out} already holds files (an earlier report?); choose another --out or pass --overwrite")
    runs = []
    for seed, run in runs_of(run_set).items():
        print(f"Run set {run_set}: seed {seed}", flush=True)
        folder = seed_folder(out, seed)
        evaluate_request(
            argparse.Namespace(**{**vars(args), "checkpoint": str(run), "out": str(folder), "overwrite": True})
        )
        runs.append(evaluation_scores(folder, run_label(seed)))
    note = "Each run's own report is in `seed<N>/` beside this one; the first agent of each is the run's."
    return write_aggregate(out, f"{info['env']} evaluation of a run set: {len(runs)} runs", runs, note), out


def evaluate_request(args: argparse.Namespace) -> tuple[str, Path]:
    """The evaluation ``training/evaluate.py``'s command line asks for: checks it, plays it
    and writes the report; the report's text and its folder."""
    if args.games is not None and args.games <= 0:
        raise ConfigError("--games must be positive")
    if args.random_opening is not None and args.random_opening < 0:
        raise ConfigError("--random-opening must be 0 or more")
    if args.batch < 0:
        raise ConfigError("--batch must be 0 (one game at a time) or a number of games")
    asked_kwargs = yaml_mapping(args.env_kwargs, "--env-kwargs") if args.env_kwargs else None
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    if checkpoint is not None and is_run_set(checkpoint):
        return evaluate_run_set(args, checkpoint)
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
    players = make_checked_game(env, env_kwargs).num_players
    if players > 1 and games % players:
        raise ConfigError(
            f"{games} games per pairing ({setup.games_source}) is not a multiple of the {players} players: every "
            "opening is played once from every seat"
        )
    sprt = Sprt.parse(args.sprt) if args.sprt is not None else None
    if sprt is not None and players == 1:
        raise ConfigError("--sprt stops a pairing of agents; a one-player game has none")
    out = output_dir(args.out, args.overwrite, checkpoint, env)
    record_games = Path(args.record_games) if args.record_games else None
    if record_games is not None and record_games.exists() and not record_games.is_dir():
        raise ConfigError(f"--record-games {record_games} is a file; give a folder to write the games to")
    above = parse_above(args.above) if getattr(args, "above", None) is not None else ()
    if above and players > 1:
        raise ConfigError("--above gives each agent's share of games scoring above a score: a one-player game's")
    report = evaluate(
        env,
        specs,
        games,
        args.seed,
        out,
        env_kwargs,
        random_opening,
        setup,
        record_games,
        args.batch,
        sprt=sprt,
        above=above,
    )
    return report, out


def parse_above(text: str) -> tuple[float, ...]:
    """``--above 58,100``: the scores whose share of games above them the report gives, in order."""
    try:
        scores = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise ConfigError(f"--above takes scores separated by commas, e.g. --above 58,100; got {text!r}") from None
    if not all(math.isfinite(t) for t in scores) or list(scores) != sorted(set(scores)):
        raise ConfigError(f"--above takes finite scores in increasing order, each once; got {text!r}")
    return scores
