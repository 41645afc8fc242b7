"""The batched twin of Inverted Dice (envs/batched/inverted_dice.py) plays the rules core's games exactly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs.batched.inverted_dice import FACE_KEY, ID_OF_KEY, ROLLS, BatchedInvertedDice
from envs.games import inverted_dice as rules
from envs.games.inverted_dice import SCORE, InvertedDice, InvertedDiceV0, cross_out_action, inverted_sum, reroll_action
from tests.batched_check import Lockstep, compare

#: Steps per player count: enough for random games to end and restart in every row.
STEPS = {1: 150, 2: 250, 3: 350, 4: 450, 5: 550}


@pytest.mark.parametrize("free_cross_out", [False, True])
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_games_match_the_core(players, free_cross_out):
    game = InvertedDice(players, free_cross_out=free_cross_out)
    assert compare(BatchedInvertedDice, game, num_games=8, steps=STEPS[players], seed=players) == 8 * STEPS[players]


def test_every_five_dice_find_their_sorted_roll():
    for dice in itertools.product(range(1, 7), repeat=5):
        assert ROLLS[ID_OF_KEY[sum(FACE_KEY[v] for v in dice)]] == tuple(sorted(dice))


def test_the_legacy_v0_game_is_refused():
    with pytest.raises(TypeError, match="InvertedDiceV0"):
        BatchedInvertedDice(InvertedDiceV0(), 4)


def _roll_for(target: int) -> tuple[int, ...]:
    return next(r for r in ROLLS if inverted_sum(r) == target)


def test_section_bonuses_and_a_crossed_out_box_on_a_set_tape():
    """Bonuses are rare in random play: here seat 0 scores boxes 1..20 in order (all three
    bonuses, 360), and seat 1 fills box 20 on a third roll, then must cross out box 1 on
    an all-ones third roll (box 20 taken) and scores 2..19: no low bonus, 309."""
    game = InvertedDice(2)
    tape = np.ones(game.tape_shape, np.int64)  # rerolls show ones: inverted sum 20
    for r in range(rules.NUM_ROUNDS):
        tape[0, r, 0] = _roll_for(r + 1)
        if r != 1:
            tape[1, r, 0] = _roll_for(max(r, 1))
    every_die = reroll_action(range(rules.NUM_DICE))
    plans = [
        [[SCORE]] * rules.NUM_ROUNDS,
        [[every_die, every_die, SCORE], [every_die, every_die, cross_out_action(1)]]
        + [[SCORE]] * (rules.NUM_ROUNDS - 2),
    ]
    pair = Lockstep.loaded(BatchedInvertedDice, [game.new_state_from_tape(tape)])
    core = pair.cores[0]
    actions = [iter(a for turn in plan for a in turn) for plan in plans]
    while not core.is_terminal():
        seat = core.acting_players()[0]
        pair.play([0], [seat], [next(actions[seat])])
    assert pair.batched.scores()[0].tolist() == [360.0, 309.0]
    assert pair.batched.returns()[0].tolist() == [1.0, -1.0]
