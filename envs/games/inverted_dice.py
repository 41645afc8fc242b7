"""Rules core of Inverted Dice (the rules: ``docs/rules/inverted_dice.md``).

Five dice, twenty boxes 1..20, twenty rounds. The *inverted sum* of a roll is 21 minus
the sum of the distinct values it shows (so always 1..20 for five dice). A turn: roll
all five dice; after each roll either **score** the inverted sum in its box (if that box
is still open) or **reroll** any non-empty subset (at most two rerolls). After the third
roll the inverted sum must be scored if its box is open; otherwise the player **crosses
out** an open box of their choice (option ``free_cross_out``: crossing out is allowed
after any roll). Scoring every box of a section (1-5, 6-15, 16-20) earns +50.

Dice are kept in ascending order after every roll, so "die 1" is the lowest die shown.
Chance is the decision-independent dice tape of :mod:`envs.games.dice_rounds`: the k-th
die rerolled (counting rerolled dice from the lowest) takes the roll's k-th tape value.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, ClassVar

import numpy as np

from envs.games.chance import DICE_ROLLS
from envs.games.dice_math import keep_tables
from envs.games.dice_rounds import DiceRoundsGame, DiceRoundsState

NUM_DICE = 5
NUM_BOXES = 20
NUM_ROUNDS = 20
MAX_ROLLS = 3
SECTION_BONUS = 50
#: (name, first box, last box) of the three bonus sections.
SECTIONS = (("low", 1, 5), ("middle", 6, 15), ("high", 16, 20))
MAX_SCORE = sum(range(1, NUM_BOXES + 1)) + SECTION_BONUS * len(SECTIONS)  # 360

# Action ids.
NUM_REROLLS = 2**NUM_DICE - 1  # 31 non-empty subsets of the five dice
SCORE = NUM_REROLLS  # 31: score the inverted sum
CROSS_OUT = SCORE + 1  # 32..51: cross out box 1..20
NUM_ACTIONS = CROSS_OUT + NUM_BOXES  # 52


def inverted_sum(dice) -> int:
    """21 minus the sum of the distinct values shown."""
    return 21 - sum(set(dice))


def reroll_action(positions) -> int:
    """Action id that rerolls the dice at the given 0-based sorted positions."""
    subset = sum(1 << p for p in set(positions))
    if not 0 < subset < 2**NUM_DICE:
        raise ValueError(f"positions must be a non-empty subset of 0..{NUM_DICE - 1}, got {positions!r}")
    return subset - 1


def reroll_positions(action: int) -> tuple[int, ...]:
    """The 0-based sorted dice positions that reroll action ``action`` rerolls."""
    subset = action + 1
    return tuple(p for p in range(NUM_DICE) if subset >> p & 1)


def cross_out_action(box: int) -> int:
    return CROSS_OUT + box - 1


SECTION_MASKS = tuple(sum(1 << (b - 1) for b in range(lo, hi + 1)) for _, lo, hi in SECTIONS)
SECTION_OF_BOX = tuple(
    next(s for s, (_, lo, hi) in enumerate(SECTIONS) if lo <= b <= hi) for b in range(1, NUM_BOXES + 1)
)
_ALL_BOXES = 2**NUM_BOXES - 1
_INVERTED_SUM_OF_FACES = tuple(21 - sum(v + 1 for v in range(6) if m >> v & 1) for m in range(64))
REROLL_POSITIONS = tuple(reroll_positions(a) for a in range(NUM_REROLLS))
_REROLL_MASK = (np.zeros(NUM_REROLLS, np.int8), np.ones(NUM_REROLLS, np.int8))
_NO_CROSS_OUT = np.zeros(NUM_BOXES, np.int8)
_ONE_HOT_6 = np.eye(6, dtype=np.float32)


def _dice_features(dice: tuple[int, ...]) -> np.ndarray:
    """Position one-hots, face counts / 5 and inverted-sum one-hot of a sorted roll."""
    positions = _ONE_HOT_6[np.array(dice) - 1].ravel()
    counts = np.bincount(np.array(dice) - 1, minlength=6).astype(np.float32) / NUM_DICE
    inv = np.zeros(NUM_BOXES, np.float32)
    inv[inverted_sum(dice) - 1] = 1.0
    return np.concatenate([positions, counts, inv])


def _sorted_rolls(k: int, low: int = 1):
    if k == 0:
        yield ()
        return
    for v in range(low, 7):
        for rest in _sorted_rolls(k - 1, v):
            yield (v,) + rest


#: Observation block of every sorted five-dice roll (252 of them), computed once.
DICE_FEATURES = {dice: _dice_features(dice) for dice in _sorted_rolls(NUM_DICE)}
_ROLL_ONE_HOT = np.eye(MAX_ROLLS, dtype=np.float32)


def _hit_chances() -> dict[tuple[int, ...], np.ndarray]:
    """``{roll: (MAX_ROLLS, NUM_BOXES) array}``: the chance of ending the turn on each box.

    Entry ``[r, b]`` is the probability that a player who sees ``roll`` after roll
    ``r + 1`` and aims all remaining rerolls at inverted sum ``b + 1`` (and nothing else)
    shows it when the turn ends: 1 or 0 after the third roll, the best reroll's chance
    before. This is the "potential score" a learner would otherwise have to work out
    from the dice, exactly, for every box at once.
    """
    tables = keep_tables(NUM_DICE)
    hit = np.array([[inverted_sum(roll) == b for b in range(1, NUM_BOXES + 1)] for roll in tables.rolls], np.float64)
    by_rolls_left = [hit]
    for _ in range(MAX_ROLLS - 1):
        by_rolls_left.append(np.maximum(hit, tables.best_over_keeps(tables.partial_transition @ by_rolls_left[-1])))
    chances = np.stack(by_rolls_left[::-1], axis=1).astype(np.float32)  # roll number 1 first
    return {roll: chances[i] for i, roll in enumerate(tables.rolls)}


HIT_CHANCES = _hit_chances()
SECTION_SIZES = np.array([hi - lo + 1 for _, lo, hi in SECTIONS], np.float32)

# Observation layout (offsets into the vector; see the env card).
OBS_DICE = slice(0, 30)
OBS_FACE_COUNTS = slice(30, 36)
OBS_INVERTED_SUM = slice(36, 56)
OBS_ROLL = slice(56, 59)
OBS_OPEN_BOXES = slice(59, 79)
OBS_SECTIONS_ALIVE = slice(79, 82)
OBS_BONUSES = slice(82, 85)
OBS_SCORE = 85
OBS_ROUNDS_LEFT = 86
OBS_MY_TURN = 87
# Planning features (v1 onwards): what the dice on the table can still become this turn.
OBS_HIT_CHANCES = slice(88, 108)  #: per open box: chance of ending this turn on it (0 when taken)
OBS_SECTION_PROGRESS = slice(108, 111)  #: per section: boxes scored / section size
OBS_SCORE_NOW = 111  #: points that scoring now would write (0 when the box is taken) / 20
OWN_SIZE_V0 = 88
OWN_SIZE = 112
OPPONENT_SIZE = NUM_BOXES + 1  # open boxes, score / 360


def _section_boxes(section: int) -> range:
    _, low, high = SECTIONS[section]
    return range(low, high + 1)


@functools.lru_cache(maxsize=4096)
def _section_splits(section: int, closed: int, rule: str, scored_count: int | None) -> dict[int, tuple[int, ...]]:
    """The ways the closed boxes of one section (bits of ``closed``) can split into scored and
    crossed out, by the points they are worth (the scored boxes' numbers, +50 for the whole
    section scored): ``{points: (scored bits, ...)}``.

    ``rule`` is what the observer's own sheet tells of the section: ``"any"`` (nothing: an
    opponent's sheet), ``"scored"`` (alive or bonus: every closed box was scored) or
    ``"dead"`` (no bonus, not alive: at least one box crossed out). ``scored_count``, where
    known (the observer's section progress), is how many boxes were scored.
    """
    mask = SECTION_MASKS[section]
    boxes = [b - 1 for b in _section_boxes(section) if closed >> (b - 1) & 1]
    splits: dict[int, list[int]] = {}
    for size in range(len(boxes) + 1):
        if scored_count is not None and size != scored_count:
            continue
        for chosen in itertools.combinations(boxes, size):
            scored = sum(1 << b for b in chosen)
            if (rule == "scored" and scored != closed) or (rule == "dead" and scored == closed):
                continue
            points = sum(b + 1 for b in chosen) + (SECTION_BONUS if scored == mask else 0)
            splits.setdefault(points, []).append(scored)
    return {points: tuple(ways) for points, ways in splits.items()}


def _sample_scored(splits: list[dict[int, tuple[int, ...]]], total: int, rng: np.random.Generator) -> int:
    """Scored bits of a whole sheet: one split per section (:func:`_section_splits`) whose points
    add up to ``total``, drawn uniformly among all such sheets."""
    counts = [np.bincount(list(ways), [len(w) for w in ways.values()], MAX_SCORE + 1) for ways in splits]
    below = [np.zeros(MAX_SCORE + 1)]  # below[s]: sheets of the sections before s, by points
    below[0][0] = 1.0
    for count in counts[:-1]:
        below.append(np.convolve(below[-1], count)[: MAX_SCORE + 1])
    scored, left = 0, total
    for section in reversed(range(len(splits))):
        weights = counts[section][: left + 1] * below[section][left::-1]
        if weights.sum() == 0:
            raise ValueError(f"inverted_dice: no sheet with these boxes closed adds up to {total} points")
        points = int(rng.choice(left + 1, p=weights / weights.sum()))
        ways = splits[section][points]
        scored |= ways[rng.integers(len(ways))]
        left -= points
    return scored


class InvertedDice(DiceRoundsGame):
    """Inverted Dice for 1 to 5 players.

    Args:
        num_players: 1 (solitaire, the default) to 5.
        free_cross_out: if True, a player may cross out any open box after any roll
            (Yahtzee-style scratching) instead of only after the third roll when the
            inverted sum's box is taken.
    """

    name = "inverted_dice"
    #: Whether observations carry the planning features (``OBS_HIT_CHANCES`` onwards);
    #: ``inverted_dice_v0`` plays without them.
    planning_features: ClassVar[bool] = True
    min_players = 1
    max_players = 5
    default_players = 1
    num_rounds = NUM_ROUNDS
    max_rolls = MAX_ROLLS
    num_dice = NUM_DICE

    def __init__(self, num_players: int | None = None, free_cross_out: bool = False):
        super().__init__(num_players)
        if not isinstance(free_cross_out, (bool, np.bool_)):
            raise TypeError(f"inverted_dice: free_cross_out must be a bool, got {free_cross_out!r}")
        self.free_cross_out = bool(free_cross_out)
        self.num_actions = NUM_ACTIONS
        own_size = OWN_SIZE if self.planning_features else OWN_SIZE_V0
        self.observation_shape = (own_size + OPPONENT_SIZE * (self.num_players - 1),)
        self.max_game_length = NUM_ROUNDS * MAX_ROLLS * self.num_players

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "free_cross_out": self.free_cross_out}

    def score_bounds(self) -> tuple[float, float]:
        """0 (everything crossed out) to 360 (every box scored, all three bonuses)."""
        return 0.0, float(MAX_SCORE)

    def action_name(self, action: int) -> str:
        action = self.check_action(action)
        if action < NUM_REROLLS:
            return "reroll dice " + ",".join(str(p + 1) for p in REROLL_POSITIONS[action])
        if action == SCORE:
            return "score the inverted sum"
        return f"cross out box {action - CROSS_OUT + 1}"

    def sample_state(self, observation: np.ndarray, rng: np.random.Generator) -> InvertedDiceState:
        """The player to act's view made a full state (see :meth:`envs.core.Game.sample_state`).

        The view shows the dice, the roll, every sheet's open boxes and total, and of the
        observer's own sheet which sections are alive or paid (and, with the planning
        features, how many boxes of each were scored). Which closed boxes were scored and
        which crossed out is drawn uniformly among the sheets that show all that (it decides
        which bonuses can still be won); the seat and round are read off the sheets, and the
        dice to come are a fresh tape from ``rng``.
        """
        obs = self._observation_array(observation)
        if obs[OBS_MY_TURN] < 0.5:
            raise ValueError("inverted_dice: sample_state needs the observation of the player to act")
        n = self.num_players
        own_size = OWN_SIZE if self.planning_features else OWN_SIZE_V0
        opponents = [own_size + k * OPPONENT_SIZE for k in range(n - 1)]
        opens = [obs[OBS_OPEN_BOXES] > 0.5] + [obs[start : start + NUM_BOXES] > 0.5 for start in opponents]
        totals = [obs[OBS_SCORE]] + [obs[start + NUM_BOXES] for start in opponents]
        turns_left = int(np.rint(obs[OBS_ROUNDS_LEFT] * NUM_ROUNDS))
        seat, round_ = self._seat_and_round(turns_left, [int((~is_open).sum()) for is_open in opens])
        roll = int(obs[OBS_ROLL].argmax()) + 1
        state = self._sampled_turn(rng, seat, round_, roll)
        for k, (is_open, total) in enumerate(zip(opens, totals)):
            closed = sum(1 << b for b in np.flatnonzero(~is_open).tolist())
            rules, counts = ["any"] * len(SECTIONS), [None] * len(SECTIONS)
            if k == 0:  # the observer's own sheet says more
                alive, paid = obs[OBS_SECTIONS_ALIVE] > 0.5, obs[OBS_BONUSES] > 0.5
                rules = ["scored" if a or b else "dead" for a, b in zip(alive, paid)]
                if self.planning_features:  # and how many boxes of each section were scored
                    counts = np.rint(obs[OBS_SECTION_PROGRESS] * SECTION_SIZES).astype(int).tolist()
            splits = [_section_splits(s, closed & SECTION_MASKS[s], rules[s], counts[s]) for s in range(len(SECTIONS))]
            state._write_sheet((seat + k) % n, closed, _sample_scored(splits, int(np.rint(total * MAX_SCORE)), rng))
        state._set_dice((np.flatnonzero(obs[OBS_DICE] > 0.5) % 6 + 1).tolist())
        return state


class InvertedDiceState(DiceRoundsState):
    """A game of Inverted Dice in progress."""

    def __init__(self, game: InvertedDice, tape: list | None):
        super().__init__(game, tape)
        if tape is None:  # cloning
            return
        n = game.num_players
        self._open = np.ones((n, NUM_BOXES), np.int8)  # 1 while a box is empty
        self._boxes = [[None] * NUM_BOXES for _ in range(n)]  # points written, 0 = crossed out
        self._scored = [0] * n  # bit b-1: box b holds a scored (not crossed-out) result
        self._crossed = [0] * n
        self._bonuses = [[False] * len(SECTIONS) for _ in range(n)]
        self._dice, self._inverted_sum = (), 0  # before the first roll (a pending chance event)
        self._start_turn()

    def _write_sheet(self, player: int, closed: int, scored: int) -> None:
        """Make ``player``'s sheet the one with the boxes of bits ``closed`` closed, those of
        ``scored`` scored and the others crossed out (:meth:`InvertedDice.sample_state`)."""
        self._open[player] = [not closed >> b & 1 for b in range(NUM_BOXES)]
        self._boxes[player] = [(b + 1 if scored >> b & 1 else 0) if closed >> b & 1 else None for b in range(NUM_BOXES)]
        self._scored[player] = scored
        self._crossed[player] = closed & ~scored
        self._bonuses[player] = [scored & mask == mask for mask in SECTION_MASKS]
        self._totals[player] = sum(b + 1 for b in range(NUM_BOXES) if scored >> b & 1) + SECTION_BONUS * sum(
            self._bonuses[player]
        )

    # -- chance ------------------------------------------------------------------------
    def _start_turn(self) -> None:
        if self._draws_chance(DICE_ROLLS[NUM_DICE], "_set_dice"):
            self._set_dice(self._tape_row())

    def _set_dice(self, dice) -> None:
        self._dice = tuple(sorted(dice))
        faces = 0
        for v in self._dice:
            faces |= 1 << (v - 1)
        self._inverted_sum = _INVERTED_SUM_OF_FACES[faces]

    def _reroll(self, action: int) -> None:
        self._roll += 1
        if self._draws_chance(DICE_ROLLS[len(REROLL_POSITIONS[action])], "_rerolled", action):
            self._rerolled(self._tape_row(), action)

    def _rerolled(self, values, action: int) -> None:
        """The dice rerolled by ``action`` show ``values`` (in order, from the lowest die)."""
        fresh = iter(values)
        dice = list(self._dice)
        for p in REROLL_POSITIONS[action]:
            dice[p] = next(fresh)
        self._set_dice(dice)

    # -- rules -------------------------------------------------------------------------
    def _may_cross_out(self) -> bool:
        return self.game.free_cross_out or (
            self._roll == MAX_ROLLS and not self._open[self._player, self._inverted_sum - 1]
        )

    def legal_mask(self, player: int) -> np.ndarray:
        if self._terminal or player != self._player:
            return np.zeros(NUM_ACTIONS, np.int8)
        inverted_open = self._open[player, self._inverted_sum - 1]
        return np.concatenate(
            (
                _REROLL_MASK[self._roll < MAX_ROLLS],
                (inverted_open,),
                self._open[player] if self._may_cross_out() else _NO_CROSS_OUT,
            ),
            dtype=np.int8,
        )

    def _is_legal(self, action: int) -> bool:
        if action < NUM_REROLLS:
            return self._roll < MAX_ROLLS
        if action == SCORE:
            return bool(self._open[self._player, self._inverted_sum - 1])
        return self._may_cross_out() and bool(self._open[self._player, action - CROSS_OUT])

    def apply(self, player: int, action: int) -> None:
        if type(action) is not int:
            action = self.game.check_action(action)
        if self._terminal or player != self._player or not 0 <= action < NUM_ACTIONS or not self._is_legal(action):
            raise self.illegal_action_error(player, action)
        if action < NUM_REROLLS:
            self._reroll(action)
            return
        if action == SCORE:
            self._write(self._inverted_sum, self._inverted_sum)
        else:
            self._write(action - CROSS_OUT + 1, 0)
        self._end_turn()

    def _write(self, box: int, points: int) -> None:
        p = self._player
        bit = 1 << (box - 1)
        self._open[p, box - 1] = 0
        self._boxes[p][box - 1] = points
        if points:
            self._scored[p] |= bit
            self._totals[p] += points
            section = SECTION_OF_BOX[box - 1]
            mask = SECTION_MASKS[section]
            if self._scored[p] & mask == mask:
                self._bonuses[p][section] = True
                self._totals[p] += SECTION_BONUS
        else:
            self._crossed[p] |= bit

    # -- views -------------------------------------------------------------------------
    def observe(self, player: int) -> np.ndarray:
        n = self.game.num_players
        own = self._open[player]
        alive = [not (self._crossed[player] & m) and not b for m, b in zip(SECTION_MASKS, self._bonuses[player])]
        parts = [
            DICE_FEATURES[self._dice],
            _ROLL_ONE_HOT[self._roll - 1],
            own,
            alive,
            self._bonuses[player],
            (
                self._totals[player] / MAX_SCORE,
                self.turns_left(player) / NUM_ROUNDS,
                player == self._player and not self._terminal,
            ),
        ]
        if self.game.planning_features:
            parts.append(self._planning_features(player))
        for k in range(1, n):
            other = (player + k) % n
            parts.append(self._open[other])
            parts.append((self._totals[other] / MAX_SCORE,))
        return np.concatenate(parts, dtype=np.float32)

    def _planning_features(self, player: int) -> np.ndarray:
        """Entries ``OBS_HIT_CHANCES`` .. ``OBS_SCORE_NOW`` as ``player`` sees them.

        Hit chances and the points of scoring now describe the dice on the table, so they
        are zero for a player who is not to act (the dice are someone else's).
        """
        features = np.zeros(OWN_SIZE - OWN_SIZE_V0, np.float32)
        scored = self._scored[player]
        features[NUM_BOXES : NUM_BOXES + len(SECTIONS)] = [
            bin(scored & mask).count("1") / size for mask, size in zip(SECTION_MASKS, SECTION_SIZES)
        ]
        if player == self._player and not self._terminal:
            own = self._open[player]
            features[:NUM_BOXES] = HIT_CHANCES[self._dice][self._roll - 1] * own
            features[-1] = own[self._inverted_sum - 1] * self._inverted_sum / NUM_BOXES
        return features

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice on the table, in ascending order."""
        return self._dice

    @property
    def current_inverted_sum(self) -> int:
        return self._inverted_sum

    def open_boxes(self, player: int) -> tuple[int, ...]:
        return tuple(b + 1 for b in np.flatnonzero(self._open[player]))

    def stats(self, player: int) -> dict[str, float]:
        stats = {f"{name}_bonus": float(b) for (name, _, _), b in zip(SECTIONS, self._bonuses[player])}
        stats["crossed_out"] = float(bin(self._crossed[player]).count("1"))
        return stats

    def render(self) -> str:
        lines = []
        if not self._terminal:
            lines.append(
                f"Round {self._round + 1}/{NUM_ROUNDS}, player {self._player} to act, roll {self._roll}/{MAX_ROLLS}: "
                f"dice {' '.join(map(str, self._dice))} -> inverted sum {self._inverted_sum}"
            )
        else:
            lines.append("Game over")
        header = "box    " + " ".join(f"{b:>3}" for b in range(1, NUM_BOXES + 1)) + "  bonus   total"
        lines.append(header)
        for p in range(self.game.num_players):
            cells = " ".join("  ." if v is None else ("  x" if v == 0 else f"{v:>3}") for v in self._boxes[p])
            bonus = "".join("+" if b else "-" for b in self._bonuses[p])
            lines.append(f"P{p:<5} {cells}  {bonus:>5} {int(self._totals[p]):>7}")
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        from envs.games.dice_picture import draw_sheet  # noqa: PLC0415 (Pillow: loaded by the first picture, not the rules)

        return draw_sheet(**self.sheet_picture())

    def sheet_picture(self) -> dict[str, Any]:
        """The table as :func:`envs.games.dice_picture.draw_sheet` draws it (its keyword
        arguments): status line, dice, score sheet rows, the column to act and the row of
        the inverted sum. The rgb_array picture and the web page (``training/web``) draw it."""
        n = self.game.num_players
        rows = [
            (
                f"Box {b + 1}",
                [
                    "." if self._boxes[p][b] is None else ("x" if self._boxes[p][b] == 0 else str(self._boxes[p][b]))
                    for p in range(n)
                ],
            )
            for b in range(NUM_BOXES)
        ]
        for s, (name, low, high) in enumerate(SECTIONS):
            rows.append(
                (f"Bonus {low}-{high}", [f"+{SECTION_BONUS}" if self._bonuses[p][s] else "-" for p in range(n)])
            )
        rows.append(("Total", [str(int(t)) for t in self._totals]))
        if self._terminal:
            status, to_act, marked = "Inverted Dice - game over", None, None
        else:
            status = (
                f"Round {self._round + 1}/{NUM_ROUNDS}, player {self._player}, roll {self._roll}/{MAX_ROLLS}: "
                f"inverted sum {self._inverted_sum}"
            )
            to_act, marked = self._player, self._inverted_sum - 1
        players = [f"P{p}" for p in range(n)]
        return {
            "status": status,
            "dice": list(self._dice),
            "num_locked": 0,
            "players": players,
            "rows": rows,
            "to_act": to_act,
            "marked_row": marked,
            "num_dice": NUM_DICE,
        }

    def clone(self) -> InvertedDiceState:
        other = self._clone_base()
        other._open = self._open.copy()
        other._boxes = [row[:] for row in self._boxes]
        other._scored = self._scored[:]
        other._crossed = self._crossed[:]
        other._bonuses = [row[:] for row in self._bonuses]
        return other


InvertedDice.state_class = InvertedDiceState


class InvertedDiceV0(InvertedDice):
    """The first release's observation: no planning features (``inverted_dice_v0``)."""

    planning_features = False
