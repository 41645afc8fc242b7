"""The turn-planning agents act in batch: ``act_batch`` on a few hundred positions equals ``act`` on each.

The optimal Inverted Dice agent and the turn-value (``td``) agents of Inverted Dice and Six
Hundred plan a turn per distinct sheet of a batch (one solution look-up, one network call
over every sheet's endings) and must play the very moves ``act`` plays, planning one sheet
at a time. The positions are :func:`tests.test_act_batch.bot_positions` of seeded solitaire
games; the optimal agent plays a solution of the last rounds only (a full solve takes
minutes), so its positions are the late ones of games the heuristic plays. The td agents
play their shipped networks. Last, whole games: the td agents at tables played in batch
(:func:`agents.match.play_games_in_batch`) play the games :func:`agents.match.play_game` plays.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from agents.base import acts_in_batch
from agents.inverted_dice.heuristic import InvertedDiceHeuristic
from agents.inverted_dice.optimal import OptimalAgent
from agents.inverted_dice.solver import solve
from agents.inverted_dice.td import InvertedDiceTD
from agents.match import play_game, play_games_in_batch
from agents.six_hundred.td import SixHundredTD
from envs.games.inverted_dice import OBS_OPEN_BOXES, InvertedDice
from envs.games.six_hundred import SixHundred
from tests.test_act_batch import bot_positions

#: Positions per agent and rules.
POSITIONS = 300
#: The open boxes of the last rounds that the optimal agent's reduced solution covers.
LAST_ROUNDS = 5


@functools.cache
def last_rounds(free_cross_out: bool):
    """The solution of the sheets with at most :data:`LAST_ROUNDS` open boxes: seconds, the full solve minutes."""
    return solve(free_cross_out, max_open=LAST_ROUNDS)


def assert_act_batch_is_act(make_agent, game, observations, masks) -> None:
    """``act_batch`` of a fresh agent on all the positions at once equals ``act`` of another on each in turn."""
    one, batched = make_agent(game), make_agent(game)
    assert acts_in_batch(batched)
    expected = np.array([one.act(o, m) for o, m in zip(observations, masks)])
    actions = batched.act_batch(observations, masks)
    differ = np.flatnonzero(actions != expected)
    assert differ.size == 0, f"{len(differ)} of {len(masks)} positions differ, first row {differ[:1]}"


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
def test_optimal_agent_acts_in_batch_as_one_at_a_time(free):
    game = InvertedDice(free_cross_out=free)
    observations, masks = bot_positions(game, InvertedDiceHeuristic, 5 * POSITIONS, seed=int(free))
    late = observations[:, OBS_OPEN_BOXES].sum(axis=1) <= LAST_ROUNDS
    assert late.sum() >= POSITIONS // 2
    agent = functools.partial(OptimalAgent, solution=last_rounds(free))
    assert_act_batch_is_act(agent, game, observations[late], masks[late])


@pytest.mark.parametrize("free", [False, True], ids=["standard", "free_cross_out"])
def test_inverted_dice_td_acts_in_batch_as_one_at_a_time(free):
    game = InvertedDice(free_cross_out=free)
    assert_act_batch_is_act(InvertedDiceTD, game, *bot_positions(game, InvertedDiceTD, POSITIONS, seed=2 + free))


def test_six_hundred_td_acts_in_batch_as_one_at_a_time():
    """The td agent's ``act_batch`` is the heuristic's, planning through the td agent's write values."""
    game = SixHundred()
    observations, masks = bot_positions(game, SixHundredTD, POSITIONS, seed=4)
    assert_act_batch_is_act(SixHundredTD, game, observations, masks)
    agent = SixHundredTD(game)
    half = POSITIONS // 2
    halves = [agent.act_batch(observations[part], masks[part]) for part in (slice(0, half), slice(half, None))]
    np.testing.assert_array_equal(np.concatenate(halves), agent.act_batch(observations, masks))  # with kept plans


@pytest.mark.parametrize("game", [InvertedDice(), SixHundred()], ids=lambda game: game.name)
def test_td_agents_at_tables_in_batch_play_the_games_of_one_at_a_time(game):
    agent = (InvertedDiceTD if isinstance(game, InvertedDice) else SixHundredTD)(game)
    seeds = range(100, 106)
    batched = play_games_in_batch(game, [[agent]] * len(seeds), seeds)
    for seed, (state, history) in zip(seeds, batched):
        alone_state, alone_history = play_game(game, [agent], seed)
        assert history == alone_history
        assert state.scores() == alone_state.scores()
