"""What the parallel-solitaire dice games share: rounds of turns and the dice tape.

Inverted Dice and Six Hundred are played as parallel solitaire: each round, every player
in seat order takes one turn of up to ``max_rolls`` rolls on their own score sheet, and
the game ends after ``num_rounds`` rounds. Highest total wins; equal totals share.

Chance is a **dice tape** drawn once per game from the env's generator:
``tape[player][round][roll]`` is a row of ``num_dice`` values, and the ``k``-th die
rolled on that roll (in the game's documented order) takes the row's ``k``-th value.
Every die is an independent fair d6, but the values do not depend on the decisions
taken, so the same seed deals every agent the same dice (common random numbers for
evaluation), and the generator is touched once per game.

The dice on the table are copied out of the tape when rolled, so only rows not yet read
are the future: :meth:`DiceRoundsState.clone_resampled` gives a copy on a fresh tape,
which is what a search must expand (``clone()`` keeps the real future dice). A player's
view becomes a full state again in ``sample_state`` (a rollout's start), on a fresh tape
too, the seat and round read off the sheets (:meth:`DiceRoundsGame._seat_and_round`).

:meth:`DiceRoundsGame.new_chance_state` plays without a tape: every roll is a chance event
whose outcomes are the multisets of the dice rolled (the dice are sorted once rolled, so
which tape value lands on which die never mattered), resolved by the same method that
puts a tape row on the table.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from envs.core import EXPLICIT_CHANCE, Game, GameState
from envs.games.chance import num_dice_outcomes

FACES = 6


class DiceRoundsGame(Game):
    """A :class:`Game` whose states are :class:`DiceRoundsState` built on a dice tape."""

    #: The states draw a picture of the dice and the score sheet (``render_rgb``).
    render_modes = ("ansi", "human", "rgb_array")
    num_rounds: ClassVar[int]
    max_rolls: ClassVar[int]
    num_dice: ClassVar[int]
    state_class: ClassVar[type[DiceRoundsState]]

    @property
    def tape_shape(self) -> tuple[int, int, int, int]:
        return (self.num_players, self.num_rounds, self.max_rolls, self.num_dice)

    @property
    def max_chance_outcomes(self) -> int:
        """Every roll of one to ``num_dice`` dice, as multisets."""
        return num_dice_outcomes(self.num_dice)

    def new_initial_state(self, rng: np.random.Generator) -> DiceRoundsState:
        return self.state_class(self, self.draw_tape(rng))

    def new_chance_state(self) -> DiceRoundsState:
        """A game without a tape whose rolls are explicit chance events (:mod:`envs.core`)."""
        return self.state_class(self, EXPLICIT_CHANCE)

    def draw_tape(self, rng: np.random.Generator) -> list:
        """A fresh dice tape (nested lists of ``tape_shape``) from ``rng``."""
        return rng.integers(1, FACES + 1, size=self.tape_shape).tolist()

    def new_state_from_tape(self, tape) -> DiceRoundsState:
        """A game whose dice come from ``tape`` instead of a generator (tests, puzzles).

        ``tape`` is an integer array of shape ``tape_shape`` (players, rounds, rolls, dice)
        with values 1..6.
        """
        array = np.asarray(tape)
        if array.shape != self.tape_shape or array.dtype.kind not in "iu":
            raise ValueError(
                f"{self.name}: the tape must be integers of shape {self.tape_shape}, got {array.dtype} {array.shape}"
            )
        if array.min() < 1 or array.max() > FACES:
            raise ValueError(f"{self.name}: tape values must be dice faces 1..6, got {array.min()}..{array.max()}")
        return self.state_class(self, array.tolist())

    def _seat_and_round(self, turns_left: int, closed: list[int]) -> tuple[int, int]:
        """The seat and round of the player to act, read off their view of the table.

        The view does not name the seat, but every turn closes one box (category) of the
        sheet: the player to act has closed one per round played, and this round's earlier
        players, the seats before theirs, one more. ``closed`` lists the counts of the
        player to act first, then of the others in seat order after them.
        """
        round_ = self.num_rounds - turns_left
        seat = sum(count == round_ + 1 for count in closed[1:])
        expected = [round_] * (len(closed) - seat) + [round_ + 1] * seat
        if not 0 <= round_ < self.num_rounds or closed != expected:
            raise ValueError(
                f"{self.name}: the observation shows round {round_ + 1} and sheets with {closed} entries "
                "(the observer's first), which no player to act sees"
            )
        return seat, round_

    def _sampled_turn(self, rng: np.random.Generator, seat: int, round_: int, roll: int) -> DiceRoundsState:
        """A state at roll ``roll`` of ``seat``'s turn in round ``round_`` on a dice tape drawn from
        ``rng`` (the dice to come): the start of every :meth:`sample_state`, which then writes the
        sheets and the dice on the table."""
        state = self.new_initial_state(rng)
        state._player, state._round, state._roll = seat, round_, roll
        return state


class DiceRoundsState(GameState):
    """Turn order, totals and the end of a parallel-solitaire dice game.

    Subclasses keep the score sheets and the dice; they start a turn in
    ``_start_turn`` (roll 1 from :meth:`_tape_row`) and call :meth:`_end_turn` after a
    write, overriding :meth:`_end_game` to settle end-of-game scoring.
    """

    game: DiceRoundsGame

    def __init__(self, game: DiceRoundsGame, tape: list | None):
        self.game = game
        if tape is None:  # cloning fills the fields itself
            return
        self._tape = tape  # never mutated: clones share it
        if tape is EXPLICIT_CHANCE:
            self._chance_queue = []
        self._totals = np.zeros(game.num_players, np.float64)
        self._player = 0
        self._round = 0
        self._roll = 1
        self._terminal = False

    def _start_turn(self) -> None:
        raise NotImplementedError

    def _tape_row(self) -> list[int]:
        """The dice values of the current roll of the current player's turn."""
        return self._tape[self._player][self._round][self._roll - 1]

    def _end_turn(self) -> None:
        self._player += 1
        if self._player == self.game.num_players:
            self._player = 0
            self._round += 1
            if self._round == self.game.num_rounds:
                self._end_game()
                return
        self._roll = 1
        self._start_turn()

    def _end_game(self) -> None:
        self._terminal = True

    def turns_left(self, player: int) -> int:
        """Turns ``player`` still has, the current one included if not yet taken."""
        if self._terminal:
            return 0
        return self.game.num_rounds - self._round - (self._player > player)

    def acting_players(self) -> tuple[int, ...]:
        return () if self._terminal else (self._player,)

    def scores(self) -> np.ndarray:
        return self._totals.copy()

    def is_terminal(self) -> bool:
        return self._terminal

    @property
    def roll(self) -> int:
        """Which roll of the turn the dice on the table are (1..max_rolls)."""
        return self._roll

    def clone_resampled(self, rng: np.random.Generator) -> DiceRoundsState:
        """A copy with the dice on the table kept and every roll to come redrawn from ``rng``
        (a state that plays chance explicitly becomes one that draws it from the tape)."""
        if self.is_chance_node():
            raise ValueError(f"{self.game.name}: clone_resampled() needs the pending chance event resolved first")
        other = self.clone()
        other._chance_queue = None
        other._tape = self.game.draw_tape(rng)
        return other

    def _clone_base(self) -> DiceRoundsState:
        """A copy sharing only immutable parts; subclasses copy their mutable fields."""
        other = type(self)(self.game, None)
        other.__dict__.update(self.__dict__)
        other._totals = self._totals.copy()
        if self._chance_queue is not None:
            other._chance_queue = self._chance_queue[:]
        return other
