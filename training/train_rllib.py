"""Train any env of the collection with Ray RLlib's PPO and its action-masking RLModule.

    pip install -e ".[rllib]"
    python training/train_rllib.py --env invers                       # a local Ray, 2 workers
    python training/train_rllib.py --env invers --workers 8 --address auto   # an existing cluster

For users who outgrow one machine: start a cluster with ``ray start --head`` on one
machine and ``ray start --address HEAD_IP:6379`` on the others, then run this script on
the head with ``--address auto``. Without ``--address`` a local Ray is started.

Every seat is played by one shared policy (self-play through RLlib's policy mapping:
each agent id maps to the policy ``"shared"``), a masked MLP, with the PPO
hyperparameters of ``configs/<env>.yaml`` translated to RLlib's names. Each env step is
one move of the agent to act, so "env steps" count every move of every seat. The run
prints, per iteration, the mean episode return and the env steps/s sampled, and saves an
RLlib checkpoint in ``--run-dir``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


import numpy as np

from training.framework.config import default_config_path, load_config
from training.framework.paths import checkpoint_root

SHARED_POLICY = "shared"


def shared_policy(agent_id, episode, **kwargs) -> str:
    """Self-play: every seat is played by the same policy."""
    return SHARED_POLICY


#: Seconds an iteration waits for the env runners' samples; RLlib's default (60 s) drops
#: whole batches on a busy machine, leaving iterations that sampled nothing.
SAMPLE_TIMEOUT_S = 900.0


def build_config(env: str, workers: int, seed: int, env_options: dict | None = None, batch_size: int | None = None):
    """The ``PPOConfig``: the env's SB3 hyperparameters in RLlib's names, masked self-play."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from envs.integrations.rllib import register_envs, rllib_env_name

    register_envs()
    train = load_config(default_config_path(env))
    ppo = train.ppo
    hidden = list(train.policy_kwargs.get("net_arch", [64, 64]))
    batch = batch_size or ppo.get("n_steps", 2048) * train.n_envs
    return (
        PPOConfig()
        .environment(rllib_env_name(env), env_config=dict(env_options or {}))
        .env_runners(
            num_env_runners=workers, num_envs_per_env_runner=1, num_cpus_per_env_runner=1, sample_timeout_s=SAMPLE_TIMEOUT_S
        )
        .learners(num_learners=0)  # the learner runs in the driver
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": hidden, "fcnet_activation": "relu", "head_fcnet_hiddens": []},
                    )
                }
            )
        )
        .training(
            lr=ppo.get("learning_rate", 3e-4),
            gamma=ppo.get("gamma", 0.99),
            lambda_=ppo.get("gae_lambda", 0.95),
            entropy_coeff=ppo.get("ent_coef", 0.0),
            clip_param=ppo.get("clip_range", 0.2),
            num_epochs=ppo.get("n_epochs", 10),
            minibatch_size=min(ppo.get("batch_size", 64), batch),
            train_batch_size_per_learner=batch,
        )
        .debugging(seed=seed)
    )


def masked_greedy_actions(module, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The trained module's most likely action for each row (the mask applied by the module)."""
    import torch

    from ray.rllib.core.columns import Columns

    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(masks, dtype=torch.float32),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return logits.argmax(dim=-1).numpy()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="env name, e.g. invers")
    parser.add_argument("--iterations", type=int, default=20, help="PPO iterations (one train batch each)")
    parser.add_argument("--workers", type=int, default=2, help="env runners (one CPU each)")
    parser.add_argument("--address", default=None, help="Ray cluster to join, e.g. 'auto' (default: start a local Ray)")
    parser.add_argument("--batch-size", type=int, default=None, help="env steps per iteration (default: the config's n_steps x n_envs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-dir", default=None, help="checkpoint directory (default: checkpoints/<env>/rllib-<time>)")
    args = parser.parse_args(argv)
    if args.iterations <= 0 or args.workers < 0:
        parser.error("--iterations must be positive and --workers non-negative")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.workers + 1, include_dashboard=False)
    algo = build_config(args.env, args.workers, args.seed, batch_size=args.batch_size).build_algo()
    print(f"{args.env}: RLlib PPO, {args.workers} env runners, self-play with one shared masked policy")
    sampled = 0
    start = time.perf_counter()
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        runners = result["env_runners"]
        sampled = runners["num_env_steps_sampled_lifetime"]
        elapsed = time.perf_counter() - start
        returns = runners.get("agent_episode_returns_mean", {})
        shown = " ".join(f"{agent}={value:+.2f}" for agent, value in sorted(returns.items()))
        print(f"iter {iteration:>3}  env steps {sampled:>8}  {sampled / elapsed:7.0f} steps/s  returns {shown}")
    run_dir = Path(args.run_dir) if args.run_dir else checkpoint_root() / args.env / f"rllib-{time.strftime('%Y%m%d-%H%M%S')}"
    algo.save(str(run_dir.resolve()))
    print(f"{sampled} env steps in {time.perf_counter() - start:.0f} s; checkpoint in {run_dir}")
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
