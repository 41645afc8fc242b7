"""A lean one-process VecEnv over the games' own Gymnasium envs (config ``vec_env: game``).

SB3's :class:`~stable_baselines3.common.vec_env.DummyVecEnv` behind ``gymnasium.make``
and :class:`~stable_baselines3.common.monitor.Monitor` costs more per step than the
dice games' rules do: three wrapper layers per call, a deep copy of every step's info
dicts and observations. This VecEnv steps the unwrapped
:class:`envs.single_agent.SingleAgentEnv` of each game directly and keeps what training
reads of those layers:

* SB3's VecEnv contract: auto-reset with ``info["terminal_observation"]`` and
  ``info["TimeLimit.truncated"]``, seeds applied at the next ``reset``;
* Monitor's episode statistics, ``info["episode"] = {"r", "l", "t"}``, which feed
  ``rollout/ep_rew_mean`` in TensorBoard;
* ``action_masks`` for MaskablePPO, stacked for all envs in one call.

The envs are the same objects ``gymnasium.make`` would wrap, so a game is the same
game, seed for seed, in either VecEnv (``tests/test_training.py`` checks this).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from envs.single_agent import SingleAgentEnv


class GameVecEnv(DummyVecEnv):
    """``DummyVecEnv`` without per-step copies or wrappers, for :class:`SingleAgentEnv` envs."""

    def __init__(self, env_fns: list[Callable[[], SingleAgentEnv]]):
        super().__init__(env_fns)
        for env in self.envs:
            if not isinstance(env, SingleAgentEnv):
                raise TypeError(f"GameVecEnv steps the games' own envs (SingleAgentEnv), got {type(env).__name__}")
        self._obs = self.buf_obs[None]
        self._episode_return = np.zeros(self.num_envs)
        self._episode_length = np.zeros(self.num_envs, np.int64)
        self._started = time.time()

    def step_wait(self):
        infos = []
        for i, env in enumerate(self.envs):
            obs, reward, terminated, truncated, info = env.step(self.actions[i])
            done = terminated or truncated
            self.buf_rews[i] = reward
            self.buf_dones[i] = done
            self._episode_return[i] += reward
            self._episode_length[i] += 1
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["episode"] = {
                    "r": round(float(self._episode_return[i]), 6),
                    "l": int(self._episode_length[i]),
                    "t": round(time.time() - self._started, 6),
                }
                info["terminal_observation"] = obs
                self._episode_return[i], self._episode_length[i] = 0.0, 0
                obs, self.reset_infos[i] = env.reset()
            self._obs[i] = obs
            infos.append(info)
        return self._obs.copy(), self.buf_rews.copy(), self.buf_dones.copy(), infos

    def reset(self):
        self._episode_return[:], self._episode_length[:] = 0.0, 0
        super().reset()
        return self._obs.copy()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks" and indices is None and not method_args and not method_kwargs:
            return [env.action_masks() for env in self.envs]  # MaskablePPO, every step: no attribute lookups
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)
