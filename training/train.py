"""Train a MaskablePPO agent on one env with the hyperparameters of ``configs/<env>.yaml``.

    python training/train.py --env inverted_dice                 # the default config
    python training/train.py --env inverted_dice --timesteps 50000 --seed 3
    python training/train.py --config my.yaml                    # another config
    python training/train.py --resume checkpoints/inverted_dice/<run>   # continue a run

A run writes ``checkpoints/<env>/<run>/``: ``model.zip`` (saved every
``checkpoint_every`` steps and at the end), ``config.yaml`` (the resolved config),
``metadata.json`` (seed, steps, wall time, package versions, git commit),
``tensorboard/`` and, after training, ``evaluation/`` (the trained agent against the
config's opponents; see ``training/evaluate.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata as package_metadata
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml

from training.config import CHECKPOINT_DIR, ROOT, ConfigError, TrainConfig, config_from_dict, default_config_path, load_config

MODEL_FILE = "model.zip"
REWARD_STATS_FILE = "vecnormalize.pkl"
PACKAGES = ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "tabletop-dice-rl")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="env name (configs/<env>.yaml is the default config)")
    parser.add_argument("--config", help="config file (default: configs/<env>.yaml)")
    parser.add_argument("--timesteps", type=int, help="total timesteps (overrides the config)")
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR up to its total timesteps")
    parser.add_argument("--run-dir", help="where to write the run (default: checkpoints/<env>/<time>-seed<seed>)")
    parser.add_argument("--eval-games", type=int, help="games of the closing evaluation (overrides the config)")
    parser.add_argument("--no-eval", action="store_true", help="skip the closing evaluation")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if not (args.env or args.config or args.resume):
        parser.error("give --env NAME, --config FILE or --resume RUN_DIR")
    if args.resume and args.config:
        parser.error("--resume continues a run with its own config.yaml; --config cannot be combined with it")
    if args.timesteps is not None and args.timesteps <= 0:
        parser.error("--timesteps must be positive")
    return args


def resolve_config(args: argparse.Namespace) -> tuple[TrainConfig, Path]:
    """The config to train with and the run directory, from the command line."""
    if args.resume:
        run_dir = Path(args.resume)
        if not (run_dir / MODEL_FILE).is_file():
            raise ConfigError(f"cannot resume: {run_dir / MODEL_FILE} does not exist")
        config = load_config(run_dir / "config.yaml")
        if args.env and args.env != config.env:
            raise ConfigError(f"cannot resume: run {run_dir} trained env {config.env!r}, not {args.env!r}")
        if args.seed is not None:
            raise ConfigError("cannot resume with a different --seed; the run keeps its own")
    else:
        path = Path(args.config) if args.config else default_config_path(args.env)
        config = load_config(path)
        if args.env and args.env != config.env:
            raise ConfigError(f"config {path} is for env {config.env!r}, not {args.env!r}")
        if args.seed is not None:
            config.seed = args.seed
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.run_dir) if args.run_dir else CHECKPOINT_DIR / config.env / f"{stamp}-seed{config.seed}"
        if (run_dir / MODEL_FILE).exists():
            raise ConfigError(f"{run_dir} already holds a run; use --resume to continue it")
    if args.timesteps is not None:
        config.total_timesteps = args.timesteps
    if args.eval_games is not None:
        config.evaluation.games = args.eval_games
    return config_from_dict(config.to_dict(), source="resolved config"), run_dir


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = package_metadata.version(name)
        except package_metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def train(config: TrainConfig, run_dir: Path, resume: bool, progress_bar: bool = True, on_evaluation=None) -> dict:
    """Train (or continue training) and save the run; returns the run's metadata.

    ``on_evaluation`` is called with every learning-curve evaluation (the tuner prunes on it).
    """
    import torch
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.utils import configure_logger
    from stable_baselines3.common.vec_env import VecNormalize

    from envs.registry import make_game
    from training import learning_curve
    from training.callbacks import SaveRunCallback
    from training.vector import make_training_env, policy_kwargs
    from training.warm_start import TeacherGuidedPPO, warm_start

    torch.set_num_threads(config.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    metadata_path = run_dir / "metadata.json"
    metadata = json.loads(metadata_path.read_text()) if resume else {}

    venv, self_play = make_training_env(config, run_dir)
    if resume:
        model = load_model(run_dir / MODEL_FILE, venv)
        if config.normalize_reward:
            venv = VecNormalize.load(str(run_dir / REWARD_STATS_FILE), venv.venv if isinstance(venv, VecNormalize) else venv)
            model.set_env(venv)
        done = model.num_timesteps
        if done >= config.total_timesteps:
            raise ConfigError(
                f"run {run_dir} already has {done} timesteps (target {config.total_timesteps}); pass a larger --timesteps"
            )
    else:
        model = TeacherGuidedPPO(
            "MlpPolicy",
            venv,
            seed=config.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=str(run_dir / "tensorboard"),
            policy_kwargs=policy_kwargs(config.policy_kwargs),
            **config.ppo,
        )
    model.set_logger(configure_logger(0, str(run_dir / "tensorboard"), "ppo", reset_num_timesteps=not resume))
    game = make_game(config.env, **config.env_kwargs)
    started = time.perf_counter()
    if config.warm_start.enabled and not resume:
        metadata["warm_start"] = warm_start(model, venv, config.warm_start, config.env, game, config.seed)
        print(f"Warm start: {metadata['warm_start']}")
    callbacks = [SaveRunCallback(run_dir, config.checkpoint_every, venv if config.normalize_reward else None, self_play)]
    if config.learning_curve.every:
        callbacks.append(learning_curve.LearningCurveCallback(run_dir, config.env, game, config.learning_curve, on_evaluation))
    callback = CallbackList(callbacks)
    model.learn(
        total_timesteps=config.total_timesteps - model.num_timesteps,
        callback=callback,
        reset_num_timesteps=not resume,
        progress_bar=progress_bar,
        tb_log_name="ppo",
    )
    wall = time.perf_counter() - started
    callbacks[0].save()
    learning_curve.draw(run_dir, config.learning_curve.reference)

    metadata.update(
        {
            "env": config.env,
            "env_kwargs": config.env_kwargs,
            "seed": config.seed,
            "timesteps": int(model.num_timesteps),
            "wall_time_s": round(metadata.get("wall_time_s", 0.0) + wall, 1),
            "sessions": metadata.get("sessions", []) + [{"finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "wall_time_s": round(wall, 1), "resumed": resume}],
            "packages": package_versions(),
            "git_commit": git_commit(),
            "cpu_count": os.cpu_count(),
            "command": " ".join(sys.argv),
        }
    )
    metadata_path.write_text(json.dumps(metadata, indent=2))
    venv.close()
    return metadata


def load_model(path: Path, venv=None):
    """Load a MaskablePPO model, or raise a clear error naming the unreadable file."""
    from training.warm_start import TeacherGuidedPPO

    if not path.is_file():
        raise ConfigError(f"checkpoint {path} does not exist")
    try:
        return TeacherGuidedPPO.load(str(path), env=venv, device="cpu")
    except Exception as error:  # zip, pickle and torch errors all mean an unusable file
        raise ConfigError(f"checkpoint {path} is unreadable: {type(error).__name__}: {error}") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config, run_dir = resolve_config(args)
    except (ConfigError, KeyError) as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return 2
    print(f"Training {config.env} for {config.total_timesteps} timesteps -> {run_dir}")
    try:
        metadata = train(config, run_dir, resume=bool(args.resume), progress_bar=not args.no_progress)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"Trained {metadata['timesteps']} timesteps in {metadata['wall_time_s']:.0f} s; model: {run_dir / MODEL_FILE}")
    if not args.no_eval:
        from training.evaluate import evaluate_run

        evaluate_run(run_dir, games=config.evaluation.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
