"""The native batched vector env plays the single envs' games, step for step.

``gymnasium.make_vec(id, N)`` (the native :class:`envs.batched.vector_env.BatchedVectorEnv`)
against ``gymnasium.make_vec(id, N, vectorization_mode="sync")`` (Gymnasium's
``SyncVectorEnv`` of ``N`` single envs) from the same seeds and the same actions:
observations, masks, seats, rewards, terminations and truncations must be identical at
every step, through autoresets, for every env and player count, every reward mode and
random or fixed learner seats. The rules twins themselves are checked against the cores
in ``tests/test_batched_<game>.py`` (``tests/batched_check.py``).
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envs  # noqa: F401  (registers the ids)
from envs.batched.vector_env import BatchedVectorEnv
from envs.core import IllegalActionError
from envs.registry import ENVS

#: (env, game and env options): every player count each env allows, its rulings' variants
#: and every reward mode; ``steps`` long enough to cross several autoresets.
CASES = [
    ("inverted_dice", {"num_players": 1}, 200),
    ("inverted_dice", {"num_players": 2, "free_cross_out": True, "reward_mode": "margin"}, 150),
    ("inverted_dice", {"num_players": 5, "learner_seat": 3}, 100),
    ("six_hundred", {"num_players": 1}, 300),
    ("six_hundred", {"num_players": 2, "reward_mode": "score"}, 200),
    ("six_hundred", {"num_players": 4, "reward_mode": "margin"}, 150),
    ("invers", {"max_plies": 30}, 120),
    ("invers", {"reward_mode": "margin"}, 120),
    ("lost_dice", {"num_players": 1}, 200),
    ("lost_dice", {"num_players": 2, "rolls_per_player": 4}, 150),
    ("lost_dice", {"num_players": 3, "rolls_per_player": 3, "reward_mode": "margin"}, 120),
    ("lost_dice", {"num_players": 4, "rolls_per_player": 3, "learner_seat": 0}, 100),
    ("keldice", {"num_players": 2, "rolls_per_player": 4, "reward_mode": "score"}, 150),
    ("keldice", {"num_players": 3, "rolls_per_player": 3}, 100),
    ("roll_five", {"num_players": 2}, 60),
    ("roll_five", {"num_players": 3, "mode": "tournament", "reward_mode": "margin"}, 60),
    ("roll_five", {"num_players": 4, "mode": "tournament"}, 60),
]
NUM_ENVS = 6


def compare_with_sync(
    gym_id: str, options: dict, steps: int, seed: int = 3, autoreset_mode=AutoresetMode.NEXT_STEP
) -> int:
    """Step both vector envs ``steps`` times on the same random legal actions; the
    number of (game, step) pairs compared. Asserts at the first difference."""
    native = gymnasium.make_vec(gym_id, NUM_ENVS, autoreset_mode=autoreset_mode, **options)
    sync = gymnasium.make_vec(
        gym_id, NUM_ENVS, vectorization_mode="sync", vector_kwargs={"autoreset_mode": autoreset_mode}, **options
    )
    assert isinstance(native, BatchedVectorEnv)
    chooser = np.random.default_rng(seed)
    observations, info = native.reset(seed=seed)
    expected_observations, expected_info = sync.reset(seed=seed)
    _same(
        "reset",
        (observations, info["action_mask"], info["seat"]),
        (expected_observations, expected_info["action_mask"], expected_info["seat"]),
    )
    ended = np.zeros(NUM_ENVS, bool)
    for step in range(steps):
        masks = info["action_mask"]
        actions = np.array([chooser.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        if autoreset_mode == AutoresetMode.NEXT_STEP:
            assert not masks[ended].any(), "a game that resets on this step offers actions"
        result = native.step(actions)
        expected = sync.step(actions)
        observations, rewards, terminated, truncated, info = result
        _same(
            f"step {step}",
            (observations, rewards, terminated, truncated, info["action_mask"], info["seat"]),
            (*expected[:4], expected[4]["action_mask"], expected[4]["seat"]),
        )
        if autoreset_mode == AutoresetMode.SAME_STEP and (terminated | truncated).any():
            done = terminated | truncated
            np.testing.assert_array_equal(info["_final_obs"], done)
            for i in np.flatnonzero(done):
                np.testing.assert_array_equal(info["final_obs"][i], expected[4]["final_obs"][i])
                np.testing.assert_array_equal(
                    info["final_info"]["action_mask"][i], expected[4]["final_info"]["action_mask"][i]
                )
        ended = terminated | truncated
    native.close()
    sync.close()
    return steps * NUM_ENVS


def _same(when: str, got, expected) -> None:
    names = ("observations", "rewards", "terminated", "truncated", "action masks", "seats")
    if len(got) == 3:
        names = ("observations", "action masks", "seats")
    for name, a, b in zip(names, got, expected):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"{when}: {name} differ")


@pytest.mark.parametrize("name, options, steps", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_native_vector_env_plays_the_single_envs_games(name, options, steps):
    assert compare_with_sync(ENVS[name].gym_id, options, steps) == steps * NUM_ENVS


class LastLegal:
    """A user's policy with ``act`` only (no ``act_batch``): the env plays it through one copy per game."""

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])


@pytest.mark.parametrize(
    "name, options",
    [
        ("invers", {"opponents": "greedy"}),  # a bot that breaks ties at random (act_batch with rngs)
        ("invers", {"opponents": LastLegal()}),  # a policy with act only: one copy per game
        ("inverted_dice", {"num_players": 2, "opponents": "heuristic"}),  # a bot with act_batch and no randomness
        # bots with act_batch that break ties at random, and the random agent by name: each game's draws
        # come from its own generator (act_batch's rngs), so the games stay the single env's
        ("lost_dice", {"num_players": 3, "opponents": ["heuristic", "search"]}),
        ("keldice", {"opponents": "heuristic"}),
        ("roll_five", {"num_players": 2, "opponents": "heuristic"}),
        ("six_hundred", {"num_players": 2, "opponents": "random"}),
        ("invers", {"opponents": "ppo"}),  # the shipped network: act_batch, one forward pass
        ("roll_five", {"num_players": 3, "opponents": ["search", "ppo"]}),
    ],
)
def test_bots_and_networks_as_opponents_play_the_single_envs_moves(name, options, monkeypatch):
    from agents.trained import PolicyAgent  # noqa: PLC0415 (torch: loaded by the one test with network opponents)

    batched_calls = []
    act_batch = PolicyAgent.act_batch
    monkeypatch.setattr(
        PolicyAgent, "act_batch", lambda self, o, m: batched_calls.append(len(o)) or act_batch(self, o, m)
    )
    compare_with_sync(ENVS[name].gym_id, options, 80)
    assert bool(batched_calls) == ("ppo" in str(options["opponents"]))


@pytest.mark.parametrize("name", ["six_hundred", "lost_dice"])
def test_same_step_autoreset_gives_final_observations(name):
    compare_with_sync(ENVS[name].gym_id, {"num_players": 2}, 150, autoreset_mode=AutoresetMode.SAME_STEP)


def test_every_env_makes_a_native_vector_env():
    for entry in ENVS.values():
        env = gymnasium.make_vec(entry.gym_id, num_envs=3)
        assert isinstance(env, BatchedVectorEnv), entry.name
        observations, info = env.reset(seed=0)
        assert observations.shape == (3, *env.single_observation_space.shape)
        assert info["action_mask"].shape == (3, env.single_action_space.n) and info["action_mask"].dtype == np.int8
        assert env.action_masks().dtype == bool
        env.step(env.action_space.sample())  # legal actions, sampled from the masks


def test_illegal_action_ends_that_game_only_or_raises():
    env = gymnasium.make_vec("SixHundred-v0", num_envs=4)
    _, info = env.reset(seed=1)
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    illegal = np.flatnonzero(info["action_mask"][2] == 0)[0]
    actions[2] = illegal
    with pytest.warns(UserWarning, match="illegal action"):
        _, rewards, terminated, _, info = env.step(actions)
    assert terminated.tolist() == [False, False, True, False] and rewards[2] == -1.0
    assert info["illegal_action"].tolist() == [False, False, True, False] and not info["action_mask"][2].any()
    strict = gymnasium.make_vec("SixHundred-v0", num_envs=4, illegal_action="raise")
    _, info = strict.reset(seed=1)
    actions[2] = np.flatnonzero(info["action_mask"][2] == 0)[0]
    with pytest.raises(IllegalActionError):
        strict.step(actions)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        strict.step(np.full(4, 10**6))
    with pytest.raises(ValueError, match="shape"):
        strict.step(np.zeros(3, np.int64))


def test_render_draws_one_game_and_disabled_autoreset_needs_a_reset_mask():
    env = gymnasium.make_vec("InvertedDice-v1", num_envs=2, render_mode="ansi", autoreset_mode=AutoresetMode.DISABLED)
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render_game(1) != ""
    for _ in range(200):
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        if (terminated | truncated).any():
            break
    done = terminated | truncated
    assert done.any()
    with pytest.raises(IllegalActionError):
        env.step(env.action_space.sample())
    env.reset(options={"reset_mask": done})
    env.step(env.action_space.sample())


def test_bad_options_are_named():
    with pytest.raises(KeyError, match="unknown env"):
        BatchedVectorEnv("chess", 4)
    with pytest.raises(ValueError, match="num_envs"):
        BatchedVectorEnv("invers", 0)
    with pytest.raises(ValueError, match="learner_seat"):
        BatchedVectorEnv("lost_dice", 4, learner_seat=2)
    with pytest.raises(ValueError, match="reset_mask"):
        BatchedVectorEnv("invers", 2).reset(options={"reset_mask": [1, 0]})


def test_seeds_per_game_and_copies_that_continue_identically():
    env = gymnasium.make_vec("LostDice-v0", num_envs=3)
    observations, _ = env.reset(seed=[5, None, 7])
    for row, seed in ((0, 5), (2, 7)):
        single = gymnasium.make("LostDice-v0")
        expected, _ = single.reset(seed=seed)
        np.testing.assert_array_equal(observations[row], expected)
    twin = copy.deepcopy(env)
    for _ in range(30):
        actions = env.action_space.sample()
        ours, theirs = env.step(actions), twin.step(actions)
        for a, b in zip(ours[:4], theirs[:4]):
            np.testing.assert_array_equal(a, b)
    assert twin.action_space.sample().shape == (3,)  # the copy's space samples from the copy's masks


def test_the_batched_sampler_draws_each_row_s_legal_actions_uniformly_in_one_pass():
    """``vec_env.action_space.sample()``, the documented sampler, drew row by row in Python (323 ms a
    call for 4,096 games); it draws every row at once, uniform over each row's legal actions."""
    from envs.vector import sample_legal  # noqa: PLC0415 (beside its test)

    masks = np.zeros((4, 6), np.int8)
    masks[0, [1, 4]] = 1
    masks[1, :] = 1
    masks[2, 5] = 1  # row 3 has none
    rng = np.random.default_rng(0)
    draws = np.stack([sample_legal(rng, masks) for _ in range(6000)])
    assert set(np.unique(draws[:, 0])) == {1, 4} and set(np.unique(draws[:, 1])) == set(range(6))
    assert set(np.unique(draws[:, 2])) == {5} and set(np.unique(draws[:, 3])) == {0}
    counts = np.bincount(draws[:, 1], minlength=6)
    assert np.all(np.abs(counts - 1000) < 4 * np.sqrt(1000 * 5 / 6))  # uniform, within 4 standard deviations
    assert abs((draws[:, 0] == 1).mean() - 0.5) < 0.03
    again = np.random.default_rng(0)
    assert np.array_equal(np.stack([sample_legal(again, masks) for _ in range(6000)]), draws)  # seeded
