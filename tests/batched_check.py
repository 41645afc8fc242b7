"""Check a batched rules twin against its rules core: games played on both, compared after every change.

    python -m tests.batched_check --env inverted_dice --games 64 --steps 2000
    python -m tests.batched_check --env lost_dice --players 3 --options '{"rolls_per_player": 5}'

The one comparer of the twins: :class:`Lockstep` holds a twin and one core state per row
and changes both sides only together, through the twin's public API: new games from
streams seeded ``seed, seed + 1, ...`` (numpy generators seeded alike for the cores), core states
loaded into rows (:meth:`~envs.batched.rules.BatchedGame.load_state`), chance redrawn
(:meth:`~envs.batched.rules.BatchedGame.resample`, the cores' ``clone_resampled``), and
actions. After every change everything a learner or an opponent can read is compared, row
by row: acting players, ends, scores, outcomes, and every player's legal mask and
observation; the streams after every draw; and, when asked, a row rebuilt as a core state
(:meth:`~envs.batched.rules.BatchedGame.state`). :func:`compare` plays random games with it
(``tests/test_batched_<game>.py`` for every env and player count); the scripted tests load
their positions and play their moves through it. The Gymnasium-level comparison is in
``tests/test_batched.py``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from envs.batched import streams as random_streams
from envs.batched.rules import BatchedGame
from envs.core import Game, GameState
from envs.registry import get_entry, make_game


class Mismatch(AssertionError):
    """The batched twin and the core disagree."""


def core_facts(state: GameState) -> dict[str, np.ndarray]:
    """Everything a learner or an opponent can read of a core state, by name."""
    players = state.game.num_players
    facts = {
        "acting players": np.isin(np.arange(players), state.acting_players()),
        "is_terminal": np.asarray(state.is_terminal()),
        "scores": np.asarray(state.scores(), np.float64),
    }
    if state.is_terminal():
        facts["is_truncated"] = np.asarray(state.is_truncated())
        facts["returns"] = np.asarray(state.returns(), np.float64)
    for seat in range(players):
        facts[f"legal mask of seat {seat}"] = state.legal_mask(seat)
        facts[f"observation of seat {seat}"] = state.observe(seat)
    return facts


class Lockstep:
    """A batched twin of ``num_games`` rows and one core state per row, changed together and
    compared after every change (raising :class:`Mismatch` at the first difference).

    Row ``i``'s chance comes from a stream seeded ``seed + i`` on the twin's side and a numpy
    generator seeded alike on the core's, compared after every draw. Every row starts a new
    game from them; :meth:`load` puts chosen positions in rows instead.
    """

    def __init__(self, batched_class: type[BatchedGame], game: Game, num_games: int, seed: int = 0) -> None:
        self.batched = batched_class(game, num_games)
        self.game = game
        self.rows = np.arange(num_games)
        self.streams = random_streams.new_streams(num_games)
        random_streams.seed_rows(self.streams, self.rows, [seed + i for i in self.rows])
        self.generators = [np.random.Generator(np.random.PCG64(seed + i)) for i in self.rows]
        self.cores: list[GameState] = [None] * num_games  # each row's, from the start below on
        self.step = 0  #: actions played so far (for the messages)
        self._masks = np.zeros((num_games, game.num_actions), np.int8)
        self._observations = np.zeros((num_games, *game.observation_shape), np.float32)
        self.start(self.rows)

    @classmethod
    def loaded(cls, batched_class: type[BatchedGame], states: list[GameState], seed: int = 0) -> Lockstep:
        """Row ``i`` loaded with ``states[i]`` (states of one game)."""
        pair = cls(batched_class, states[0].game, len(states), seed)
        for row, state in enumerate(states):
            pair.load([row], state)
        return pair

    # --- the changes, on both sides -------------------------------------------------

    def start(self, rows) -> None:
        """New games in ``rows`` from their streams (``Game.new_initial_state`` on the cores')."""
        rows = np.asarray(rows, np.int64)
        self.batched.start(rows, self.streams)
        for row in rows:
            self.cores[row] = self.game.new_initial_state(self.generators[row])
        self._check_streams(rows, "start")
        self.check()

    def load(self, rows, state: GameState) -> None:
        """``state`` in every row of ``rows`` (``load_state``; each core a clone of it)."""
        rows = np.asarray(rows, np.int64)
        self.batched.load_state(rows, state)
        for row in rows:
            self.cores[row] = state.clone()
        self.check()

    def resample(self, rows) -> None:
        """The chance to come of ``rows`` redrawn from their streams (the cores' ``clone_resampled``)."""
        rows = np.asarray(rows, np.int64)
        self.batched.resample(rows, self.streams)
        for row in rows:
            self.cores[row] = self.cores[row].clone_resampled(self.generators[row])
        self._check_streams(rows, "resample")
        self.check()

    def play(self, rows, seats, actions) -> None:
        """Player ``seats[k]`` takes ``actions[k]`` in game ``rows[k]`` (legal actions, as ``apply`` wants)."""
        rows, seats, actions = (np.asarray(a, np.int64) for a in (rows, seats, actions))
        for row, seat, action in zip(rows.tolist(), seats.tolist(), actions.tolist()):
            self.cores[row].apply(seat, action)
        self.batched.apply(rows, seats, actions)
        self.step += 1
        self.check()

    def play_out(self, chooser: np.random.Generator, on_step=None) -> None:
        """Random legal actions (each game's first acting player's) in every unfinished row
        until all are over; ``on_step(step)`` after each step."""
        for step in range(self.game.max_game_length + 1):
            live = np.flatnonzero(~self.batched.terminal())
            if not live.size:
                return
            seats = self.batched.acting()[live].argmax(axis=1)
            self.play(live, seats, random_actions(self, live, seats, chooser))
            if on_step:
                on_step(step)
        raise Mismatch(f"games {np.flatnonzero(~self.batched.terminal()).tolist()} run past max_game_length")

    # --- the comparisons ------------------------------------------------------------

    def check(self) -> None:
        """Every row's facts on the twin against its core's (:func:`core_facts`)."""
        batched, players = self.batched, self.game.num_players
        acting, terminal, scores = batched.acting(), batched.terminal(), batched.scores()
        truncated, returns = batched.truncated(), batched.returns()
        seen = []
        for seat in range(players):
            seats = np.full(len(self.rows), seat)
            batched.legal_masks(self.rows, seats, self._masks)
            batched.observe(self.rows, seats, self._observations)
            seen.append((self._masks.copy(), self._observations.copy()))
        for row, core in enumerate(self.cores):
            twin = {
                "acting players": acting[row],
                "is_terminal": terminal[row],
                "scores": scores[row],
                "is_truncated": truncated[row],
                "returns": returns[row],
            }
            for seat, (masks, observations) in enumerate(seen):
                twin[f"legal mask of seat {seat}"] = masks[row]
                twin[f"observation of seat {seat}"] = observations[row]
            self._expect_same("", twin, core_facts(core), row)

    def check_replay(self, rows) -> None:
        """Rows rebuilt as core states (``state(row)``) against their cores."""
        for row in rows:
            self._expect_same(
                "state(row) replay: ", core_facts(self.batched.state(int(row))), core_facts(self.cores[row]), row
            )

    def _check_streams(self, rows: np.ndarray, what: str) -> None:
        for row in rows:
            expected = random_streams.new_streams(1)
            random_streams.load_generator(expected, 0, self.generators[row].bit_generator)
            self._expect_equal(f"stream after {what}", self.streams[row], expected[0], row)

    def _expect_same(self, prefix: str, twin: dict, core: dict, row: int) -> None:
        for name, expected in core.items():
            self._expect_equal(prefix + name, twin[name], expected, row)

    def _expect_equal(self, what: str, batched, core, row: int) -> None:
        batched = np.asarray(batched)
        core = np.asarray(core)
        if batched.shape != core.shape or not np.array_equal(batched, core):
            raise Mismatch(f"step {self.step}, game {row}: {what} differs\n batched: {batched!r}\n core:    {core!r}")


def compare(batched_class: type[BatchedGame], game: Game, num_games: int, steps: int, seed: int = 0) -> int:
    """Play ``steps`` batched steps of ``num_games`` random games on both sides (a finished
    game restarts from its stream; each game's first acting player takes a random legal
    action); the number of (game, action) pairs compared. Raises :class:`Mismatch` at the
    first difference."""
    pair = Lockstep(batched_class, game, num_games, seed)
    chooser = np.random.default_rng(seed + 10**6)
    for _ in range(steps):
        ended = np.flatnonzero(pair.batched.terminal())
        if ended.size:
            pair.start(ended)
        seats = pair.batched.acting().argmax(axis=1)
        pair.play(pair.rows, seats, random_actions(pair, pair.rows, seats, chooser))
    pair.check_replay((0, num_games - 1))
    return steps * num_games


def random_position(game: Game, seed: int, plies: int) -> GameState:
    """A core state of ``game`` (chance seeded ``seed``) after up to ``plies`` random legal
    actions, each by the first acting player (fewer if the game ends first)."""
    state = game.new_initial_state(np.random.default_rng(seed))
    chooser = np.random.default_rng(seed + 1)
    for _ in range(plies):
        if state.is_terminal():
            break
        seat = state.acting_players()[0]
        state.apply(seat, int(chooser.choice(np.flatnonzero(state.legal_mask(seat)))))
    return state


def random_actions(pair: Lockstep, rows, seats, chooser: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action of player ``seats[k]`` in game ``rows[k]``."""
    return np.array(
        [chooser.choice(np.flatnonzero(pair.cores[row].legal_mask(int(seat)))) for row, seat in zip(rows, seats)],
        np.int64,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--options", default="{}", help="the game's options as JSON")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = make_game(args.env, num_players=args.players, **json.loads(args.options))
    count = compare(get_entry(args.env).batched_class(), game, args.games, args.steps, args.seed)
    print(f"{args.env} {game.options()}: {count} actions compared, no difference")


if __name__ == "__main__":
    main()
