"""The rollout agent and what it stands on: states sampled from a player's view (``Game.sample_state``)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.games.inverted_dice import InvertedDiceV0
from envs.registry import make_game

#: Every env, at the table sizes whose views differ (the opponents' blocks, the seat to read off them).
TABLES = [
    ("inverted_dice", {}),
    ("inverted_dice", {"num_players": 3, "free_cross_out": True}),
    ("six_hundred", {}),
    ("six_hundred", {"num_players": 3}),
    ("invers", {}),
    ("lost_dice", {"num_players": 1}),
    ("lost_dice", {"num_players": 3}),
    ("keldice", {"num_players": 2}),
    ("keldice", {"num_players": 4}),
    ("roll_five", {}),
    ("roll_five", {"num_players": 4, "mode": "tournament"}),
]


def random_positions(game, count: int, seed: int = 0, stride: int = 1):
    """``count`` positions of seeded random games as ``(state, player to act)``: every ``stride``-th
    decision, so that a few hundred spread over many games, from their starts to their ends."""
    rng = np.random.default_rng(seed)
    found, decisions = [], 0
    while len(found) < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and len(found) < count:
            for player in state.acting_players():
                if decisions % stride == 0:
                    found.append((state.clone(), player))
                decisions += 1
            for player in state.acting_players():
                state.apply(player, int(rng.choice(np.flatnonzero(state.legal_mask(player)))))
    return found


@pytest.mark.parametrize("env, options", TABLES, ids=[f"{e}-{o}" for e, o in TABLES])
def test_a_sampled_state_shows_the_player_exactly_their_view_and_plays_on(env, options):
    """The sample is a state that player could be in: their observation, to the bit; their legal
    actions among its own; and a game that plays on to its end."""
    game = make_game(env, **options)
    rng = np.random.default_rng(1)
    for k, (state, player) in enumerate(random_positions(game, 300, stride=11)):
        observation = state.observe(player)
        sampled = game.sample_state(observation, rng)
        decider = sampled.acting_players()[0]
        np.testing.assert_array_equal(sampled.observe(decider), observation, err_msg=f"position {k}")
        assert (sampled.legal_mask(decider) >= state.legal_mask(player)).all(), f"position {k}"
        if k % 25 == 0:
            while not sampled.is_terminal():
                for seat in sampled.acting_players():
                    sampled.apply(seat, int(rng.choice(np.flatnonzero(sampled.legal_mask(seat)))))


def test_the_legacy_inverted_dice_view_samples_too():
    """``inverted_dice_v0``'s view has no section progress: the sheets are drawn without it."""
    game = InvertedDiceV0(num_players=2)
    rng = np.random.default_rng(2)
    for state, player in random_positions(game, 200, stride=7):
        observation = state.observe(player)
        np.testing.assert_array_equal(game.sample_state(observation, rng).observe(player), observation)


@pytest.mark.parametrize("env, options", [("inverted_dice", {"num_players": 4}), ("six_hundred", {"num_players": 3})])
def test_the_dice_games_read_the_seat_off_the_sheets(env, options):
    """Parallel solitaire: the seats before the player to act have one more entry this round, so
    the sample seats the player where they sit (and gives the others the right turns left)."""
    game = make_game(env, **options)
    rng = np.random.default_rng(3)
    for state, player in random_positions(game, 200, stride=7):
        assert game.sample_state(state.observe(player), rng).acting_players() == (player,)


@pytest.mark.parametrize("env", ["six_hundred", "invers"])
def test_nothing_is_drawn_where_the_view_shows_everything(env):
    """Six Hundred's view shows every sheet; Invers hides nothing and has no chance: the sample
    is the very position (equal keys: every seat's view), whatever the generator."""
    game = make_game(env, num_players=2)
    rng = np.random.default_rng(4)
    for state, player in random_positions(game, 150, stride=5):
        assert game.sample_state(state.observe(player), rng) == state


def test_the_hidden_part_and_the_future_are_drawn_afresh():
    """Roll Five: the other players' cards differ from sample to sample, the observer's never;
    a dice game: the dice to come differ, the dice on the table never."""
    game = make_game("roll_five", num_players=3)
    state, player = random_positions(game, 10)[7]
    rng = np.random.default_rng(5)
    samples = [game.sample_state(state.observe(player), rng) for _ in range(20)]
    assert {s.cards(0) for s in samples} == {state.cards(player)}
    assert len({(s.cards(1), s.cards(2)) for s in samples}) > 10
    game = make_game("inverted_dice")
    state, player = random_positions(game, 1)[0]
    samples = [game.sample_state(state.observe(player), rng) for _ in range(20)]
    assert {s.dice for s in samples} == {state.dice}
    rolled = set()
    for sample in samples:
        sample.apply(player, 30)  # reroll all five dice: the tape's next row
        rolled.add(sample.dice)
    assert len(rolled) > 10


@pytest.mark.parametrize(
    "env, options, message",
    [
        ("six_hundred", {"num_players": 2}, "six_hundred: sample_state needs the observation of the player to act"),
        ("lost_dice", {}, "lost_dice: sample_state needs the observation of the player to act"),
        ("roll_five", {}, "roll_five: sample_state needs the observation of a player to act"),
    ],
)
def test_a_view_of_a_player_not_to_act_is_refused_in_one_line(env, options, message):
    game = make_game(env, **options)
    state = game.new_initial_state(np.random.default_rng(0))
    waiting = next(p for p in range(game.num_players) if p not in state.acting_players()[:1])
    if env == "roll_five":  # everyone acts at once: one who has committed waits
        state.apply(waiting, int(np.flatnonzero(state.legal_mask(waiting))[0]))
    with pytest.raises(ValueError, match=f"^{message}$"):
        game.sample_state(state.observe(waiting), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"an observation has shape \("):
        game.sample_state(np.zeros(3, np.float32), np.random.default_rng(0))
