"""Gymnasium and PettingZoo environments of five tabletop dice and board games.

``import envs`` registers every env with Gymnasium (``gymnasium.make("InvertedDice-v0")``,
and ``gymnasium.make_vec`` whose batched space samples legal actions: :mod:`envs.vector`)
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


def _register_all() -> None:
    for entry in (*ENVS.values(), *LEGACY_ENVS):
        gymnasium.register(
            id=entry.gym_id,
            entry_point=f"{entry.module}:gym_env",
            vector_entry_point=functools.partial(make_vector_env, entry.gym_id),
        )
        pettingzoo.register("aec", entry.pettingzoo_id, entry_point=f"{entry.module}:env")
        if entry.parallel:
            pettingzoo.register("parallel", entry.pettingzoo_id, entry_point=f"{entry.module}:parallel_env")


_register_all()

__all__ = ["ENVS", "Game", "GameState", "IllegalActionError", "get_entry", "make_game"]
