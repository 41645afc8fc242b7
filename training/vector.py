"""The vectorized training env of a config: the Gymnasium env of its game, opponents in
the other seats, Monitor statistics and optional reward scaling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import torch
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecNormalize

from agents.registry import make_agent
from envs.registry import get_entry, make_game
from training.config import ACTIVATIONS, ConfigError, TrainConfig

_ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU, "gelu": torch.nn.GELU}
assert set(_ACTIVATION_MODULES) == set(ACTIVATIONS)


def policy_kwargs(config_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The config's ``policy_kwargs`` with the activation name turned into its torch class."""
    kwargs = dict(config_kwargs)
    if "activation_fn" in kwargs:
        kwargs["activation_fn"] = _ACTIVATION_MODULES[kwargs["activation_fn"]]
    return kwargs


def make_training_env(config: TrainConfig, run_dir: Path) -> tuple[VecEnv, Any]:
    """The vectorized env to train on, and the self-play pool (or None) that feeds it."""
    entry = get_entry(config.env)
    try:
        game = make_game(config.env, **config.env_kwargs)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"env_kwargs {config.env_kwargs} do not fit env {config.env!r}: {error}") from None
    others = game.num_players - 1
    self_play = None
    if config.self_play.enabled:
        if others == 0:
            raise ConfigError(f"self_play needs a game with several players; {config.env} is set up for one")
        if config.vec_env != "dummy":
            raise ConfigError("self_play shares its opponent pool in one process: use vec_env: dummy")
        from training.self_play import SelfPlay

        self_play = SelfPlay(config, game)

    def opponents_for(index: int):
        if others == 0:
            return None
        if self_play is not None:
            return self_play.opponent()
        specs = config.opponents
        if len(specs) not in (1, others):
            raise ConfigError(f"'opponents' needs 1 or {others} agent specs for {game.num_players} players, got {specs}")
        seed = config.seed * 1000 + index
        return [make_agent(config.env, spec, game, seed=seed) for spec in (specs * others)[:others]]

    reward = {"reward_mode": config.reward_mode} if config.reward_mode else {}

    def env_fn(index: int):
        return lambda: gymnasium.make(entry.gym_id, opponents=opponents_for(index), **reward, **config.env_kwargs)

    vec_cls = DummyVecEnv if config.vec_env == "dummy" else SubprocVecEnv
    venv = vec_cls([_monitored(env_fn(i)) for i in range(config.n_envs)])
    venv.seed(config.seed)
    if config.normalize_reward:
        venv = VecNormalize(venv, norm_obs=False, norm_reward=True, gamma=config.ppo.get("gamma", 0.99))
    return venv, self_play


def _monitored(env_fn):
    return lambda: Monitor(env_fn())
