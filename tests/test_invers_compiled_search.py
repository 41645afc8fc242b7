"""The compiled Invers search (:mod:`agents.invers.compiled_search`, the bot ``search``)
chooses the move, and gives the values, of the Python search it replaced
(:mod:`agents.invers.reference_search`: the generic alpha-beta with the Invers
evaluation), position for position.

* 10,000 positions from play (2,500 at each depth 1 to 4), each searched with its own
  generator by both, in one batch call of the compiled search (``act_batch`` with
  ``rngs``); a bot's own generator running on through a game's positions (``act``);
* every root value, and the order of the dict, of ``move_values`` (the teacher's labels);
* positions the games rarely reach: the ply limit's draws, blocked players, last tiles;
* a transposition table too small for one search (grown and searched again: the same
  move), and time limits (one too large to run out: the fixed-depth move).

``tests/test_search_regression.py`` checks the same bot against the moves recorded
before the search was compiled.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.invers.compiled_search import CompiledSearch
from agents.invers.reference_search import oracle_move, oracle_points
from agents.invers.search import VALUE_SCALE, InversSearch
from envs.games.invers import Invers, InversState
from envs.games.invers_tiles import FLIPPED

POSITIONS_PER_DEPTH = 2_500
VALUE_POSITIONS = 300


def positions_from_play(game: Invers, count: int, seed: int) -> list[InversState]:
    """``count`` positions of games between shallow searches with random moves mixed in
    (so that the games differ), every position kept with probability 0.3."""
    rng = np.random.default_rng(seed)
    bots = [InversSearch(game, seed=seed + d, depth=d) for d in (1, 2)]
    found: list[InversState] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            me = state.to_move
            mask = state.legal_mask(me)
            if rng.random() < 0.3:
                found.append(state.clone())
            if rng.random() < 0.25:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = bots[int(rng.integers(2))].act(state.observe(me), mask)
            state.apply(me, action)
    return found


def constructed_positions(count: int, seed: int) -> list[InversState]:
    """Positions near the ply limit of a 60-ply game that play seldom reaches: half random
    boards with many tiles flipped (last tiles of a colour, truncations within the
    horizon), half boards whose border holds the mover's flipped tiles but for one line,
    which one push closes (the opponent then blocked, or the last tile falling first)."""
    rng = np.random.default_rng(seed)
    game = Invers(max_plies=60)
    found = []
    while len(found) < count:
        mover = int(rng.integers(2))
        board = rng.integers(0, 2, 36) | np.where(rng.random(36) < rng.uniform(0.4, 0.97), FLIPPED, 0)
        hands = [FLIPPED | int(rng.integers(2)), FLIPPED | int(rng.integers(2))]
        if len(found) % 2:  # every border cell the mover's flipped tile; row r pushed from the left closes it
            grid = board.reshape(6, 6)
            grid[[0, -1], :] = grid[:, [0, -1]] = FLIPPED | mover
            row = int(rng.integers(1, 5))
            grid[row, 4] = FLIPPED | mover
            grid[row, 5] = rng.choice([mover, 1 - mover, FLIPPED | mover])
            hands[mover] = FLIPPED | mover
        state = InversState(game, board.tolist(), hands, mover, int(rng.integers(50, 60)))
        if not state.is_terminal():
            found.append(state)
    return found


@pytest.fixture(scope="module")
def game() -> Invers:
    return Invers()


@pytest.fixture(scope="module")
def played(game) -> list[InversState]:
    return positions_from_play(game, 4 * POSITIONS_PER_DEPTH, seed=11)


def compiled_moves(game: Invers, states: list[InversState], depth: int, seed: int) -> list[int]:
    bot = InversSearch(game, seed=0, depth=depth)
    observations = np.array([s.observe(s.to_move) for s in states])
    masks = np.array([s.legal_mask(s.to_move) for s in states])
    rngs = [np.random.default_rng((seed, k)) for k in range(len(states))]
    return bot.act_batch(observations, masks, rngs=rngs).tolist()


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_the_moves_of_10000_positions_from_play_are_the_python_searchs(game, played, depth):
    states = played[(depth - 1) * POSITIONS_PER_DEPTH : depth * POSITIONS_PER_DEPTH]
    got = compiled_moves(game, states, depth, seed=depth)
    want = [oracle_move(s, depth, np.random.default_rng((depth, k))) for k, s in enumerate(states)]
    differing = [k for k, (a, b) in enumerate(zip(got, want)) if a != b]
    assert len(states) == POSITIONS_PER_DEPTH
    assert not differing, f"depth {depth}: {len(differing)} of {len(states)} moves differ, first at {differing[:5]}"


def test_a_bots_own_generator_runs_on_through_a_games_positions_as_before(game, played):
    bot, rng = InversSearch(game, seed=3, depth=3), np.random.default_rng(3)
    for state in played[:300]:
        assert bot.act(state.observe(state.to_move), state.legal_mask(state.to_move)) == oracle_move(state, 3, rng)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_move_values_are_the_python_searchs_exact_values_in_its_order(game, played, depth):
    teacher = InversSearch(game, depth=depth)
    for state in played[:: len(played) // VALUE_POSITIONS][:VALUE_POSITIONS]:
        points = oracle_points(state, depth)
        values = teacher.move_values(state)
        assert list(values) == list(points)
        assert values == {
            a: float(np.sign(p)) if abs(p) > 500_000 else float(np.tanh(p / VALUE_SCALE)) for a, p in points.items()
        }


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_constructed_positions_blocked_players_last_tiles_and_truncations_agree(depth):
    states = constructed_positions(400, seed=depth)
    game = states[0].game
    assert compiled_moves(game, states, depth, seed=depth) == [
        oracle_move(s, depth, np.random.default_rng((depth, k))) for k, s in enumerate(states)
    ]
    teacher = InversSearch(game, depth=depth)
    for state in states[:100]:
        assert list(teacher.move_values(state).items()) == list(
            {
                a: float(np.sign(p)) if abs(p) > 500_000 else float(np.tanh(p / VALUE_SCALE))
                for a, p in oracle_points(state, depth).items()
            }.items()
        )


def test_the_ending_kinds_occur_in_the_constructed_positions():
    """The constructed positions do reach what they are there for, within one push."""
    kinds = set()
    for state in constructed_positions(400, seed=1):
        for action in state.legal_actions(state.to_move):
            child = state.clone()
            child.apply(state.to_move, action)
            if child.is_truncated():
                kinds.add("truncated")
            elif child.is_terminal():
                kinds.add("blocked" if min(child.colour_side_up(p) for p in (0, 1)) > 0 else "last tile")
    assert kinds == {"truncated", "blocked", "last tile"}


def test_a_table_too_small_for_a_search_is_grown_and_the_search_repeated(game, played):
    states = played[:40]
    bot = InversSearch(game, seed=0, depth=4)
    bot.search = CompiledSearch(4, game.max_plies, capacity=16)
    rngs = [np.random.default_rng((9, k)) for k in range(len(states))]
    observations = np.array([s.observe(s.to_move) for s in states])
    masks = np.array([s.legal_mask(s.to_move) for s in states])
    got = bot.act_batch(observations, masks, rngs=rngs).tolist()
    assert bot.search.capacity > 16
    assert got == [oracle_move(s, 4, np.random.default_rng((9, k))) for k, s in enumerate(states)]


def test_a_time_limit_that_does_not_run_out_gives_the_fixed_depth_move_and_a_tiny_one_a_legal_move(game, played):
    for state in played[::250]:
        observation, mask = state.observe(state.to_move), state.legal_mask(state.to_move)
        fixed = InversSearch(game, seed=7, depth=4).act(observation, mask)
        assert InversSearch(game, seed=7, depth=4, time_limit=60.0).act(observation, mask) == fixed
        assert mask[InversSearch(game, seed=7, depth=30, time_limit=1e-6).act(observation, mask)] == 1
