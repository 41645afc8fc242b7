"""Every registered env against the ecosystem's own checkers, and the adapters' contracts.

Parametrized over ``envs.registry.ENVS``: a new game is checked here as soon as it is
registered.
"""

from __future__ import annotations

import importlib
import re
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import envs
from envs import ENVS, IllegalActionError, keldice_v0, lost_dice_v0
from envs.registry import LEGACY_ENVS, make_game


def player_counts(entry) -> list[int]:
    game_class = entry.game_class()
    return sorted({game_class.min_players, game_class.default_players, game_class.max_players})


CASES = [pytest.param(entry, n, id=f"{name}-{n}p") for name, entry in ENVS.items() for n in player_counts(entry)]


@pytest.fixture(autouse=True)
def quiet_expected_warnings():
    with warnings.catch_warnings():
        # PettingZoo's api_test warns about dict observations, which PettingZoo classic uses too.
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


@pytest.mark.parametrize("entry, num_players", CASES)
def test_pettingzoo_api_test(entry, num_players):
    module = entry.load_module()
    api_test(module.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("entry, num_players", CASES)
def test_pettingzoo_seed_test(entry, num_players):
    module = entry.load_module()
    seed_test(lambda: module.env(num_players=num_players), num_cycles=300)


GYM_CASES = [
    pytest.param(entry, n, id=f"{entry.gym_id}-{n}p")
    for entry in (*ENVS.values(), *LEGACY_ENVS)
    for n in player_counts(entry)
]


@pytest.mark.parametrize("entry, num_players", GYM_CASES)
def test_gymnasium_check_env_as_a_user_calls_it(entry, num_players):
    """Gymnasium's own checker, unpatched, on every registered id, called again and again.

    Its step-determinism check samples an action in one state and steps it after a
    seeded reset, in another, where the rules may forbid it (Lost Dice: a throw is
    discarded mid-game, the first decision is roll or pass). The Gymnasium form's default
    ``illegal_action="terminate"`` ends such an episode with a penalty, the same way for
    the same seed, so the check holds whatever the space samples; how often that happens
    depends on the space's seed and the state each call leaves, so both vary here.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*an illegal action ended the episode")
        warnings.filterwarnings("ignore", message=".*is out of date")
        env = gymnasium.make(entry.gym_id, num_players=num_players).unwrapped
        check_env(env)  # with the render checks, as documented
        for seed in range(12):
            env.action_space.seed(seed)  # check_env samples from the space before seeding it
            check_env(env, skip_render_check=True)  # the same env again: another starting state
        for seed in range(4):
            fresh = gymnasium.make(entry.gym_id, num_players=num_players).unwrapped
            fresh.action_space.seed(100 + seed)
            check_env(fresh, skip_render_check=True)


@pytest.mark.parametrize("name", ["lost_dice", "keldice"])
def test_an_illegal_action_ends_the_gymnasium_episode_or_raises_as_asked(name):
    entry = ENVS[name]
    env = gymnasium.make(entry.gym_id, num_players=1).unwrapped
    env.reset(seed=0)
    before = env.game_state.clone()
    message = rf"{name}: action 4 \(discard the throw\) is illegal for player 0 now; legal: 0 \(roll\), 1 \(pass\)"
    with pytest.warns(UserWarning, match=f"{name}: an illegal action ended the episode with reward -1.0"):
        observation, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert re.fullmatch(message, info["illegal_action"]) and not info["action_mask"].any()
    assert env.game_state == before and np.array_equal(observation, before.observe(0)), "nothing was played"
    assert not env.action_masks().any() and env.action_space.sample() == 0  # nothing is legal any more
    with pytest.raises(IllegalActionError, match="the game is over; call reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(20)  # not an id of the space: raises in either mode
    strict = gymnasium.make(entry.gym_id, num_players=1, illegal_action="raise", illegal_reward=-5).unwrapped
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=message):
        strict.step(4)
    assert strict.game_state == before and strict.step(0)[2] is False, "the refused action changed nothing"
    costly = gymnasium.make(entry.gym_id, num_players=1, illegal_reward=-5).unwrapped
    costly.reset(seed=0)
    with pytest.warns(UserWarning, match="reward -5.0"):
        assert costly.step(4)[1:3] == (-5.0, True)
    with pytest.raises(ValueError, match=r"illegal_action must be one of \('terminate', 'raise'\), got 'ignore'"):
        gymnasium.make(entry.gym_id, illegal_action="ignore")
    with pytest.raises(ValueError, match="illegal_reward must be a finite number, got nan"):
        gymnasium.make(entry.gym_id, illegal_reward=float("nan"))


@pytest.mark.parametrize("name", list(ENVS))
def test_made_by_both_registries_and_importable_as_module(name):
    entry = ENVS[name]
    module = importlib.import_module(f"envs.{entry.versioned_name}")  # from envs import <name>_v0
    assert callable(module.env) and module.GAME.name == name
    aec = pettingzoo.make("aec", entry.pettingzoo_id)
    aec.reset(seed=0)
    assert aec.unwrapped.metadata["name"] == entry.versioned_name
    assert isinstance(aec.unwrapped, module.raw_env)
    gym_env = gymnasium.make(entry.gym_id)
    assert isinstance(gym_env.unwrapped, module.gym_env)


def test_unknown_env_names_fail_clearly():
    with pytest.raises(KeyError, match="unknown env 'yahtzee'.*inverted_dice"):
        envs.get_entry("yahtzee")
    with pytest.raises(pettingzoo.env_registry.exceptions.NameNotFound):
        pettingzoo.make("aec", "tabletop/yahtzee_v0")


@pytest.mark.parametrize("reward_mode", ["score", "margin"])
def test_keldice_solo_returns_include_the_starting_minus_four_in_every_adapter(reward_mode):
    """The issue's repro: Keldice starts at -4 (no wishing stones), and the first step pays it."""
    aec = keldice_v0.env(num_players=1, reward_mode=reward_mode)
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    total = 0.0
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        total += reward
        aec.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total == aec.unwrapped.game_state.scores()[0] == -14.0
    gym_env = gymnasium.make("Keldice-v0", num_players=1, reward_mode=reward_mode).unwrapped
    gym_env.reset(seed=3)
    assert gym_env.game_state.scores()[0] == -4.0
    rewards, done = [], False
    while not done:
        _, reward, terminated, truncated, _ = gym_env.step(int(np.flatnonzero(gym_env.action_masks())[0]))
        rewards.append(reward)
        done = terminated or truncated
    assert sum(rewards) == gym_env.game_state.scores()[0]


def test_pettingzoos_terminate_illegal_wrapper_gives_classic_behaviour():
    """What the README offers AEC users who want an illegal move to end the game instead of raising."""
    env = TerminateIllegalWrapper(lost_dice_v0.raw_env(), illegal_reward=-1)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(4)  # discard, illegal before the first roll
    assert env.rewards == {"player_0": -1.0, "player_1": 0} and all(env.terminations.values())


@pytest.mark.parametrize("name", list(ENVS))
def test_illegal_action_raises_a_clear_error_in_both_apis(name):
    entry = ENVS[name]
    env = entry.load_module().env()
    env.reset(seed=0)
    illegal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)
    with pytest.raises(IllegalActionError, match="illegal|outside"):
        env.step(int(illegal[0]) if illegal.size else 10**6)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(10**6)
    gym_env = gymnasium.make(entry.gym_id, illegal_action="raise").unwrapped  # the default ends the episode instead
    gym_env.reset(seed=0)
    illegal = np.flatnonzero(~gym_env.action_masks())
    with pytest.raises(IllegalActionError):
        gym_env.step(int(illegal[0]) if illegal.size else 10**6)


@pytest.mark.parametrize("name", list(ENVS))
def test_an_agent_the_game_does_not_have_is_named_with_the_agents_it_has(name):
    entry = ENVS[name]
    env = entry.load_module().env()
    env.reset(seed=0)
    agents = ", ".join(env.possible_agents)
    for ask in (env.action_space, env.observation_space, env.observe):
        with pytest.raises(KeyError, match=re.escape(f"{env.game.name}: no agent 'player_9'; its agents are {agents}")):
            ask("player_9")
    assert env.action_space(env.possible_agents[-1]) is env.action_spaces[env.possible_agents[-1]]


@pytest.mark.parametrize("name", list(ENVS))
def test_same_seed_same_game_in_the_gymnasium_env(name):
    entry = ENVS[name]

    def trajectory(seed):
        env = gymnasium.make(entry.gym_id).unwrapped
        env.action_space.seed(seed)
        obs, info = env.reset(seed=seed)
        observations, rewards = [obs], []
        while True:
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            observations.append(obs)
            rewards.append(reward)
            if terminated or truncated:
                return np.array(observations), rewards

    observations_a, rewards_a = trajectory(5)
    observations_b, rewards_b = trajectory(5)
    assert np.array_equal(observations_a, observations_b) and rewards_a == rewards_b
    observations_c, _ = trajectory(6)
    assert not np.array_equal(observations_a[: len(observations_c)], observations_c[: len(observations_a)])


def test_render_modes_are_checked():
    entry = next(iter(ENVS.values()))
    with pytest.raises(ValueError, match="render_mode"):
        entry.load_module().env(render_mode="rgb")
    with pytest.raises(ValueError, match="reward_mode"):
        entry.load_module().env(reward_mode="points")


@pytest.mark.parametrize("name", list(ENVS))
def test_a_seats_picture_is_the_whole_table_unless_the_game_hides_something(name):
    """``render_for(player)`` (what a person in that seat is shown) is ``render()`` in the games of
    open information; Roll Five, whose cards and rolls are hidden, draws less until the reveal."""
    state = make_game(name).new_initial_state(np.random.default_rng(0))
    pictures = [state.render_for(p) for p in range(state.game.num_players)]
    if name == "roll_five":
        assert all("?" in picture and picture != state.render() for picture in pictures)
    else:
        assert pictures == [state.render()] * state.game.num_players
