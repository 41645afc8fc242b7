"""The compiled network search on Invers (:mod:`agents.invers.compiled_network_search`, what
``ppo+search`` plays) is the generic search (:class:`agents.search.NetworkSearch`) step for
step: given the same network values it makes the same moves, values, depths, leaf counts
and root values.

The oracle is the generic search run with the shipped network's heads through the compiled
forward pass (:mod:`agents.compiled_network`), so that both see the same values bit for bit:

* 7,900 positions from play (3,000 at depths 1 and 2, 1,500 at depth 3, 400 at depth 4),
  each searched with its own generator, the compiled ones in one call;
* exact root values (a teacher's ``move_values``, at depths 2 and 3) and expert iteration's
  every-iteration exact root (depth 2), dict order included;
* positions play seldom reaches: the ply limit's draws, blocked players, last tiles;
* time limits, and weights that training changes in place.

Against the generic search with torch's forward pass (the moves ``ppo+search`` made before),
values differ in their last bits only; ``tests/test_search_regression.py`` checks the moves
recorded then, and ``benchmarks/search_speed.py`` counts the moves that differ.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.compiled_network import CompiledHeads, forward, supports
from agents.invers.compiled_network_search import CompiledNetworkSearch
from agents.registry import make_agent
from agents.search import NetworkSearch, network_search
from envs.games.invers import Invers
from tests.test_invers_compiled_search import constructed_positions, positions_from_play

SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints" / "invers" / "shipped"
POSITIONS = {1: 3_000, 2: 3_000, 3: 1_500, 4: 400}


class CompiledForward:
    """A network's heads through the compiled forward pass, as the generic search asks a
    network for them (``values``, ``logits``): the generic search with it is the oracle."""

    def __init__(self, network):
        self.heads = CompiledHeads(network)

    def _run(self, weights, biases, observations: np.ndarray) -> np.ndarray:
        self.heads.refresh()
        rows = np.ascontiguousarray(observations, np.float32)
        out = np.empty((len(rows), weights[-1].shape[1]), np.float32)
        forward(rows, len(rows), weights, biases, np.empty((3, len(rows), self.heads.width), np.float32), out)
        return out

    def values(self, observations: np.ndarray) -> np.ndarray:
        return np.clip(self._run(self.heads.value_weights, self.heads.value_biases, observations)[:, 0], -1.0, 1.0)

    def logits(self, observations: np.ndarray, row_independent: bool = False) -> np.ndarray:
        return self._run(self.heads.policy_weights, self.heads.policy_biases, observations)


@pytest.fixture(scope="module")
def game() -> Invers:
    return Invers()


@pytest.fixture(scope="module")
def network(game):
    return make_agent("invers", f"ppo+search:path={SHIPPED}", game).search.network


def observations_of(states) -> np.ndarray:
    return np.array([state.observe(state.to_move) for state in states])


def assert_same(compiled, generic, where: str) -> None:
    assert (compiled.action, compiled.depth, compiled.leaves) == (generic.action, generic.depth, generic.leaves), where
    assert compiled.value == generic.value, where
    assert list(compiled.move_values.items()) == list(generic.move_values.items()), where


@pytest.mark.parametrize("depth", sorted(POSITIONS))
def test_the_moves_of_positions_from_play_are_the_generic_searchs(game, network, depth):
    states = positions_from_play(game, POSITIONS[depth], seed=100 + depth)
    compiled = network_search(game, network, depth=depth)
    assert isinstance(compiled, CompiledNetworkSearch)
    found = compiled.search_observations(
        game, observations_of(states), None, [np.random.default_rng(k) for k in range(len(states))]
    )
    oracle = NetworkSearch(CompiledForward(network), depth=depth)
    for k, state in enumerate(states):
        assert_same(found[k], oracle.search(state, np.random.default_rng(k)), f"position {k} at depth {depth}")


@pytest.mark.parametrize("depth", [2, 3])
def test_exact_root_values_are_the_generic_searchs(game, network, depth):
    states = positions_from_play(game, 300 if depth == 2 else 120, seed=200 + depth)
    compiled = network_search(game, network, depth=depth)
    oracle = NetworkSearch(CompiledForward(network), depth=depth)
    exact = compiled.search_observations(game, observations_of(states), None, None, exact=True)
    for k, state in enumerate(states):
        assert_same(exact[k], oracle.exact_values(state), f"position {k}")
        assert_same(compiled.exact_values(state), exact[k], f"position {k} alone")


def test_expert_iterations_exact_root_is_the_generic_searchs(game, network):
    states = positions_from_play(game, 300, seed=300)
    compiled = network_search(game, network, depth=2, exact_root=True)
    oracle = NetworkSearch(CompiledForward(network), depth=2, exact_root=True)
    for k, state in enumerate(states):
        assert_same(compiled.search(state, None), oracle.search(state, None), f"position {k}")


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_positions_near_the_games_end_are_searched_as_the_generic_search_does(network, depth):
    states = constructed_positions(200, seed=400 + depth)
    game = states[0].game
    compiled = network_search(game, network, depth=depth)
    oracle = NetworkSearch(CompiledForward(network), depth=depth)
    decided = 0
    for k, state in enumerate(states):
        found = compiled.search(state, np.random.default_rng(k))
        assert_same(found, oracle.search(state, np.random.default_rng(k)), f"position {k}")
        decided += abs(found.value) > 1.0
    assert decided > 20  # the positions do reach wins, losses and draws within the horizon


def test_the_compiled_forward_pass_is_torchs_within_rounding(game, network):
    states = positions_from_play(game, 400, seed=500)
    observations = observations_of(states)
    through = CompiledForward(network)
    assert np.abs(through.values(observations) - network.values(observations)).max() < 1e-5
    assert np.abs(through.logits(observations) - network.logits(observations)).max() < 1e-4
    # a row's outputs are the same alone and in a batch
    alone = np.array([through.values(observations[k : k + 1])[0] for k in range(20)])
    np.testing.assert_array_equal(alone, through.values(observations[:20]))


def test_subnormal_weights_are_read_as_zero_and_change_no_output(game, network):
    """Weight decay leaves unused weights subnormal, which multiply slowly on some CPUs: a network
    trained on searched four times slower. The compiled pass reads them as the zeros they nearly are."""
    observations = observations_of(positions_from_play(game, 200, seed=501))
    drifted, zeroed = copy.deepcopy(network), copy.deepcopy(network)
    rows, columns = np.unravel_index(np.random.default_rng(0).choice(256 * 151, 500, replace=False), (256, 151))
    with torch.no_grad():
        drifted.value_layers[0][0][rows, columns] = torch.tensor(np.where(rows % 2, 1e-40, -3e-39), dtype=torch.float32)
        zeroed.value_layers[0][0][rows, columns] = 0.0
    assert int((drifted.value_layers[0][0].abs() < 1.2e-38).sum() - (drifted.value_layers[0][0] == 0).sum()) == 500
    np.testing.assert_array_equal(
        CompiledForward(drifted).values(observations), CompiledForward(zeroed).values(observations)
    )
    assert np.abs(CompiledForward(drifted).values(observations) - drifted.values(observations)).max() < 1e-5


def test_a_time_limit_gives_the_fixed_depth_move_when_ample_and_a_legal_move_when_tiny(game, network):
    states = positions_from_play(game, 40, seed=600)
    fixed = network_search(game, network, depth=2)
    ample = network_search(game, network, depth=2, ms=60_000)
    tiny = network_search(game, network, ms=1e-6)
    for k, state in enumerate(states):
        expected = fixed.search(state, np.random.default_rng(k))
        assert ample.search(state, np.random.default_rng(k)).action == expected.action
        quick = tiny.search(state, np.random.default_rng(k))
        assert state.legal_mask(state.to_move)[quick.action] and quick.depth >= 1


def test_weights_changed_in_place_are_searched_with(game):
    agent = make_agent("invers", f"ppo+search:depth=2,path={SHIPPED}", game)
    states = positions_from_play(game, 60, seed=700)
    before = [agent.search.search(state, None).value for state in states]
    first = agent.search.network.value_layers[0][0]
    with torch.no_grad():
        first.mul_(0.5)  # as an optimiser's step does: in place
    oracle = NetworkSearch(CompiledForward(agent.search.network), depth=2)
    after = [agent.search.search(state, None) for state in states]
    for k, state in enumerate(states):
        assert_same(after[k], oracle.search(state, None), f"position {k}")
    assert [result.value for result in after] != before


def test_the_compiled_search_is_chosen_for_invers_networks_of_linear_and_relu_layers(game, network, tmp_path):
    assert supports(network) and isinstance(network_search(game, network), CompiledNetworkSearch)

    class Tanh:
        value_layers = [(torch.zeros(4, 151), torch.zeros(4)), torch.tanh, (torch.zeros(1, 4), torch.zeros(1))]
        policy_layers = value_layers

    assert not supports(Tanh())  # not a PolicyValueNetwork
    network.value_layers[1], saved = torch.tanh, network.value_layers[1]
    try:
        assert not supports(network) and isinstance(network_search(game, network), NetworkSearch)
    finally:
        network.value_layers[1] = saved


def test_asked_to_move_out_of_turn_it_names_the_problem(game, network):
    search = network_search(game, network, depth=2)
    state = positions_from_play(game, 1, seed=800)[0]
    observation = state.observe(1 - state.to_move)[None]
    with pytest.raises(ValueError, match="not this player's turn"):
        search.search_observations(game, observation, state.legal_mask(state.to_move)[None], [None])
    with pytest.raises(ValueError, match="not this player's turn"):
        search.search_observations(game, state.observe(state.to_move)[None], np.zeros((1, 24), np.int8), [None])
