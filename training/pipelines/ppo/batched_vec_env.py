"""SB3's ``VecEnv`` over the native batched env (config ``vec_env: batched``).

:class:`envs.batched.vector_env.BatchedVectorEnv` steps all the training games in one
call; this adapter gives it SB3's contract and nothing more:

* SB3's auto-reset: the batched env runs in Gymnasium's ``SAME_STEP`` mode and its
  ``info["final_obs"]`` becomes ``info["terminal_observation"]``, with
  ``info["TimeLimit.truncated"]``; seeds set by :meth:`seed` apply at the next ``reset``;
* Monitor's episode statistics, ``info["episode"] = {"r", "l", "t"}`` (``rollout/ep_rew_mean``);
* ``env_method("action_masks")`` answers MaskablePPO from the batched masks, one call for
  all games, no per-env method lookups;
* ``get_attr("np_random")`` / ``set_attr("np_random", ...)`` read and restore each game's
  stream as a numpy ``Generator``, so checkpoints resume the same games.

The games are the ones ``vec_env: game`` plays from the same seed (game ``i`` is seeded
``seed + i`` in both), which ``tests/test_batched_training.py`` checks step for step.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from envs.batched import streams as random_streams
from envs.batched.vector_env import BatchedVectorEnv


class BatchedVecEnv(VecEnv):
    """``num_envs`` games of a :class:`BatchedVectorEnv` as one SB3 ``VecEnv``."""

    def __init__(self, env: BatchedVectorEnv):
        if not isinstance(env, BatchedVectorEnv) or env.autoreset_mode != AutoresetMode.SAME_STEP:
            raise TypeError("BatchedVecEnv needs a BatchedVectorEnv in SAME_STEP autoreset mode")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self.render_mode = env.render_mode
        self._actions: np.ndarray | None = None
        self._episode_return = np.zeros(self.num_envs)
        self._episode_length = np.zeros(self.num_envs, np.int64)
        self._started = time.time()

    def reset(self) -> np.ndarray:
        seeds = None if all(seed is None for seed in self._seeds) else self._seeds
        observations, _ = self.env.reset(seed=seeds)
        self._reset_seeds()
        self._episode_return[:] = 0.0
        self._episode_length[:] = 0
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        observations, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        self._episode_return += rewards
        self._episode_length += 1
        infos = [{} for _ in range(self.num_envs)]
        if dones.any():
            now = round(time.time() - self._started, 6)
            final = info["final_obs"]
            for i in np.flatnonzero(dones):
                infos[i] = {
                    "terminal_observation": final[i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "episode": {
                        "r": round(float(self._episode_return[i]), 6),
                        "l": int(self._episode_length[i]),
                        "t": now,
                    },
                }
            self._episode_return[dones] = 0.0
            self._episode_length[dones] = 0
        return observations, rewards.astype(np.float32), dones, infos

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        rows = self._rows(indices)
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.env.action_masks()
            return [masks[i] for i in rows]
        if method_name == "render":
            return [self.env.render_game(i) for i in rows]
        raise AttributeError(f"the batched env has no per-game method {method_name!r}")

    def get_attr(self, attr_name: str, indices=None) -> list:
        rows = self._rows(indices)
        if attr_name == "np_random":
            return [random_streams.to_generator(self.env._streams, i) for i in rows]
        return [getattr(self.env, attr_name)] * len(rows)

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        rows = self._rows(indices)
        if attr_name != "np_random":
            raise AttributeError(f"the batched env's games share their attributes; cannot set {attr_name!r} per game")
        for i in rows:
            random_streams.load_generator(self.env._streams, i, value.bit_generator)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._rows(indices))

    def close(self) -> None:
        self.env.close()

    def _rows(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
