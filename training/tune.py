"""Search a config's hyperparameters with Optuna on short runs, and write the best as a config.

    python training/tune.py --config configs/inverted_dice.yaml --trials 20 --timesteps 300000
    python training/tune.py --config configs/inverted_dice.yaml --grid ppo.gae_lambda=0.2,0.5,0.8,0.95

Every trial trains the config (warm start included, if the config has one) for
``--timesteps`` steps with the sampled values and is scored by the learning curve's
fixed evaluation games (:mod:`training.framework.learning_curve`): mean score for one player, win
rate against the reference bot otherwise. Intermediate evaluations feed Optuna's median
pruner, so hopeless trials stop early, as in RL Baselines3 Zoo.

``--grid KEY=V1,V2,...`` runs a plain sweep of one or more keys instead of a search (a
λ sweep, for instance); ``KEY`` is a dotted config path such as ``ppo.gae_lambda``.

Writes ``<out>/trials.csv`` (every trial, its values, score and wall time) and
``<out>/best.yaml`` (the config with the best values, ready for ``train.py --config``).
"""

from __future__ import annotations

import argparse
import copy
import csv
import itertools
import sys
import tempfile
import time
from pathlib import Path

import yaml

from training.console import USER_ERRORS, fail
from training.framework.config import config_from_dict, load_config
from training.framework.paths import results_root
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


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", required=True, help="the config to tune")
    parser.add_argument("--trials", type=int, default=20, help="trials of the search (default 20)")
    parser.add_argument("--grid", nargs="+", metavar="KEY=V1,V2", help="sweep these values instead of searching")
    parser.add_argument("--timesteps", type=int, default=300_000, help="training steps per trial (default 300000)")
    parser.add_argument("--evaluations", type=int, default=4, help="evaluations per trial, for pruning (default 4)")
    parser.add_argument("--seed", type=int, default=0, help="sampler seed (default 0)")
    parser.add_argument("--out", help="output folder (default results/tune/<config name>)")
    args = parser.parse_args(argv)
    try:
        import optuna  # noqa: PLC0415 (Optuna is slow to import: --help need not wait)

        base = load_config(PPOConfig, args.config).to_dict()
        grid = parse_grid(args.grid) if args.grid else None
        if args.timesteps <= 0 or args.trials <= 0 or args.evaluations <= 0:
            raise ConfigError("--timesteps, --trials and --evaluations must be positive")
        for point in itertools.product(*grid.values()) if grid else ():  # every grid point, before any trial or file
            trial_config(base, dict(zip(grid, point)), args.timesteps, args.evaluations)
    except USER_ERRORS as error:
        return fail(error)
    out = Path(args.out) if args.out else results_root() / "tune" / Path(args.config).stem
    out.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if grid:
        sampler = optuna.samplers.GridSampler(grid, seed=args.seed)
        trials = 1
        for values in grid.values():
            trials *= len(values)
        pruner = optuna.pruners.NopPruner()
    else:
        sampler, trials = optuna.samplers.TPESampler(seed=args.seed), args.trials
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
            score = run_trial(base, values, args.timesteps, args.evaluations, report)
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
        f"# Best of {len(study.trials)} trials of training/tune.py on {args.config} "
        f"({args.timesteps} steps each): score {study.best_value:.3f}\n" + yaml.safe_dump(best, sort_keys=False)
    )
    print(f"best: {study.best_params} -> {study.best_value:.3f}; written to {out / 'best.yaml'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
