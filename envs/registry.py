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

#: PettingZoo registry namespace: ``pettingzoo.make("aec", "tabletop/inverted_dice_v0")``.
PETTINGZOO_NAMESPACE = "tabletop"


@dataclass(frozen=True)
class EnvEntry:
    name: str  #: game name used by the CLI and configs, e.g. ``"inverted_dice"``
    module: str  #: PettingZoo-style env module, e.g. ``"envs.inverted_dice_v0"``
    gym_id: str  #: Gymnasium id of the single-agent env, e.g. ``"InvertedDice-v0"``

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


ENVS: dict[str, EnvEntry] = {
    entry.name: entry
    for entry in (
        EnvEntry("inverted_dice", "envs.inverted_dice_v1", "InvertedDice-v1"),
        EnvEntry("six_hundred", "envs.six_hundred_v0", "SixHundred-v0"),
        EnvEntry("invers", "envs.invers_v0", "Invers-v0"),
    )
}


#: Superseded versions, still registered with Gymnasium and PettingZoo so that code and
#: agents written for them keep working; training and evaluation use :data:`ENVS`.
LEGACY_ENVS: tuple[EnvEntry, ...] = (
    EnvEntry("inverted_dice", "envs.inverted_dice_v0", "InvertedDice-v0"),
)


def get_entry(name: str) -> EnvEntry:
    """The entry of env ``name``, or a ``KeyError`` that lists the known names."""
    try:
        return ENVS[name]
    except KeyError:
        raise KeyError(f"unknown env {name!r}; known envs: {', '.join(sorted(ENVS))}") from None


def make_game(name: str, **options) -> Game:
    """A :class:`Game` object of env ``name`` with the given options."""
    return get_entry(name).game_class()(**options)
