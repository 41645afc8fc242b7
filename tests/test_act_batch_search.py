"""Bots that act in batch one position at a time (:func:`agents.batched.act_row_by_row`): the
Invers bots ``greedy`` and ``search``, the network inside alpha-beta (``ppo+search``) and Roll
Five's ``search``.

``act_batch`` on positions of seeded games (:func:`tests.test_act_batch.bot_positions`) must
choose ``act``'s move on every row and leave the bot's generator where ``act`` on the rows in
order leaves it; with ``rngs`` (one generator per row), row ``k`` must play and draw as a copy
of the bot whose generator is seeded like ``rngs[k]``. The generators' states are compared
(the searches shuffle the root moves at every move, the greedy bots draw on a tie), and the
draws decide moves on these positions, a bot seeded otherwise playing otherwise somewhere:
ties broken at random, equal root values going to the first move shuffled, except for
``ppo+search``, whose float root values hardly ever tie. Games played in batch
(:func:`agents.match.play_games_in_batch`) are then those played one at a time. The searches
are kept shallow and the positions few, so the file runs in seconds.
"""

from __future__ import annotations

import copy
import functools
import re

import numpy as np
import pytest

from agents.match import play_game, play_games_in_batch
from agents.registry import make_agent
from agents.roll_five.search import RollFiveSearch
from envs.games.invers import Invers
from envs.games.roll_five import RollFive
from tests.test_act_batch import assert_batch_equals_one_at_a_time, bot_positions

#: Case -> (the game, the bot's factory ``(game, seed=...)``, positions); the Roll Five model
#: is sampled from fewer games than the bot's default, which changes nothing asked here.
CASES = {
    "invers-greedy": (Invers, functools.partial(make_agent, "invers", "greedy"), 500),
    "invers-search": (Invers, functools.partial(make_agent, "invers", "search:depth=2"), 120),
    "invers-ppo+search": (Invers, functools.partial(make_agent, "invers", "ppo+search:depth=2"), 50),
    "roll_five-search-casual-2p": (
        functools.partial(RollFive, num_players=2, mode="casual"),
        functools.partial(RollFiveSearch, model_games=200),
        400,
    ),
    "roll_five-search-tournament-4p": (
        functools.partial(RollFive, num_players=4, mode="tournament"),
        functools.partial(RollFiveSearch, model_games=200),
        400,
    ),
}


@functools.cache
def case(name: str):
    """The game, the bot's factory and the positions of case ``name`` (made once per test session)."""
    make_game, make_bot, count = CASES[name]
    game = make_game()
    return game, make_bot, bot_positions(game, make_bot, count, seed=1)


@pytest.mark.parametrize("name", CASES)
def test_act_batch_plays_and_draws_as_act_one_row_after_the_other(name):
    game, make_bot, (observations, masks) = case(name)
    assert_batch_equals_one_at_a_time(game, make_bot, observations, masks)
    # the draws decide moves: a bot seeded otherwise plays another move somewhere (not ppo+search's)
    if name != "invers-ppo+search":
        assert (
            make_bot(game, seed=12).act_batch(observations, masks)
            != make_bot(game, seed=11).act_batch(observations, masks)
        ).any()


@pytest.mark.parametrize("name", CASES)
def test_act_batch_with_a_generator_per_row_plays_each_row_as_that_rows_copy(name):
    game, make_bot, (observations, masks) = case(name)
    bot = make_bot(game, seed=11)
    own = bot.rng.bit_generator.state
    rngs = [np.random.default_rng(1000 + k) for k in range(len(masks))]
    actions = bot.act_batch(observations, masks, rngs=rngs)
    assert actions.dtype == np.int64 and actions.shape == (len(masks),)
    assert bot.rng.bit_generator.state == own, "the bot's own generator was drawn from"
    copies = [copy.copy(bot) for _ in masks]  # as play_games_in_batch and the batched env copy a bot per game
    for k, row in enumerate(copies):
        row.reset(1000 + k)
    expected = [row.act(o, m) for row, o, m in zip(copies, observations, masks)]
    differ = np.flatnonzero(actions != expected)
    assert differ.size == 0, f"{len(differ)} of {len(masks)} positions differ, first row {differ[:1]}"
    drawn = [rng.bit_generator.state for rng in rngs]
    assert drawn == [row.rng.bit_generator.state for row in copies], "a row drew other numbers than its copy"
    assert any(state != np.random.default_rng(1000 + k).bit_generator.state for k, state in enumerate(drawn))


@pytest.mark.parametrize("name", CASES)
def test_bad_batches_are_refused_by_name(name):
    game, make_bot, (observations, masks) = case(name)
    bot = make_bot(game, seed=0)
    with pytest.raises(ValueError, match=rf"{re.escape(bot.name)}: action masks must be \(4, {game.num_actions}\)"):
        bot.act_batch(observations[:4], masks[:3])
    with pytest.raises(
        ValueError, match=rf"{re.escape(bot.name)}: rngs must hold one generator per observation \(4\), got 3"
    ):
        bot.act_batch(observations[:4], masks[:4], rngs=[np.random.default_rng(k) for k in range(3)])
    assert bot.act_batch(observations[:0], masks[:0]).tolist() == []


TABLES = {
    "invers-greedy-search": (Invers, ("greedy", "search:depth=2")),
    "invers-ppo+search-greedy": (Invers, ("ppo+search:depth=1", "greedy")),
    "roll_five-search-heuristic-search-random": (
        functools.partial(RollFive, num_players=4, mode="tournament"),
        ("search:model_games=200", "heuristic", "search:model_games=200", "random"),
    ),
}


@pytest.mark.parametrize("name", TABLES)
def test_tables_played_in_batch_play_the_games_of_one_at_a_time(name):
    make_game, specs = TABLES[name]
    game = make_game()
    seats = [make_agent(game.name, spec, game, seed=0) for spec in specs]
    seeds = [3, 4, 5]
    in_batch = play_games_in_batch(game, [seats] * len(seeds), seeds)
    one_at_a_time = [play_game(game, seats, seed) for seed in seeds]
    assert [history for _, history in in_batch] == [history for _, history in one_at_a_time]
    assert len({history for _, history in in_batch}) == len(seeds)
