"""Gymnasium and PettingZoo environments of five tabletop dice and board games.

``import envs`` registers every env with Gymnasium (``gymnasium.make("InvertedDice-v1")``,
and ``gymnasium.make_vec("InvertedDice-v1", num_envs=4096)``: the native batched vector env
of :mod:`envs.batched.vector_env`, thousands of games per call in compiled code)
and with PettingZoo's registry (``pettingzoo.make("aec", "tabletop/inverted_dice_v0")``, and
``pettingzoo.make("parallel", "tabletop/roll_five_v0")`` for the simultaneous games);
the PettingZoo-style modules are imported as ``from envs import inverted_dice_v0``.
"""

import functools

import gymnasium
import pettingzoo

from envs.core import Game, GameState, IllegalActionError
from envs.registry import ENVS, LEGACY_ENVS, get_entry, make_game
from envs.vector import make_vector_env


def _native_vector_env(name: str, num_envs: int = 1, **kwargs):
    """``gymnasium.make_vec``'s entry point of a game with a batched twin."""
    from envs.batched.vector_env import BatchedVectorEnv  # noqa: PLC0415 (Numba takes seconds; plain import envs skips it)

    return BatchedVectorEnv(name, num_envs, **kwargs)


def _register_all() -> None:
    for entry in (*ENVS.values(), *LEGACY_ENVS):
        if entry.batched is not None and entry in ENVS.values():
            vector_entry_point = functools.partial(_native_vector_env, entry.name)
        else:  # a superseded version: Gymnasium's SyncVectorEnv of its single envs
            vector_entry_point = functools.partial(make_vector_env, entry.gym_id)
        gymnasium.register(
            id=entry.gym_id, entry_point=f"{entry.module}:gym_env", vector_entry_point=vector_entry_point
        )
        pettingzoo.register("aec", entry.pettingzoo_id, entry_point=f"{entry.module}:env")
        if entry.parallel:
            pettingzoo.register("parallel", entry.pettingzoo_id, entry_point=f"{entry.module}:parallel_env")


_register_all()

__all__ = ["ENVS", "Game", "GameState", "IllegalActionError", "get_entry", "make_game"]
