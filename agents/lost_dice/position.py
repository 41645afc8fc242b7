"""What a Lost Dice / Keldice player sees, read back from the observation vector.

Bots get exactly what an env gives a player (observation and mask), so they decode the
observation with the offsets the rules core publishes; nothing else is shared with the
game state. Lost Dice hides nothing, so the view holds everything a bot needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.games import lost_dice as rules
from envs.games.lost_dice_faces import FACES_PER_DIE, NUM_COLOURS, NUM_DICE


@dataclass(frozen=True)
class Column:
    last: int  #: the last number written (0: none)
    count: int  #: numbers written
    total: int  #: their sum
    investments: int
    direction: int  #: Keldice: +1 up, -1 down, 0 not fixed yet (Lost Dice: always 0)

    @property
    def started(self) -> bool:
        return self.count + self.investments > 0


@dataclass(frozen=True)
class Sheet:
    """One player's score sheet and what is left of their game."""

    columns: tuple[Column, ...]
    stones: int
    vp: int
    rolls_left: int


@dataclass(frozen=True)
class Position:
    phase: int  #: ``rules.TURN_START``, ``PLAY_THROW`` or ``OFFER``
    throw: int | None  #: the throw shown (to play or on offer)
    offered: bool
    sheets: tuple[Sheet, ...]  #: the observer's first, then the others in seat order after them


def _column(block: np.ndarray) -> Column:
    direction = 1 if block[rules.COL_UP] > 0.5 else -1 if block[rules.COL_DOWN] > 0.5 else 0
    return Column(
        last=int(np.argmax(block[rules.COL_LAST])),
        count=int(round(float(block[rules.COL_COUNT]) * (rules.MAX_VALUE - 1))),
        total=int(round(float(block[rules.COL_SUM]) * rules.SUM_SCALE)),
        investments=int(np.argmax(block[rules.COL_INVESTMENTS])),
        direction=direction,
    )


def read_position(game: rules.LostDice, observation: np.ndarray) -> Position:
    """The position encoded in ``observation`` (see the env card for the layout)."""
    sheets = []
    for k in range(game.num_players):
        block = observation[rules.GLOBAL_SIZE + rules.PLAYER_SIZE * k : rules.GLOBAL_SIZE + rules.PLAYER_SIZE * (k + 1)]
        columns = tuple(_column(block[rules.COLUMN_SIZE * c : rules.COLUMN_SIZE * (c + 1)]) for c in range(NUM_COLOURS))
        sheets.append(
            Sheet(
                columns,
                stones=int(round(float(block[rules.PL_STONES]) * 10)),
                vp=int(round(float(block[rules.PL_VP]) * 10)),
                rolls_left=int(round(float(block[rules.PL_ROLLS_LEFT]) * game.rolls_per_player)),
            )
        )
    faces = observation[rules.OBS_THROW].reshape(NUM_DICE, FACES_PER_DIE)
    throw = game.table.throw_index(np.argmax(faces, axis=1).tolist()) if faces.any() else None
    return Position(
        phase=int(np.argmax(observation[rules.OBS_PHASE])),
        throw=throw,
        offered=bool(observation[rules.OBS_OFFERED] > 0.5),
        sheets=tuple(sheets),
    )
