"""The Invers board size and tile encoding, shared by the rules core and its picture.

Both :mod:`envs.games.invers` (the rules) and :mod:`envs.games.invers_picture` (the
``rgb_array`` drawing) read a tile the same way; this module lies below both, so the
rules can import the picture at module level without an import cycle. The rules core
re-exports every name here: ``from envs.games.invers import FLIPPED`` keeps working.
"""

from __future__ import annotations

SIZE = 6
CELLS = SIZE * SIZE
YELLOW, RED = 0, 1  # a colour is also the seat of the player who owns it

# A tile is one small int: bit 0 its colour, bit 1 set once it is flipped (dot side up).
FLIPPED = 2
TILE_LETTERS = "YRyr"  # colour side up: Y, R; dot side up: y, r


def flipped(tile: int) -> int:
    """The tile turned dot side up (unchanged if it already is)."""
    return tile | FLIPPED


def is_flipped(tile: int) -> bool:
    return bool(tile & FLIPPED)


def colour(tile: int) -> int:
    return tile & 1
