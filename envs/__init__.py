"""Gymnasium and PettingZoo environments of five tabletop dice and board games.

``import envs`` registers every env with Gymnasium (``gymnasium.make("InvertedDice-v0")``)
and with PettingZoo's registry (``pettingzoo.make("aec", "tabletop/inverted_dice_v0")``);
the PettingZoo-style modules are imported as ``from envs import inverted_dice_v0``.
"""

import gymnasium
import pettingzoo

from envs.core import Game, GameState, IllegalActionError
from envs.registry import ENVS, LEGACY_ENVS, get_entry, make_game


def _register_all() -> None:
    for entry in (*ENVS.values(), *LEGACY_ENVS):
        gymnasium.register(id=entry.gym_id, entry_point=f"{entry.module}:gym_env")
        pettingzoo.register("aec", entry.pettingzoo_id, entry_point=f"{entry.module}:env")


_register_all()

__all__ = ["ENVS", "Game", "GameState", "IllegalActionError", "get_entry", "make_game"]
