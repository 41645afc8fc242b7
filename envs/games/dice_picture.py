"""A picture of a dice game as an ``(H, W, 3)`` ``uint8`` array: the dice and the score sheet.

Shared by the dice games' ``render_mode="rgb_array"`` (videos with Gymnasium's
``RecordVideo``, GIFs with ``python -m training.record``). A game passes what a player would
see on the table, already worded: a status line, the dice (locked ones first, drawn
shaded), and the score sheet as rows of text, one column per player. Drawn with Pillow
(no plotting library); a frame takes a few milliseconds. The picture's size depends only
on the number of rows and players, so every frame of a game has the same size.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_SIZE = 13
ROW = 18  # pixels per sheet row
LABEL_WIDTH = 128
COLUMN_WIDTH = 52
MARGIN = 10
DIE = 40  # die side in pixels
DIE_GAP = 8
STATUS_HEIGHT = 22

PAPER = (246, 241, 226)
INK = (34, 34, 34)
RULE = (190, 180, 160)
TABLE = (38, 110, 70)  # the felt the dice lie on
DIE_FACE = (252, 252, 252)
LOCKED_FACE = (205, 215, 235)
TO_ACT = (255, 226, 140)  # the column of the player to act
MARKED = (250, 200, 190)  # a row the game points at (e.g. the box of the inverted sum)

#: Pip centres of each face on a 3×3 grid (row, column).
PIPS = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (0, 2), (2, 0), (2, 2)),
    5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    6: ((0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)),
}


@cache
def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default(size=FONT_SIZE)


def _draw_die(draw: ImageDraw.ImageDraw, left: int, top: int, face: int, locked: bool) -> None:
    draw.rounded_rectangle(
        (left, top, left + DIE, top + DIE), radius=6, fill=LOCKED_FACE if locked else DIE_FACE, outline=INK
    )
    step = DIE / 4
    radius = 4
    for row, col in PIPS[face]:
        x, y = left + step * (col + 1), top + step * (row + 1)
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=INK)


def picture_size(num_dice: int, num_rows: int, num_players: int) -> tuple[int, int]:
    """(height, width) of the picture of a sheet with these dimensions."""
    width = max(2 * MARGIN + LABEL_WIDTH + COLUMN_WIDTH * num_players, 2 * MARGIN + num_dice * (DIE + DIE_GAP) + 80)
    height = STATUS_HEIGHT + DIE + 2 * MARGIN + ROW * (num_rows + 1) + MARGIN
    return height, width


def draw_sheet(
    status: str,
    dice: Sequence[int],
    num_locked: int,
    players: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
    to_act: int | None,
    marked_row: int | None = None,
    num_dice: int | None = None,
) -> np.ndarray:
    """The picture: ``status`` on top, the dice on felt, then the sheet.

    Args:
        status: one line, e.g. "Round 3/20 - player 0 - roll 2/3".
        dice: the faces on the table, left to right; the first ``num_locked`` are locked.
        players: column headings, one per player.
        rows: (label, one cell per player) for every line of the score sheet.
        to_act: the column to highlight (None once the game is over).
        marked_row: index of a row to highlight, or None.
        num_dice: how many dice the game has (fixes the width when fewer are shown).
    """
    height, width = picture_size(num_dice or len(dice), len(rows), len(players))
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    font = _font()
    draw.text((MARGIN, 4), status, fill=INK, font=font)

    felt_top = STATUS_HEIGHT
    draw.rectangle((0, felt_top, width, felt_top + DIE + 2 * MARGIN), fill=TABLE)
    for k, face in enumerate(dice):
        _draw_die(draw, MARGIN + k * (DIE + DIE_GAP), felt_top + MARGIN, int(face), k < num_locked)

    top = felt_top + DIE + 2 * MARGIN + 4
    columns_left = MARGIN + LABEL_WIDTH
    if to_act is not None:
        left = columns_left + COLUMN_WIDTH * to_act
        draw.rectangle((left, top, left + COLUMN_WIDTH - 1, top + ROW * (len(rows) + 1)), fill=TO_ACT)
    if marked_row is not None:
        y = top + ROW * (marked_row + 1)
        draw.rectangle((MARGIN, y, width - MARGIN, y + ROW - 1), fill=MARKED)
    for p, heading in enumerate(players):
        _centred(draw, heading, columns_left + COLUMN_WIDTH * p, top, font)
    for r, (label, cells) in enumerate(rows):
        y = top + ROW * (r + 1)
        draw.line((MARGIN, y, width - MARGIN, y), fill=RULE)
        draw.text((MARGIN + 2, y + 2), label, fill=INK, font=font)
        for p, cell in enumerate(cells):
            _centred(draw, cell, columns_left + COLUMN_WIDTH * p, y, font)
    return np.asarray(image)


def _centred(draw: ImageDraw.ImageDraw, text: str, left: int, top: int, font) -> None:
    text_width = draw.textlength(text, font=font)
    draw.text((left + (COLUMN_WIDTH - text_width) / 2, top + 2), text, fill=INK, font=font)
