"""Rules core of Lost Dice and its variant Keldice (rules: ``docs/rules/lost_dice.md``).

Lost Cities with three custom dice. Each player keeps a score sheet of five colour
columns (R Y B G W). A **turn** starts with a choice, each counting as one of the
player's rolls: **roll** the dice, **pass**, or **take** the throw the previous player
discarded. A throw is then **played** (one die gives the colour, the other two add up to
the value, written in that colour's column) or **discarded**; with no legal play the
player must discard. A discarded throw is **offered** to the other players, from the
discarder's left: the offer is the deciding player's own action, so ``acting_players()``
names whoever is being asked, in or out of the usual turn order.

* Two players: the offer is the first decision of the next player's turn (take / roll /
  pass). The same holds whenever the next player is the only one who could take it.
* Three or four players: each player asked decides take / decline in turn; whoever takes
  it plays it at once and skips their next turn (for the discarder's left neighbour, the
  turn about to start). Then the next player's turn starts as usual.
* Solitaire: a discard is offered to no one.

A player is asked only if they could use the throw (a legal play, a roll left), and a
taken throw must be played. The game ends once every player has used their rolls.

Lost Dice columns rise strictly; ``$`` among the value dice makes an investment
(multiplies the column), allowed while the column holds at most two numbers, at most
three per column. Score per started column: (sum − 20) × (1 + investments), +20 with
eight or more entries. **Keldice** (``variant="keldice"``): no investments; a column runs
strictly up or strictly down, its second number fixing the direction; two value dice with
the same bonus symbol give 2 VP, a wishing stone, or an extra roll taken at once (not
counted as one of the player's rolls); end scoring by tables.

Chance: a per-player **throw tape** drawn once per game from the env's generator; a
player's k-th throw of the game (roll or extra roll) is ``tape[player][k]``, so the same
seed gives every seat the same throws whatever the decisions (common random numbers).
A search expands :meth:`LostDiceState.clone_resampled`, which redraws the throws not yet
thrown (``clone()`` keeps the real ones). :meth:`LostDice.new_chance_state` plays without
a tape: each throw is a chance event over the 216 throw ids, equally likely.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from envs.core import EXPLICIT_CHANCE, Game, GameState
from envs.games.chance import uniform
from envs.games.lost_dice_faces import (
    BONUS_SYMBOLS,
    COLOUR_NAMES,
    COLOURS,
    FACES_PER_DIE,
    INVESTMENT,
    MAX_VALUE,
    NUM_COLOURS,
    NUM_DICE,
    NUM_THROWS,
    VARIANTS,
    Play,
    ThrowTable,
    default_dice_file,
    load_dice,
    throw_table,
)
from envs.text_picture import text_picture

# -- rules constants -----------------------------------------------------------------
BREAK_EVEN = 20  #: a started Lost Dice column costs 20 before its numbers count
MAX_INVESTMENTS = 3
MAX_NUMBERS_FOR_INVESTMENT = 2  #: an investment needs a column with at most two numbers
LONG_COLUMN = 8  #: entries (numbers and investments) for the bonus
LONG_COLUMN_BONUS = 20
#: Keldice end scoring: points for 0, 1, .., 6+ numbers in a colour, and for 0..5+ stones.
KELDICE_COLUMN_POINTS = (0, -4, -3, 2, 3, 6, 10)
KELDICE_STONE_POINTS = (-4, -3, 2, 3, 6, 10)
VP_POINTS = 2
DEFAULT_ROLLS = {"lost_dice": {1: 30, 2: 25, 3: 20, 4: 20}, "keldice": {1: 20, 2: 20, 3: 20, 4: 20}}
#: Keldice columns are strictly monotone over the values 2..MAX_VALUE, so a player writes
#: at most this many numbers: a bound on the extra rolls they can earn.
MAX_PLAYS = NUM_COLOURS * (MAX_VALUE - 1)

# -- action ids ----------------------------------------------------------------------
ROLL, PASS, TAKE, DECLINE, DISCARD = range(5)
PLAY = 5  #: 5..19: die ``d`` (0-based) gives colour ``c``: ``PLAY + NUM_COLOURS * d + c``
NUM_PLAY_ACTIONS = NUM_DICE * NUM_COLOURS
NUM_ACTIONS = PLAY + NUM_PLAY_ACTIONS  # 20
_ACTION_NAMES = ("roll", "pass", "take the offered throw", "decline the offered throw", "discard the throw")


def play_action(die: int, colour: int) -> int:
    """Action id: die ``die`` (0-based) gives colour ``colour`` (0..4, R Y B G W)."""
    if not (0 <= die < NUM_DICE and 0 <= colour < NUM_COLOURS):
        raise ValueError(f"die must be 0..{NUM_DICE - 1} and colour 0..{NUM_COLOURS - 1}, got {die}, {colour}")
    return PLAY + NUM_COLOURS * die + colour


# -- phases --------------------------------------------------------------------------
TURN_START, PLAY_THROW, OFFER = range(3)
#: What the player to act does in each phase, as ``render`` says it.
_PHASE_DOINGS = ("start their turn", "play the throw", "take or leave the throw on offer")

# -- observation layout (offsets into the vector; see the env card) -------------------
OBS_PHASE = slice(0, 3)  #: one-hot: turn start, play a throw, offer decision
OBS_TO_ACT = 3  #: the observer is to act
OBS_OFFERED = 4  #: the throw shown is an offered (discarded) one
OBS_THROW = slice(5, 23)  #: the throw shown: three one-hots of the face (die 1's six faces first)
OBS_PLAY_VALUES = slice(23, 38)  #: per play action: its number / MAX_VALUE (0 if none or an investment)
OBS_PLAY_INVESTMENTS = slice(38, 53)  #: per play action: 1 if it is an investment
OBS_PLAY_BONUS = slice(53, 62)  #: per colour die 1..3: one-hot of the bonus (V, S, E) of the other two
OBS_PLAY_WRITABLE = slice(62, 77)  #: per play action: the observer could write it now
GLOBAL_SIZE = 77
# Inside a column block:
COL_LAST = slice(0, MAX_VALUE + 1)  #: one-hot of the last number written (index 0: none)
COL_COUNT = MAX_VALUE + 1  #: numbers written / (MAX_VALUE - 1)
COL_SUM = COL_COUNT + 1  #: sum of the numbers / SUM_SCALE
COL_INVESTMENTS = slice(COL_SUM + 1, COL_SUM + 1 + MAX_INVESTMENTS + 1)  #: one-hot 0..3
COL_UP = COL_INVESTMENTS.stop  #: Keldice: the column runs up
COL_DOWN = COL_UP + 1  #: Keldice: the column runs down
COL_POINTS = COL_DOWN + 1  #: what the column scores now / column scale
COLUMN_SIZE = COL_POINTS + 1  # 22
# Inside a player block (the observer's first, then the others in seat order after them):
PL_COLUMNS = slice(0, NUM_COLOURS * COLUMN_SIZE)
PL_STONES = PL_COLUMNS.stop  #: Keldice wishing stones / 10 (capped)
PL_VP = PL_STONES + 1  #: Keldice VP symbols / 10 (capped)
PL_SCORE = PL_VP + 1  #: score now / score scale (clipped to [-1, 1])
PL_ROLLS_LEFT = PL_SCORE + 1  #: rolls left / rolls per player
PL_SKIPS = PL_ROLLS_LEFT + 1  #: turns still to skip (after taking offers) / 3, capped
PL_TO_ACT = PL_SKIPS + 1  #: this player is to act
PL_TURN = PL_TO_ACT + 1  #: it is this player's turn (in turn order)
PL_DISCARDER = PL_TURN + 1  #: this player discarded the offered throw
PLAYER_SIZE = PL_DISCARDER + 1  # 118
_STATIC_SIZE = PL_SCORE + 1  # the part of a player block that changes only when they write

SUM_SCALE = sum(range(2, MAX_VALUE + 1))  # 77
COUNT_SCALE = MAX_VALUE - 1
COUNT_CAP = 10  #: stones and VP counts above this read as it in the observation (scaled by it)
_SCALES = {"lost_dice": (200.0, 800.0), "keldice": (10.0, 100.0)}  #: (column, total) score scales

_MASK_TURN_START = np.zeros(NUM_ACTIONS, np.int8)
_MASK_TURN_START[[ROLL, PASS]] = 1
_MASK_TURN_START_OFFER = _MASK_TURN_START.copy()
_MASK_TURN_START_OFFER[TAKE] = 1
_MASK_OFFER = np.zeros(NUM_ACTIONS, np.int8)
_MASK_OFFER[[TAKE, DECLINE]] = 1
for _mask in (_MASK_TURN_START, _MASK_TURN_START_OFFER, _MASK_OFFER):
    _mask.flags.writeable = False
_NO_ACTIONS = np.zeros(NUM_ACTIONS, np.int8)
_NO_ACTIONS.flags.writeable = False
#: Observation entries 0..4 for every (phase, observer to act, throw on offer).
_FLAGS = tuple(
    tuple(tuple(np.array([*np.eye(3)[phase], to_act, offered], np.float32) for offered in (0, 1)) for to_act in (0, 1))
    for phase in range(3)
)
_NO_THROW = np.zeros(GLOBAL_SIZE - OBS_THROW.start, np.float32)  #: entries 5..76 without a throw
_NO_HEAD = np.zeros(GLOBAL_SIZE, np.float32)  #: the global block once the game is over


def lost_dice_column_points(numbers_sum: int, count: int, investments: int) -> int:
    """(sum − 20) × (1 + investments), +20 with eight or more entries; 0 if empty."""
    if count + investments == 0:
        return 0
    bonus = LONG_COLUMN_BONUS if count + investments >= LONG_COLUMN else 0
    return (numbers_sum - BREAK_EVEN) * (1 + investments) + bonus


_ALL_NUMBERS = sum(1 << v for v in range(2, MAX_VALUE + 1))


def allowed_values(last: int, count: int, investments: int, direction: int, keldice: bool) -> int:
    """What a column in this state accepts, as bits: bit ``v`` for the number ``v``, bit 0
    (``INVESTMENT``) for an investment.

    ``last``: the last number written, ``count``: how many, ``direction``: Keldice's +1 up
    / -1 down / 0 not fixed yet. Lost Dice: numbers rise strictly; an investment needs at
    most two numbers and fewer than three investments. Keldice: strictly up or strictly
    down, the second number fixing which (so after one number, anything but an equal one).
    """
    bits = 1 << INVESTMENT if count <= MAX_NUMBERS_FOR_INVESTMENT and investments < MAX_INVESTMENTS else 0
    if not count:
        return bits | _ALL_NUMBERS
    above = _ALL_NUMBERS & ~((2 << last) - 1)
    if not keldice or direction > 0:
        return bits | above
    below = _ALL_NUMBERS & ((1 << last) - 1)
    return bits | (below if direction < 0 else above | below)


def writable(last: int, count: int, investments: int, direction: int, value: int, keldice: bool) -> bool:
    """May ``value`` (a number, or ``INVESTMENT``) be written in a column in this state?"""
    return bool(allowed_values(last, count, investments, direction, keldice) >> value & 1)


def _column_options(table: ThrowTable) -> tuple[dict[int, frozenset], ...]:
    """Per colour: every number the dice can write in it, with the bonuses it can carry
    (``INVESTMENT`` included where a throw offers one)."""
    options: tuple[dict[int, set], ...] = tuple({} for _ in range(NUM_COLOURS))
    for plays in table.plays:
        for play in plays:
            options[play.colour].setdefault(play.value, set()).add(play.bonus)
    return tuple({v: frozenset(b) for v, b in column.items()} for column in options)


@functools.lru_cache(maxsize=64)
def _score_bounds(table: ThrowTable, keldice: bool, rolls: int) -> tuple[float, float]:
    """:meth:`LostDice.score_bounds`, once per dice set, variant and rolls."""
    low, high = _keldice_score_bounds(table, rolls) if keldice else _lost_dice_score_bounds(table, rolls)
    return float(low), float(high)


def _lost_dice_score_bounds(table: ThrowTable, writes: int) -> tuple[int, int]:
    """Exact bounds of a Lost Dice running score with at most ``writes`` entries."""
    columns = []
    for options in _column_options(table):
        numbers = sorted(v for v in options if v != INVESTMENT)
        most_investments = MAX_INVESTMENTS if INVESTMENT in options else 0
        low, high = [0], [0]  # by entries k in the column
        for k in range(1, min(writes, most_investments + len(numbers)) + 1):
            points = [
                (
                    lost_dice_column_points(sum(numbers[: k - i]), k - i, i),
                    lost_dice_column_points(sum(numbers[len(numbers) - k + i :]), k - i, i),
                )
                for i in range(min(k, most_investments) + 1)
                if k - i <= len(numbers)
            ]
            low.append(min(p[0] for p in points))
            high.append(max(p[1] for p in points))
        columns.append((low, high))
    return _spread(columns, writes)


def _spread(columns: list[tuple[list[int], list[int]]], writes: int) -> tuple[int, int]:
    """Least and most total points of columns given by points per entries, sharing ``writes``."""
    low, high = [0] * (writes + 1), [0] * (writes + 1)  # by entries used so far
    for column_low, column_high in columns:
        low = [
            min(low[w - k] + column_low[k] for k in range(min(w, len(column_low) - 1) + 1)) for w in range(writes + 1)
        ]
        high = [
            max(high[w - k] + column_high[k] for k in range(min(w, len(column_high) - 1) + 1))
            for w in range(writes + 1)
        ]
    return min(low), max(high)


def _keldice_score_bounds(table: ThrowTable, rolls: int) -> tuple[int, int]:
    """Exact bounds of a Keldice running score for a player with ``rolls`` rolls."""
    stones_cap = len(KELDICE_STONE_POINTS) - 1
    count_cap = len(KELDICE_COLUMN_POINTS) - 1
    # Every entry but an extra-roll one ends a chain that one roll (or take) started.
    rolls = min(rolls, MAX_PLAYS)
    total = {(0, 0): (0, 0)}  # (rolls used, stones capped) -> (least, most) points of columns and VP
    for options in _column_options(table):
        column = {(0, 0, 0): (0, 0)}  # (numbers capped, rolls used, stones capped) -> (least, most) VP points
        for bonuses in options.values():  # each number at most once: the column is strictly monotone
            grown = dict(column)
            for (count, used, stones), (low, high) in column.items():
                for bonus in bonuses:
                    key = (min(count + 1, count_cap), used + (bonus != "E"), min(stones + (bonus == "S"), stones_cap))
                    if key[1] > rolls:
                        continue
                    gain = VP_POINTS * (bonus == "V")
                    old = grown.get(key)
                    grown[key] = (
                        (low + gain, high + gain)
                        if old is None
                        else (min(old[0], low + gain), max(old[1], high + gain))
                    )
            column = grown
        merged: dict[tuple[int, int], tuple[int, int]] = {}
        for (used, stones), (low, high) in total.items():
            for (count, c_used, c_stones), (c_low, c_high) in column.items():
                key = (used + c_used, min(stones + c_stones, stones_cap))
                if key[0] > rolls:
                    continue
                points = keldice_column_points(count)
                low_new, high_new = low + c_low + points, high + c_high + points
                old = merged.get(key)
                merged[key] = (low_new, high_new) if old is None else (min(old[0], low_new), max(old[1], high_new))
        total = merged
    return (
        min(low + keldice_stone_points(stones) for (_, stones), (low, _) in total.items()),
        max(high + keldice_stone_points(stones) for (_, stones), (_, high) in total.items()),
    )


@functools.lru_cache(maxsize=4096)
def _earlier_numbers(values: tuple[int, ...], size: int, total: int) -> tuple[tuple[int, ...], ...]:
    """Every set of ``size`` distinct ``values`` adding up to ``total``, each ascending."""
    return tuple(chosen for chosen in itertools.combinations(values, size) if sum(chosen) == total)


def keldice_column_points(count: int) -> int:
    return KELDICE_COLUMN_POINTS[min(count, len(KELDICE_COLUMN_POINTS) - 1)]


def keldice_stone_points(stones: int) -> int:
    return KELDICE_STONE_POINTS[min(stones, len(KELDICE_STONE_POINTS) - 1)]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


_COLUMN_BLOCKS: dict[tuple, np.ndarray] = {}


def _column_block(key: tuple) -> np.ndarray:
    """The observation entries of one column (cached by its state; a few thousand at most)."""
    block = _COLUMN_BLOCKS.get(key)
    if block is None:
        last, count, total, investments, direction, points = key
        block = np.zeros(COLUMN_SIZE, np.float32)
        block[COL_LAST.start + last] = 1.0
        block[COL_COUNT] = count / COUNT_SCALE
        block[COL_SUM] = total / SUM_SCALE
        block[COL_INVESTMENTS.start + investments] = 1.0
        if direction:
            block[COL_UP if direction > 0 else COL_DOWN] = 1.0
        block[COL_POINTS] = points
        block = _COLUMN_BLOCKS[key] = _readonly(block)
    return block


_SLOT_MASKS: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray, bool]] = {}


def _slot_masks(slots: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """For the writable play slots of a throw: (action mask with discard, without discard,
    OBS_PLAY_WRITABLE entries, any play), shared read-only arrays."""
    entry = _SLOT_MASKS.get(slots)
    if entry is None:
        must_play = np.zeros(NUM_ACTIONS, np.int8)
        must_play[[PLAY + slot for slot in slots]] = 1
        may_discard = must_play.copy()
        may_discard[DISCARD] = 1
        writable = np.zeros(NUM_PLAY_ACTIONS, np.float32)
        writable[list(slots)] = 1.0
        entry = _SLOT_MASKS[slots] = (_readonly(may_discard), _readonly(must_play), _readonly(writable), bool(slots))
    return entry


def _throw_block(table: ThrowTable, throw: int) -> np.ndarray:
    """Observation entries OBS_THROW..OBS_PLAY_BONUS of a throw."""
    block = np.zeros(OBS_PLAY_WRITABLE.start - OBS_THROW.start, np.float32)
    offset = OBS_THROW.start
    for d, f in enumerate(table.face_indices(throw)):
        block[OBS_THROW.start - offset + FACES_PER_DIE * d + f] = 1.0
    for play in table.plays[throw]:
        a = NUM_COLOURS * play.die + play.colour
        if play.value == INVESTMENT:
            block[OBS_PLAY_INVESTMENTS.start - offset + a] = 1.0
        else:
            block[OBS_PLAY_VALUES.start - offset + a] = play.value / MAX_VALUE
        if play.bonus is not None:
            block[OBS_PLAY_BONUS.start - offset + len(BONUS_SYMBOLS) * play.die + BONUS_SYMBOLS.index(play.bonus)] = 1.0
    block.flags.writeable = False
    return block


class LostDice(Game):
    """Lost Dice (or Keldice) for 1 to 4 players.

    Args:
        num_players: 1 to 4 (default 2). With one player there are no offers.
        variant: ``"lost_dice"`` (default) or ``"keldice"``.
        rolls_per_player: rolls each player has (default 25 for 2 players, 30 solo,
            20 for 3–4; 20 in Keldice).
        dice_file: a YAML file of the three dice's faces (default
            ``envs/games/dice/<variant>.yaml``); validated here.
    """

    name = "lost_dice"
    min_players = 1
    max_players = 4
    default_players = 2
    render_modes = ("ansi", "human", "rgb_array")
    default_variant: ClassVar[str] = "lost_dice"

    def __init__(
        self,
        num_players: int | None = None,
        variant: str | None = None,
        rolls_per_player: int | None = None,
        dice_file: str | Path | None = None,
    ):
        super().__init__(num_players)
        variant = self.default_variant if variant is None else variant
        if variant not in VARIANTS:
            raise ValueError(f"{self.name}: variant must be one of {VARIANTS}, got {variant!r}")
        self.variant = variant
        self.keldice = variant == "keldice"
        if rolls_per_player is None:
            rolls_per_player = DEFAULT_ROLLS[variant][self.num_players]
        if (
            isinstance(rolls_per_player, bool)
            or not isinstance(rolls_per_player, (int, np.integer))
            or rolls_per_player < 1
        ):
            raise ValueError(f"{self.name}: rolls_per_player must be a positive integer, got {rolls_per_player!r}")
        self.rolls_per_player = int(rolls_per_player)
        self.dice_file = None if dice_file is None else str(dice_file)
        self.table = throw_table(load_dice(default_dice_file(variant) if dice_file is None else dice_file, variant))
        #: A throw as a chance event: the 216 throw ids, equally likely.
        self.throw_outcomes = uniform(
            tuple(f"throw {t}: " + " ".join(map(str, faces)) for t, faces in enumerate(self.table.faces))
        )
        self.max_chance_outcomes = NUM_THROWS
        self.throw_blocks = tuple(_throw_block(self.table, t) for t in range(NUM_THROWS))
        #: Per throw, per play: (slot, colour, bit of its value in ``allowed_values``).
        self.play_bits = tuple(
            tuple((NUM_COLOURS * p.die + p.colour, p.colour, 1 << p.value) for p in plays) for plays in self.table.plays
        )
        self.column_scale, self.score_scale = _SCALES[variant]
        #: Player-block entries PL_ROLLS_LEFT..PL_DISCARDER for every (rolls left, skips).
        self.dynamic_blocks = tuple(
            tuple(_readonly(np.array([r / self.rolls_per_player, s / 3, 0, 0, 0], np.float32)) for s in range(4))
            for r in range(self.rolls_per_player + 1)
        )
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (GLOBAL_SIZE + PLAYER_SIZE * self.num_players,)
        n = self.num_players
        self.tape_length = self.rolls_per_player + (MAX_PLAYS if self.keldice else 0)
        # Turn starts, then per throw: its play or discard, the offers, the taker's play.
        self.max_game_length = n * self.rolls_per_player + n * self.tape_length * (n + 1)

    def options(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "variant": self.variant,
            "rolls_per_player": self.rolls_per_player,
            "dice_file": self.dice_file,
        }

    def observation_bounds(self) -> tuple[float, float]:
        return -1.0, 1.0

    def score_bounds(self) -> tuple[float, float]:
        """The least and most a running score can be, exactly, for these dice and rolls
        (computed from the dice's throw table when first asked; the derivation and the
        default dice's figures are in ``docs/rules/lost_dice.md``, *The range of a score*)."""
        return _score_bounds(self.table, self.keldice, self.rolls_per_player)

    def action_name(self, action: int) -> str:
        action = self.check_action(action)
        if action < PLAY:
            return _ACTION_NAMES[action]
        die, colour = divmod(action - PLAY, NUM_COLOURS)
        return f"die {die + 1} as colour → {COLOUR_NAMES[colour]}"

    def new_initial_state(self, rng: np.random.Generator) -> LostDiceState:
        return LostDiceState(self, rng.integers(NUM_THROWS, size=(self.num_players, self.tape_length)).tolist())

    def new_chance_state(self) -> LostDiceState:
        """A game without a tape whose throws are explicit chance events (:mod:`envs.core`)."""
        return LostDiceState(self, EXPLICIT_CHANCE)

    def new_state_from_tape(self, tape) -> LostDiceState:
        """A game whose throws come from ``tape`` (tests, puzzles): one list of throw ids per player.

        A list may be shorter than ``tape_length``; a player who runs out is an error then.
        Throw ids are :meth:`throw` values.
        """
        if len(tape) != self.num_players:
            raise ValueError(
                f"{self.name}: the tape needs one list of throws per player ({self.num_players}), got {len(tape)}"
            )
        rows = [[int(t) for t in row] for row in tape]
        if any(not 0 <= t < NUM_THROWS for row in rows for t in row):
            raise ValueError(f"{self.name}: throw ids must be 0..{NUM_THROWS - 1}")
        return LostDiceState(self, rows)

    @functools.cached_property
    def column_values(self) -> tuple[tuple[int, ...], ...]:
        """Per colour, the numbers the dice can write in it, ascending."""
        return tuple(tuple(sorted(v for v in options if v != INVESTMENT)) for options in _column_options(self.table))

    def sample_state(self, observation: np.ndarray, rng: np.random.Generator) -> LostDiceState:
        """The player to act's view made a full state (see :meth:`envs.core.Game.sample_state`),
        that player in seat 0 (the rules never look at a seat's number, only at the order
        round the table, which the view keeps).

        The view shows every sheet column by column (last number, count, sum, investments,
        direction), the stones, VP, rolls left and skips, whose turn it is and the throw on
        the table. Drawn from ``rng``: the earlier numbers of each column (the rules only
        look at the last one, the count and the sum; any set the colour's dice can write
        that adds up is taken, uniformly) and every throw to come (a fresh tape). Kept as
        the view reads them: stones and VP at their cap of 10 where the score does not say
        more, skips at their cap of 3; and a throw to play may be discarded, as after a
        roll: the view does not say that it was taken (which forbids the discard; the
        player's mask says it).
        """
        obs = self._observation_array(observation)
        if obs[OBS_TO_ACT] < 0.5:
            raise ValueError(f"{self.name}: sample_state needs the observation of the player to act")
        n = self.num_players
        state = self.new_initial_state(rng)
        blocks = [obs[GLOBAL_SIZE + k * PLAYER_SIZE : GLOBAL_SIZE + (k + 1) * PLAYER_SIZE] for k in range(n)]
        for player, block in enumerate(blocks):
            state._write_sheet(player, block, rng)
        turn, discarder = (np.array([block[entry] for block in blocks]) > 0.5 for entry in (PL_TURN, PL_DISCARDER))
        state._phase = int(obs[OBS_PHASE].argmax())
        state._turn = int(turn.argmax())
        state._discarder = int(discarder.argmax()) if discarder.any() else -1
        state._offered = bool(obs[OBS_OFFERED] > 0.5)
        faces = np.flatnonzero(obs[OBS_THROW] > 0.5) % FACES_PER_DIE
        state._throw = self.table.throw_index(faces.tolist()) if len(faces) else -1
        if state._phase == OFFER:  # the others still to ask, as the discard lined them up
            order = [(state._discarder + k) % n for k in range(1, n)]
            asked = [p for p in order if state._can_use(p, state._throw)]
            state._asked = asked[asked.index(0) + 1 :]
        return state

    def throw(self, *faces: str) -> int:
        """The id of the throw showing ``faces``, one per die as written in the dice file ("4/G")."""
        if len(faces) != NUM_DICE:
            raise ValueError(f"a throw shows {NUM_DICE} faces, got {faces!r}")
        indices = []
        for d, text in enumerate(faces):
            names = [str(f) for f in self.table.dice[d]]
            if text not in names:
                raise ValueError(f"die {d + 1} has no face {text!r}; its faces: {', '.join(names)}")
            indices.append(names.index(text))
        return self.table.throw_index(indices)

    def describe_play(self, play: Play) -> str:
        """``"Red 7"``, ``"Yellow investment"``; with Keldice's bonus: ``"Blue 6 + wishing stone"``."""
        what = "investment" if play.value == INVESTMENT else str(play.value)
        bonus = {"V": " + 2 VP", "S": " + wishing stone", "E": " + extra roll"}.get(play.bonus, "")
        return f"{COLOUR_NAMES[play.colour]} {what}{bonus}"


class Keldice(LostDice):
    """Keldice: :class:`LostDice` with ``variant="keldice"`` (its own env, ``keldice_v0``)."""

    name = "keldice"
    default_variant = "keldice"

    def __init__(
        self, num_players: int | None = None, rolls_per_player: int | None = None, dice_file: str | Path | None = None
    ):
        super().__init__(num_players, "keldice", rolls_per_player, dice_file)

    def options(self) -> dict[str, Any]:
        options = super().options()
        del options["variant"]
        return options


class LostDiceState(GameState):
    """A game of Lost Dice or Keldice in progress."""

    game: LostDice

    def __init__(self, game: LostDice, tape: list[list[int]] | None):
        self.game = game
        if tape is None:  # cloning
            return
        n = game.num_players
        self._tape = tape  # never mutated: clones share it
        if tape is EXPLICIT_CHANCE:
            self._chance_queue = []
        self._drawn = [0] * n  # throws each player has drawn from their tape
        self._rolls_left = [game.rolls_per_player] * n
        self._skips = [0] * n
        # Columns: per player, per colour.
        self._numbers = [[[] for _ in range(NUM_COLOURS)] for _ in range(n)]
        self._sums = [[0] * NUM_COLOURS for _ in range(n)]
        self._investments = [[0] * NUM_COLOURS for _ in range(n)]
        self._direction = [[0] * NUM_COLOURS for _ in range(n)]  # Keldice: +1 up, -1 down, 0 not yet
        self._stones = [0] * n
        self._vp = [0] * n
        self._totals = np.zeros(n, np.float64)
        self._stats = [
            dict.fromkeys(("plays", "discards", "passes", "offers_taken", "investments", "extra_rolls"), 0)
            for _ in range(n)
        ]
        self._allowed = [[allowed_values(0, 0, 0, 0, game.keldice)] * NUM_COLOURS for _ in range(n)]
        self._blocks = [None] * n
        self._writable_cache: list[dict] = [{} for _ in range(n)]
        for p in range(n):
            self._settle(p)
        self._phase = TURN_START
        self._turn = 0  # whose turn it is in turn order
        self._player = 0  # who acts now
        self._throw = -1  # the throw shown: to play, or on offer
        self._offered = False  # the throw shown is a discarded one on offer
        self._must_play = False  # the throw was taken: it must be played
        self._discarder = -1
        self._asked: list[int] = []  # players still to ask about the offer (offer phase)
        self._terminal = False

    def _write_sheet(self, player: int, block: np.ndarray, rng: np.random.Generator) -> None:
        """Make ``player``'s sheet, stones, VP, rolls left and skips the ones a view's block of
        that player shows, each column's earlier numbers drawn from ``rng`` (:meth:`LostDice.sample_state`)."""
        game = self.game
        for colour in range(NUM_COLOURS):
            column = block[colour * COLUMN_SIZE : (colour + 1) * COLUMN_SIZE]
            last = int(column[COL_LAST].argmax())
            count = int(np.rint(column[COL_COUNT] * COUNT_SCALE))
            total = int(np.rint(column[COL_SUM] * SUM_SCALE))
            direction = int(column[COL_UP] > 0.5) - int(column[COL_DOWN] > 0.5)
            earlier = tuple(v for v in game.column_values[colour] if (v > last if direction < 0 else v < last))
            choices = _earlier_numbers(earlier, max(count - 1, 0), total - last)
            if not choices:
                raise ValueError(
                    f"{game.name}: no numbers the dice write in {COLOUR_NAMES[colour]} make a column of "
                    f"{count} numbers ending in {last} that adds up to {total}"
                )
            chosen = sorted(choices[rng.integers(len(choices))], reverse=direction < 0)
            self._numbers[player][colour] = chosen + [last] if count else []
            self._sums[player][colour] = total
            self._investments[player][colour] = int(column[COL_INVESTMENTS].argmax())
            self._direction[player][colour] = direction
            self._allowed[player][colour] = allowed_values(
                last, count, self._investments[player][colour], direction, game.keldice
            )
        self._stones[player] = int(np.rint(block[PL_STONES] * COUNT_CAP))
        self._vp[player] = int(np.rint(block[PL_VP] * COUNT_CAP))
        self._rolls_left[player] = int(np.rint(block[PL_ROLLS_LEFT] * game.rolls_per_player))
        self._skips[player] = int(np.rint(block[PL_SKIPS] * 3))
        self._settle(player)
        if game.keldice and abs(block[PL_SCORE]) < 1:  # VP beyond the cap: the score tells them
            self._vp[player] += int(np.rint(block[PL_SCORE] * game.score_scale - self._totals[player])) // VP_POINTS
            self._settle(player)

    # -- the rules ----------------------------------------------------------------------
    def _can_write(self, player: int, play: Play) -> bool:
        return bool(self._allowed[player][play.colour] >> play.value & 1)

    def _legal_plays(self, player: int, throw: int) -> list[Play]:
        return [play for play in self.game.table.plays[throw] if self._can_write(player, play)]

    def _writable(self, player: int, throw: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """What ``player`` can do with ``throw``, remembered until they next write:
        (action mask with discard, without discard, OBS_PLAY_WRITABLE entries, any play)."""
        cache = self._writable_cache[player]
        entry = cache.get(throw)
        if entry is None:
            allowed = self._allowed[player]
            entry = cache[throw] = _slot_masks(
                tuple(slot for slot, c, bit in self.game.play_bits[throw] if allowed[c] & bit)
            )
        return entry

    def _can_use(self, player: int, throw: int) -> bool:
        return self._rolls_left[player] > 0 and self._writable(player, throw)[3]

    def _roll_dice(self, player: int) -> None:
        """``player`` throws the dice: the next throw of their tape, or a chance event."""
        if self._draws_chance(self.game.throw_outcomes, "_thrown"):
            self._thrown(self._draw(player))

    def _thrown(self, throw: int) -> None:
        self._throw = throw

    def _draw(self, player: int) -> int:
        k = self._drawn[player]
        row = self._tape[player]
        if k >= len(row):
            raise RuntimeError(f"{self.game.name}: the throw tape of player {player} ran out after {k} throws")
        self._drawn[player] = k + 1
        return row[k]

    def _write(self, player: int, play: Play) -> None:
        c = play.colour
        if play.value == INVESTMENT:
            self._investments[player][c] += 1
            self._stats[player]["investments"] += 1
        else:
            numbers = self._numbers[player][c]
            if self.game.keldice and len(numbers) == 1:
                self._direction[player][c] = 1 if play.value > numbers[0] else -1
            numbers.append(play.value)
            self._sums[player][c] += play.value
        numbers = self._numbers[player][c]
        self._allowed[player][c] = allowed_values(
            numbers[-1] if numbers else 0,
            len(numbers),
            self._investments[player][c],
            self._direction[player][c],
            self.game.keldice,
        )
        if play.bonus == "V":
            self._vp[player] += 1
        elif play.bonus == "S":
            self._stones[player] += 1
        self._stats[player]["plays"] += 1
        self._settle(player)

    def column_points(self, player: int, colour: int) -> int:
        count = len(self._numbers[player][colour])
        if self.game.keldice:
            return keldice_column_points(count)
        return lost_dice_column_points(self._sums[player][colour], count, self._investments[player][colour])

    def _settle(self, player: int) -> None:
        """Recompute the player's score and their observation block after a write."""
        points = [self.column_points(player, c) for c in range(NUM_COLOURS)]
        total = sum(points)
        if self.game.keldice:
            total += keldice_stone_points(self._stones[player]) + VP_POINTS * self._vp[player]
        self._totals[player] = total
        self._blocks[player] = self._player_block(player, points)
        self._writable_cache[player] = {}

    def _start_turn(self, owner: int) -> None:
        """Hand the turn to the next player after ``owner`` who may roll (or end the game)."""
        player = self._next_turn(owner, consume=True)
        self._throw, self._offered, self._must_play, self._discarder = -1, False, False, -1
        if player is None:
            self._terminal = True
            return
        self._phase, self._turn, self._player = TURN_START, player, player

    def _next_turn(self, owner: int, consume: bool) -> int | None:
        """The player whose turn follows ``owner``'s: rolls left, skipped turns used up."""
        if not any(self._rolls_left):
            return None
        skips = self._skips if consume else self._skips[:]
        n = self.game.num_players
        player = owner
        while True:
            player = (player + 1) % n
            if self._rolls_left[player] == 0:
                continue
            if skips[player]:
                skips[player] -= 1
                continue
            return player

    def _throw_done(self, player: int, play: Play | None) -> None:
        """After ``player`` played ``play`` (None: discarded) the throw on the table."""
        if play is not None and play.bonus == "E":
            self._stats[player]["extra_rolls"] += 1
            self._must_play = False
            self._roll_dice(player)
            return
        if play is None:
            self._offer(player, self._throw)
        else:
            self._start_turn(self._turn)

    def _offer(self, discarder: int, throw: int) -> None:
        """Offer a discarded throw round the table from the discarder's left."""
        n = self.game.num_players
        asked = [p for p in ((discarder + k) % n for k in range(1, n)) if self._can_use(p, throw)]
        if not asked:
            self._start_turn(self._turn)
            return
        self._discarder = discarder
        if asked == [self._next_turn(self._turn, consume=False)]:  # the next player alone: their turn's choice
            self._start_turn(self._turn)
            self._throw, self._offered, self._discarder = throw, True, discarder
            return
        self._phase, self._player, self._throw, self._offered = OFFER, asked[0], throw, True
        self._asked = asked[1:]

    def legal_mask(self, player: int) -> np.ndarray:
        if self._terminal or player != self._player:
            return _NO_ACTIONS
        if self._phase == TURN_START:
            return _MASK_TURN_START_OFFER if self._offered else _MASK_TURN_START
        if self._phase == OFFER:
            return _MASK_OFFER
        may_discard, must_play, _, _ = self._writable(player, self._throw)
        return must_play if self._must_play else may_discard

    def apply(self, player: int, action: int) -> None:
        if type(action) is not int:
            action = self.game.check_action(action)
        if self._terminal or player != self._player:
            raise self.illegal_action_error(player, action)
        phase = self._phase
        if phase == PLAY_THROW:
            if action == DISCARD and not self._must_play:
                self._stats[player]["discards"] += 1
                self._throw_done(player, None)
                return
            if action < PLAY or not self._writable(player, self._throw)[0][action]:
                raise self.illegal_action_error(player, action)
            play = self.game.table.by_slot[self._throw][action - PLAY]
            self._write(player, play)
            self._throw_done(player, play)
        elif phase == TURN_START:
            if action == ROLL:
                self._rolls_left[player] -= 1
                self._roll_dice(player)
                self._offered, self._discarder = False, -1
                self._phase = PLAY_THROW
            elif action == PASS:
                self._rolls_left[player] -= 1
                self._stats[player]["passes"] += 1
                self._start_turn(player)
            elif action == TAKE and self._offered:
                self._take(player)
            else:
                raise self.illegal_action_error(player, action)
        elif action == TAKE:  # offer phase: asked out of turn order
            self._skips[player] += 1
            self._take(player)
        elif action == DECLINE:
            if self._asked:
                self._player = self._asked.pop(0)
            else:
                self._start_turn(self._turn)
        else:
            raise self.illegal_action_error(player, action)

    def _take(self, player: int) -> None:
        self._rolls_left[player] -= 1
        self._stats[player]["offers_taken"] += 1
        self._phase, self._player, self._offered, self._must_play, self._discarder = PLAY_THROW, player, False, True, -1
        self._asked = []

    # -- views --------------------------------------------------------------------------
    def acting_players(self) -> tuple[int, ...]:
        return () if self._terminal else (self._player,)

    def scores(self) -> np.ndarray:
        return self._totals.copy()

    def is_terminal(self) -> bool:
        return self._terminal

    def _player_block(self, player: int, points: list[int]) -> np.ndarray:
        """The part of a player's observation block that changes only when they write."""
        game = self.game
        parts = []
        for c in range(NUM_COLOURS):
            numbers = self._numbers[player][c]
            key = (
                numbers[-1] if numbers else 0,
                len(numbers),
                self._sums[player][c],
                self._investments[player][c],
                self._direction[player][c],
                points[c] / game.column_scale,
            )
            parts.append(_column_block(key))
        score = max(-1.0, min(1.0, float(self._totals[player]) / game.score_scale))
        parts.append(
            np.array(
                [min(self._stones[player], COUNT_CAP) / COUNT_CAP, min(self._vp[player], COUNT_CAP) / COUNT_CAP, score],
                np.float32,
            )
        )
        return _readonly(np.concatenate(parts))

    def observe(self, player: int) -> np.ndarray:
        game = self.game
        n = game.num_players
        throw = self._throw
        if self._terminal:
            parts = [_NO_HEAD]
        elif throw < 0:
            parts = [_FLAGS[self._phase][player == self._player][0], _NO_THROW]
        else:
            parts = [
                _FLAGS[self._phase][player == self._player][self._offered],
                game.throw_blocks[throw],
                self._writable(player, throw)[2],
            ]
        dynamic = game.dynamic_blocks
        for k in range(n):
            p = (player + k) % n
            parts.append(self._blocks[p])
            parts.append(dynamic[self._rolls_left[p]][min(self._skips[p], 3)])
        obs = np.concatenate(parts)
        if not self._terminal:
            obs[GLOBAL_SIZE + (self._player - player) % n * PLAYER_SIZE + PL_TO_ACT] = 1.0
            obs[GLOBAL_SIZE + (self._turn - player) % n * PLAYER_SIZE + PL_TURN] = 1.0
            if self._discarder >= 0:
                obs[GLOBAL_SIZE + (self._discarder - player) % n * PLAYER_SIZE + PL_DISCARDER] = 1.0
        return obs

    @property
    def phase(self) -> int:
        """``TURN_START``, ``PLAY_THROW`` or ``OFFER``."""
        return self._phase

    @property
    def throw(self) -> int | None:
        """The throw shown (to play, or on offer), or None."""
        return None if self._throw < 0 else self._throw

    @property
    def offered(self) -> bool:
        """The throw shown is a discarded one on offer."""
        return self._offered

    def rolls_left(self, player: int) -> int:
        return self._rolls_left[player]

    def column(self, player: int, colour: int) -> tuple[int, tuple[int, ...]]:
        """``(investments, numbers in the order written)`` of a column."""
        return self._investments[player][colour], tuple(self._numbers[player][colour])

    def wishing_stones(self, player: int) -> int:
        return self._stones[player]

    def vp_symbols(self, player: int) -> int:
        return self._vp[player]

    def legal_plays(self, player: int) -> list[Play]:
        """The plays ``player`` could write with the throw shown (empty without a throw)."""
        return [] if self._throw < 0 else self._legal_plays(player, self._throw)

    def stats(self, player: int) -> dict[str, float]:
        stats = {k: float(v) for k, v in self._stats[player].items()}
        stats["colours_started"] = float(
            sum(1 for c in range(NUM_COLOURS) if self._numbers[player][c] or self._investments[player][c])
        )
        if not self.game.keldice:
            stats.pop("extra_rolls")
        else:
            stats.pop("investments")
        return stats

    def render_rgb(self) -> np.ndarray:
        """The ``render()`` score sheet and throw as a picture (:mod:`envs.text_picture`)."""
        return text_picture(self.render(), columns=max(64, 31 * self.game.num_players), lines=13)

    def render(self) -> str:
        game = self.game
        n = game.num_players
        title = "Keldice" if game.keldice else "Lost Dice"
        if self._terminal:
            lines = [f"{title} - game over"]
        else:
            whose = "" if self._player == self._turn else f" (player {self._turn}'s turn)"
            lines = [f"{title} - player {self._player} to {_PHASE_DOINGS[self._phase]}{whose}"]
            if self._throw >= 0:
                faces = " ".join(str(f) for f in game.table.faces[self._throw])
                origin = f" offered by player {self._discarder}" if self._offered else ""
                lines.append(f"throw on the table: {faces}{origin}")
        sheets = [self._sheet(p) for p in range(n)]
        width = max(len(line) for sheet in sheets for line in sheet)
        height = max(len(s) for s in sheets)
        lines.append("   ".join(f"{f'player {p}':<{width}}" for p in range(n)))
        for row in range(height):
            lines.append("   ".join(f"{(s[row] if row < len(s) else ''):<{width}}" for s in sheets).rstrip())
        return "\n".join(lines)

    def _sheet(self, player: int) -> list[str]:
        """The score sheet "R Y B G W" with each column's entries underneath."""
        columns = []
        for c in range(NUM_COLOURS):
            entries = ["$"] * self._investments[player][c] + [str(v) for v in self._numbers[player][c]]
            columns.append(entries)
        depth = max(len(e) for e in columns)
        lines = ["".join(f"{c:>4}" for c in COLOURS)]
        lines += ["".join(f"{(col[r] if r < len(col) else '.'):>4}" for col in columns) for r in range(depth)]
        lines.append("".join(f"{self.column_points(player, c):>4}" for c in range(NUM_COLOURS)) + "  points")
        extra = f" stones {self._stones[player]} VP {self._vp[player]}" if self.game.keldice else ""
        lines.append(f"score {int(self._totals[player])}{extra}")
        lines.append(
            f"rolls left {self._rolls_left[player]}" + (f", skips {self._skips[player]}" if self._skips[player] else "")
        )
        return lines

    def clone_resampled(self, rng: np.random.Generator) -> LostDiceState:
        """A copy with every throw not yet thrown redrawn from ``rng``.

        The sheets, the throw on the table (to play or on offer) and the throws already
        thrown stay; each player's tape from their next throw on is replaced by a fresh
        draw of the whole tape from ``rng``, so the future depends on ``rng`` alone.
        """
        if self.is_chance_node():
            raise ValueError(f"{self.game.name}: clone_resampled() needs the pending chance event resolved first")
        other = self.clone()
        other._chance_queue = None
        fresh = rng.integers(NUM_THROWS, size=(self.game.num_players, self.game.tape_length)).tolist()
        if self._tape is EXPLICIT_CHANCE:  # no throw came from a tape: the whole tape is the future
            other._tape, other._drawn = fresh, [0] * self.game.num_players
        else:
            other._tape = [row[:k] + new[k:] for row, new, k in zip(self._tape, fresh, self._drawn)]
        return other

    def clone(self) -> LostDiceState:
        other = LostDiceState(self.game, None)
        other.__dict__.update(self.__dict__)
        other._drawn = self._drawn[:]
        other._rolls_left = self._rolls_left[:]
        other._skips = self._skips[:]
        other._numbers = [[col[:] for col in cols] for cols in self._numbers]
        other._sums = [row[:] for row in self._sums]
        other._investments = [row[:] for row in self._investments]
        other._allowed = [row[:] for row in self._allowed]
        other._direction = [row[:] for row in self._direction]
        other._stones = self._stones[:]
        other._vp = self._vp[:]
        other._totals = self._totals.copy()
        other._stats = [dict(s) for s in self._stats]
        other._blocks = self._blocks[:]  # blocks are replaced, never mutated
        other._asked = self._asked[:]
        other._writable_cache = [dict(cache) for cache in self._writable_cache]  # entries are read-only
        if self._chance_queue is not None:
            other._chance_queue = self._chance_queue[:]
        return other


__all__ = [
    "DECLINE",
    "DISCARD",
    "Keldice",
    "LostDice",
    "LostDiceState",
    "NUM_ACTIONS",
    "PASS",
    "PLAY",
    "ROLL",
    "TAKE",
    "play_action",
]
