"""The ``rgb_array`` picture of a game whose table is best shown as its text rendering.

Lost Dice's score sheet ("R Y B G W" columns with the throw on the table) and Roll
Five's rows of cards and dice are already laid out as text by their states' ``render()``;
this draws that text onto a fixed-size canvas, one character per cell of a grid, so the
columns line up whatever font Pillow has. The canvas size depends only on the
``columns`` and ``lines`` a game declares for its player count, so every frame of a game
has the same size (videos need that); longer text is clipped.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_SIZE = 13
CELL_WIDTH = 8  # pixels per character
LINE_HEIGHT = 17  # pixels per line
MARGIN = 10
PAPER = (246, 241, 226)
INK = (34, 34, 34)


@cache
def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default(size=FONT_SIZE)


def text_picture(text: str, columns: int, lines: int) -> np.ndarray:
    """``(height, width, 3)`` ``uint8`` picture of ``text`` on a ``columns`` x ``lines`` grid."""
    width = 2 * MARGIN + columns * CELL_WIDTH
    height = 2 * MARGIN + lines * LINE_HEIGHT
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    font = _font()
    for row, line in enumerate(text.split("\n")[:lines]):
        y = MARGIN + row * LINE_HEIGHT
        for column, char in enumerate(line[:columns]):
            if not char.isspace():
                draw.text((MARGIN + column * CELL_WIDTH, y), char, fill=INK, font=font)
    return np.asarray(image)
