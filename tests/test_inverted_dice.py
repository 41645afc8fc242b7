"""Inverted Dice rules (docs/rules/inverted_dice.md): sums, the turn, forced scoring, crossing out, bonuses, players."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.inverted_dice.heuristic import turn_hit_probability
from envs import IllegalActionError
from envs.games import inverted_dice as rules
from envs.games.dice_math import keep_tables
from envs.games.inverted_dice import (
    CROSS_OUT,
    SCORE,
    InvertedDice,
    cross_out_action,
    inverted_sum,
    reroll_action,
    reroll_positions,
)

# The seed's table: first roll of five dice, ways out of 7776 for inverted sums 1..20.
SEED_TABLE = [120, 120, 360, 360, 600, 750, 870, 780, 930, 720, 720, 510, 360, 240, 211, 61, 31, 31, 1, 1]


def roll_for(target: int) -> tuple[int, ...]:
    """Some five-dice roll whose inverted sum is ``target``."""
    return next(r for r in itertools.product(range(1, 7), repeat=5) if inverted_sum(r) == target)


def state_with_tape(tape: np.ndarray, **options):
    """A game whose dice tape (players × 20 rounds × 3 rolls × 5 dice) is ``tape``."""
    game = InvertedDice(**options)
    full = np.ones((game.num_players, rules.NUM_ROUNDS, rules.MAX_ROLLS, rules.NUM_DICE), dtype=np.int64)
    full[...] = tape
    return game.new_state_from_tape(full)


def tape_of_first_rolls(boxes_by_player: list[list[int]]) -> np.ndarray:
    """Every turn's first roll makes the given inverted sum (rerolls show ones)."""
    tape = np.ones((len(boxes_by_player), rules.NUM_ROUNDS, rules.MAX_ROLLS, rules.NUM_DICE), dtype=np.int64)
    for p, boxes in enumerate(boxes_by_player):
        for r, box in enumerate(boxes):
            tape[p, r, 0] = roll_for(box)
    return tape


def test_first_roll_probabilities_match_the_seed_table_exactly():
    counts = [0] * 20
    for roll in itertools.product(range(1, 7), repeat=5):
        counts[inverted_sum(roll) - 1] += 1
    assert counts == SEED_TABLE
    assert sum(counts) == 7776
    # The rules core's own lookup agrees with the definition on every roll.
    state = InvertedDice().new_initial_state(np.random.default_rng(0))
    for roll in itertools.product(range(1, 7), repeat=5):
        state._set_dice(roll)
        assert state.current_inverted_sum == inverted_sum(roll)


def test_equal_probability_pairs_named_in_the_seed():
    p = {s + 1: Fraction(c, 7776) for s, c in enumerate(SEED_TABLE)}
    assert p[1] == p[2] and p[3] == p[4] and p[10] == p[11] and p[17] == p[18] and p[19] == p[20]
    assert max(p, key=p.get) == 9


@pytest.mark.parametrize(
    "dice, expected",
    [
        ((1, 1, 2, 3, 3), 15),  # distinct 1+2+3 = 6, 21 - 6 = 15
        ((1, 2, 1, 2, 2), 18),  # 1+2 = 3
        ((5, 6, 5, 6, 6), 10),  # 5+6 = 11
        ((2, 3, 4, 5, 6), 1),  # lowest possible
        ((1, 1, 1, 1, 1), 20),  # highest possible
        ((1, 2, 3, 4, 4), 11),  # 5 + 6 not shown
    ],
)
def test_inverted_sum_examples(dice, expected):
    assert inverted_sum(dice) == expected


def test_reroll_action_ids_round_trip_and_names():
    game = InvertedDice()
    for action in range(rules.NUM_REROLLS):
        assert reroll_action(reroll_positions(action)) == action
    assert game.action_name(0) == "reroll dice 1"
    assert game.action_name(30) == "reroll dice 1,2,3,4,5"
    assert game.action_name(SCORE) == "score the inverted sum"
    assert game.action_name(cross_out_action(19)) == "cross out box 19"
    with pytest.raises(ValueError):
        reroll_action(())


def test_reroll_replaces_only_the_chosen_dice_and_keeps_them_sorted():
    tape = np.ones((1, 20, 3, 5), dtype=np.int64)
    tape[0, 0, 0] = (6, 2, 4, 2, 5)  # shown sorted: 2 2 4 5 6
    tape[0, 0, 1] = (1, 3, 3, 3, 3)
    state = state_with_tape(tape)
    assert state.dice == (2, 2, 4, 5, 6)
    state.apply(0, reroll_action([2, 4]))  # reroll the 4 and the 6: they become 1 and 3
    assert state.dice == (1, 2, 2, 3, 5)
    assert state.roll == 2


def test_score_after_the_first_roll_ends_the_turn():
    state = state_with_tape(tape_of_first_rolls([[9] * 20]))
    state.apply(0, SCORE)
    assert state.scores()[0] == 9
    assert 9 not in state.open_boxes(0)
    assert state.roll == 1  # a new turn started


def test_scoring_is_forced_after_the_third_roll_when_the_box_is_open():
    state = state_with_tape(tape_of_first_rolls([[9] * 20]))
    state.apply(0, reroll_action([0]))
    state.apply(0, reroll_action([0]))
    mask = state.legal_mask(0)
    assert state.roll == 3
    assert np.flatnonzero(mask).tolist() == [SCORE]
    with pytest.raises(IllegalActionError, match="cross out box 3"):
        state.apply(0, cross_out_action(3))


def test_crossing_out_only_after_the_third_roll_when_the_box_is_taken():
    # Every roll of every turn shows inverted sum 20 (all ones).
    state = state_with_tape(np.ones((1, 20, 3, 5), dtype=np.int64))
    state.apply(0, SCORE)  # box 20 is now taken
    mask = state.legal_mask(0)
    assert not mask[SCORE] and not mask[CROSS_OUT:].any()  # roll 1: rerolls only
    state.apply(0, reroll_action(range(5)))
    assert not state.legal_mask(0)[CROSS_OUT:].any()  # roll 2: still no cross-out
    state.apply(0, reroll_action(range(5)))
    mask = state.legal_mask(0)
    assert not mask[: rules.NUM_REROLLS].any() and not mask[SCORE]
    assert np.flatnonzero(mask[CROSS_OUT:]).tolist() == list(range(19))  # boxes 1..19
    state.apply(0, cross_out_action(19))
    assert state.scores()[0] == 20
    assert 19 not in state.open_boxes(0)


def test_free_cross_out_allows_crossing_out_after_any_roll_even_instead_of_scoring():
    state = state_with_tape(tape_of_first_rolls([[9] * 20]), free_cross_out=True)
    mask = state.legal_mask(0)
    assert mask[SCORE] and mask[CROSS_OUT:].all()
    state.apply(0, cross_out_action(9))
    assert state.scores()[0] == 0 and 9 not in state.open_boxes(0)
    state.apply(0, reroll_action([0]))
    state.apply(0, reroll_action([0]))
    mask = state.legal_mask(0)
    assert mask[SCORE] == (state.current_inverted_sum in state.open_boxes(0))
    assert np.flatnonzero(mask[CROSS_OUT:]).tolist() == [b - 1 for b in range(1, 21) if b != 9]


@pytest.mark.parametrize("section, boxes", [(0, range(1, 6)), (1, range(6, 16)), (2, range(16, 21))])
def test_each_section_bonus_is_paid_when_its_last_box_is_scored(section, boxes):
    boxes = list(boxes)
    order = boxes + [b for b in range(1, 21) if b not in boxes]
    state = state_with_tape(tape_of_first_rolls([order]))
    for i, box in enumerate(boxes):
        before = state.scores()[0]
        state.apply(0, SCORE)
        gained = state.scores()[0] - before
        assert gained == box + (rules.SECTION_BONUS if i == len(boxes) - 1 else 0)
    assert state.stats(0)[f"{rules.SECTIONS[section][0]}_bonus"] == 1.0


def test_a_crossed_out_box_loses_its_section_bonus():
    # Box 1 is crossed out (third roll shows 20, already taken), then 2..5 are scored.
    tape = tape_of_first_rolls([[20, 20, 2, 3, 4, 5] + list(range(6, 20))])
    state = state_with_tape(tape)
    state.apply(0, SCORE)  # 20
    state.apply(0, reroll_action([0]))
    state.apply(0, reroll_action([0]))
    state.apply(0, cross_out_action(1))
    for _ in range(4):
        state.apply(0, SCORE)
    assert state.scores()[0] == 20 + 2 + 3 + 4 + 5
    assert state.stats(0)["low_bonus"] == 0.0


def test_a_perfect_game_reaches_360():
    state = state_with_tape(tape_of_first_rolls([list(range(20, 0, -1))]))
    for _ in range(20):
        state.apply(0, SCORE)
    assert state.is_terminal()
    assert state.scores()[0] == rules.MAX_SCORE == 360
    assert state.stats(0) == {"low_bonus": 1.0, "middle_bonus": 1.0, "high_bonus": 1.0, "crossed_out": 0.0}


def test_three_players_take_turns_in_order_and_the_highest_total_wins():
    # Player 2's last first roll repeats 19 (taken) and the rerolls keep it taken.
    boxes = [list(range(1, 21)), list(range(1, 21)), list(range(1, 20)) + [19]]
    state = state_with_tape(tape_of_first_rolls(boxes), num_players=3)
    for round_ in range(20):
        for player in range(3):
            assert state.acting_players() == (player,)
            assert not state.legal_mask((player + 1) % 3).any()
            with pytest.raises(IllegalActionError, match="not to act"):
                state.apply((player + 1) % 3, SCORE)
            if player == 2 and round_ == 19:
                assert not state.legal_mask(player)[SCORE]
                state.apply(player, reroll_action([0]))
                state.apply(player, reroll_action([0]))
                assert state.current_inverted_sum not in state.open_boxes(player)
                state.apply(player, cross_out_action(20))
            else:
                state.apply(player, SCORE)
    assert state.is_terminal() and state.acting_players() == ()
    assert state.scores().tolist() == [360, 360, 190 + 50 + 50]
    assert state.returns().tolist() == [1, 1, -1]  # equal top totals share the win


def test_equal_totals_of_all_players_are_a_draw():
    state = state_with_tape(tape_of_first_rolls([list(range(1, 21))] * 2), num_players=2)
    while not state.is_terminal():
        state.apply(state.acting_players()[0], SCORE)
    assert state.returns().tolist() == [0, 0]


def test_illegal_actions_raise_clear_errors():
    state = InvertedDice().new_initial_state(np.random.default_rng(1))
    with pytest.raises(IllegalActionError, match="outside the action space"):
        state.apply(0, 52)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        state.apply(0, 1.5)
    with pytest.raises(IllegalActionError, match="player 1 is not to act"):
        state.apply(1, 0)
    state.apply(0, reroll_action([0]))
    state.apply(0, reroll_action([0]))
    with pytest.raises(IllegalActionError, match="reroll dice 1.*illegal"):
        state.apply(0, reroll_action([0]))
    while not state.is_terminal():
        mask = state.legal_mask(0)
        state.apply(0, int(np.flatnonzero(mask)[-1]))
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(0, SCORE)


@pytest.mark.parametrize("num_players, free", [(1, False), (1, True), (3, False), (5, True)])
def test_random_games_keep_the_invariants(num_players, free):
    game = InvertedDice(num_players=num_players, free_cross_out=free)
    rng = np.random.default_rng(num_players)
    for seed in range(200 if num_players == 1 else 60):
        state = game.new_initial_state(np.random.default_rng(seed))
        turns = [0] * num_players
        moves = 0
        while not state.is_terminal():
            (player,) = state.acting_players()
            mask = state.legal_mask(player)
            assert mask.dtype == np.int8 and mask.shape == (rules.NUM_ACTIONS,) and mask.any()
            obs = state.observe(player)
            assert obs.shape == game.observation_shape and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            before = len(state.open_boxes(player))
            state.apply(player, int(rng.choice(np.flatnonzero(mask))))
            moves += 1
            if len(state.open_boxes(player)) < before:
                turns[player] += 1
        assert turns == [20] * num_players
        assert moves <= game.max_game_length
        for p in range(num_players):
            sheet = state._boxes[p]
            assert None not in sheet and state.open_boxes(p) == ()
            bonus = rules.SECTION_BONUS * sum(state.stats(p)[f"{name}_bonus"] for name, _, _ in rules.SECTIONS)
            assert state.scores()[p] == sum(sheet) + bonus
            for name, lo, hi in rules.SECTIONS:  # a bonus exactly when every box of the section is scored
                assert state.stats(p)[f"{name}_bonus"] == float(all(sheet[b - 1] == b for b in range(lo, hi + 1)))


def test_same_seed_same_dice_whatever_the_decisions():
    game = InvertedDice()
    a = game.new_initial_state(np.random.default_rng(7))
    b = game.new_initial_state(np.random.default_rng(7))
    assert a.dice == b.dice
    kept_a, kept_b = list(a.dice[2:]), list(b.dice[:3])
    a.apply(0, reroll_action([0, 1]))
    b.apply(0, reroll_action([3, 4]))
    fresh_a, fresh_b = list(a.dice), list(b.dice)
    for v in kept_a:
        fresh_a.remove(v)
    for v in kept_b:
        fresh_b.remove(v)
    assert sorted(fresh_a) == sorted(fresh_b)  # both rerolls drew the same two values
    for state in (a, b):  # different ways to end the turn ...
        while state.roll != 1:
            state.apply(0, int(np.flatnonzero(state.legal_mask(0))[-1]))
    assert a.dice == b.dice  # ... and the next turn starts with the same roll


def test_clone_is_independent():
    state = InvertedDice(num_players=2).new_initial_state(np.random.default_rng(3))
    copy = state.clone()
    dice, sheet = state.dice, state.render()
    state.apply(0, reroll_action(range(5)))
    while state.acting_players() == (0,):
        state.apply(0, int(np.flatnonzero(state.legal_mask(0))[-1]))
    assert copy.roll == 1 and copy.dice == dice and copy.render() == sheet
    assert copy.acting_players() == (0,) and len(copy.open_boxes(0)) == 20
    copy.apply(0, reroll_action([0]))
    assert state.acting_players() == (1,) and len(state.open_boxes(0)) == 19


def test_render_shows_the_score_sheet():
    state = state_with_tape(tape_of_first_rolls([[7] * 20]))
    state.apply(0, SCORE)
    text = state.render()
    assert "inverted sum" in text and "box" in text
    assert "  7" in text.splitlines()[2]


@given(st.lists(st.integers(1, 6), min_size=5, max_size=5))
def test_inverted_sum_property(dice):
    value = inverted_sum(dice)
    assert 1 <= value <= 20
    assert value == sum(v for v in range(1, 7) if v not in dice)  # the seed's first method


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_any_seeded_game_fills_every_box_exactly_once(seed, free):
    game = InvertedDice(free_cross_out=free)
    state = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    writes = 0
    while not state.is_terminal():
        action = int(rng.choice(np.flatnonzero(state.legal_mask(0))))
        writes += action >= SCORE
        state.apply(0, action)
    assert writes == 20 and None not in state._boxes[0]


def test_planning_features_give_exact_hit_chances_progress_and_points_now():
    tables = keep_tables(rules.NUM_DICE)
    first_roll = np.array([rules.HIT_CHANCES[roll][0] for roll in tables.rolls])
    expected = [turn_hit_probability(b) for b in range(1, rules.NUM_BOXES + 1)]
    np.testing.assert_allclose(tables.first_roll @ first_roll, expected, atol=1e-6)

    game = rules.InvertedDice()
    tape = np.full(game.tape_shape, 6)
    tape[0, 0, 0] = [1, 2, 3, 4, 6]  # inverted sum 5, then all sixes
    state = game.new_state_from_tape(tape)
    obs = state.observe(0)
    hit = obs[rules.OBS_HIT_CHANCES]
    assert hit[4] == 1.0  # box 5 is on the table and rerolls can keep it
    assert obs[rules.OBS_SCORE_NOW] == 5 / 20
    state.apply(0, rules.SCORE)  # box 5 scored: low section 1/5, box 5 closed
    obs = state.observe(0)
    assert obs[rules.OBS_HIT_CHANCES][4] == 0.0
    np.testing.assert_allclose(obs[rules.OBS_SECTION_PROGRESS], [1 / 5, 0, 0])
    assert rules.InvertedDiceV0().observation_shape == (rules.OWN_SIZE_V0,)
