"""Learner steps per second of training configs, and where the time goes.

    python benchmarks/train_speed.py                          # every env's default config
    python benchmarks/train_speed.py --env inverted_dice --timesteps 100000
    python benchmarks/train_speed.py --config configs/inverted_dice.yaml benchmarks/baseline_configs/inverted_dice.yaml
    python benchmarks/train_speed.py --env inverted_dice six_hundred --vec-env game batched
    python benchmarks/train_speed.py --env inverted_dice six_hundred --page docs/benchmarks/train_speed.md

Each config trains a fresh MaskablePPO for ``--timesteps`` learner steps (no warm start,
no checkpoints, no closing evaluation) and the time is split into:

* **env**: stepping the vectorized env, the games' rules and any opponents included;
* **opponents**: the part of *env* spent choosing the other seats' moves;
* **forward**: the rest of collecting rollouts: the policy's forward pass on every
  step, the action masks, the rollout buffer;
* **update**: PPO's gradient epochs over each rollout.

One untimed update comes first, so that one-time costs (imports, first calls) are not
counted against the config measured first.

``--vec-env game batched`` measures every config once per listed ``vec_env`` (the config's
own otherwise), e.g. today's one-game-at-a-time env against the native batched env.
``--pool-game-by-game`` measures every self-play config a second time with its pool seats
playing one game at a time in the batched env, as they did before the pool had an
``act_batch`` (each game's member then acts alone, ``act`` per game).
``--page docs/benchmarks/train_speed.md`` also writes the table as the docs page.

Configs given together are measured one after another in the same run, so their
ratio holds even when the machine's speed does not; the absolute figures depend on
the machine and its load.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import time
from pathlib import Path

from envs.registry import ENVS
from training.evaluation.machine import MachineRecord, measurement_page
from training.framework.command import default_config
from training.framework.config import load_config
from training.framework.console import USER_ERRORS, fail
from training.framework.schema import ConfigError
from training.pipelines.network import policy_kwargs
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.learner import PPO

PARTS = ("env", "opponents", "forward", "update")


class Stopwatch:
    """Accumulated seconds per part, filled by wrapping the methods that do each part."""

    def __init__(self):
        self.seconds = dict.fromkeys(PARTS + ("rollout",), 0.0)

    def wrap(self, obj, method: str, part: str) -> None:
        inner = getattr(obj, method)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - started

        setattr(obj, method, timed)


def measure(config: PPOConfig, timesteps: int) -> dict[str, float]:
    """Train ``config`` for ``timesteps`` steps; steps/s and seconds per part."""
    import torch  # noqa: PLC0415 (torch takes seconds to import; --help and bad input need not wait)

    from training.pipelines.ppo.vector import make_training_env  # noqa: PLC0415 (loads torch, as above)
    from training.pipelines.ppo.warm_start import TeacherGuidedPPO  # noqa: PLC0415 (loads torch and sb3, as above)

    torch.set_num_threads(config.torch_threads)
    venv, _ = make_training_env(config)
    model = TeacherGuidedPPO(
        "MlpPolicy",
        venv,
        seed=config.seed,
        device="cpu",
        verbose=0,
        policy_kwargs=policy_kwargs(config.policy_kwargs),
        **config.ppo,
    )
    rollout = model.n_steps * model.n_envs
    model.learn(total_timesteps=rollout)  # one untimed update: imports and first-call costs are paid once per process
    watch = Stopwatch()
    base = venv.unwrapped if hasattr(venv, "unwrapped") else venv
    watch.wrap(base, "step_wait", "env")
    for env in getattr(base, "envs", []):
        watch.wrap(env.unwrapped, "_play_opponents", "opponents")
    if hasattr(base, "env"):  # the batched env: its opponents' moves, every game at once
        watch.wrap(base.env, "_opponent_moves", "opponents")
    watch.wrap(model, "collect_rollouts", "rollout")
    watch.wrap(model, "train", "update")
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False)
    wall = time.perf_counter() - started
    venv.close()
    seconds = watch.seconds
    seconds["forward"] = seconds.pop("rollout") - seconds["env"]
    steps = model.num_timesteps - rollout
    return {"steps": steps, "wall_s": wall, "steps_per_s": steps / wall, **seconds}


@contextlib.contextmanager
def pool_game_by_game(hidden: bool):
    """While ``hidden``, :class:`PoolOpponent` has no ``act_batch``: the batched env then plays each
    game's copy of a pool seat through ``act``, one game at a time."""
    from training.pipelines.ppo.self_play import PoolOpponent  # noqa: PLC0415 (loads torch: --help need not wait)

    method = PoolOpponent.__dict__["act_batch"]
    if hidden:
        delattr(PoolOpponent, "act_batch")
    try:
        yield
    finally:
        PoolOpponent.act_batch = method


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", nargs="+", help="envs whose default configs to measure (default: all)")
    parser.add_argument("--config", nargs="+", help="config files to measure instead")
    parser.add_argument("--timesteps", type=int, default=100_000, help="learner steps per config (default 100000)")
    parser.add_argument(
        "--vec-env",
        nargs="+",
        choices=("batched", "game", "dummy", "subproc"),
        help="measure each config with each of these vec_env settings",
    )
    parser.add_argument(
        "--pool-game-by-game",
        action="store_true",
        help="also measure each self-play config with its pool seats acting one game at a time",
    )
    parser.add_argument(
        "--page",
        type=Path,
        help="also write the table as a docs page (Markdown) that records the machine, its load and the date",
    )
    args = parser.parse_args(argv)
    try:  # every config is read and checked before the first is measured
        for env in args.env or ():
            if env not in ENVS:
                raise ConfigError(f"unknown env {env!r}; known envs: {', '.join(sorted(ENVS))}")
        paths = [Path(p) for p in args.config] if args.config else [default_config(PPO, e) for e in (args.env or ENVS)]
        configs = [
            (
                f"{path} vec_env={vec_env}" if vec_env else str(path),
                load_config(PPOConfig, path, {"vec_env": vec_env} if vec_env else None),
                False,
            )
            for path in paths
            for vec_env in (args.vec_env or [None])
        ]
        if args.pool_game_by_game:
            configs = [
                variant
                for label, config, _ in configs
                for variant in [(label, config, False)]
                + ([(f"{label} pool game by game", config, True)] if config.self_play.enabled else [])
            ]
        if args.timesteps <= 0:
            raise ConfigError(f"--timesteps must be positive, got {args.timesteps}")
        if args.page is not None and not args.page.parent.is_dir():
            raise ConfigError(f"--page {args.page}: no folder {args.page.parent}")
    except USER_ERRORS as error:
        return fail(error)
    record = MachineRecord()
    rows = []
    print(f"{'config':<64} {'steps/s':>8} {'wall s':>7}  " + "  ".join(f"{p:>12}" for p in PARTS))
    for path, config, hidden in configs:
        config.warm_start.enabled = False
        with pool_game_by_game(hidden):
            result = measure(config, args.timesteps)
        shares = "  ".join(f"{result[p]:>6.1f} s" + f" {100 * result[p] / result['wall_s']:>3.0f}%" for p in PARTS)
        print(f"{path:<64} {result['steps_per_s']:>8,.0f} {result['wall_s']:>7.1f}  {shares}", flush=True)
        rows.append(
            [
                f"`{shown(path)}`",
                f"{result['steps_per_s']:,.0f}",
                f"{result['wall_s']:.1f}",
                *(f"{result[p]:.1f} s ({100 * result[p] / result['wall_s']:.0f}%)" for p in PARTS),
            ]
        )
    if args.page is not None:
        command = "python benchmarks/train_speed.py " + shlex.join(sys.argv[1:] if argv is None else argv)
        header = ["config", "learner steps/s", "wall s", *PARTS]
        notes = f"{args.timesteps:,} learner steps per config, no warm start, after one untimed update. " + PAGE_NOTES
        args.page.write_text(measurement_page("Training speed", command, record, header, rows, notes))
        print(f"wrote {args.page}")
    return 0


def shown(label: str) -> str:
    """A config's label as the page shows it: its path from the working directory when it lies below it."""
    here = f"{Path.cwd()}{os.sep}"
    return label.removeprefix(here)


#: What the table measures, printed under it on the docs page.
PAGE_NOTES = """*env* is stepping the vectorized env (rules and opponents), *opponents* the part of it
spent choosing the other seats' moves, *forward* the rest of collecting rollouts (the
policy's forward pass, the masks, the buffer), *update* PPO's gradient epochs. Configs of
one run are measured one after another, so their ratio holds even when the machine's
speed does not; the absolute figures depend on the machine and its load."""


if __name__ == "__main__":
    sys.exit(main())
