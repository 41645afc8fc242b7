"""The batched Invers twin (envs/batched/invers.py) against its rules core (envs/games/invers.py).

Random play against the core for the default and short ``max_plies`` (truncation), plus
forced positions (built with the core's ``from_position``, loaded with ``load_state``) for
the ends random play reaches rarely or never: a player blocked (only constructed
positions), losing by flipping the opponent's last tile, and a win on the last ply beating
the truncation.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.invers import BatchedInvers
from envs.games.invers import RED, YELLOW, Invers, InversState
from tests.batched_check import Lockstep, compare


@pytest.mark.parametrize(
    ("max_plies", "games", "steps"),
    [(400, 32, 400), (6, 16, 40), (20, 16, 60), (1, 8, 5)],
)
def test_random_play_matches_core(max_plies, games, steps):
    assert compare(BatchedInvers, Invers(max_plies=max_plies), games, steps) == games * steps


def _push_and_compare(game: Invers, board: str, hands: str, to_move: int, ply: int, action: int) -> InversState:
    """Load a constructed position into every row of a twin, play ``action`` on both sides,
    comparing everything before and after; the core's state after the push."""
    state = InversState.from_position(game, board, hands, to_move, ply)
    assert not state.is_terminal()
    pair = Lockstep(BatchedInvers, game, 3)
    pair.load(pair.rows, state)
    pair.play(pair.rows, np.full(3, to_move), np.full(3, action))
    return pair.cores[0]


def test_blocked_player_loses():
    # Every border cell holds a yellow flipped tile; yellow pushes row 2 from the left and a
    # yellow flipped tile falls out, so red, to move, has no push: yellow has more flipped tiles.
    board = """
        yyyyyy
        yRYRyy
        yYRYRy
        yRYRYy
        yYRYRy
        yyyyyy
    """
    state = _push_and_compare(Invers(), board, "yr", YELLOW, 10, 1)
    assert state.is_terminal() and not state.is_truncated() and state.winner == YELLOW


def test_flipping_the_opponents_last_tile_loses():
    # Red's last colour-side-up tile is on row 1, column 6; yellow pushes it out: red wins.
    board = """
        yyyyYR
        rrrrrr
        rrrrrr
        yyyyYY
        yyyyyy
        ryryry
    """
    state = _push_and_compare(Invers(), board, "yr", YELLOW, 7, 0)
    assert state.is_terminal() and state.winner == RED


@pytest.mark.parametrize("max_plies", [8, 9])
def test_win_on_the_last_ply_beats_truncation(max_plies):
    # Yellow's last colour-side-up tile falls out on ply 8: yellow wins even at max_plies 8.
    board = """
        rrrrrY
        RRRRRR
        yyyyyy
        yyyyyy
        yyyyyy
        RRRRRR
    """
    state = _push_and_compare(Invers(max_plies=max_plies), board, "yr", YELLOW, 7, 0)
    assert state.is_terminal() and not state.is_truncated() and state.winner == YELLOW


def test_truncation_on_the_last_ply_is_a_draw():
    state = _push_and_compare(Invers(max_plies=8), "".join(["YRYRYR", "RYRYRY"] * 3), "yr", RED, 7, 3)
    assert state.is_terminal() and state.is_truncated()
    np.testing.assert_array_equal(state.returns(), [0.0, 0.0])
