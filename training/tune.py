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
``<out>/best.yaml`` (the config with the best values, ready for ``train.py --config``)."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from training.framework.config import load_config
from training.framework.console import USER_ERRORS, fail
from training.framework.paths import results_root
from training.framework.schema import ConfigError
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.tuning import parse_grid, run_study, trial_config


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
    best, score = run_study(base, grid, args.trials, args.timesteps, args.evaluations, args.seed, out, args.config)
    print(f"best: {best} -> {score:.3f}; written to {out / 'best.yaml'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
