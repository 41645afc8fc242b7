"""Train a MaskablePPO agent on one env with the hyperparameters of ``configs/<env>.yaml``.

    python training/train.py --env inverted_dice                 # the default config
    python training/train.py --env inverted_dice --timesteps 50000 --seed 3
    python training/train.py --config my.yaml                    # another config
    python training/train.py --resume checkpoints/inverted_dice/<run>   # continue a run

A run writes ``checkpoints/<env>/<run>/`` (layout: ``training/framework/run_files.py``): a
checkpoint every ``checkpoint_every`` steps and at the end (``model.zip``,
``vecnormalize.pkl``, ``training_state.pkl`` and ``metadata.json``: seed, steps, wall
time, package versions, git commit, each session; see ``training/pipelines/ppo/checkpoint.py``),
``config.yaml`` (the resolved config), ``tensorboard/`` and, after training,
``evaluation/`` (the trained agent against the config's opponents, with a progress bar;
``--eval-games N`` shortens it, ``--no-eval`` skips it; see ``training/evaluate.py``).

A run killed at any moment resumes from its last checkpoint with ``--resume``. Ctrl-C
(SIGINT) or SIGTERM saves a checkpoint first and exits with 130 / 143, printing the
command that resumes. Bad input (config values, agents, env options, an unusable
checkpoint) is one line on stderr and exit code 2, before anything runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata as package_metadata
from pathlib import Path


import yaml

from training.pipelines.ppo.checkpoint import Checkpoint, read_checkpoint, restore_training_state, save_checkpoint
from training.framework.cli import USER_ERRORS, fail, interrupted
from training.framework.config import ConfigError, TrainConfig, build_agent, config_from_dict, default_config_path, load_config
from training.framework.paths import checkpoint_root, source_root
from training.framework.run_files import CONFIG_FILE, METADATA_FILE, MODEL_FILE, TENSORBOARD_DIR, write_text_atomic

PACKAGES = ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "tabletop-dice-rl")


class TrainingInterrupted(Exception):
    """Training stopped by SIGINT / SIGTERM after saving a checkpoint."""

    def __init__(self, signum: int, timesteps: int, complete: bool):
        super().__init__(signum, timesteps, complete)
        self.signum, self.timesteps, self.complete = signum, timesteps, complete


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="env name (configs/<env>.yaml is the default config)")
    parser.add_argument("--config", help="config file (default: configs/<env>.yaml)")
    parser.add_argument("--timesteps", type=int, help="total timesteps (overrides the config)")
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint up to its total timesteps")
    parser.add_argument("--run-dir", help="where to write the run (default: checkpoints/<env>/<time>-seed<seed>)")
    parser.add_argument("--eval-games", type=int, help="games of the closing evaluation (overrides the config)")
    parser.add_argument("--no-eval", action="store_true", help="skip the closing evaluation")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if not (args.env or args.config or args.resume):
        parser.error("give --env NAME, --config FILE or --resume RUN_DIR")
    if args.resume and args.config:
        parser.error("--resume continues a run with its own config.yaml; --config cannot be combined with it")
    if args.resume and args.run_dir:
        parser.error("--resume continues the run in its own folder; --run-dir cannot be combined with it")
    if args.timesteps is not None and args.timesteps <= 0:
        parser.error("--timesteps must be positive")
    return args


def resolve_config(args: argparse.Namespace) -> tuple[TrainConfig, Path, Checkpoint | None]:
    """The config to train with, the run directory and (with ``--resume``) the checkpoint to continue.

    Reads and checks; writes nothing.
    """
    checkpoint = None
    if args.resume:
        run_dir = Path(args.resume)
        if not (run_dir / CONFIG_FILE).is_file():
            raise ConfigError(f"cannot resume: {run_dir / CONFIG_FILE} does not exist (is {run_dir} a run folder?)")
        config = load_config(run_dir / CONFIG_FILE)
        if args.env and args.env != config.env:
            raise ConfigError(f"cannot resume: run {run_dir} trained env {config.env!r}, not {args.env!r}")
        if args.seed is not None:
            raise ConfigError("cannot resume with a different --seed; the run keeps its own")
        checkpoint = read_checkpoint(run_dir)
    else:
        try:
            path = Path(args.config) if args.config else default_config_path(args.env)
        except KeyError as error:
            raise ConfigError(error.args[0]) from None
        config = load_config(path)
        if args.env and args.env != config.env:
            raise ConfigError(f"config {path} is for env {config.env!r}, not {args.env!r}")
        if args.seed is not None:
            config.seed = args.seed
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.run_dir) if args.run_dir else checkpoint_root() / config.env / f"{stamp}-seed{config.seed}"
        if (run_dir / MODEL_FILE).exists() or (run_dir / METADATA_FILE).exists():
            raise ConfigError(f"{run_dir} already holds a run; use --resume {run_dir} to continue it")
    if args.timesteps is not None:
        config.total_timesteps = args.timesteps
    if args.eval_games is not None:
        config.evaluation.games = args.eval_games
    config = config_from_dict(config.to_dict(), source="resolved config (config file and command line)")
    if checkpoint is not None and checkpoint.timesteps >= config.total_timesteps:
        raise ConfigError(
            f"run {run_dir} already has {checkpoint.timesteps} timesteps (target {config.total_timesteps}); pass a larger --timesteps"
        )
    return config, run_dir, checkpoint


def build_evaluation_agents(config: TrainConfig) -> None:
    """Build every opponent of the closing evaluation once, before training.

    A bot that cannot play this game, or an unusable solver cache, is reported now
    rather than after the training; a bot with a solved table (``optimal``) solves or
    loads it now, once per process.
    """
    from envs.registry import make_game

    game = make_game(config.env, **config.env_kwargs)
    for spec in config.evaluation.opponents:
        build_agent(config.env, spec, game, seed=0)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = package_metadata.version(name)
        except package_metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    if source_root() is None:  # an installed package: no commit of its own
        return None
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source_root(), capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def train(
    config: TrainConfig, run_dir: Path, checkpoint: Checkpoint | None = None, progress_bar: bool = True, on_evaluation=None
) -> dict:
    """Train a new run, or continue ``checkpoint``'s; returns the run's metadata.

    A checkpoint is committed every ``checkpoint_every`` timesteps and at the end (see
    :mod:`training.pipelines.ppo.checkpoint`). SIGINT / SIGTERM stop training at the next step, save a
    checkpoint and raise :class:`TrainingInterrupted`. Nothing in ``run_dir`` changes
    until the model, its statistics and its state have all loaded. ``on_evaluation`` is
    called with every learning-curve evaluation (the tuner prunes on it).
    """
    import torch
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.utils import configure_logger

    from envs.registry import make_game
    from training.framework import learning_curve
    from training.pipelines.ppo.callbacks import RunCallback, stop_requested_by_signals
    from training.pipelines.ppo.vector import make_training_env, policy_kwargs
    from training.pipelines.ppo.warm_start import TeacherGuidedPPO, resume_guide, warm_start

    torch.set_num_threads(config.torch_threads)
    venv, self_play = make_training_env(config, seed=checkpoint is None)
    if checkpoint is not None:
        if config.normalize_reward:
            venv = checkpoint.load_reward_normalizer(venv.venv)
        model = checkpoint.load_model(venv, TeacherGuidedPPO)
        restore_training_state(checkpoint.training_state(), model, self_play)
        if config.warm_start.enabled and resume_guide(model, config.warm_start, run_dir, make_game(config.env, **config.env_kwargs)):
            print(f"Warm start: the teacher guide resumes at weight {model.current_guide_coef():.3f}")
        metadata = checkpoint.metadata
        for earlier in metadata["sessions"]:
            if earlier.get("ended") == "running":  # it never saved again: killed (or crashed) after this checkpoint
                earlier["ended"] = "killed after its last checkpoint"
    else:
        model = TeacherGuidedPPO(
            "MlpPolicy",
            venv,
            seed=config.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=str(run_dir / TENSORBOARD_DIR),
            policy_kwargs=policy_kwargs(config.policy_kwargs),
            **config.ppo,
        )
        metadata = {"env": config.env, "env_kwargs": config.env_kwargs, "seed": config.seed, "wall_time_s": 0.0, "sessions": []}

    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run_dir / CONFIG_FILE, yaml.safe_dump(config.to_dict(), sort_keys=False))
    metadata.update(
        {
            "total_timesteps": config.total_timesteps,
            "packages": package_versions(),
            "git_commit": git_commit(),
            "cpu_count": os.cpu_count(),
            "command": " ".join(sys.argv),
        }
    )
    earlier_wall = metadata["wall_time_s"]
    session = {"started": _now(), "resumed_from": checkpoint.timesteps if checkpoint else None}
    metadata["sessions"].append(session)
    model.set_logger(configure_logger(0, str(run_dir / TENSORBOARD_DIR), "ppo", reset_num_timesteps=checkpoint is None))
    game = make_game(config.env, **config.env_kwargs)
    started = time.perf_counter()
    if config.warm_start.enabled and checkpoint is None:
        metadata["warm_start"] = warm_start(model, venv, config.warm_start, config.env, game, config.seed, run_dir)
        print(f"Warm start: {metadata['warm_start']}")


    def save(ended: str = "running") -> None:
        wall = time.perf_counter() - started
        session.update({"saved": _now(), "timesteps": int(model.num_timesteps), "wall_time_s": round(wall, 1), "ended": ended})
        metadata["wall_time_s"] = round(earlier_wall + wall, 1)
        save_checkpoint(run_dir, model, venv if config.normalize_reward else None, self_play, metadata)

    with stop_requested_by_signals() as stop:
        callback = RunCallback(save, config.checkpoint_every, stop, self_play)
        callbacks = [callback]
        if config.learning_curve.every:
            callbacks.append(learning_curve.LearningCurveCallback(run_dir, config.env, game, config.learning_curve, on_evaluation))
        model.learn(
            total_timesteps=config.total_timesteps - model.num_timesteps,
            callback=CallbackList(callbacks),
            reset_num_timesteps=checkpoint is None,
            progress_bar=progress_bar,
            tb_log_name="ppo",
        )
        complete = model.num_timesteps >= config.total_timesteps
        if not complete:  # stopped mid-rollout: the checkpoint holds what the model has learned from
            model.num_timesteps = callback.learned_timesteps
        save("completed" if complete else f"interrupted ({stop.name})")
    venv.close()
    learning_curve.draw(run_dir, config.learning_curve.reference)
    if stop.signum is not None:
        raise TrainingInterrupted(stop.signum, int(model.num_timesteps), complete)
    return metadata


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_dir = None
    try:
        config, run_dir, checkpoint = resolve_config(args)
        if not args.no_eval:
            build_evaluation_agents(config)
        if checkpoint:
            print(f"Resuming {run_dir} at {checkpoint.timesteps} of {config.total_timesteps} timesteps")
        else:
            print(f"Training {config.env} for {config.total_timesteps} timesteps -> {run_dir}")
        metadata = train(config, run_dir, checkpoint, progress_bar=not args.no_progress)
    except USER_ERRORS as error:
        return fail(error)
    except TrainingInterrupted as stop:
        name = signal.Signals(stop.signum).name
        if stop.complete:
            print(f"{name}: training complete ({stop.timesteps} timesteps), closing evaluation skipped; "
                  f"evaluate with: python training/evaluate.py --checkpoint {run_dir}", file=sys.stderr)
        else:
            print(f"{name}: checkpoint saved at {stop.timesteps} timesteps; resume with: python training/train.py --resume {run_dir}",
                  file=sys.stderr)
        return interrupted(stop.signum)
    except KeyboardInterrupt:
        saved = run_dir is not None and (run_dir / METADATA_FILE).is_file()
        hint = f"the last checkpoint is intact; resume with: python training/train.py --resume {run_dir}" if saved else "nothing was saved"
        print(f"\ninterrupted: {hint}", file=sys.stderr)
        return interrupted()
    print(f"Trained {metadata['timesteps']} timesteps in {metadata['wall_time_s']:.0f} s; model: {run_dir / MODEL_FILE}")
    if args.no_eval:
        return 0
    from training.evaluate import evaluate_run

    print(f"Closing evaluation, {config.evaluation.games} games per agent or pairing (--eval-games N shortens it, --no-eval skips it)")
    try:
        evaluate_run(run_dir, games=config.evaluation.games)
    except USER_ERRORS as error:
        fail(error)
        print(f"The trained run is saved; evaluate it with: python training/evaluate.py --checkpoint {run_dir}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nevaluation interrupted; the trained run is saved: python training/evaluate.py --checkpoint {run_dir}", file=sys.stderr)
        return interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
