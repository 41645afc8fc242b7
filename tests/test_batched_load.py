"""The twins' test and rollout API: a core state loaded into rows plays on as the core does.

``BatchedGame.load_state`` writes a core state into rows and ``BatchedGame.resample``
redraws their chance to come, as the core's ``clone_resampled`` does: what a rollout agent
does with the position of a real game. Here positions reached by random play on the core
(at the start, in the middle, at the end) are loaded into rows of every twin, some rows
redrawn, and every row played on to its end through the comparer
(:class:`tests.batched_check.Lockstep`), which checks everything after every change.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.batched.lost_dice import BatchedLostDice
from envs.games.invers import Invers
from envs.games.lost_dice import LostDice
from envs.registry import ENVS, make_game
from tests.batched_check import Lockstep, random_position

CASES = [
    pytest.param(name, players, id=f"{name}-{players}p")
    for name, entry in ENVS.items()
    if entry.batched
    for players in sorted({entry.game_class().min_players, entry.game_class().max_players})
]
#: Random plies played on the core before its state is loaded: the start, early, later, the end.
DEPTHS = (0, 9, 40, 10**6)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("name, players", CASES)
def test_a_loaded_position_plays_on_as_the_core_with_its_own_or_fresh_chance(name, players, depth):
    entry = ENVS[name]
    game = make_game(name, num_players=players)
    pair = Lockstep(entry.batched_class(), game, 6, seed=depth)
    pair.load([0, 1, 2, 3, 4], random_position(game, depth + players, depth))  # one state into many rows
    pair.load([5], random_position(game, 100 + depth, depth // 2))
    pair.resample([1, 2, 5])  # fresh futures, as the core's clone_resampled draws them

    def midway(step: int) -> None:
        if step == 3:
            pair.resample([2, 4])  # row 2 a second time, both after actions: state(row) follows
            pair.check_replay(pair.rows)

    pair.play_out(np.random.default_rng(depth), midway)
    pair.check_replay(pair.rows)


def test_a_rollout_copies_one_position_into_every_row_and_redraws_every_future():
    """A rollout agent's use: one real position in every row, every future redrawn at once, all
    played out (the comparer checks each row against the core's ``clone_resampled``)."""
    game = make_game("six_hundred", num_players=2)
    pair = Lockstep(ENVS["six_hundred"].batched_class(), game, 16, seed=3)
    pair.load(pair.rows, random_position(game, 3, 25))
    pair.resample(pair.rows)
    pair.play_out(np.random.default_rng(3))


def test_loading_checks_the_state_and_the_rows():
    batched = ENVS["invers"].batched_class()(Invers(max_plies=50), 4)
    state = Invers(max_plies=50).new_initial_state()
    with pytest.raises(ValueError, match=r"BatchedInvers holds Invers\(num_players=2, max_plies=50\) games, got"):
        batched.load_state([0], Invers(max_plies=60).new_initial_state())
    with pytest.raises(IndexError, match=r"rows \[3, 4\] leave 0..3"):
        batched.load_state([3, 4], state)
    with pytest.raises(ValueError, match="distinct row indices"):
        batched.load_state([1, 1], state)
    with pytest.raises(ValueError, match="distinct row indices"):
        batched.resample([[0]], np.zeros((4, 6), np.uint64))
    game = LostDice(num_players=2, rolls_per_player=4)
    short = game.new_state_from_tape([[0, 1, 2], [3, 4, 5]])
    with pytest.raises(ValueError, match=r"whole tapes of 4 throws a player, got tapes of \[3\] throws"):
        BatchedLostDice(game, 2).load_state([0], short)
