"""The faces of Lost Dice's and Keldice's three custom dice, and every throw they can show.

The faces are data, not code: one YAML file per dice set, shipped inside the package
(``envs/games/dice/lost_dice.yaml``, ``envs/games/dice/keldice.yaml``, read with
:mod:`importlib.resources`, so an installed wheel finds them from any directory); a
player with their own printed dice passes the path of their file as ``dice_file=``. A file
is validated when a game is made; a malformed one is a :class:`DiceFileError` naming the
file, the die and the face.

From a dice set this module builds, once, the table of the 216 throws (die 1's face,
die 2's face, die 3's face) and of the plays each throw offers: one die gives the colour
(black ``K`` or ``$`` as colour is wild: any of the five colours), the other two add up
to the value, and a ``$`` among those two makes the play an investment instead.
"""

from __future__ import annotations

import functools
import itertools
import os
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import yaml

NUM_DICE = 3
FACES_PER_DIE = 6
NUM_THROWS = FACES_PER_DIE**NUM_DICE  # 216
COLOURS = "RYBGW"  #: the five columns of the score sheet, in its order
COLOUR_NAMES = ("Red", "Yellow", "Blue", "Green", "White")
NUM_COLOURS = len(COLOURS)
WILD = "K"  #: black: any colour when it gives the colour
INVESTMENT_MARK = "$"
BONUS_SYMBOLS = "VSE"  #: Keldice: 2 victory points, wishing stone, extra roll
NO_BONUS = "-"
MIN_NUMBER, MAX_NUMBER = 1, 6  #: the numbers a face may show
MAX_VALUE = 2 * MAX_NUMBER  #: the highest value two dice can add up to
INVESTMENT = 0  #: the value of a play that is an investment (numbers are 2..MAX_VALUE)
VARIANTS = ("lost_dice", "keldice")

#: The default dice files: package data of ``envs.games`` (``dice/<variant>.yaml``).
DICE_DIR = resources.files("envs.games") / "dice"


class DiceFileError(ValueError):
    """A dice file that cannot be used as written."""


@dataclass(frozen=True)
class Face:
    number: int | None  #: 1..6, or None for ``$``
    colour: str  #: one of ``RYBGWK``
    bonus: str | None = None  #: Keldice's symbol ``V``/``S``/``E`` or ``-`` (none); None in Lost Dice

    @property
    def wild(self) -> bool:
        """Gives any colour when used as the colour die (black, or ``$``)."""
        return self.colour == WILD or self.number is None

    def __str__(self) -> str:
        number = INVESTMENT_MARK if self.number is None else str(self.number)
        bonus = "" if self.bonus is None else f"/{self.bonus}"
        return f"{number}/{self.colour}{bonus}"


@dataclass(frozen=True)
class Play:
    """One way to write a throw: die ``die`` gives colour ``colour``; the other two the value."""

    die: int  #: 0-based die giving the colour
    colour: int  #: 0..4, index into ``COLOURS``
    value: int  #: 2..MAX_VALUE, or ``INVESTMENT``
    bonus: str | None  #: the symbol both value dice show (Keldice), else None


def default_dice_file(variant: str) -> Traversable:
    """The dice file shipped for ``variant``, as package data."""
    return DICE_DIR / f"{variant}.yaml"


def load_dice(path: str | os.PathLike | Traversable, variant: str) -> tuple[tuple[Face, ...], ...]:
    """Read and validate the dice file at ``path`` (a path, or a packaged file) for ``variant``:
    three dice of six faces."""
    if isinstance(path, (str, os.PathLike)):
        path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DiceFileError(f"dice file {path} does not exist") from None
    except IsADirectoryError:
        raise DiceFileError(f"dice file {path} is a folder, not a file") from None
    except UnicodeDecodeError as error:
        raise DiceFileError(
            f"dice file {path} is not a text file (byte {error.start} is not UTF-8): expected YAML listing "
            f"the faces of the three dice, like envs/games/dice/{variant}.yaml"
        ) from None
    except OSError as error:
        raise DiceFileError(f"dice file {path} cannot be read: {error.strerror or error}") from None
    except yaml.YAMLError as error:
        raise DiceFileError(f"dice file {path} is not valid YAML: {error}") from None
    if not isinstance(raw, dict) or set(raw) != {"variant", "dice"}:
        raise DiceFileError(f"dice file {path}: expected exactly the keys 'variant' and 'dice'")
    if raw["variant"] != variant:
        raise DiceFileError(f"dice file {path} is for variant {raw['variant']!r}, not {variant!r}")
    dice = raw["dice"]
    if not isinstance(dice, list) or len(dice) != NUM_DICE:
        raise DiceFileError(f"dice file {path}: 'dice' must list {NUM_DICE} dice, got {dice!r}")
    parsed = []
    for d, faces in enumerate(dice, start=1):
        if not isinstance(faces, list) or len(faces) != FACES_PER_DIE:
            count = len(faces) if isinstance(faces, list) else faces
            raise DiceFileError(f"dice file {path}, die {d}: expected {FACES_PER_DIE} faces, got {count!r}")
        parsed.append(
            tuple(
                _parse_face(face, variant, f"dice file {path}, die {d}, face {f}")
                for f, face in enumerate(faces, start=1)
            )
        )
    return tuple(parsed)


def _parse_face(text, variant: str, where: str) -> Face:
    keldice = variant == "keldice"
    form = "number/colour/bonus" if keldice else "number/colour"
    if not isinstance(text, str):
        raise DiceFileError(f"{where}: expected a string '{form}', got {text!r}")
    parts = text.strip().split("/")
    if len(parts) != (3 if keldice else 2):
        raise DiceFileError(f"{where}: expected '{form}', got {text!r}")
    number, colour = parts[0].strip(), parts[1].strip().upper()
    if number == INVESTMENT_MARK:
        if keldice:
            raise DiceFileError(f"{where}: Keldice has no investments, so no '$' face ({text!r})")
        value = None
    elif number.isdigit() and MIN_NUMBER <= int(number) <= MAX_NUMBER:
        value = int(number)
    else:
        raise DiceFileError(f"{where}: number must be {MIN_NUMBER}..{MAX_NUMBER} or '$', got {number!r}")
    if len(colour) != 1 or colour not in COLOURS + WILD:
        raise DiceFileError(f"{where}: unknown colour {parts[1]!r}; expected one of {', '.join(COLOURS + WILD)}")
    bonus = None
    if keldice:
        symbol = parts[2].strip().upper()
        if symbol not in BONUS_SYMBOLS + NO_BONUS or len(symbol) != 1:
            raise DiceFileError(f"{where}: unknown bonus symbol {parts[2]!r}; expected one of V, S, E, -")
        bonus = symbol
    return Face(value, colour, bonus)


@dataclass(frozen=True)
class ThrowTable:
    """Every throw of a dice set and the plays it offers, computed once per dice set."""

    dice: tuple[tuple[Face, ...], ...]
    faces: tuple[tuple[Face, Face, Face], ...]  #: ``faces[t]``: the three faces of throw ``t``
    plays: tuple[tuple[Play, ...], ...]  #: ``plays[t]``: every (colour die, colour) of throw ``t``
    #: ``by_slot[t][NUM_COLOURS * die + colour]``: that play of throw ``t``, or None
    by_slot: tuple[tuple[Play | None, ...], ...]

    def throw_index(self, face_indices) -> int:
        """The id of the throw whose die ``d`` shows its face ``face_indices[d]`` (0-based)."""
        a, b, c = face_indices
        return (a * FACES_PER_DIE + b) * FACES_PER_DIE + c

    def face_indices(self, throw: int) -> tuple[int, int, int]:
        return throw // 36, throw // FACES_PER_DIE % FACES_PER_DIE, throw % FACES_PER_DIE


def _plays(faces: tuple[Face, Face, Face]) -> tuple[Play, ...]:
    plays = []
    for die, colour_face in enumerate(faces):
        first, second = (f for d, f in enumerate(faces) if d != die)
        if first.number is None or second.number is None:
            value = INVESTMENT
        else:
            value = first.number + second.number
        bonus = first.bonus if first.bonus in tuple(BONUS_SYMBOLS) and first.bonus == second.bonus else None
        colours = range(NUM_COLOURS) if colour_face.wild else (COLOURS.index(colour_face.colour),)
        plays.extend(Play(die, c, value, bonus) for c in colours)
    return tuple(plays)


@functools.lru_cache(maxsize=16)
def throw_table(dice: tuple[tuple[Face, ...], ...]) -> ThrowTable:
    faces = tuple(itertools.product(*dice))
    plays = tuple(_plays(f) for f in faces)
    by_slot = []
    for throw_plays in plays:
        slots: list[Play | None] = [None] * (NUM_DICE * NUM_COLOURS)
        for play in throw_plays:
            slots[NUM_COLOURS * play.die + play.colour] = play
        by_slot.append(tuple(slots))
    return ThrowTable(dice, faces, plays, tuple(by_slot))
