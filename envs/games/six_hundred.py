"""Rules core of Six Hundred (the rules: ``docs/rules/six_hundred.md``).

Six dice, eighteen categories, eighteen rounds. A turn: roll the six dice; after each
roll the player may **lock** (set aside) some of the unlocked dice and roll the rest
again, at most three rolls in all. Locking is permanent for the turn: a locked die is
never rolled again. After any roll the player may **score**: the six dice are written
into any open category, for 0 points when they do not fit it.

The score sheet, in four sections:

* Numbers (Ones..Sixes): the sum of the dice showing that number. +35 as soon as the six
  Numbers total 80 or more (paid when earned).
* Rungs 1-4: the total of the six dice. When the game ends, unless Rung 1 < Rung 2 <
  Rung 3 < Rung 4 strictly, all four rungs score 0.
* Clusters: Four of a Kind (at least four equal), Five of a Kind (at least five
  equal), Odds (all six odd), Evens (all six even) score the total of the six dice.
* Patterns: Series 30 (1-2-3-4-5-6), Pairs 30 (three pairs; four equal dice count as
  two pairs, six equal as three), Triplets 30 (two triples; six equal count), Sextet 36
  (six equal).

When the game ends the rung penalty is applied first, then the game bonus +36 goes to
every player whose categories all score at least 1, or whose only zero is the Sextet.

:meth:`SixHundredState.scores` is the running total: rungs count at face value while the
game runs and the penalty (and the game bonus) are settled on the last move, so in the
``"score"`` reward mode a broken ladder is paid as one negative reward at the end. The
maximum is 599, not the rule text's 600: Numbers 126 + bonus 35 + rungs 33+34+35+36 =
138 + clusters 36+36+30+36 = 138 + patterns 30+30+30+36 = 126 + game bonus 36.

The dice are shown **locked dice first, in ascending order, then the unlocked dice, in
ascending order**; "die 1" is the leftmost. Chance is the decision-independent dice tape
of :mod:`envs.games.dice_rounds`: a roll of ``k`` dice takes the first ``k`` values of its
row, so the same seed deals every agent the same dice.
:meth:`SixHundred.new_state_from_tape` builds a game on a chosen tape (tests, puzzles).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from envs.games.chance import DICE_ROLLS
from envs.games.dice_rounds import FACES, DiceRoundsGame, DiceRoundsState

NUM_DICE = 6
NUM_ROUNDS = 18
MAX_ROLLS = 3
MIN_TOTAL, MAX_TOTAL = NUM_DICE, NUM_DICE * FACES  # 6..36: the total of six dice

CATEGORY_NAMES = (
    "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes",
    "Rung 1", "Rung 2", "Rung 3", "Rung 4",
    "Four of a Kind", "Five of a Kind", "Odds", "Evens",
    "Series", "Pairs", "Triplets", "Sextet",
)  # fmt: skip
NUM_CATEGORIES = len(CATEGORY_NAMES)  # 18, one per round
NUMBERS = range(0, 6)  #: category ids of Ones..Sixes (category v - 1 counts the v's)
RUNGS = range(6, 10)  #: category ids of Rung 1..4
FOUR_OF_A_KIND, FIVE_OF_A_KIND, ODDS, EVENS, SERIES, PAIRS, TRIPLETS, SEXTET = range(10, 18)
PATTERN_POINTS = {SERIES: 30, PAIRS: 30, TRIPLETS: 30, SEXTET: 36}

NUMBERS_BONUS = 35
NUMBERS_BONUS_THRESHOLD = 80
GAME_BONUS = 36
MAX_CATEGORY_POINTS = 36  #: the most any one category can hold (six sixes)
MAX_SCORE = 126 + NUMBERS_BONUS + (33 + 34 + 35 + 36) + (36 + 36 + 30 + 36) + 126 + GAME_BONUS  # 599

# Action ids.
NUM_LOCKS = 2**NUM_DICE  # 0..63: lock the dice at the set bits, roll the other unlocked dice
SCORE = NUM_LOCKS  # 64..81: score category c with action SCORE + c
NUM_ACTIONS = SCORE + NUM_CATEGORIES  # 82


def lock_action(positions) -> int:
    """Action id that locks the dice at the given 0-based positions and rolls the rest."""
    positions = set(positions)
    if not positions <= set(range(NUM_DICE)):
        raise ValueError(f"positions must be a subset of 0..{NUM_DICE - 1}, got {sorted(positions)!r}")
    return sum(1 << p for p in positions)


def lock_positions(action: int) -> tuple[int, ...]:
    """The 0-based dice positions that lock action ``action`` locks."""
    return tuple(p for p in range(NUM_DICE) if action >> p & 1)


def rolled_positions(action: int, num_locked: int) -> tuple[int, ...]:
    """The 0-based dice positions that lock action ``action`` rolls again while the first
    ``num_locked`` dice are locked: the unlocked dice it does not lock (the rest)."""
    return tuple(p for p in range(num_locked, NUM_DICE) if not action >> p & 1)


def score_action(category: int) -> int:
    """Action id that writes the dice into ``category`` (0..17)."""
    if not 0 <= category < NUM_CATEGORIES:
        raise ValueError(f"category must be in 0..{NUM_CATEGORIES - 1}, got {category!r}")
    return SCORE + category


def category_scores(dice) -> tuple[int, ...]:
    """The points six dice score in each of the 18 categories (0 where they do not fit)."""
    dice = tuple(dice)
    if len(dice) != NUM_DICE or not all(isinstance(v, (int, np.integer)) and 1 <= v <= FACES for v in dice):
        raise ValueError(f"expected six dice values in 1..6, got {dice!r}")
    return _CATEGORY_SCORES[tuple(sorted(int(v) for v in dice))]


def _category_points(dice: tuple[int, ...]) -> tuple[int, ...]:
    """One row of the table below: the points of a sorted roll in every category."""
    counts = [dice.count(v) for v in range(1, FACES + 1)]
    total = sum(dice)
    most = max(counts)
    pairs = sum(c // 2 for c in counts)  # four equal dice are two pairs, six equal three
    triples = sum(c // 3 for c in counts)
    fits = {
        FOUR_OF_A_KIND: most >= 4,
        FIVE_OF_A_KIND: most >= 5,
        ODDS: all(v % 2 for v in dice),
        EVENS: not any(v % 2 for v in dice),
        SERIES: most == 1,
        PAIRS: pairs == 3,
        TRIPLETS: triples == 2,
        SEXTET: most == 6,
    }
    numbers = [v * counts[v - 1] for v in range(1, FACES + 1)]
    rungs = [total] * len(RUNGS)
    clusters = [total if fits[c] else 0 for c in (FOUR_OF_A_KIND, FIVE_OF_A_KIND, ODDS, EVENS)]
    patterns = [PATTERN_POINTS[c] if fits[c] else 0 for c in (SERIES, PAIRS, TRIPLETS, SEXTET)]
    return tuple(numbers + rungs + clusters + patterns)


#: Points in every category of every sorted roll of six dice (462 of them), computed once.
_CATEGORY_SCORES = {
    d: _category_points(d) for d in itertools.combinations_with_replacement(range(1, FACES + 1), NUM_DICE)
}


def rung_windows(rungs) -> tuple[tuple[int, int], ...] | None:
    """The values each rung may hold with the ladder still strictly ascending.

    ``rungs`` holds the four rung values, ``None`` for an open rung. The answer gives,
    per rung, the lowest and highest value (a written rung's own value twice), or
    ``None`` when no way of filling the open rungs makes Rung 1 < ... < Rung 4.
    """
    below = [MIN_TOTAL - 1] * 5  # below[j]: least value rung j-1 can hold (j = 0: virtual)
    for j, value in enumerate(rungs):
        below[j + 1] = below[j] + 1 if value is None else value
    above = [MAX_TOTAL + 1] * 5  # above[j]: greatest value rung j can hold (j = 4: virtual)
    for j in range(len(RUNGS) - 1, -1, -1):
        above[j] = above[j + 1] - 1 if rungs[j] is None else rungs[j]
    windows = tuple((below[j] + 1, above[j + 1] - 1) for j in range(len(RUNGS)))
    for (low, high), value in zip(windows, rungs):
        if low > high or (value is not None and not low <= value <= high):
            return None
    return tuple((low, high) if value is None else (value, value) for (low, high), value in zip(windows, rungs))


def _legal_locks(num_locked: int) -> int:
    """Bitset over actions 0..63: lock only unlocked dice and leave at least one to roll."""
    locked = (1 << num_locked) - 1
    return sum(1 << a for a in range(NUM_LOCKS) if not a & locked and a | locked != NUM_LOCKS - 1)


_LEGAL_LOCKS = tuple(_legal_locks(n) for n in range(NUM_DICE + 1))
_LOCK_MASKS = tuple(np.array([bits >> a & 1 for a in range(NUM_LOCKS)], np.int8) for bits in _LEGAL_LOCKS)
_NO_LOCKS = np.zeros(NUM_LOCKS, np.int8)
_LOCK_POSITIONS = tuple(lock_positions(a) for a in range(NUM_LOCKS))

# Observation layout (offsets into the vector; see the env card).
OBS_DICE = slice(0, 36)  #: six one-hots of the face, die 1 first
OBS_LOCKED = slice(36, 42)
OBS_FACE_COUNTS = slice(42, 48)
OBS_CATEGORY_SCORES = slice(48, 66)  #: what the dice would score in each category now
OBS_ROLL = slice(66, 69)
OBS_OPEN = slice(69, 87)
OBS_SHEET = slice(87, 105)  #: points written, / 36
OBS_RUNG_WINDOWS = slice(105, 113)  #: (lowest, highest) / 36 per rung
OBS_NUMBERS_PROGRESS = 113
OBS_NUMBERS_BONUS = 114
OBS_LADDER_ALIVE = 115
OBS_GAME_BONUS_ALIVE = 116
OBS_SCORE = 117
OBS_TURNS_LEFT = 118
OBS_MY_TURN = 119
OWN_SIZE = 120
OPPONENT_SIZE = 2 * NUM_CATEGORIES + 1  # points written / 36, open flags, score / 599

# The same entries inside the player's sheet block (entries OBS_OPEN.start..OBS_SCORE).
_OPEN_IN_BLOCK = slice(0, NUM_CATEGORIES)
_SHEET_IN_BLOCK = slice(OBS_SHEET.start - OBS_OPEN.start, OBS_SHEET.stop - OBS_OPEN.start)
_SCORE_IN_BLOCK = slice(OBS_SCORE - OBS_OPEN.start, OBS_SCORE - OBS_OPEN.start + 1)

_NO_WINDOWS = [0.0] * (OBS_RUNG_WINDOWS.stop - OBS_RUNG_WINDOWS.start)
_ROLL_ONE_HOT = np.eye(MAX_ROLLS, dtype=np.float32)
#: Observation entries OBS_TURNS_LEFT and OBS_MY_TURN for every (turns left, to act).
_TURN_BLOCKS = tuple(tuple(np.array([t / NUM_ROUNDS, a], np.float32) for a in (0, 1)) for t in range(NUM_ROUNDS + 1))
_DICE_BLOCKS: dict[tuple[tuple[int, ...], tuple[int, ...]], np.ndarray] = {}


def _dice_block(locked: tuple[int, ...], free: tuple[int, ...]) -> np.ndarray:
    """Observation entries 0..65 for the dice on the table (cached: at most ~12,000)."""
    block = _DICE_BLOCKS.get((locked, free))
    if block is None:
        dice = locked + free
        hand = tuple(sorted(dice))
        block = np.zeros(OBS_CATEGORY_SCORES.stop, np.float32)
        block[OBS_DICE] = np.eye(FACES, dtype=np.float32)[np.array(dice) - 1].ravel()
        block[OBS_LOCKED.start : OBS_LOCKED.start + len(locked)] = 1.0
        block[OBS_FACE_COUNTS] = np.bincount(np.array(dice) - 1, minlength=FACES) / NUM_DICE
        block[OBS_CATEGORY_SCORES] = np.array(_CATEGORY_SCORES[hand]) / MAX_CATEGORY_POINTS
        block.flags.writeable = False
        _DICE_BLOCKS[(locked, free)] = block
    return block


class SixHundred(DiceRoundsGame):
    """Six Hundred for 1 to 6 players (parallel solitaire in turn order).

    Args:
        num_players: 1 (solitaire, the default) to 6.
    """

    name = "six_hundred"
    min_players = 1
    max_players = 6
    default_players = 1
    num_rounds = NUM_ROUNDS
    max_rolls = MAX_ROLLS
    num_dice = NUM_DICE

    def __init__(self, num_players: int | None = None):
        super().__init__(num_players)
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OWN_SIZE + OPPONENT_SIZE * (self.num_players - 1),)
        self.max_game_length = NUM_ROUNDS * MAX_ROLLS * self.num_players

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players}

    def score_bounds(self) -> tuple[float, float]:
        """0 to 599, the running total included.

        The rung penalty only takes back rungs already counted, so the total never drops
        below 0. Before the end rungs count at face value (at most 4 x 36, not 138), so
        the running total stays at or below 126 + 35 + 144 + 138 + 126 = 569 until the
        last move adds the game bonus and settles the ladder.
        """
        return 0.0, float(MAX_SCORE)

    def action_name(self, action: int) -> str:
        action = self.check_action(action)
        if action >= SCORE:
            return f"score {CATEGORY_NAMES[action - SCORE]}"
        if action == 0:
            return "roll the unlocked dice"
        return "lock dice " + ",".join(str(p + 1) for p in _LOCK_POSITIONS[action]) + " and roll the rest"

    def sample_state(self, observation: np.ndarray, rng: np.random.Generator) -> SixHundredState:
        """The player to act's view made a full state (see :meth:`envs.core.Game.sample_state`).

        The view shows every sheet's points category by category and the dice on the table
        (locked first), so only the dice to come are drawn (a fresh tape from ``rng``); the
        seat and round are read off the sheets.
        """
        obs = self._observation_array(observation)
        if obs[OBS_MY_TURN] < 0.5:
            raise ValueError("six_hundred: sample_state needs the observation of the player to act")
        n = self.num_players
        blocks = [(obs[OBS_OPEN], obs[OBS_SHEET])]
        for k in range(n - 1):
            start = OWN_SIZE + k * OPPONENT_SIZE
            blocks.append(
                (obs[start + NUM_CATEGORIES : start + 2 * NUM_CATEGORIES], obs[start : start + NUM_CATEGORIES])
            )
        sheets = [
            [None if is_open > 0.5 else int(np.rint(points * MAX_CATEGORY_POINTS)) for is_open, points in zip(*block)]
            for block in blocks
        ]
        turns_left = int(np.rint(obs[OBS_TURNS_LEFT] * NUM_ROUNDS))
        seat, round_ = self._seat_and_round(turns_left, [sum(v is not None for v in sheet) for sheet in sheets])
        state = self._sampled_turn(rng, seat, round_, int(obs[OBS_ROLL].argmax()) + 1)
        for k, sheet in enumerate(sheets):
            state._write_sheet((seat + k) % n, sheet)
        dice = (np.flatnonzero(obs[OBS_DICE] > 0.5) % FACES + 1).tolist()
        num_locked = int((obs[OBS_LOCKED] > 0.5).sum())
        state._locked, state._free = tuple(dice[:num_locked]), tuple(dice[num_locked:])
        return state


class SixHundredState(DiceRoundsState):
    """A game of Six Hundred in progress."""

    def __init__(self, game: SixHundred, tape: list | None):
        super().__init__(game, tape)
        if tape is None:  # cloning
            return
        n = game.num_players
        self._sheet = [[None] * NUM_CATEGORIES for _ in range(n)]  # points written per category
        self._open = [np.ones(NUM_CATEGORIES, np.int8) for _ in range(n)]
        self._ladder = [rung_windows((None,) * len(RUNGS))] * n  # rung windows; None once broken
        self._zero_written = [False] * n  # a 0 in a category other than the Sextet
        self._numbers_total = [0] * n
        self._numbers_bonus = [False] * n
        self._rung_penalty = [False] * n
        self._game_bonus = [False] * n
        self._own_blocks = [None] * n
        self._public_blocks = [None] * n
        for p in range(n):
            self._refresh_blocks(p)
        self._free = ()  # before the first roll (a pending chance event)
        self._start_turn()

    def _write_sheet(self, player: int, sheet: list[int | None]) -> None:
        """Make ``player``'s sheet hold ``sheet`` (points per category, None while open), as
        written in play before the end (:meth:`SixHundred.sample_state`)."""
        self._sheet[player] = list(sheet)
        self._open[player] = np.array([v is None for v in sheet], np.int8)
        self._ladder[player] = rung_windows(sheet[RUNGS.start : RUNGS.stop])
        self._zero_written[player] = any(sheet[c] == 0 for c in range(NUM_CATEGORIES) if c != SEXTET)
        self._numbers_total[player] = sum(sheet[c] or 0 for c in NUMBERS)
        self._numbers_bonus[player] = self._numbers_total[player] >= NUMBERS_BONUS_THRESHOLD
        self._totals[player] = sum(v or 0 for v in sheet) + NUMBERS_BONUS * self._numbers_bonus[player]
        self._refresh_blocks(player)

    # -- a turn ------------------------------------------------------------------------
    def _start_turn(self) -> None:
        self._locked = ()
        if self._draws_chance(DICE_ROLLS[NUM_DICE], "_rolled"):
            self._rolled(self._tape_row())

    def _lock_and_roll(self, action: int) -> None:
        offset = len(self._locked)
        self._locked = tuple(sorted(self._locked + tuple(self._free[p - offset] for p in _LOCK_POSITIONS[action])))
        self._roll += 1
        rolled = NUM_DICE - len(self._locked)
        if self._draws_chance(DICE_ROLLS[rolled], "_rolled"):
            self._rolled(self._tape_row()[:rolled])

    def _rolled(self, dice) -> None:
        """The unlocked dice show ``dice``."""
        self._free = tuple(sorted(dice))

    def _score(self, category: int) -> None:
        p = self._player
        points = _CATEGORY_SCORES[tuple(sorted(self._locked + self._free))][category]
        self._sheet[p][category] = points
        self._open[p][category] = 0
        self._totals[p] += points
        if points == 0 and category != SEXTET:
            self._zero_written[p] = True
        if category in RUNGS:
            self._ladder[p] = rung_windows(self._sheet[p][RUNGS.start : RUNGS.stop])
        if category < len(NUMBERS):
            self._numbers_total[p] += points
            if not self._numbers_bonus[p] and self._numbers_total[p] >= NUMBERS_BONUS_THRESHOLD:
                self._numbers_bonus[p] = True
                self._totals[p] += NUMBERS_BONUS
        self._refresh_blocks(p)

    def _end_game(self) -> None:
        """Settle the rung penalty, then the game bonus, for every player."""
        super()._end_game()
        for p, sheet in enumerate(self._sheet):
            rungs = sheet[RUNGS.start : RUNGS.stop]
            if any(low >= high for low, high in itertools.pairwise(rungs)):
                self._rung_penalty[p] = True
                self._totals[p] -= sum(rungs)
            zeros = {c for c in range(NUM_CATEGORIES) if self.final_points(p, c) == 0}
            if zeros <= {SEXTET}:
                self._game_bonus[p] = True
                self._totals[p] += GAME_BONUS
            self._refresh_blocks(p)

    # -- rules -------------------------------------------------------------------------
    def legal_mask(self, player: int) -> np.ndarray:
        if self._terminal or player != self._player:
            return np.zeros(NUM_ACTIONS, np.int8)
        locks = _LOCK_MASKS[len(self._locked)] if self._roll < MAX_ROLLS else _NO_LOCKS
        return np.concatenate((locks, self._open[player]))

    def apply(self, player: int, action: int) -> None:
        if type(action) is not int:
            action = self.game.check_action(action)
        if self._terminal or player != self._player:
            raise self.illegal_action_error(player, action)
        if 0 <= action < SCORE and self._roll < MAX_ROLLS and _LEGAL_LOCKS[len(self._locked)] >> action & 1:
            self._lock_and_roll(action)
        elif SCORE <= action < NUM_ACTIONS and self._sheet[player][action - SCORE] is None:
            self._score(action - SCORE)
            self._end_turn()
        else:
            raise self.illegal_action_error(player, action)

    # -- views -------------------------------------------------------------------------
    def _own_block(self, player: int) -> np.ndarray:
        """Observation entries 69..117: the player's sheet, as seen by the player."""
        sheet = self._sheet[player]
        windows = self._ladder[player]
        alive = windows is not None and not self._rung_penalty[player]
        values = [v is None for v in sheet]
        values += [(v or 0) / MAX_CATEGORY_POINTS for v in sheet]
        values += [w / MAX_CATEGORY_POINTS for window in windows for w in window] if alive else _NO_WINDOWS
        values += (
            min(self._numbers_total[player], NUMBERS_BONUS_THRESHOLD) / NUMBERS_BONUS_THRESHOLD,
            self._numbers_bonus[player],
            alive,
            alive and not self._zero_written[player],
            self._totals[player] / MAX_SCORE,
        )
        return np.array(values, np.float32)

    def _refresh_blocks(self, player: int) -> None:
        """Rebuild the player's sheet blocks after a write (blocks are never mutated)."""
        own = self._own_block(player)
        self._own_blocks[player] = own
        if self.game.num_players > 1:
            self._public_blocks[player] = np.concatenate(
                (own[_SHEET_IN_BLOCK], own[_OPEN_IN_BLOCK], own[_SCORE_IN_BLOCK])
            )

    def observe(self, player: int) -> np.ndarray:
        n = self.game.num_players
        to_act = player == self._player and not self._terminal
        turns_left = self.turns_left(player)
        parts = [
            _dice_block(self._locked, self._free),
            _ROLL_ONE_HOT[self._roll - 1],
            self._own_blocks[player],
            _TURN_BLOCKS[turns_left][to_act],
        ]
        if n > 1:
            parts.extend(self._public_blocks[(player + k) % n] for k in range(1, n))
        return np.concatenate(parts)

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice on the table: locked ones first, then unlocked, each in ascending order."""
        return self._locked + self._free

    @property
    def locked(self) -> tuple[int, ...]:
        """The locked dice, ascending (they are dice 1..len(locked))."""
        return self._locked

    def sheet(self, player: int) -> tuple[int | None, ...]:
        """The points written in each category (None while open), before the rung penalty."""
        return tuple(self._sheet[player])

    def final_points(self, player: int, category: int) -> int | None:
        """What a category counts for: the written points, rungs 0 once the penalty applies."""
        points = self._sheet[player][category]
        if category in RUNGS and self._rung_penalty[player]:
            return 0
        return points

    def stats(self, player: int) -> dict[str, float]:
        zeros = sum(self.final_points(player, c) == 0 for c in range(NUM_CATEGORIES))
        return {
            "numbers_bonus": float(self._numbers_bonus[player]),
            "game_bonus": float(self._game_bonus[player]),
            "rung_penalty": float(self._rung_penalty[player]),
            "numbers_total": float(self._numbers_total[player]),
            "zero_categories": float(zeros),
        }

    def _sheet_rows(self) -> list[tuple[str, list]]:
        """The score sheet as (label, one cell per player) rows, as printed and drawn."""
        n = self.game.num_players
        rows = []
        for c, name in enumerate(CATEGORY_NAMES):
            rows.append((name, ["." if self._sheet[p][c] is None else self._sheet[p][c] for p in range(n)]))
            if c == NUMBERS.stop - 1:
                rows.append(("  Numbers total", list(self._numbers_total)))
                rows.append(("  Bonus (>= 80)", ["+35" if b else "-" for b in self._numbers_bonus]))
            if c == RUNGS.stop - 1:
                rows.append(("  Ladder", [self._ladder_word(p) for p in range(n)]))
        rows.append(("Game bonus", ["+36" if b else "-" for b in self._game_bonus]))
        rows.append(("Total", [int(t) for t in self._totals]))
        return rows

    def _status(self) -> str:
        if self._terminal:
            return "Six Hundred - game over"
        return (
            f"Six Hundred - round {self._round + 1}/{NUM_ROUNDS}, player {self._player} to act, "
            f"roll {self._roll}/{MAX_ROLLS}"
        )

    def render(self) -> str:
        n = self.game.num_players
        lines = [self._status()]
        if not self._terminal:
            lines.append(f"locked: [{' '.join(map(str, self._locked))}]   rolled: {' '.join(map(str, self._free))}")
        lines.append(f"{'':<16}" + "".join(f"{f'P{p}':>6}" for p in range(n)))
        lines += [f"{label:<16}" + "".join(f"{c:>6}" for c in cells) for label, cells in self._sheet_rows()]
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        from envs.games.dice_picture import draw_sheet  # noqa: PLC0415 (Pillow: loaded by the first picture, not the rules)

        return draw_sheet(**self.sheet_picture())

    def sheet_picture(self) -> dict[str, Any]:
        """The table as :func:`envs.games.dice_picture.draw_sheet` draws it (its keyword
        arguments): status line, dice (locked first), score sheet rows and the column to
        act. The rgb_array picture and the web page (``training/web``) draw it."""
        rows = [(label.strip(), [str(c) for c in cells]) for label, cells in self._sheet_rows()]
        players = [f"P{p}" for p in range(self.game.num_players)]
        to_act = None if self._terminal else self._player
        return {
            "status": self._status(),
            "dice": list(self.dice),
            "num_locked": len(self._locked),
            "players": players,
            "rows": rows,
            "to_act": to_act,
            "marked_row": None,
            "num_dice": NUM_DICE,
        }

    def _ladder_word(self, player: int) -> str:
        if self._rung_penalty[player]:
            return "0"
        return "ok" if self._ladder[player] else "broken"

    def clone(self) -> SixHundredState:
        other = self._clone_base()
        other._sheet = [row[:] for row in self._sheet]
        other._open = [a.copy() for a in self._open]
        other._ladder = self._ladder[:]
        other._zero_written = self._zero_written[:]
        other._numbers_total = self._numbers_total[:]
        other._numbers_bonus = self._numbers_bonus[:]
        other._rung_penalty = self._rung_penalty[:]
        other._game_bonus = self._game_bonus[:]
        other._own_blocks = self._own_blocks[:]  # blocks are replaced, never mutated
        other._public_blocks = self._public_blocks[:]
        return other


SixHundred.state_class = SixHundredState
