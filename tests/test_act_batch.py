"""Bots that act in batch: ``act_batch`` on thousands of positions equals ``act`` on each, move for move.

The positions come from seeded games of the rules cores, across player counts and
variants: every decision of one seat (rotating), where the bot plays half the moves and
random legal moves the rest (its own lines of play, and positions it would not reach,
such as Roll Five's equal plans), random moves at the other seats. ``act`` is called on them one after the other and
``act_batch`` on all of them at once, by two bots seeded alike: the actions must be the
same, and bots that break ties at random must have drawn the same numbers from their
generators (:mod:`agents.batched`), which the positions make them do.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.batched import break_ties
from agents.inverted_dice.heuristic import InvertedDiceHeuristic
from agents.lost_dice.batch import BatchModel, read_batch, read_sheets
from agents.lost_dice.heuristic import LostDiceHeuristic
from agents.lost_dice.planning import PlayValues
from agents.lost_dice.position import read_position
from agents.lost_dice.search import LostDiceSearch
from agents.roll_five.heuristic import RollFiveHeuristic
from agents.six_hundred.heuristic import SixHundredHeuristic
from envs.games.inverted_dice import InvertedDice
from envs.games.lost_dice import Keldice, LostDice
from envs.games.roll_five import RollFive
from envs.games.six_hundred import SixHundred

#: Positions per table; a bot meets every table of its games below (thousands per game).
POSITIONS = 500


def bot_positions(game, bot_class, count: int = POSITIONS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (observation, mask) pairs of seat ``g % players`` of seeded games ``g``,
    stacked; that seat plays ``bot_class``'s move or a random one, evens, the others random."""
    rng = np.random.default_rng(seed)
    bot = bot_class(game, seed=seed)
    observations, masks = [], []
    number = 0
    while len(observations) < count:
        state, seat = game.new_initial_state(rng), number % game.num_players
        number += 1
        while not state.is_terminal() and len(observations) < count:
            for player in state.acting_players():
                mask = state.legal_mask(player)
                action = int(rng.choice(np.flatnonzero(mask)))
                if player == seat:
                    observation = state.observe(player)
                    observations.append(observation)
                    masks.append(mask)
                    if rng.random() < 0.5:
                        action = bot.act(observation, mask)
                state.apply(player, action)
    return np.array(observations), np.array(masks)


def assert_batch_equals_one_at_a_time(game, bot_class, observations, masks) -> None:
    one, batched = bot_class(game, seed=11), bot_class(game, seed=11)
    untouched = np.random.default_rng(11).bit_generator.state
    expected = np.array([one.act(o, m) for o, m in zip(observations, masks)])
    actions = batched.act_batch(observations, masks)
    differ = np.flatnonzero(actions != expected)
    assert differ.size == 0, f"{len(differ)} of {len(masks)} positions differ, first row {differ[:1]}"
    assert batched.rng.bit_generator.state == one.rng.bit_generator.state, "the batch drew other numbers than act"
    if bot_class not in (InvertedDiceHeuristic, SixHundredHeuristic):  # the others break ties at random, and do here
        assert one.rng.bit_generator.state != untouched, "no tie was broken: the positions do not test the draws"


LOST_DICE_TABLES = [(variant, players) for variant in (LostDice, Keldice) for players in (1, 2, 3, 4)]


@pytest.mark.parametrize("bot_class", [LostDiceHeuristic, LostDiceSearch])
@pytest.mark.parametrize("variant, players", LOST_DICE_TABLES, ids=[f"{v.name}-{n}p" for v, n in LOST_DICE_TABLES])
def test_lost_dice_bots_act_in_batch_as_one_at_a_time(bot_class, variant, players):
    game = variant(num_players=players)
    assert_batch_equals_one_at_a_time(game, bot_class, *bot_positions(game, bot_class, seed=players))


@pytest.mark.parametrize("variant", [LostDice, Keldice])
def test_the_batch_model_values_every_throw_as_the_one_position_code_bit_for_bit(variant):
    game = variant(num_players=3)
    observations, _ = bot_positions(game, LostDiceHeuristic, 300)
    model = LostDiceHeuristic(game).model
    batch = read_batch(observations)
    for block in range(game.num_players):
        sheets = read_sheets(game, batch, np.arange(len(observations)), block)
        got = BatchModel(model).throw_values(sheets, sheets.rolls_left)
        for row, observation in enumerate(observations):
            sheet = read_position(game, observation).sheets[block]
            np.testing.assert_array_equal(got[row], PlayValues(model, sheet, sheet.rolls_left).throw_values())


ROLL_FIVE_TABLES = [(mode, players) for mode in ("casual", "tournament") for players in (2, 3, 4)]


@pytest.mark.parametrize("mode, players", ROLL_FIVE_TABLES, ids=[f"{m}-{n}p" for m, n in ROLL_FIVE_TABLES])
def test_roll_five_heuristic_acts_in_batch_as_one_at_a_time(mode, players):
    game = RollFive(num_players=players, mode=mode)
    assert_batch_equals_one_at_a_time(game, RollFiveHeuristic, *bot_positions(game, RollFiveHeuristic, seed=players))


INVERTED_DICE_TABLES = [(free, players) for free in (False, True) for players in (1, 2, 5)]


@pytest.mark.parametrize("free, players", INVERTED_DICE_TABLES, ids=[f"free={f}-{n}p" for f, n in INVERTED_DICE_TABLES])
def test_inverted_dice_heuristic_acts_in_batch_as_one_at_a_time(free, players):
    game = InvertedDice(num_players=players, free_cross_out=free)
    positions = bot_positions(game, InvertedDiceHeuristic, seed=players)
    assert_batch_equals_one_at_a_time(game, InvertedDiceHeuristic, *positions)


@pytest.mark.parametrize("players", [1, 3])
def test_six_hundred_heuristic_acts_in_batch_as_one_at_a_time(players):
    game = SixHundred(num_players=players)
    observations, masks = bot_positions(game, SixHundredHeuristic, 1000, seed=players)
    assert_batch_equals_one_at_a_time(game, SixHundredHeuristic, observations, masks)
    bot = SixHundredHeuristic(game)
    halves = [bot.act_batch(observations[part], masks[part]) for part in (slice(0, 500), slice(500, None))]
    np.testing.assert_array_equal(np.concatenate(halves), bot.act_batch(observations, masks))  # with kept plans


def test_ties_are_drawn_row_by_row_as_one_position_at_a_time():
    best = np.random.default_rng(0).random((400, 12)) < 0.3
    best[np.arange(400), np.random.default_rng(1).integers(12, size=400)] = True  # every row has a best action
    rng = np.random.default_rng(5)
    one_at_a_time = [np.flatnonzero(row)[rng.integers(row.sum())] for row in best]
    batch_rng = np.random.default_rng(5)
    np.testing.assert_array_equal(break_ties(best, batch_rng, "bot"), one_at_a_time)
    assert batch_rng.random() == rng.random()


def test_bad_batches_are_named():
    game = LostDice(num_players=2)
    bot = LostDiceHeuristic(game, seed=0)
    observations, masks = bot_positions(game, LostDiceHeuristic, 4)
    with pytest.raises(ValueError, match=r"action masks must be \(4, 20\)"):
        bot.act_batch(observations, masks[:3])
    with pytest.raises(ValueError, match="observations must be"):
        bot.act_batch(observations[:, :-1], masks)
    with pytest.raises(ValueError, match="row 1 of the batch has no legal action"):
        break_ties(np.array([[True, False], [False, False]]), bot.rng, "heuristic")
