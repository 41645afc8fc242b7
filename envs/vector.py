"""Gymnasium vector envs of the games, whose batched action space samples legal actions.

``gymnasium.make_vec(id, num_envs=N)`` (Gymnasium's default mode for an id with a
``vector_entry_point``, which every id of this collection has) makes a
:class:`GameVectorEnv`: Gymnasium's ``SyncVectorEnv`` over ``N`` ``gymnasium.make(id)``
envs, except that ``action_space.sample()`` draws each sub-env's action from that
sub-env's legal actions (:class:`LegalBatchSpace`), as each single env's
``action_space.sample()`` does (:class:`envs.spaces.LegalActionSpace`).

Gymnasium's own ``SyncVectorEnv`` and ``AsyncVectorEnv`` (``vectorization_mode="sync"``
or ``"async"``) batch the action space with ``batch_space``: a plain ``MultiDiscrete``
that knows no mask, since it is built from one sub-env's space and the async sub-envs
live in other processes. Its ``sample()`` draws illegal actions, which each sub-env's
default ``illegal_action="terminate"`` answers by ending that episode with a penalty;
sample legal ones there with the masks the sub-envs return,
``vec_env.action_space.sample(mask=tuple(infos["action_mask"]))``.

A sub-env with no legal action (one that ended on the last step and, with Gymnasium's
default ``NEXT_STEP`` autoreset, resets on this one whatever its action) gets ``0``,
which ``MultiDiscrete.sample`` gives for an all-zero mask.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from envs.single_agent import SingleAgentEnv


class LegalBatchSpace(spaces.MultiDiscrete):
    """``MultiDiscrete([n] * num_envs)`` whose ``sample()`` draws every sub-env's legal actions.

    With an explicit ``mask`` or ``probability`` it is Gymnasium's ``MultiDiscrete.sample``.
    Without, it asks the vector env for every sub-env's legal mask (an ``(num_envs, n)``
    array) and draws one uniform legal action per row in compiled code (:func:`sample_legal`),
    where Gymnasium's ``sample(mask=...)`` draws row by row in Python (323 ms for 4,096 games).
    The link is not pickled (a pickled space is a plain ``MultiDiscrete``); the env re-links on
    unpickling.
    """

    def __init__(self, n: int, num_envs: int, legal_masks: Callable[[], np.ndarray] | None = None):
        super().__init__(np.full(num_envs, n, np.int64))
        self._legal_masks = legal_masks

    def link(self, legal_masks: Callable[[], np.ndarray]) -> None:
        self._legal_masks = legal_masks

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._legal_masks is not None:
            return sample_legal(self.np_random, self._legal_masks())
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_legal_masks"] = None
        return state


def sample_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One action per row of ``masks`` (``(N, n)``, non-zero where legal), uniform over the row's
    legal actions, drawn from ``rng`` in compiled code (one draw a row); 0 for a row with none
    (as Gymnasium's ``MultiDiscrete.sample`` gives for an all-zero mask)."""
    masks = np.ascontiguousarray(masks)
    actions = np.zeros(len(masks), np.int64)
    _compiled_sampler()(rng, masks, actions)
    return actions


def _sample_rows(rng, masks, out):
    for row in range(masks.shape[0]):
        count = 0
        for action in range(masks.shape[1]):
            if masks[row, action]:
                count += 1
        if count:
            pick = int(rng.random() * count)  # which of the row's legal actions
            for action in range(masks.shape[1]):
                if masks[row, action]:
                    if pick == 0:
                        out[row] = action
                        break
                    pick -= 1


@functools.cache
def _compiled_sampler():
    import numba  # noqa: PLC0415 (Numba takes a while to import: loaded by the first sample, not by import envs)

    return numba.njit(cache=True)(_sample_rows)


class GameVectorEnv(SyncVectorEnv):
    """Gymnasium's ``SyncVectorEnv`` over the games' Gymnasium envs, with a legal-sampling action space.

    Stepping is ``SyncVectorEnv``'s, unchanged: every autoreset mode, ``info["action_mask"]``
    stacked per sub-env, the sub-envs' own treatment of illegal actions.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gymnasium.Env]],
        copy: bool = True,
        observation_mode: str | tuple = "same",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    ):
        super().__init__(env_fns, copy=copy, observation_mode=observation_mode, autoreset_mode=autoreset_mode)
        for env in self.envs:
            if not isinstance(env.unwrapped, SingleAgentEnv):
                raise TypeError(
                    "GameVectorEnv batches the games' Gymnasium envs (SingleAgentEnv), "
                    f"got {type(env.unwrapped).__name__}"
                )
        self._no_legal_action = np.zeros(self.single_action_space.n, np.int8)
        self.action_space = LegalBatchSpace(int(self.single_action_space.n), self.num_envs, self._sampling_masks)

    def _sampling_masks(self) -> np.ndarray:
        """Each sub-env's legal mask for the next ``step``, one row each; all zeros where it takes no action."""
        masks = []
        resetting = (
            self._autoreset_envs if self.autoreset_mode == AutoresetMode.NEXT_STEP else np.zeros(self.num_envs, bool)
        )
        for i, env in enumerate(self.envs):
            # NEXT_STEP autoreset: a sub-env that ended last step resets on this one, ignoring its action.
            mask = None if resetting[i] else env.unwrapped._sampling_mask()
            masks.append(self._no_legal_action if mask is None else mask)
        return np.stack(masks)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.action_space.link(self._sampling_masks)


def make_vector_env(
    gym_id: str,
    num_envs: int = 1,
    *,
    autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    copy: bool = True,
    **kwargs: Any,
) -> GameVectorEnv:
    """The ``vector_entry_point`` of every registered id: ``num_envs`` ``gymnasium.make(gym_id, **kwargs)``.

    ``gymnasium.make_vec(id, num_envs, autoreset_mode=..., **env_kwargs)`` calls it
    (in this mode Gymnasium passes the vector env's own options with the env's, not in
    ``vector_kwargs``).
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    return GameVectorEnv(
        [lambda: gymnasium.make(gym_id, **kwargs) for _ in range(int(num_envs))],
        copy=copy,
        autoreset_mode=autoreset_mode,
    )
