"""The Gymnasium adapter: opponents in the other seats, seats, masks and rewards."""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

import envs  # noqa: F401  (registers the ids)
from agents.base import Agent
from envs import opponents
from envs.aec import leads
from envs.games.inverted_dice import SCORE


class RecordingAgent(Agent):
    """Plays the last legal action and records every seat it was asked to play."""

    def reset(self, seed=None):
        super().reset(seed)
        self.calls = 0

    def act(self, observation, action_mask):
        self.calls += 1
        assert observation[87] == 1.0  # the dice shown are the acting player's own
        return int(np.flatnonzero(action_mask)[-1])


def test_solitaire_episode_return_is_the_final_score():
    env = gymnasium.make("InvertedDice-v1").unwrapped
    obs, info = env.reset(seed=3)
    total, done = 0.0, False
    while not done:
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        done = terminated or truncated
    assert terminated and not truncated
    assert total == env.game_state.scores()[0]


def test_opponents_play_the_other_seats_until_the_learner_is_to_act():
    opponents = [RecordingAgent(None), RecordingAgent(None)]
    env = gymnasium.make("InvertedDice-v1", num_players=3, opponents=opponents, learner_seat=2).unwrapped
    env.reset(seed=1)
    assert env.learner == 2 and env.game_state.acting_players() == (2,)
    assert all(o.calls >= 1 for o in opponents)  # seats 0 and 1 played their first turns
    while True:
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
        assert env.game_state.acting_players() == (2,) and info["seat"] == 2
    assert reward in (-1.0, 0.0, 1.0)  # win reward by default with several players
    assert reward == env.game_state.returns()[2]


def test_learner_seat_is_random_by_default_and_reproducible():
    env = gymnasium.make("InvertedDice-v1", num_players=4).unwrapped
    seats = [env.reset(seed=s)[1]["seat"] for s in range(40)]
    assert set(seats) == {0, 1, 2, 3}
    assert seats == [env.reset(seed=s)[1]["seat"] for s in range(40)]


def test_score_reward_mode_with_opponents_pays_the_learners_points():
    env = gymnasium.make("InvertedDice-v1", num_players=2, reward_mode="score", learner_seat=0).unwrapped
    env.reset(seed=0)
    before = env.game_state.scores()[0]
    while not env.action_masks()[SCORE]:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    inverted = env.game_state.current_inverted_sum
    _, reward, *_ = env.step(SCORE)
    assert reward == inverted == env.game_state.scores()[0] - before


def test_leads_are_points_over_the_best_other_player():
    assert leads(np.array([10.0, 4.0, 7.0])).tolist() == [3.0, -6.0, -3.0]
    assert leads(np.array([5.0, 5.0, 1.0])).tolist() == [0.0, 0.0, -4.0]
    assert leads(np.array([12.0])).tolist() == [12.0]


def test_margin_rewards_add_up_to_the_learners_final_lead():
    env = gymnasium.make(
        "LostDice-v0", num_players=2, reward_mode="margin", opponents="heuristic", learner_seat=1
    ).unwrapped
    for seed in range(3):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            total += reward
            done = terminated or truncated
        scores = env.game_state.scores()
        assert total == pytest.approx(scores[1] - scores[0])


def test_bad_arguments_fail_clearly():
    with pytest.raises(ValueError, match="learner_seat"):
        gymnasium.make("InvertedDice-v1", num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="expected 2 opponent"):
        gymnasium.make("InvertedDice-v1", num_players=3, opponents=[RecordingAgent(None)])
    with pytest.raises(ValueError, match="num_players must be between 1 and 5"):
        gymnasium.make("InvertedDice-v1", num_players=6)
    with pytest.raises(TypeError, match="free_cross_out"):
        gymnasium.make("InvertedDice-v1", free_cross_out="yes")
    with pytest.raises(TypeError, match="unexpected keyword"):
        gymnasium.make("InvertedDice-v1", free_crossout=True)
    env = gymnasium.make("InvertedDice-v1").unwrapped
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


def test_action_space_sample_draws_legal_actions_and_pickles_plainly():
    env = gymnasium.make("InvertedDice-v1").unwrapped
    env.reset(seed=0)
    for _ in range(200):
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, terminated, _, _ = env.step(action)
        if terminated:
            env.reset()
    restored = pickle.loads(pickle.dumps(env.action_space))
    assert restored == gymnasium.spaces.Discrete(env.game.num_actions)


def test_a_bot_name_where_no_package_declares_bots_says_what_to_do(monkeypatch):
    previous = opponents.register(None)  # as if the project were not installed: no entry point declares the names
    monkeypatch.setattr(opponents, "entry_points", lambda group: [])
    try:
        with pytest.raises(
            ValueError, match=r"opponents: 'heuristic' is a bot name, but no installed package declares bot names"
        ):
            gymnasium.make("InvertedDice-v1", num_players=2, opponents="heuristic")
        env = gymnasium.make(
            "InvertedDice-v1", num_players=2, opponents=RecordingAgent(None)
        )  # objects need no resolver
        env.reset(seed=0)
    finally:
        opponents.register(previous)
    monkeypatch.undo()
    assert (
        type(gymnasium.make("InvertedDice-v1", num_players=2, opponents="heuristic").unwrapped.opponents[0]).__name__
        == "InvertedDiceHeuristic"
    )
