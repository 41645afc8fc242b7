"""GameVecEnv: the same games as SB3's DummyVecEnv over gymnasium.make, without the layers."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks

from training.framework.config import config_from_dict
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.game_vec_env import GameVecEnv
from training.pipelines.ppo.vector import make_training_env


def vec_config(vec_env: str, env: str = "lost_dice", n_envs: int = 3, **extra):
    """A small seeded PPO config on ``vec_env``: the vectorized envs' tests compare these."""
    return config_from_dict(
        PPOConfig, {"env": env, "n_envs": n_envs, "vec_env": vec_env, "normalize_reward": False, "seed": 5, **extra}
    )


def _info_keys_and_return(info: dict):
    return sorted(k for k in info if k != "episode"), info.get("episode", {}).get("r")


def sb3_trace(venv, steps: int, info_view=_info_keys_and_return):
    """Step with the first legal action of every env: what the learner sees of each step,
    ``info_view(info)`` of every env's info included."""
    trace = [venv.reset().copy()]
    for _ in range(steps):
        masks = get_action_masks(venv)
        trace.append(masks.copy())
        obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        trace += [obs, rewards, dones]
        trace += [info_view(info) for info in infos]
        trace += [info["terminal_observation"] for info in infos if "terminal_observation" in info]
    return trace


def test_same_games_as_dummy_vec_env_seed_for_seed():
    game_venv, _ = make_training_env(vec_config("game", opponents=["heuristic"]))
    dummy_venv, _ = make_training_env(vec_config("dummy", opponents=["heuristic"]))
    assert isinstance(game_venv, GameVecEnv)
    game_trace, dummy_trace = sb3_trace(game_venv, 300), sb3_trace(dummy_venv, 300)
    assert any(isinstance(t, tuple) and t[1] is not None for t in game_trace), "no episode ended: play longer"
    assert len(game_trace) == len(dummy_trace)
    for ours, theirs in zip(game_trace, dummy_trace):
        if isinstance(ours, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


def test_episode_statistics_match_the_returns_and_observations_are_fresh():
    venv, _ = make_training_env(vec_config("game", env="inverted_dice"))
    obs = venv.reset()
    running, episodes = np.zeros(venv.num_envs), []
    while len(episodes) < 4:
        masks = get_action_masks(venv)
        new_obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
        assert new_obs is not obs and not np.shares_memory(new_obs, obs)
        obs = new_obs
        running += rewards
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"]["r"] == pytest.approx(running[i])
            assert infos[i]["episode"]["l"] > 0
            episodes.append(running[i])
            running[i] = 0.0
    assert all(r > 0 for r in episodes)


def test_only_the_games_own_envs_are_accepted():
    with pytest.raises(TypeError, match="SingleAgentEnv"):
        GameVecEnv([lambda: gymnasium.make("CartPole-v1").unwrapped])
