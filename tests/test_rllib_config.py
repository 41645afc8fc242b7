"""The RLlib pipeline's own config schema, checked without Ray: each env's default config, the keys it refuses,
and ``train_rllib.py --env <env>`` resolving to it."""

from __future__ import annotations

import os
import re

import pytest

from envs.registry import ENVS
from training.framework.command import default_config, parse_args, resolve
from training.framework.config import config_from_dict, load_config
from training.framework.schema import ConfigError
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.learner import PPO
from training.pipelines.rllib.cluster import check_local_cpus
from training.pipelines.rllib.config import PPO_SETTINGS, RLlibConfig
from training.pipelines.rllib.learner import RLlib


@pytest.mark.parametrize("env", list(ENVS))
def test_every_env_s_default_config_has_its_ppo_config_s_game_network_and_hyperparameters(env):
    config = load_config(RLlibConfig, default_config(RLlib, env))
    ppo = load_config(PPOConfig, default_config(PPO, env))
    assert (config.env, config.env_kwargs, config.seed, config.reward_mode) == (
        ppo.env,
        ppo.env_kwargs,
        ppo.seed,
        ppo.reward_mode,
    )
    assert config.policy_kwargs == ppo.policy_kwargs and config.evaluation == ppo.evaluation
    assert config.ppo == {key: value for key, value in ppo.ppo.items() if key in PPO_SETTINGS}
    assert config.rollout_steps == ppo.ppo["n_steps"] * ppo.n_envs  # the PPO pipeline's rollout


@pytest.mark.parametrize(
    "key, value, named",
    [
        ("n_envs", 8, "unknown key(s) ['n_envs']"),
        ("warm_start", {"enabled": True}, "unknown key(s) ['warm_start']"),
        ("checkpoint_iterations", 1, "unknown key(s) ['checkpoint_iterations']"),
        ("ppo", {"n_steps": 256}, "unknown ppo key(s) ['n_steps']"),
        ("policy_kwargs", {"ortho_init": False}, "unknown policy_kwargs key(s) ['ortho_init']"),
        ("policy_kwargs", {"net_arch": {"pi": [8], "vf": [8]}}, "policy_kwargs.net_arch must be a list of layer sizes"),
        ("reward_mode", "points", "reward_mode must be one of"),
    ],
)
def test_a_key_rllib_does_not_use_is_refused_naming_it(key, value, named):
    with pytest.raises(ConfigError, match=re.escape(f"config: {named}")):
        config_from_dict(RLlibConfig, {"env": "invers", key: value})


def test_train_rllib_with_an_env_trains_that_env_s_rllib_config(tmp_path):
    argv = ["--env", "roll_five", "--iterations", "3", "--run-dir", str(tmp_path / "run")]
    args = parse_args(RLlib, argv, prog=None, script="training/train_rllib.py", description="")
    config, run_dir, checkpoint = resolve(RLlib, args)
    assert (config.env, config.iterations, config.rollout_steps, checkpoint) == ("roll_five", 3, 4096, None)
    assert run_dir == tmp_path / "run" and not run_dir.exists()  # resolving writes nothing


@pytest.mark.parametrize(
    "values, named",
    [
        (
            {"rollout_steps": 3, "workers": 2},
            "rollout_steps (3) must be at least 4: 2 seats x 2 envs sampling (2 env runners x 1 envs_per_worker)",
        ),
        (
            {
                "env": "lost_dice",
                "rollout_steps": 16,
                "ppo": {"batch_size": 8},
                "workers": 0,
                "envs_per_worker": 8,
                "env_kwargs": {"num_players": 4},
            },
            "rollout_steps (16) must be at least 32: 4 seats x 8 envs sampling (1 env runners x 8 envs_per_worker)",
        ),
        (
            {"rollout_steps": 70, "learners": 4, "ppo": {"batch_size": 8}},
            "rollout_steps (70) must be a multiple of learners (4)",
        ),
        (
            {"rollout_steps": 256, "learners": 2, "ppo": {"batch_size": 200}},
            "ppo.batch_size (200) must be at most a learner's share of rollout_steps (128)",
        ),
        ({"rollout_steps": 32}, "ppo.batch_size (64) must be at most a learner's share of rollout_steps (32)"),
        ({"envs_per_worker": 0}, "envs_per_worker must be an integer > 0, got 0"),
        ({"cpus_per_worker": -1}, "cpus_per_worker must be a number >= 0, got -1"),
        ({"gpus_per_learner": "one"}, "gpus_per_learner must be a number >= 0, got 'one'"),
        ({"cpus_per_learner": -0.5}, "cpus_per_learner must be a number >= 0, got -0.5"),
        ({"learners": -1}, "learners must be an integer >= 0, got -1"),
    ],
)
def test_a_value_rllib_would_fail_on_mid_run_is_refused_before_anything_runs(values, named):
    with pytest.raises(ConfigError, match=re.escape(f"config: {named}")):
        config_from_dict(RLlibConfig, {"env": "invers", **values})


def machine_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def test_a_local_run_reserving_more_cpus_than_the_machine_has_is_refused_unless_it_oversubscribes():
    """It ran: Ray was told of CPUs that were not there, and one iteration took 99 s on 2 cores."""
    workers = machine_cpus() + 1
    argv = ["--env", "invers", "--workers", str(workers)]
    config, _, _ = resolve(RLlib, parse_args(RLlib, argv, prog=None, script="training/train_rllib.py", description=""))
    with pytest.raises(ConfigError) as refused:
        check_local_cpus(config)
    assert str(refused.value) == (
        f"the run reserves {workers} CPUs ({workers} workers x 1 + 0 learners x 1), but this machine has "
        f"{machine_cpus()}; lower workers or the CPUs per worker or learner, join a cluster (--address), "
        f"or pass --oversubscribe to share {machine_cpus()} CPUs"
    )
    args = parse_args(RLlib, [*argv, "--oversubscribe"], prog=None, script="training/train_rllib.py", description="")
    config, _, _ = resolve(RLlib, args)
    assert config.oversubscribe
    check_local_cpus(config)  # allowed
    fits = resolve(RLlib, parse_args(RLlib, ["--env", "invers", "--workers", str(machine_cpus())], None, "x", ""))[0]
    assert not fits.oversubscribe
    check_local_cpus(fits)


def resolve_argv(argv: list[str]):
    return resolve(RLlib, parse_args(RLlib, argv, prog=None, script="training/train_rllib.py", description=""))


def test_a_bad_value_from_the_command_line_is_blamed_on_the_option_and_says_which_to_change(tmp_path):
    """It named configs/invers_rllib.yaml as the source of --rollout-steps 256's value, and no option set the fix."""
    run = ["--run-dir", str(tmp_path / "run")]
    with pytest.raises(ConfigError) as refused:
        resolve_argv(["--env", "invers", "--rollout-steps", "256", *run])
    assert str(refused.value) == (
        f"--rollout-steps 256 (over {default_config(RLlib, 'invers')}): ppo.batch_size (512) must be at most a "
        "learner's share of rollout_steps (256): PPO's minibatches are cut from it; lower ppo.batch_size "
        "(--minibatch-size) or raise rollout_steps (--rollout-steps)"
    )
    config, _, _ = resolve_argv(["--env", "invers", "--rollout-steps", "256", "--minibatch-size", "128", *run])
    assert (config.rollout_steps, config.minibatch_size) == (256, 128)

    broken = tmp_path / "broken.yaml"  # the file's own fault stays the file's, whatever the options
    broken.write_text("env: invers\nworkers: -1\n")
    with pytest.raises(ConfigError, match=re.escape(f"{broken}: workers must be an integer >= 0, got -1")):
        resolve_argv(["--config", str(broken), "--rollout-steps", "256", *run])
