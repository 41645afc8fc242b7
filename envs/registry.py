"""Where every environment of the collection is listed, once.

Adding a game is: its rules core in ``envs/games/``, its env module with the env card in
``envs/<name>_v<N>.py``, and one :class:`EnvEntry` here. Training, evaluation, the
benchmark and the registrations with Gymnasium and PettingZoo read this list.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from envs.core import Game

#: PettingZoo registry namespace: ``pettingzoo.make("aec", "tabletop/inverted_dice_v0")``
#: (and ``pettingzoo.make("parallel", ...)`` for the simultaneous games).
PETTINGZOO_NAMESPACE = "tabletop"


@dataclass(frozen=True)
class EnvEntry:
    name: str  #: game name used by the CLI and configs, e.g. ``"inverted_dice"``
    module: str  #: PettingZoo-style env module, e.g. ``"envs.inverted_dice_v0"``
    gym_id: str  #: Gymnasium id of the single-agent env, e.g. ``"InvertedDice-v0"``
    #: the module also offers ``parallel_env`` (its game is ``simultaneous``); read here so
    #: that ``import envs`` registers the Parallel form without importing every game
    parallel: bool = False
    #: module of the game's batched rules twin (:mod:`envs.batched`), whose
    #: ``BATCHED_GAME`` class the native vector env runs; ``None`` for none
    batched: str | None = None

    @property
    def versioned_name(self) -> str:
        return self.module.rsplit(".", 1)[1]

    @property
    def pettingzoo_id(self) -> str:
        return f"{PETTINGZOO_NAMESPACE}/{self.versioned_name}"

    def load_module(self) -> ModuleType:
        return importlib.import_module(self.module)

    def game_class(self) -> type[Game]:
        return self.load_module().GAME

    def batched_class(self):
        """The game's :class:`envs.batched.rules.BatchedGame` twin (imports Numba)."""
        if self.batched is None:
            raise ValueError(f"{self.name} has no batched rules twin")
        return importlib.import_module(self.batched).BATCHED_GAME


ENVS: dict[str, EnvEntry] = {
    entry.name: entry
    for entry in (
        EnvEntry("inverted_dice", "envs.inverted_dice_v1", "InvertedDice-v1", batched="envs.batched.inverted_dice"),
        EnvEntry("six_hundred", "envs.six_hundred_v0", "SixHundred-v0", batched="envs.batched.six_hundred"),
        EnvEntry("invers", "envs.invers_v0", "Invers-v0", batched="envs.batched.invers"),
        EnvEntry("roll_five", "envs.roll_five_v0", "RollFive-v0", parallel=True, batched="envs.batched.roll_five"),
        EnvEntry("lost_dice", "envs.lost_dice_v0", "LostDice-v0", batched="envs.batched.lost_dice"),
        EnvEntry("keldice", "envs.keldice_v0", "Keldice-v0", batched="envs.batched.lost_dice"),
    )
}


#: Superseded versions, still registered with Gymnasium and PettingZoo so that code and
#: agents written for them keep working; training and evaluation use :data:`ENVS`.
LEGACY_ENVS: tuple[EnvEntry, ...] = (EnvEntry("inverted_dice", "envs.inverted_dice_v0", "InvertedDice-v0"),)


def get_entry(name: str) -> EnvEntry:
    """The entry of env ``name``, or a ``KeyError`` that lists the known names."""
    try:
        return ENVS[name]
    except KeyError:
        raise KeyError(f"unknown env {name!r}; known envs: {', '.join(sorted(ENVS))}") from None


def game_title(name: str) -> str:
    """The game's name in words, as pages and menus write it: ``inverted_dice`` -> "Inverted Dice"."""
    return name.replace("_", " ").title()


def make_game(name: str, **options) -> Game:
    """A :class:`Game` object of env ``name`` with the given options."""
    return get_entry(name).game_class()(**options)
