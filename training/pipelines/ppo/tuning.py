"""Trials of a PPO config's hyperparameters (``tabletop tune``): the search space, a trial's
config with sampled values set at dotted keys, and a short training run scored by the
learning curve's fixed evaluation games, each evaluation reported so that a pruner can
stop a hopeless trial early.
"""

from __future__ import annotations

import copy
import csv
import math
import tempfile
import time
from pathlib import Path

import yaml

from training.framework.config import config_from_dict
from training.framework.run import run_training
from training.framework.schema import ConfigError
from training.pipelines.ppo.config import PPOConfig

#: The search space: dotted config key -> (kind, arguments) of Optuna's ``suggest_*``.
SEARCH_SPACE = {
    "ppo.learning_rate": ("float", (3e-5, 1e-3), {"log": True}),
    "ppo.gae_lambda": ("float", (0.1, 0.99), {}),
    "ppo.ent_coef": ("float", (1e-5, 1e-2), {"log": True}),
    "ppo.n_epochs": ("int", (2, 10), {}),
    "ppo.batch_size": ("categorical", ([256, 512, 1024],), {}),
    "ppo.clip_range": ("categorical", ([0.1, 0.2, 0.3],), {}),
}


def set_dotted(config: dict, key: str, value) -> None:
    section, _, name = key.rpartition(".")
    target = config
    for part in filter(None, section.split(".")):
        target = target.setdefault(part, {})
    target[name] = value


def parse_grid(items: list[str]) -> dict[str, list]:
    grid = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not values:
            raise ConfigError(f"--grid expects KEY=V1,V2,..., got {item!r}")
        grid[key] = [yaml.safe_load(v) for v in values.split(",")]
    return grid


def trial_config(base: dict, values: dict, timesteps: int, evaluations: int) -> PPOConfig:
    """``base`` with ``values`` set, for a trial of ``timesteps`` steps; a ConfigError names a value it cannot take."""
    config = copy.deepcopy(base)
    for key, value in values.items():
        set_dotted(config, key, value)
    config["total_timesteps"] = timesteps
    config["checkpoint_every"] = timesteps
    config.setdefault("learning_curve", {})["every"] = max(1, timesteps // evaluations)
    where = ", ".join(f"{key}={value}" for key, value in values.items())
    return config_from_dict(PPOConfig, config, source=f"trial config ({where})" if where else "trial config")


def run_trial(base: dict, values: dict, timesteps: int, evaluations: int, report) -> float:
    """Train ``base`` with ``values`` for ``timesteps`` steps; the last evaluation's score."""
    from training.pipelines.ppo.learner import PPO  # noqa: PLC0415 (torch and sb3 are slow to import: not for --help)

    config = trial_config(base, values, timesteps, evaluations)
    scores = []

    def on_evaluation(row: dict) -> None:
        score = row.get("mean_score", row.get("win_rate"))
        scores.append(score)
        report(score, row["timesteps"])

    with tempfile.TemporaryDirectory() as run_dir:
        run_training(PPO(config, Path(run_dir), None), progress=False, on_curve_point=on_evaluation)
    return scores[-1]


def run_study(
    base: dict, grid: dict | None, trials: int, timesteps: int, evaluations: int, seed: int, out: Path, source: str
) -> tuple[dict, float]:
    """Optuna's search of :data:`SEARCH_SPACE` over ``trials`` trials (TPE, median pruning), or
    every point of ``grid`` without pruning; each trial is a row of ``out/trials.csv`` as soon
    as it ends, and the best values go into ``out/best.yaml`` as a config. The best values and score."""
    import optuna  # noqa: PLC0415 (Optuna is slow to import: a command's --help need not wait)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if grid:
        sampler = optuna.samplers.GridSampler(grid, seed=seed)
        trials = math.prod(len(values) for values in grid.values())
        pruner = optuna.pruners.NopPruner()
    else:
        sampler = optuna.samplers.TPESampler(seed=seed)
        pruner = optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=1)
    study = optuna.create_study(direction="maximize", sampler=sampler, pruner=pruner)
    rows = []

    def objective(trial: optuna.Trial) -> float:
        if grid:
            values = {key: trial.suggest_categorical(key, choices) for key, choices in grid.items()}
        else:
            values = {
                key: getattr(trial, f"suggest_{kind}")(key, *arguments, **options)
                for key, (kind, arguments, options) in SEARCH_SPACE.items()
            }
        started = time.perf_counter()

        def report(score: float, step: int) -> None:
            trial.report(score, step)
            if trial.should_prune():
                raise optuna.TrialPruned()

        status, score = "complete", None
        try:
            score = run_trial(base, values, timesteps, evaluations, report)
            return score
        except optuna.TrialPruned:
            status = "pruned"
            raise
        finally:
            rows.append(
                {
                    "trial": trial.number,
                    **values,
                    "score": score,
                    "status": status,
                    "wall_s": round(time.perf_counter() - started, 1),
                }
            )
            print(f"trial {trial.number}: {values} -> {score} ({status}, {rows[-1]['wall_s']} s)", flush=True)
            with (out / "trials.csv").open("w", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(rows[-1]))
                writer.writeheader()
                writer.writerows(rows)

    study.optimize(objective, n_trials=trials)
    best = copy.deepcopy(base)
    for key, value in study.best_params.items():
        set_dotted(best, key, value)
    (out / "best.yaml").write_text(
        f"# Best of {len(study.trials)} trials of training/tune.py on {source} "
        f"({timesteps} steps each): score {study.best_value:.3f}\n" + yaml.safe_dump(best, sort_keys=False)
    )
    return study.best_params, study.best_value
