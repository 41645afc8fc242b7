"""Ray RLlib's PPO on any env of the collection: one shared masked policy plays every seat.

For users who outgrow one machine: start a cluster (``docs/guides/integrations.md``:
``ray start --head`` on one machine and ``ray start --address HEAD_IP:6379`` on the
others, every node with the head's auth token), then train with ``--address auto`` (or
``RAY_ADDRESS`` set). Without either, a local Ray of the run's own is started
(:mod:`training.pipelines.rllib.cluster`). A cluster that cannot hold the run's env
runners and learners is refused in one line before anything runs, as is a config RLlib
would fail on mid-run. Each env step is one move of the agent to act, so "env steps"
count every move of every seat. A checkpoint is ``rllib_checkpoint.zip``, RLlib's own
checkpoint folder zipped into one file, so that the run framework commits it with the
rest of the run and ``--resume`` restores it.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import zipfile
from pathlib import Path

from agents.rllib import SHARED_POLICY
from agents.run_folder import RLLIB_CHECKPOINT_FILE
from training.framework.checkpoint import Checkpoint
from training.framework.ray_cluster import alive_nodes
from training.framework.run import Override, Pipeline
from training.framework.schema import ConfigError
from training.pipelines.rllib.cluster import check_resources, cluster_facts, start_ray
from training.pipelines.rllib.config import ACTIVATIONS, RLlibConfig

#: Seconds an iteration waits for the env runners' samples; RLlib's default (60 s) drops
#: whole batches on a busy machine, leaving iterations that sampled nothing.
SAMPLE_TIMEOUT_S = 900.0


def shared_policy(agent_id, episode, **kwargs) -> str:
    """Self-play: every seat is played by the same policy."""
    return SHARED_POLICY


def build_config(config: RLlibConfig):
    """RLlib's ``PPOConfig``: the env's game options, network and PPO hyperparameters in RLlib's
    names, masked self-play."""
    from ray.rllib.algorithms.ppo import PPOConfig  # noqa: PLC0415 (Ray: an optional extra, slow to import)
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: PLC0415 (Ray, as above)
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: PLC0415 (Ray, as above)
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (  # noqa: PLC0415 (Ray, as above)
        ActionMaskingTorchRLModule,
    )

    from envs.integrations.rllib import RLlibEnv  # noqa: PLC0415 (imports Ray, as above)

    ppo = config.ppo
    hidden = list(config.policy_kwargs.get("net_arch", [64, 64]))
    activation = ACTIVATIONS[config.policy_kwargs.get("activation_fn", "tanh")]  # sb3's default activation is tanh
    # The env's creator itself, not a name registered with Ray Tune: Tune's registry keys its
    # entries by the first job of the process, so a second run in one process (a resume, a
    # sweep) would find no env on its env runners.
    env_config = {
        "env": config.env,
        **config.env_kwargs,
        **({"reward_mode": config.reward_mode} if config.reward_mode else {}),
    }
    return (
        PPOConfig()
        .environment(RLlibEnv, env_config=env_config)
        .env_runners(
            num_env_runners=config.workers,
            num_envs_per_env_runner=config.envs_per_worker,
            num_cpus_per_env_runner=config.cpus_per_worker,
            num_gpus_per_env_runner=config.gpus_per_worker,
            sample_timeout_s=SAMPLE_TIMEOUT_S,
        )
        .learners(
            num_learners=config.learners,
            num_cpus_per_learner=config.cpus_per_learner,
            num_gpus_per_learner=config.gpus_per_learner,
        )
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    SHARED_POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={
                            "fcnet_hiddens": hidden,
                            "fcnet_activation": activation,
                            "head_fcnet_hiddens": [],
                        },
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
            minibatch_size=config.minibatch_size,
            train_batch_size_per_learner=config.steps_per_learner,
        )
        .debugging(seed=config.seed)
    )


class RLlib(Pipeline):
    name = "rllib"
    schema = RLlibConfig
    unit = "iterations"
    budget_key = "iterations"
    default_config = "{env}_rllib"
    checkpoint_required = (RLLIB_CHECKPOINT_FILE,)
    overrides = (
        Override("iterations", "iterations", int, "PPO iterations (one train batch each)"),
        Override("workers", "workers", int, "env runners, one CPU each", positive=False),
        Override(
            "oversubscribe",
            "oversubscribe",
            bool,
            "let a local Ray reserve more CPUs than this machine has, the env runners sharing its cores",
            positive=False,
        ),
        Override("address", "address", str, "Ray cluster to join, e.g. 'auto'", positive=False),
        Override("rollout-steps", "rollout_steps", int, "env steps per iteration"),
        Override("minibatch-size", "ppo.batch_size", int, "PPO's minibatch, at most a learner's share of them"),
    )

    @classmethod
    def check_installed(cls) -> None:
        if importlib.util.find_spec("ray") is None:  # finds Ray without importing it (slow)
            raise ConfigError(
                "training with RLlib needs Ray RLlib, which is not installed here; "
                'install it with pip install -e ".[rllib]" (or "ray[rllib]>=2.60,<3")'
            )

    def __init__(self, config: RLlibConfig, run_dir: Path, checkpoint: Checkpoint | None):
        super().__init__(config, run_dir, checkpoint)
        algo_config = build_config(config)
        try:
            algo_config.validate()
        except ValueError as error:  # RLlib's own refusals of a config, before Ray starts
            raise ConfigError(f"RLlib refuses the config: {error}") from None
        where = start_ray(config)
        self.algo = None
        try:
            nodes = alive_nodes()
            check_resources(config, where, nodes)
            self.algo = algo_config.build_algo()
            self.cluster = cluster_facts(where, nodes, self._env_runner_nodes())
            self.iterations = 0
            if checkpoint is not None:
                self._restore(checkpoint)
        except BaseException:
            self.close()
            raise

    def _env_runner_nodes(self) -> list[str]:
        """The node id of each env runner (the driver's own first, where RLlib keeps one)."""
        import ray  # noqa: PLC0415 (Ray: started already)

        return self.algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id())

    def _restore(self, checkpoint: Checkpoint) -> None:
        with tempfile.TemporaryDirectory() as folder:
            with zipfile.ZipFile(checkpoint.files[RLLIB_CHECKPOINT_FILE]) as archive:
                archive.extractall(folder)
            try:
                self.algo.restore_from_path(folder)
            except Exception as error:  # Ray raises many types for a foreign or damaged checkpoint
                raise checkpoint.unusable(RLLIB_CHECKPOINT_FILE, error) from None
        self.iterations = checkpoint.done

    @property
    def done(self) -> int:
        return self.iterations

    def step(self) -> dict[str, float]:
        """One RLlib iteration (one train batch); the env steps sampled so far and each seat's mean return."""
        result = self.algo.train()
        self.iterations += 1
        runners = result["env_runners"]
        returns = runners.get("agent_episode_returns_mean", {})
        return {
            "env_steps": float(runners["num_env_steps_sampled_lifetime"]),
            **{f"return/{agent}": float(value) for agent, value in sorted(returns.items())},
        }

    def checkpoint_files(self):
        return {RLLIB_CHECKPOINT_FILE: self._write_checkpoint}

    def _write_checkpoint(self, filename: str) -> None:
        with tempfile.TemporaryDirectory() as folder:
            self.algo.save_to_path(folder)
            archive = shutil.make_archive(str(Path(folder).with_suffix("")) + "-zip", "zip", folder)
            shutil.move(archive, filename)

    def metadata(self) -> dict:
        return {"ray": self.cluster}

    def close(self) -> None:
        import ray  # noqa: PLC0415 (Ray is an optional extra, loaded by __init__ already)

        if self.algo is not None:
            self.algo.stop()
        ray.shutdown()
