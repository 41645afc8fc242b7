"""Check a batched rules twin against its rules core: random games on both, compared after every action.

    python -m tests.batched_check --env inverted_dice --games 64 --steps 2000
    python -m tests.batched_check --env lost_dice --players 3 --options '{"rolls_per_player": 5}'

``N`` games start from streams seeded ``seed, seed + 1, ...`` on both sides (numpy
``Generator``s for the cores); at every step each unfinished game's first acting player
takes a random legal action on both sides, a finished game restarts from its stream, and
everything a learner or an opponent can read is compared: acting players, ends, scores,
outcomes, and every player's legal mask and observation. ``tests/test_batched.py`` runs it
for every env and player count; the Gymnasium-level comparison is there too.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from envs.batched import streams as random_streams
from envs.batched.rules import BatchedGame
from envs.core import Game


class Mismatch(AssertionError):
    """The batched twin and the core disagree."""


def _expect_equal(what: str, batched, core, row: int, step: int) -> None:
    batched = np.asarray(batched)
    core = np.asarray(core)
    if batched.shape != core.shape or not np.array_equal(batched, core):
        raise Mismatch(f"step {step}, game {row}: {what} differs\n batched: {batched!r}\n core:    {core!r}")


def start_pair(batched_class: type[BatchedGame], game: Game, num_games: int, seed: int):
    """``num_games`` games started on both sides from the streams seeded ``seed + i``: the
    twin, its rows, its streams, the cores' numpy generators and the core states."""
    batched = batched_class(game, num_games)
    rows = np.arange(num_games)
    streams = random_streams.new_streams(num_games)
    random_streams.seed_rows(streams, rows, [seed + i for i in rows])
    generators = [np.random.Generator(np.random.PCG64(seed + i)) for i in rows]
    batched.start(rows, streams)
    return batched, rows, streams, generators, [game.new_initial_state(g) for g in generators]


def compare(batched_class: type[BatchedGame], game: Game, num_games: int, steps: int, seed: int = 0) -> int:
    """Play ``steps`` batched steps of ``num_games`` games on both sides; the number of
    (game, action) pairs compared. Raises :class:`Mismatch` at the first difference."""
    batched, rows, streams, generators, cores = start_pair(batched_class, game, num_games, seed)
    players = game.num_players
    masks = np.zeros((num_games, game.num_actions), np.int8)
    observations = np.zeros((num_games, *game.observation_shape), np.float32)
    chooser = np.random.default_rng(seed + 10**6)
    compared = 0

    def check_all(step: int) -> None:
        acting = batched.acting()
        terminal = batched.terminal()
        scores = batched.scores()
        truncated = batched.truncated()
        returns = batched.returns()
        for row, core in enumerate(cores):
            core_acting = np.zeros(players, bool)
            core_acting[list(core.acting_players())] = True
            _expect_equal("acting players", acting[row], core_acting, row, step)
            _expect_equal("is_terminal", terminal[row], core.is_terminal(), row, step)
            _expect_equal("scores", scores[row], np.asarray(core.scores(), np.float64), row, step)
            if core.is_terminal():
                _expect_equal("is_truncated", truncated[row], core.is_truncated(), row, step)
                _expect_equal("returns", returns[row], np.asarray(core.returns(), np.float64), row, step)
        for seat in range(players):
            seats = np.full(num_games, seat)
            batched.legal_masks(rows, seats, masks)
            batched.observe(rows, seats, observations)
            for row, core in enumerate(cores):
                _expect_equal(f"legal mask of seat {seat}", masks[row], core.legal_mask(seat), row, step)
                _expect_equal(f"observation of seat {seat}", observations[row], core.observe(seat), row, step)

    for step in range(steps):
        check_all(step)
        terminal = batched.terminal().copy()
        if terminal.any():
            ended = np.flatnonzero(terminal)
            batched.start(ended, streams)
            for row in ended:
                cores[row] = game.new_initial_state(generators[row])
                _expect_equal("stream after start", streams[row], _stream_of(generators[row]), row, step)
            check_all(step)
        acting = batched.acting()
        seats = acting.argmax(axis=1)
        batched.legal_masks(rows, seats, masks)
        actions = np.array([chooser.choice(np.flatnonzero(m)) for m in masks])
        for row, core in enumerate(cores):
            core.apply(int(seats[row]), int(actions[row]))
        batched.apply(rows, seats, actions)
        compared += num_games
    check_all(steps)
    for row in (0, num_games - 1):
        _expect_equal("state(row) replay", batched.state(row).observe(0), cores[row].observe(0), row, steps)
    return compared


def _stream_of(generator: np.random.Generator) -> np.ndarray:
    streams = random_streams.new_streams(1)
    random_streams.load_generator(streams, 0, generator.bit_generator)
    return streams[0]


def main(argv=None) -> None:
    from envs.registry import get_entry, make_game

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
