"""The vectorized training env of a config: the Gymnasium env of its game, opponents in
the other seats, episode statistics and optional reward scaling.

``vec_env``: ``batched`` (:class:`training.pipelines.ppo.batched_vec_env.BatchedVecEnv`, the
native batched env: all games in one call), ``game``
(:class:`training.pipelines.ppo.game_vec_env.GameVecEnv`, one process, no wrappers),
``dummy`` (SB3's DummyVecEnv over ``gymnasium.make`` and Monitor, one process) or
``subproc`` (one process per env)."""

from __future__ import annotations

import signal
from typing import Any

import gymnasium
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecNormalize

from envs.batched.vector_env import BatchedVectorEnv
from envs.registry import get_entry, make_game
from training.framework.config import build_agent
from training.pipelines.ppo.batched_vec_env import BatchedVecEnv
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.game_vec_env import GameVecEnv
from training.pipelines.ppo.self_play import SelfPlay


def make_training_env(config: PPOConfig, seed: bool = True) -> tuple[VecEnv, Any]:
    """The vectorized env to train on, and the self-play pool (or None) that feeds it.

    ``seed``: seed the envs from ``config.seed`` (a new run); a resumed run restores the
    envs' generators from its checkpoint instead. The config is already validated
    (:func:`training.framework.config.config_from_dict`), player counts included.
    """
    entry = get_entry(config.env)
    game = make_game(config.env, **config.env_kwargs)
    others = game.num_players - 1
    self_play = None
    if config.self_play.enabled:
        self_play = SelfPlay(config, game)

    def opponents_for(index: int):
        if others == 0:
            return None
        if self_play is not None:
            return self_play.opponent()
        specs = config.opponents
        agent_seed = config.seed * 1000 + index
        return [build_agent(config.env, spec, game, seed=agent_seed) for spec in (specs * others)[:others]]

    reward = {"reward_mode": config.reward_mode} if config.reward_mode else {}

    def env_fn(index: int):
        return lambda: gymnasium.make(entry.gym_id, opponents=opponents_for(index), **reward, **config.env_kwargs)

    if config.vec_env == "batched":
        batched = BatchedVectorEnv(
            config.env,
            config.n_envs,
            autoreset_mode=AutoresetMode.SAME_STEP,
            opponents=opponents_for(0),
            **reward,
            **config.env_kwargs,
        )
        venv = BatchedVecEnv(batched)
    elif config.vec_env == "game":
        venv = GameVecEnv([_unwrapped(env_fn(i)) for i in range(config.n_envs)])
    elif config.vec_env == "dummy":
        venv = DummyVecEnv([_monitored(env_fn(i)) for i in range(config.n_envs)])
    else:
        venv = SubprocVecEnv([_ignoring_interrupts(_monitored(env_fn(i))) for i in range(config.n_envs)])
    if seed:
        venv.seed(config.seed)
    if config.normalize_reward:
        venv = VecNormalize(venv, norm_obs=False, norm_reward=True, gamma=config.ppo.get("gamma", 0.99))
    return venv, self_play


def _unwrapped(env_fn):
    return lambda: env_fn().unwrapped


def _monitored(env_fn):
    return lambda: Monitor(env_fn())


def _ignoring_interrupts(env_fn):
    """Env workers ignore Ctrl-C (sent to the whole process group): the main process stops them."""

    def make():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return env_fn()

    return make
