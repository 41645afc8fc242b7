"""A picture of an Invers position as an ``(H, W, 3)`` ``uint8`` array (numpy only).

The board is drawn as a person sees it: tiles colour side up are filled yellow or red,
flipped tiles are cream with a yellow or red dot. Below the board lie the two tiles in
hand, yellow's on the left and red's on the right; the hand of the player to move is
framed in white. Used by ``render_mode="rgb_array"`` to save pictures and GIFs of games.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.games.invers_tiles import FLIPPED, SIZE, colour

TILE = 40  # pixels per tile, gaps included
GAP = 3
MARGIN = 10
HAND_STRIP = TILE + 2 * MARGIN
WIDTH = 2 * MARGIN + SIZE * TILE
HEIGHT = WIDTH + HAND_STRIP

WOOD = (96, 64, 40)
CREAM = (236, 226, 200)
WHITE = (255, 255, 255)
FILL = ((238, 196, 36), (204, 44, 40))  # yellow, red
DOT_RADIUS = 8


@cache
def _tile_sprite(tile: int) -> np.ndarray:
    """One tile, ``TILE - GAP`` pixels square, on its own (cached per tile code)."""
    side = TILE - GAP
    sprite = np.empty((side, side, 3), np.uint8)
    fill = FILL[colour(tile)]
    if tile & FLIPPED:
        sprite[:] = CREAM
        y, x = np.ogrid[:side, :side]
        centre = (side - 1) / 2
        sprite[(y - centre) ** 2 + (x - centre) ** 2 <= DOT_RADIUS**2] = fill
    else:
        sprite[:] = fill
    sprite.flags.writeable = False
    return sprite


def _paste(image: np.ndarray, tile: int, top: int, left: int) -> None:
    sprite = _tile_sprite(tile)
    image[top : top + sprite.shape[0], left : left + sprite.shape[1]] = sprite


def draw_position(board, hands, to_move: int | None) -> np.ndarray:
    """The picture of ``board`` (36 tile codes), ``hands`` (yellow's, red's) and the mover.

    ``to_move`` is None once the game is over (no hand is framed).
    """
    image = np.empty((HEIGHT, WIDTH, 3), np.uint8)
    image[:] = WOOD
    for cell, tile in enumerate(board):
        row, col = divmod(cell, SIZE)
        _paste(image, tile, MARGIN + row * TILE, MARGIN + col * TILE)
    hand_top = WIDTH + MARGIN
    for player, left in enumerate((MARGIN, WIDTH - MARGIN - TILE)):
        if player == to_move:
            image[hand_top - GAP : hand_top + TILE, left - GAP : left + TILE] = WHITE
        _paste(image, hands[player], hand_top, left)
    return image
