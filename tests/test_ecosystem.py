"""Every registered env as the libraries a researcher plugs it into use it.

Parametrized over ``envs.registry.ENVS`` and the superseded ``LEGACY_ENVS``, so a new
game is held to these contracts as soon as it is registered: PettingZoo's ``state()``
checker, SB3's ``make_vec_env`` with its defaults (it asks for ``render_mode="rgb_array"``),
legal sampling and identical continuation after ``deepcopy`` and ``pickle``, chance that a
search can resample, a canonical key, and action names that read back to ids.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import RecordVideo
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test
from stable_baselines3.common.env_util import make_vec_env

import envs  # noqa: F401  (registers the ids)
from envs import ENVS, IllegalActionError
from envs.batched.vector_env import BatchedVectorEnv
from envs.games.dice_rounds import DiceRoundsGame
from envs.registry import LEGACY_ENVS
from envs.vector import GameVectorEnv, LegalBatchSpace, make_vector_env


def player_counts(entry) -> list[int]:
    game_class = entry.game_class()
    return sorted({game_class.min_players, game_class.default_players, game_class.max_players})


#: Every env registered with Gymnasium and PettingZoo, superseded versions included.
ENTRIES = {entry.versioned_name: entry for entry in (*ENVS.values(), *LEGACY_ENVS)}
CASES = [pytest.param(entry, n, id=f"{name}-{n}p") for name, entry in ENTRIES.items() for n in player_counts(entry)]
NAMES = list(ENTRIES)


@pytest.mark.parametrize("entry, num_players", CASES)
def test_pettingzoo_state_test_passes_without_a_warning(entry, num_players):
    env = entry.load_module().env(num_players=num_players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pettingzoo_state_space_test(env)
        pettingzoo_state_test(env, num_cycles=200)
    state = env.state()
    assert state.dtype == np.float32 and state.shape == env.unwrapped.game.state_shape


@pytest.mark.parametrize("name", NAMES)
def test_sb3_make_vec_env_with_its_defaults(name):
    vec_env = make_vec_env(ENTRIES[name].gym_id, n_envs=2, seed=0)
    assert vec_env.render_mode == "rgb_array"
    vec_env.reset()
    for _ in range(5):
        masks = vec_env.env_method("action_masks")
        vec_env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    frames = vec_env.get_images()
    assert len(frames) == 2 and all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 for f in frames)
    vec_env.close()


@pytest.mark.parametrize("name", NAMES)
def test_rgb_array_frames_keep_one_size_through_a_game(name):
    env = gymnasium.make(ENTRIES[name].gym_id, render_mode="rgb_array")
    env.reset(seed=1)
    shape = env.render().shape
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
        frame = env.render()
        assert frame.shape == shape and frame.dtype == np.uint8
    env.close()


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_record_video(name, tmp_path):
    pytest.importorskip("moviepy", reason="Gymnasium's RecordVideo needs moviepy")

    env = RecordVideo(gymnasium.make(ENTRIES[name].gym_id, render_mode="rgb_array"), str(tmp_path), disable_logger=True)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def _copies(env):
    yield "deepcopy", copy.deepcopy(env)
    yield "pickle", pickle.loads(pickle.dumps(env))


@pytest.mark.parametrize("form", ["gymnasium.make", "unwrapped"])
@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_copies_sample_legally_and_continue_identically(name, form):
    env = gymnasium.make(ENTRIES[name].gym_id)
    if form == "unwrapped":
        env = env.unwrapped
    env.reset(seed=3)
    env.step(env.action_space.sample())
    for how, twin in _copies(env):
        original = copy.deepcopy(env)
        done = False
        while not done:
            action = twin.action_space.sample()
            assert action == original.action_space.sample(), how
            assert twin.unwrapped.action_masks()[action], f"{how}: sample() gave illegal action {action}"
            got, expected = twin.step(action), original.step(action)
            assert np.array_equal(got[0], expected[0]) and got[1:4] == expected[1:4], how
            done = got[2] or got[3]


@pytest.mark.parametrize("form", ["env", "raw_env"])
@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_copies_sample_legally_and_continue_identically(name, form):
    env = getattr(ENTRIES[name].load_module(), form)()
    env.reset(seed=3)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)  # an unseeded space would seed itself afresh in each copy
    for how, twin in _copies(env):
        original = copy.deepcopy(env)
        for agent in twin.agent_iter():
            assert agent == original.agent_selection
            observation, reward, terminated, truncated, _ = twin.last()
            expected = original.last()
            assert np.array_equal(observation["observation"], expected[0]["observation"]), how
            assert (reward, terminated, truncated) == expected[1:4], how
            if terminated or truncated:
                twin.step(None)
                original.step(None)
                continue
            action = twin.action_space(agent).sample()
            assert action == original.action_space(agent).sample(), how
            assert observation["action_mask"][action], f"{how}: sample() gave illegal action {action}"
            twin.step(action)
            original.step(action)


def _random_prefix(name: str, seed: int, moves: int):
    game = ENTRIES[name].game_class()()
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    for _ in range(moves):
        player = state.acting_players()[0]
        state.apply(player, int(rng.choice(np.flatnonzero(state.legal_mask(player)))))
    return state


def _play_out(state, seed: int) -> list:
    """The observations along a random continuation that depends on ``seed`` only."""
    rng = np.random.default_rng(seed)
    trace = []
    while not state.is_terminal():
        player = state.acting_players()[0]
        legal = np.flatnonzero(state.legal_mask(player))
        state.apply(player, int(legal[rng.integers(legal.size)]))
        trace.append(state.state_tensor())
    return trace


@pytest.mark.parametrize("name", NAMES)
def test_clone_resampled_keeps_the_table_and_draws_the_future_from_its_generator(name):
    state = _random_prefix(name, seed=0, moves=4)
    before = state.key()
    resampled = state.clone_resampled(np.random.default_rng(7))
    assert resampled == state and hash(resampled) == hash(state)
    assert np.array_equal(resampled.legal_mask(state.acting_players()[0]), state.legal_mask(state.acting_players()[0]))
    # The future is a function of the generator alone: the same seed gives the same game,
    # whether resampled from the state or from a copy of it.
    again = state.clone().clone_resampled(np.random.default_rng(7))
    futures = [_play_out(s, seed=1) for s in (resampled, again)]
    assert len(futures[0]) == len(futures[1])
    assert all(np.array_equal(a, b) for a, b in zip(*futures))
    assert state.key() == before, "resampling must not touch the original"


DICE_GAMES = [name for name in NAMES if issubclass(ENTRIES[name].game_class(), DiceRoundsGame)]


@pytest.mark.parametrize("name", DICE_GAMES)
def test_a_resampled_dice_game_cannot_peek_at_the_real_dice(name):
    """Two games that differ only in dice not yet rolled resample to the same futures."""
    game = ENTRIES[name].game_class()()
    tapes = np.random.default_rng(0).integers(1, 7, size=(2, *game.tape_shape))
    tapes[1, :, 0, 0] = tapes[0, :, 0, 0]  # the same first roll, different dice after it
    states = [game.new_state_from_tape(tape) for tape in tapes]
    assert states[0] == states[1]
    real = [_play_out(s.clone(), seed=4) for s in states]
    assert not all(np.array_equal(a, b) for a, b in zip(*real)), "the real futures differ"
    resampled = [_play_out(s.clone_resampled(np.random.default_rng(9)), seed=4) for s in states]
    assert len(resampled[0]) == len(resampled[1])
    assert all(np.array_equal(a, b) for a, b in zip(*resampled))


@pytest.mark.parametrize("name", NAMES)
def test_states_have_a_canonical_key(name):
    state = _random_prefix(name, seed=2, moves=3)
    twin = state.clone()
    assert twin == state and hash(twin) == hash(state) and len({state.key(), twin.key()}) == 1
    player = twin.acting_players()[0]
    twin.apply(player, int(np.flatnonzero(twin.legal_mask(player))[0]))
    assert twin != state
    assert state != object() and (state == object()) is False


@pytest.mark.parametrize("name", NAMES)
def test_action_from_name_is_the_inverse_of_action_name_for_every_id(name):
    game = ENTRIES[name].game_class()()
    for action in range(game.num_actions):
        assert game.action_from_name(game.action_name(action)) == action
    with pytest.raises(IllegalActionError, match="no action is named 'fly away'"):
        game.action_from_name("fly away")
    with pytest.raises(IllegalActionError, match="no action is named"):
        game.action_from_name(None)


@pytest.mark.parametrize("native", [True, False], ids=["native", "sync"])
@pytest.mark.parametrize(
    "autoreset_mode", [gymnasium.vector.AutoresetMode.NEXT_STEP, gymnasium.vector.AutoresetMode.SAME_STEP]
)
@pytest.mark.parametrize("name", NAMES)
def test_make_vec_samples_every_sub_envs_legal_actions(name, autoreset_mode, native):
    """``gymnasium.make_vec(id)`` (the native batched env) and envs.vector.GameVectorEnv
    (the legacy ids' vector env): their batched spaces know the masks."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is out of date")
        if native and ENTRIES[name] in ENVS.values():
            vec_env = gymnasium.make_vec(ENTRIES[name].gym_id, num_envs=3, autoreset_mode=autoreset_mode, num_players=2)
        else:
            vec_env = make_vector_env(ENTRIES[name].gym_id, num_envs=3, autoreset_mode=autoreset_mode, num_players=2)
    native = native and ENTRIES[name] in ENVS.values()  # superseded ids keep the SyncVectorEnv
    assert isinstance(vec_env, BatchedVectorEnv if native else GameVectorEnv) and isinstance(
        vec_env.action_space, LegalBatchSpace
    )
    assert vec_env.action_space.sample().tolist() == [0, 0, 0]  # before reset nothing is legal
    vec_env.action_space.seed(0)
    _, infos = vec_env.reset(seed=0)
    ended = 0
    while ended < 4:
        actions = vec_env.action_space.sample()
        masks = infos["action_mask"]
        # legal where a move is due; 0 where a NEXT_STEP sub-env only resets (its mask is all zeros)
        assert all(mask[a] if mask.any() else a == 0 for a, mask in zip(actions, masks)), (actions, masks)
        _, _, terminations, truncations, infos = vec_env.step(actions)
        assert "illegal_action" not in infos
        ended += int((terminations | truncations).sum())
    assert pickle.loads(pickle.dumps(vec_env.action_space))._legal_masks is None  # a plain MultiDiscrete once pickled
    vec_env.close()


def test_gymnasiums_own_sync_vector_env_samples_legal_actions_only_with_the_masks():
    vec_env = gymnasium.make_vec("LostDice-v0", num_envs=3, vectorization_mode="sync")
    assert type(vec_env).__name__ == "SyncVectorEnv" and type(vec_env.action_space) is gymnasium.spaces.MultiDiscrete
    _, infos = vec_env.reset(seed=0)
    for _ in range(50):  # as the README says: the masks from infos
        _, _, terminations, truncations, infos = vec_env.step(
            vec_env.action_space.sample(mask=tuple(infos["action_mask"]))
        )
        assert "illegal_action" not in infos
    vec_env.close()
