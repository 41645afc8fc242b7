"""The Parallel form of every simultaneous game against PettingZoo's checkers, and the
declaration that decides which games have one.

Parametrized over the registry: a game that declares ``simultaneous = True`` is checked
here as soon as it is registered.
"""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test
from pettingzoo.utils.conversions import aec_to_parallel, parallel_to_aec

import envs  # noqa: F401  (registers the envs)
from envs.parallel import parallel_api
from envs.registry import ENVS

PARALLEL = [entry for entry in ENVS.values() if entry.parallel]
CASES = [
    pytest.param(entry, n, id=f"{entry.name}-{n}p")
    for entry in PARALLEL
    for n in range(entry.game_class().min_players, entry.game_class().max_players + 1)
]


@pytest.fixture(autouse=True)
def quiet_expected_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


@pytest.mark.parametrize("name", list(ENVS))
def test_the_registry_and_the_game_agree_on_the_parallel_form(name):
    entry = ENVS[name]
    module = entry.load_module()
    assert entry.parallel == entry.game_class().simultaneous == hasattr(module, "parallel_env")
    assert module.raw_env.metadata["is_parallelizable"] == entry.parallel


def test_a_turn_based_game_gets_no_parallel_form():
    turn_based = next(entry for entry in ENVS.values() if not entry.parallel)
    with pytest.raises(TypeError, match="turn-based"):
        parallel_api(turn_based.game_class(), "x_v0", __name__)


@pytest.mark.parametrize("entry, num_players", CASES)
def test_parallel_api_test(entry, num_players):
    parallel_api_test(entry.load_module().parallel_env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("entry, num_players", CASES)
def test_parallel_seed_test(entry, num_players):
    module = entry.load_module()
    parallel_seed_test(lambda: module.parallel_env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("entry, num_players", CASES)
def test_round_trips_through_pettingzoos_conversions(entry, num_players):
    module = entry.load_module()
    api_test(parallel_to_aec(module.parallel_env(num_players=num_players)), num_cycles=300)
    converted = aec_to_parallel(module.env(num_players=num_players))
    observations, _ = converted.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    while converted.agents:
        actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in converted.agents}
        observations, rewards, terminations, truncations, _ = converted.step(actions)
        steps += 1
    assert all(terminations.values()) and steps * num_players <= module.GAME(num_players).max_game_length


@pytest.mark.parametrize("entry", PARALLEL, ids=[e.name for e in PARALLEL])
def test_made_by_pettingzoos_parallel_registry(entry):
    env = pettingzoo.make("parallel", entry.pettingzoo_id)
    observations, _ = env.reset(seed=0)
    assert set(observations) == set(env.possible_agents)
    assert env.metadata["name"] == entry.versioned_name
