"""Six Hundred: the rulebook's scoring, the ladder and the bonuses, turns, masks, errors, bot."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.registry import make_agent
from agents.six_hundred.heuristic import SixHundredHeuristic
from envs import six_hundred_v0
from envs.core import IllegalActionError
from envs.games import six_hundred as rules
from envs.games.dice_math import expect_after_lock, keep_tables
from envs.games.inverted_dice import InvertedDice
from envs.games.six_hundred import (
    CATEGORY_NAMES,
    MAX_SCORE,
    SixHundred,
    category_scores,
    lock_action,
    rung_windows,
    score_action,
)

CAT = {name: c for c, name in enumerate(CATEGORY_NAMES)}

#: One write per round that makes the best possible game: 599.
MAX_GAME = [
    ((1,) * 6, "Ones"),
    ((2,) * 6, "Twos"),
    ((3,) * 6, "Threes"),
    ((4,) * 6, "Fours"),
    ((5,) * 6, "Fives"),
    ((6,) * 6, "Sixes"),
    ((6, 6, 6, 6, 6, 3), "Rung 1"),
    ((6, 6, 6, 6, 6, 4), "Rung 2"),
    ((6, 6, 6, 6, 6, 5), "Rung 3"),
    ((6,) * 6, "Rung 4"),
    ((6,) * 6, "Four of a Kind"),
    ((6,) * 6, "Five of a Kind"),
    ((5,) * 6, "Odds"),
    ((6,) * 6, "Evens"),
    ((1, 2, 3, 4, 5, 6), "Series"),
    ((6,) * 6, "Pairs"),
    ((6,) * 6, "Triplets"),
    ((6,) * 6, "Sextet"),
]


def dice_with_total(total: int) -> tuple[int, ...]:
    """Six dice adding up to ``total`` (6..36)."""
    dice = [1] * 6
    for i in range(6):
        dice[i] = min(6, total - sum(dice) + dice[i])
    assert sum(dice) == total
    return tuple(dice)


def with_rungs(writes, rungs):
    """``writes`` with the four rung writes replaced by dice totalling ``rungs``."""
    return [
        (dice_with_total(rungs[int(name[-1]) - 1]), name) if name.startswith("Rung") else (dice, name)
        for dice, name in writes
    ]


def replace(writes, name, dice):
    return [(dice if n == name else d, n) for d, n in writes]


def tape_for(first_rolls_per_player) -> np.ndarray:
    """A tape whose round-r first roll of player p is ``first_rolls_per_player[p][r]``; other rows 1s."""
    n = len(first_rolls_per_player)
    tape = np.ones((n, rules.NUM_ROUNDS, rules.MAX_ROLLS, rules.NUM_DICE), np.int64)
    for p, rolls in enumerate(first_rolls_per_player):
        for r, dice in enumerate(rolls):
            tape[p, r, 0] = dice
    return tape


def play_writes(writes_per_player):
    """Play every player's scripted writes, each scored on the first roll; return the state and score history."""
    game = SixHundred(num_players=len(writes_per_player))
    state = game.new_state_from_tape(tape_for([[d for d, _ in w] for w in writes_per_player]))
    history = [state.scores()]
    for r in range(rules.NUM_ROUNDS):
        for p, writes in enumerate(writes_per_player):
            assert state.acting_players() == (p,)
            assert sorted(state.dice) == sorted(writes[r][0])
            state.apply(p, score_action(CAT[writes[r][1]]))
            history.append(state.scores())
    assert state.is_terminal()
    return state, history


# -- categories ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dice, category, points",
    [
        ((1, 1, 3, 4, 4, 4), "Ones", 2),  # the rule text's example
        ((1, 1, 3, 4, 4, 4), "Fours", 12),
        ((1, 1, 3, 4, 4, 4), "Fives", 0),
        ((4, 1, 4, 3, 1, 4), "Threes", 3),
        ((6, 6, 2, 6, 1, 6), "Sixes", 24),
        ((2, 2, 2, 2, 2, 2), "Twos", 12),
        ((1, 1, 3, 4, 4, 4), "Rung 1", 17),
        ((6, 6, 6, 6, 6, 6), "Rung 4", 36),
        ((1, 1, 1, 1, 1, 1), "Rung 3", 6),
        ((2, 2, 2, 2, 5, 6), "Four of a Kind", 19),
        ((3, 3, 3, 3, 3, 1), "Four of a Kind", 16),
        ((2, 2, 2, 5, 5, 6), "Four of a Kind", 0),
        ((4, 4, 4, 4, 4, 1), "Five of a Kind", 21),
        ((6, 6, 6, 6, 6, 6), "Five of a Kind", 36),
        ((4, 4, 4, 4, 1, 1), "Five of a Kind", 0),
        ((1, 3, 5, 5, 3, 1), "Odds", 18),
        ((1, 3, 5, 5, 3, 2), "Odds", 0),
        ((2, 4, 6, 6, 4, 2), "Evens", 24),
        ((2, 4, 6, 6, 4, 1), "Evens", 0),
        ((6, 2, 4, 1, 3, 5), "Series", 30),
        ((1, 2, 3, 4, 5, 5), "Series", 0),
        ((1, 1, 2, 2, 3, 3), "Pairs", 30),
        ((2, 2, 2, 2, 3, 3), "Pairs", 30),  # four equal dice are two pairs
        ((5, 5, 5, 5, 5, 5), "Pairs", 30),  # six equal dice are three pairs
        ((2, 2, 2, 3, 3, 3), "Pairs", 0),  # two triples are only two pairs
        ((2, 2, 2, 2, 2, 3), "Pairs", 0),
        ((1, 1, 2, 2, 3, 4), "Pairs", 0),
        ((2, 2, 2, 3, 3, 3), "Triplets", 30),
        ((4, 4, 4, 4, 4, 4), "Triplets", 30),  # six equal dice are two triples
        ((2, 2, 2, 2, 3, 3), "Triplets", 0),
        ((3, 3, 3, 3, 3, 3), "Sextet", 36),
        ((5, 5, 5, 5, 5, 4), "Sextet", 0),
    ],
)
def test_category_points(dice, category, points):
    assert category_scores(dice)[CAT[category]] == points


def test_a_sextet_fits_every_kind_and_pattern_but_series():
    points = category_scores((3,) * 6)
    assert [points[CAT[c]] for c in ("Four of a Kind", "Five of a Kind", "Pairs", "Triplets", "Sextet", "Series")] == [
        18,
        18,
        30,
        30,
        36,
        0,
    ]


@pytest.mark.parametrize("dice", [(1, 2, 3), (0, 1, 2, 3, 4, 5), (1, 2, 3, 4, 5, 7), (1.0, 2, 3, 4, 5, 6)])
def test_category_scores_rejects_what_are_not_six_dice(dice):
    with pytest.raises(ValueError, match="six dice"):
        category_scores(dice)


# -- the ladder ---------------------------------------------------------------------------
def test_rungs_in_ascending_order_keep_their_points():
    state, _ = play_writes([with_rungs(MAX_GAME, (10, 15, 20, 25))])
    assert state.stats(0)["rung_penalty"] == 0.0
    assert [state.final_points(0, c) for c in rules.RUNGS] == [10, 15, 20, 25]
    assert state.scores()[0] == MAX_SCORE - 138 + 70


def test_rungs_written_in_any_order_only_the_values_must_ascend():
    writes = with_rungs(MAX_GAME, (10, 15, 20, 25))
    rung_writes = [w for w in writes if w[1].startswith("Rung")]
    others = [w for w in writes if not w[1].startswith("Rung")]
    state, _ = play_writes([rung_writes[::-1] + others])
    assert state.stats(0)["rung_penalty"] == 0.0
    assert state.scores()[0] == MAX_SCORE - 138 + 70


@pytest.mark.parametrize("rungs", [(25, 20, 15, 10), (10, 20, 15, 25), (15, 15, 20, 25), (10, 15, 25, 25)])
def test_rungs_out_of_order_or_equal_all_score_zero_at_the_end(rungs):
    state, history = play_writes([with_rungs(MAX_GAME, rungs)])
    assert state.stats(0)["rung_penalty"] == 1.0
    assert [state.final_points(0, c) for c in rules.RUNGS] == [0, 0, 0, 0]
    assert list(state.sheet(0)[rules.RUNGS.start : rules.RUNGS.stop]) == list(rungs)  # as written
    # Running total: the rungs count until the last move, which pays the penalty (and no game bonus).
    assert history[-2][0] == 126 + 35 + sum(rungs) + 138 + 126 - 36
    assert history[-1][0] - history[-2][0] == 36 - sum(rungs)  # the Sextet's 36, minus the rungs
    assert state.stats(0)["game_bonus"] == 0.0
    assert state.scores()[0] == 126 + 35 + 138 + 126


def test_rung_windows_follow_the_written_rungs():
    assert rung_windows((None, None, None, None)) == ((6, 33), (7, 34), (8, 35), (9, 36))
    assert rung_windows((None, 18, None, None)) == ((6, 17), (18, 18), (19, 35), (20, 36))
    assert rung_windows((None, 18, 19, None)) == ((6, 17), (18, 18), (19, 19), (20, 36))
    assert rung_windows((None, 18, None, 19)) is None  # no room for Rung 3
    assert rung_windows((6, None, None, None)) == ((6, 6), (7, 34), (8, 35), (9, 36))
    assert rung_windows((None, 7, None, None)) == ((6, 6), (7, 7), (8, 35), (9, 36))
    assert rung_windows((None, 6, None, None)) is None  # Rung 1 would need less than 6
    assert rung_windows((None, None, None, 9)) == ((6, 6), (7, 7), (8, 8), (9, 9))
    assert rung_windows((None, None, None, 8)) is None


# -- bonuses ------------------------------------------------------------------------------
def test_numbers_bonus_is_paid_on_the_write_that_reaches_80():
    writes = replace(MAX_GAME, "Fives", (5, 5, 5, 5, 1, 1))  # Numbers 6+12+18+24+20 = 80 before the Sixes
    state, history = play_writes([writes])
    fives = [n for _, n in writes].index("Fives")
    assert history[fives + 1][0] - history[fives][0] == 20 + 35
    assert state.stats(0)["numbers_bonus"] == 1.0
    assert state.stats(0)["numbers_total"] == 116


def test_no_numbers_bonus_at_79():
    writes = replace(MAX_GAME, "Ones", (1, 1, 1, 1, 1, 2))
    writes = replace(writes, "Fives", (5, 5, 5, 5, 1, 1))
    writes = replace(writes, "Sixes", (1, 1, 1, 1, 1, 1))  # Sixes 0 also loses the game bonus
    state, _ = play_writes([writes])
    assert state.stats(0)["numbers_total"] == 79
    assert state.stats(0)["numbers_bonus"] == 0.0
    assert state.scores()[0] == 79 + 138 + 138 + 126


def test_game_bonus_when_every_category_scores():
    state, history = play_writes([MAX_GAME])
    assert state.stats(0)["game_bonus"] == 1.0
    assert history[-1][0] - history[-2][0] == 36 + 36  # the Sextet and the game bonus, on the last move


def test_game_bonus_when_the_only_zero_is_the_sextet():
    state, _ = play_writes([replace(MAX_GAME, "Sextet", (1, 2, 3, 4, 5, 6))])
    assert state.final_points(0, CAT["Sextet"]) == 0
    assert state.stats(0)["game_bonus"] == 1.0
    assert state.scores()[0] == MAX_SCORE - 36


def test_no_game_bonus_with_another_zero():
    state, _ = play_writes([replace(MAX_GAME, "Series", (6,) * 6)])
    assert state.final_points(0, CAT["Series"]) == 0
    assert state.stats(0)["game_bonus"] == 0.0
    assert state.stats(0)["zero_categories"] == 1.0
    assert state.scores()[0] == MAX_SCORE - 30 - 36


# -- the maximum --------------------------------------------------------------------------
def test_a_perfect_game_scores_599():
    state, _ = play_writes([MAX_GAME])
    assert state.scores()[0] == 599 == MAX_SCORE
    assert state.stats(0) == {
        "numbers_bonus": 1.0,
        "game_bonus": 1.0,
        "rung_penalty": 0.0,
        "numbers_total": 126.0,
        "zero_categories": 0.0,
    }


def test_599_is_the_most_any_game_can_score_and_the_card_says_why_not_600():
    best = [
        max(category_scores(d)[c] for d in itertools.combinations_with_replacement(range(1, 7), 6)) for c in range(18)
    ]
    ladder = max(sum(r) for r in itertools.combinations(range(6, 37), 4))  # four different totals
    not_rungs = sum(b for c, b in enumerate(best) if c not in rules.RUNGS)
    assert not_rungs + ladder + rules.NUMBERS_BONUS + rules.GAME_BONUS == 599 == MAX_SCORE
    card = six_hundred_v0.__doc__
    assert "Maximum score 599, not the rule text's 600" in card
    assert "33, 34, 35, 36" in card and "six 5s = 30" in card


# -- a turn -------------------------------------------------------------------------------
def test_locked_dice_never_change_and_fresh_dice_come_from_the_tape():
    rng = np.random.default_rng(7)
    game = SixHundred()
    for _ in range(40):
        tape = rng.integers(1, 7, size=(1, rules.NUM_ROUNDS, rules.MAX_ROLLS, rules.NUM_DICE))
        state = game.new_state_from_tape(tape)
        while not state.is_terminal():
            mask = state.legal_mask(0)
            action = int(rng.choice(np.flatnonzero(mask)))
            if action < rules.SCORE:
                locked, dice, roll, rnd = (
                    state.locked,
                    state.dice,
                    state.roll,
                    len([v for v in state.sheet(0) if v is not None]),
                )
                newly = [dice[p] for p in rules.lock_positions(action)]
                state.apply(0, action)
                assert state.locked == tuple(sorted(locked + tuple(newly)))
                assert state.dice[: len(state.locked)] == state.locked
                free = state.dice[len(state.locked) :]
                assert free == tuple(sorted(tape[0, rnd, roll, : len(free)].tolist()))
                assert state.roll == roll + 1
            else:
                hand = tuple(sorted(state.dice))
                category = action - rules.SCORE
                state.apply(0, action)
                assert state.sheet(0)[category] == category_scores(hand)[category]


def test_scoring_after_the_first_or_second_roll_ends_the_turn():
    game = SixHundred()
    tape = tape_for([[(1, 2, 3, 4, 5, 6), (2, 2, 2, 3, 3, 4)] + [(1,) * 6] * 16])
    tape[0, 1, 1] = (5, 5, 5, 3, 1, 1)  # round 2's second roll: its first 4 values are rolled
    state = game.new_state_from_tape(tape)
    state.apply(0, score_action(CAT["Series"]))
    assert state.sheet(0)[CAT["Series"]] == 30
    assert (state.roll, state.locked, state.dice) == (1, (), (2, 2, 2, 3, 3, 4))
    state.apply(0, lock_action([0, 1]))  # lock the two lowest 2s
    assert (state.roll, state.locked, state.dice) == (2, (2, 2), (2, 2, 3, 5, 5, 5))
    state.apply(0, score_action(CAT["Fives"]))
    assert state.sheet(0)[CAT["Fives"]] == 15
    assert (state.roll, state.locked) == (1, ())


def test_same_seed_deals_the_same_first_rolls_whatever_is_decided():
    game = SixHundred()
    first_rolls = []
    for policy in ("score at once", "roll twice"):
        state = game.new_initial_state(np.random.default_rng(123))
        rolls = []
        while not state.is_terminal():
            if state.roll == 1:
                rolls.append(state.dice)
            mask = state.legal_mask(0)
            roll_on = policy == "roll twice" and state.roll < rules.MAX_ROLLS
            state.apply(0, 0 if roll_on else int(np.flatnonzero(mask[rules.SCORE :])[0]) + rules.SCORE)
        first_rolls.append(rolls)
    assert first_rolls[0] == first_rolls[1] and len(first_rolls[0]) == 18


# -- masks and errors ---------------------------------------------------------------------
def expected_mask(state) -> np.ndarray:
    locked_bits = (1 << len(state.locked)) - 1
    locks = [state.roll < 3 and not a & locked_bits and a | locked_bits != 63 for a in range(64)]
    return np.array(locks + [v is None for v in state.sheet(state.acting_players()[0])], np.int8)


def test_mask_follows_the_rules_in_random_play():
    rng = np.random.default_rng(3)
    game = SixHundred(num_players=2)
    for seed in range(10):
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            (p,) = state.acting_players()
            mask = state.legal_mask(p)
            np.testing.assert_array_equal(mask, expected_mask(state))
            assert not state.legal_mask(1 - p).any()
            state.apply(p, int(rng.choice(np.flatnonzero(mask))))
        assert not state.legal_mask(0).any() and not state.legal_mask(1).any()


def fresh_state(num_players=1):
    return SixHundred(num_players=num_players).new_initial_state(np.random.default_rng(0))


def test_locking_an_already_locked_die_is_illegal():
    state = fresh_state()
    state.apply(0, lock_action([0]))
    assert not state.legal_mask(0)[lock_action([0])] and not state.legal_mask(0)[lock_action([0, 3])]
    with pytest.raises(IllegalActionError, match=r"action 1 \(lock dice 1 and roll the rest\) is illegal"):
        state.apply(0, lock_action([0]))


def test_rolling_with_no_roll_left_is_illegal():
    state = fresh_state()
    state.apply(0, 0)
    state.apply(0, 0)
    assert state.roll == 3 and not state.legal_mask(0)[: rules.SCORE].any()
    with pytest.raises(IllegalActionError, match="roll the unlocked dice"):
        state.apply(0, 0)


def test_rolling_with_nothing_unlocked_is_illegal():
    state = fresh_state()
    assert not state.legal_mask(0)[63]
    with pytest.raises(IllegalActionError, match="is illegal"):
        state.apply(0, 63)
    state.apply(0, lock_action(range(5)))
    assert np.flatnonzero(state.legal_mask(0)[: rules.SCORE]).tolist() == [0]  # only: roll the last die


def test_scoring_a_used_category_is_illegal():
    state = fresh_state()
    state.apply(0, score_action(CAT["Ones"]))
    assert not state.legal_mask(0)[score_action(CAT["Ones"])]
    with pytest.raises(IllegalActionError, match=r"score Ones\) is illegal"):
        state.apply(0, score_action(CAT["Ones"]))


@pytest.mark.parametrize(
    "action, message",
    [
        (82, "outside the action space 0..81"),
        (-1, "outside the action space"),
        (1.5, "integer id"),
        ("score", "integer id"),
        (True, "integer id"),
    ],
)
def test_malformed_actions_are_refused_by_name(action, message):
    with pytest.raises(IllegalActionError, match=message):
        fresh_state().apply(0, action)


def test_acting_out_of_turn_and_after_the_end_are_refused():
    state = fresh_state(num_players=2)
    with pytest.raises(IllegalActionError, match="player 1 is not to act"):
        state.apply(1, score_action(0))
    state.apply(0, np.int64(score_action(0)))  # numpy integers are fine
    assert state.acting_players() == (1,)
    state, _ = play_writes([MAX_GAME])
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(0, score_action(0))


@pytest.mark.parametrize(
    "tape, message",
    [
        (np.ones((1, 18, 3, 5), np.int64), "shape"),
        (np.ones((2, 18, 3, 6), np.int64), "shape"),
        (np.full((1, 18, 3, 6), 1.0), "integers"),
        (np.full((1, 18, 3, 6), 7), "1..6"),
        (np.zeros((1, 18, 3, 6), np.int64), "1..6"),
    ],
)
def test_a_bad_tape_is_refused(tape, message):
    with pytest.raises(ValueError, match=message):
        SixHundred().new_state_from_tape(tape)


@pytest.mark.parametrize("num_players", [0, 7, 1.0, True])
def test_player_count_is_checked(num_players):
    with pytest.raises((ValueError, TypeError), match="num_players"):
        SixHundred(num_players=num_players)


def test_action_helpers_and_names():
    game = SixHundred()
    names = [game.action_name(a) for a in range(rules.NUM_ACTIONS)]
    assert len(set(names)) == rules.NUM_ACTIONS
    assert names[0] == "roll the unlocked dice"
    assert names[lock_action([1, 2])] == "lock dice 2,3 and roll the rest"
    assert names[64] == "score Ones" and names[81] == "score Sextet" and names[71] == "score Rung 2"
    assert rules.lock_positions(lock_action([4, 5])) == (4, 5) and lock_action([4, 5]) == 48
    with pytest.raises(ValueError, match="subset of 0..5"):
        lock_action([6])
    with pytest.raises(ValueError, match="category"):
        score_action(18)


def test_rolled_positions_are_the_unlocked_dice_a_lock_move_leaves_to_roll():
    """``rolled_positions`` (the web page picks a lock move by the dice clicked) names exactly
    the dice the rules roll again: the others are locked after the move."""
    state = SixHundred().new_initial_state(np.random.default_rng(3))
    state.apply(0, lock_action([0, 2]))
    assert rules.rolled_positions(0, 2) == (2, 3, 4, 5) and rules.rolled_positions(lock_action([3, 5]), 2) == (2, 4)
    for action in np.flatnonzero(state.legal_mask(0)[: rules.NUM_LOCKS]).tolist():
        rolled = rules.rolled_positions(action, len(state.locked))
        after = state.clone()
        after.apply(0, action)
        assert rolled and after.locked == tuple(sorted(v for p, v in enumerate(state.dice) if p not in rolled))


# -- several players ----------------------------------------------------------------------
def test_turns_go_round_the_table_and_the_highest_total_wins():
    low = replace(MAX_GAME, "Sextet", (1, 2, 3, 4, 5, 6))  # 599 - 36
    broken = with_rungs(MAX_GAME, (20, 20, 30, 31))  # rung penalty and no game bonus: 599 - 138 - 36
    sheets = (low, MAX_GAME, broken)
    state = SixHundred(num_players=3).new_state_from_tape(tape_for([[d for d, _ in w] for w in sheets]))
    order = []
    for r in range(rules.NUM_ROUNDS):
        for p, writes in enumerate(sheets):
            order.append(state.acting_players())
            if r == 0:  # a whole turn, rolls included, before the next player (the tape rolls 1s)
                state.apply(p, 0)
                state.apply(p, lock_action(range(5)))
                assert state.acting_players() == (p,) and state.roll == 3
            state.apply(p, score_action(CAT[writes[r][1]]))
    assert order == [(p,) for _ in range(rules.NUM_ROUNDS) for p in range(3)]
    np.testing.assert_array_equal(state.scores(), [563, 599, 425])
    np.testing.assert_array_equal(state.returns(), [-1, 1, -1])


def test_equal_top_totals_share_the_win():
    state, _ = play_writes([MAX_GAME, MAX_GAME, replace(MAX_GAME, "Sextet", (1, 2, 3, 4, 5, 6))])
    np.testing.assert_array_equal(state.returns(), [1, 1, -1])
    state, _ = play_writes([MAX_GAME, MAX_GAME])
    np.testing.assert_array_equal(state.returns(), [0, 0])


# -- what a player sees -------------------------------------------------------------------
def test_observation_shows_dice_locks_and_the_sheet():
    game = SixHundred(num_players=2)
    tape = tape_for([[(6, 6, 3, 1, 1, 1), (2,) * 6, (6, 2, 5, 2, 1, 4)], [(1,) * 6, (2,) * 6]])
    state = game.new_state_from_tape(tape)
    state.apply(0, score_action(CAT["Rung 2"]))  # round 1: 18 in Rung 2
    state.apply(1, score_action(CAT["Ones"]))  # 6
    state.apply(0, score_action(CAT["Series"]))  # round 2: six 2s are no Series: 0
    state.apply(1, score_action(CAT["Twos"]))  # 12
    state.apply(0, lock_action([1, 5]))  # round 3: dice 1 2 2 4 5 6, lock a 2 and the 6; four 1s come
    obs = state.observe(0)
    assert obs.shape == game.observation_shape == (157,) and obs.dtype == np.float32
    dice = obs[rules.OBS_DICE].reshape(6, 6).argmax(axis=1) + 1
    assert tuple(dice[:2]) == (2, 6) == state.locked and tuple(dice) == state.dice
    assert obs[rules.OBS_LOCKED].tolist() == [1, 1, 0, 0, 0, 0]
    np.testing.assert_allclose(obs[rules.OBS_CATEGORY_SCORES], np.array(category_scores(state.dice)) / 36, rtol=1e-6)
    assert obs[rules.OBS_ROLL].tolist() == [0, 1, 0]
    sheet = np.rint(obs[rules.OBS_SHEET] * 36)
    assert sheet[CAT["Rung 2"]] == 18 and sheet[CAT["Series"]] == 0
    assert obs[rules.OBS_OPEN][CAT["Series"]] == 0 and obs[rules.OBS_OPEN].sum() == 16
    windows = np.rint(obs[rules.OBS_RUNG_WINDOWS] * 36).reshape(4, 2).tolist()
    assert windows == [[6, 17], [18, 18], [19, 35], [20, 36]]
    assert obs[rules.OBS_LADDER_ALIVE] == 1 and obs[rules.OBS_GAME_BONUS_ALIVE] == 0  # the Series holds 0
    assert obs[rules.OBS_TURNS_LEFT] == pytest.approx(16 / 18) and obs[rules.OBS_MY_TURN] == 1
    assert obs[rules.OBS_SCORE] == pytest.approx(18 / MAX_SCORE)
    opponent = obs[rules.OWN_SIZE :]
    assert np.rint(opponent[:18] * 36)[:2].tolist() == [6, 12] and opponent[18:20].tolist() == [0, 0]
    assert opponent[-1] == pytest.approx(18 / MAX_SCORE)
    seen_by_1 = state.observe(1)
    assert seen_by_1[rules.OBS_MY_TURN] == 0 and seen_by_1[rules.OBS_TURNS_LEFT] == pytest.approx(16 / 18)
    assert np.rint(seen_by_1[rules.OBS_NUMBERS_PROGRESS] * 80) == 18
    state.apply(0, score_action(CAT["Ones"]))  # player 0's third turn is over, player 1's is not
    assert state.observe(0)[rules.OBS_TURNS_LEFT] == pytest.approx(15 / 18)
    assert state.observe(1)[rules.OBS_TURNS_LEFT] == pytest.approx(16 / 18)


def test_a_broken_ladder_shows_in_the_observation():
    writes = with_rungs(MAX_GAME, (20, 20, 30, 31))
    state = SixHundred().new_state_from_tape(tape_for([[d for d, _ in writes]]))
    for r in range(8):
        state.apply(0, score_action(CAT[writes[r][1]]))
    obs = state.observe(0)
    assert obs[rules.OBS_LADDER_ALIVE] == 0 and obs[rules.OBS_GAME_BONUS_ALIVE] == 0
    assert not obs[rules.OBS_RUNG_WINDOWS].any()
    assert "broken" in state.render()


def test_render_is_a_score_sheet():
    state, _ = play_writes([MAX_GAME, with_rungs(MAX_GAME, (20, 20, 30, 31))])
    text = state.render()
    for label in ("Ones", "Rung 4", "Sextet", "Numbers total", "+35", "Ladder", "Game bonus", "Total"):
        assert label in text
    assert text.splitlines()[-1].split() == ["Total", "599", str(599 - 138 - 36)]
    assert "roll 1/3" in fresh_state().render()


def test_clone_is_independent():
    state = fresh_state()
    copy = state.clone()
    state.apply(0, score_action(0))
    assert copy.sheet(0)[0] is None and copy.legal_mask(0)[score_action(0)]
    copy.apply(0, score_action(1))
    assert state.sheet(0)[1] is None


def test_score_rewards_add_up_to_the_final_score():
    env = six_hundred_v0.env()
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    total = 0.0
    for _ in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total == env.unwrapped.game_state.scores()[0]


# -- dice math and the bot ----------------------------------------------------------------
def test_expect_after_lock_matches_brute_force():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3):
        tables = keep_tables(n)
        values = rng.normal(size=len(tables.keeps))
        brute = []
        for lock in tables.keeps:
            m = n - len(lock)
            total = 0.0
            for fresh in itertools.product(range(1, 7), repeat=m):
                total += max(
                    values[tables.keep_index[tuple(sorted(lock + tuple(fresh[i] for i in more)))]]
                    for r in range(m + 1)
                    for more in itertools.combinations(range(m), r)
                )
            brute.append(total / 6**m)
        np.testing.assert_allclose(expect_after_lock(n, values), brute)
    with pytest.raises(ValueError, match="lock values"):
        expect_after_lock(2, np.zeros(5))


def test_heuristic_beats_random_by_a_wide_margin():
    game = SixHundred()
    means = {}
    for agent in (SixHundredHeuristic(game, seed=0), RandomAgent(game, seed=0)):
        scores = []
        for seed in range(15):
            state = game.new_initial_state(np.random.default_rng(seed))
            while not state.is_terminal():
                state.apply(0, agent.act(state.observe(0), state.legal_mask(0)))
            scores.append(state.scores()[0])
        means[agent.name] = np.mean(scores)
    assert means["heuristic"] > 300 and means["random"] < 60


def test_heuristic_is_registered_and_plays_several_seats_legally():
    game = SixHundred(num_players=3)
    bot = make_agent("six_hundred", "heuristic", game, seed=1)
    assert isinstance(bot, SixHundredHeuristic)
    state = game.new_initial_state(np.random.default_rng(9))
    while not state.is_terminal():
        (p,) = state.acting_players()
        state.apply(p, bot.act(state.observe(p), state.legal_mask(p)))  # apply() refuses illegal moves
    assert state.scores().min() > 200
    with pytest.raises(ValueError, match="plays six_hundred"):
        SixHundredHeuristic(InvertedDice())
