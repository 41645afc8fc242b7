"""The network-guided alpha-beta search: exact against brute-force minimax, wins found, agent specs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import yaml
from sb3_contrib import MaskablePPO

import envs  # noqa: F401  (registers the Gymnasium ids)
from agents.match import play_game
from agents.registry import make_agent
from agents.search import PLY_COST, WIN, NetworkSearch, SearchAgent, mover
from envs.games.invers import Invers, InversState
from envs.games.inverted_dice import InvertedDice


class LinearNetwork:
    """A small fixed network (linear value and logits) for exercising the search."""

    def __init__(self, size: int, actions: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(size=size) * 0.3
        self.W = rng.normal(size=(size, actions))

    def values(self, observations):
        return np.tanh(np.asarray(observations) @ self.w)

    def logits(self, observations):
        return np.asarray(observations) @ self.W


def minimax(state, net, depth: int, ply: int = 0) -> float:
    """Plain full-width negamax with the same leaf values as the search."""
    me = mover(state)
    best = -np.inf
    for action in np.flatnonzero(state.legal_mask(me)):
        child = state.clone()
        child.apply(me, int(action))
        if child.is_terminal():
            value = child.returns()[me] * (WIN - PLY_COST * (ply + 1))
        elif depth == 1:
            value = net.values(child.observe(mover(child))[None])[0] * (1 if mover(child) == me else -1)
        else:
            value = minimax(child, net, depth - 1, ply + 1) * (1 if mover(child) == me else -1)
        best = max(best, value)
    return best


def midgame(plies: int = 12, seed: int = 3) -> InversState:
    game = Invers()
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))
    return state


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_search_values_equal_brute_force_minimax(depth):
    state = midgame()
    net = LinearNetwork(151, 24)
    exact = NetworkSearch(net, depth=depth, exact_root=True).search(state)
    me = state.to_move
    for action, value in exact.move_values.items():
        child = state.clone()
        child.apply(me, action)
        expected = (
            child.returns()[me] * (WIN - PLY_COST)
            if child.is_terminal()
            else (
                -net.values(child.observe(mover(child))[None])[0] if depth == 1 else -minimax(child, net, depth - 1, 1)
            )
        )
        assert value == pytest.approx(expected)
    pruned = NetworkSearch(net, depth=depth).search(state)
    assert pruned.value == pytest.approx(exact.value) == pytest.approx(minimax(state, net, depth))
    assert exact.move_values[pruned.action] == pytest.approx(exact.value)
    assert pruned.leaves <= exact.leaves and state.ply == 12  # the root state is left unchanged


def test_search_takes_an_immediate_win_and_stops_deepening():
    board = "yryryY" + "ryryry" * 4 + "ryryrR"
    state = InversState.from_position(Invers(), board, hands="yr", to_move=0)
    result = NetworkSearch(LinearNetwork(151, 24), depth=4).search(state)
    assert result.action in (0, 23)  # row 1 → and column 6 ↑ push out the last yellow tile
    assert result.value == pytest.approx(WIN - PLY_COST) and result.depth == 1


def test_time_budget_still_answers_with_a_legal_move():
    state = midgame()
    result = NetworkSearch(LinearNetwork(151, 24), ms=0.001).search(state)
    assert state.legal_mask(state.to_move)[result.action] == 1 and result.depth >= 1


def test_bad_budgets_and_games_are_refused():
    with pytest.raises(ValueError, match="depth"):
        NetworkSearch(LinearNetwork(151, 24), depth=0)
    with pytest.raises(ValueError, match="ms"):
        NetworkSearch(LinearNetwork(151, 24), ms=-5)

    with pytest.raises(ValueError, match="two-player"):
        SearchAgent(InvertedDice(num_players=1), LinearNetwork(1, 1))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    model = MaskablePPO(
        "MlpPolicy", gymnasium.make("Invers-v0"), policy_kwargs={"net_arch": [16]}, device="cpu", seed=0
    )
    model.save(str(run / "model.zip"))
    (run / "config.yaml").write_text(yaml.safe_dump({"env": "invers"}))
    return run


def test_ppo_and_ppo_search_specs_play_whole_games(tiny_run):
    game = Invers(max_plies=60)
    network = make_agent("invers", f"ppo:path={tiny_run}", game, seed=0)
    searcher = make_agent("invers", f"ppo+search:depth=2,path={tiny_run}", game, seed=0)
    timed = make_agent("invers", f"ppo+search:ms=2,path={tiny_run}", game, seed=0)
    for seats in ([network, searcher], [timed, make_agent("invers", "random", game, seed=1)]):
        final, history = play_game(game, seats, seed=5, random_opening_plies=2)
        assert final.is_terminal() and len(history) > 2
    with pytest.raises(ValueError, match="ppo\\+search"):
        make_agent("invers", f"ppo+search:width=3,path={tiny_run}", game)


def test_search_agent_refuses_to_move_out_of_turn(tiny_run):
    game = Invers()
    agent = make_agent("invers", f"ppo+search:depth=1,path={tiny_run}", game)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="not this player's turn"):
        agent.act(state.observe(1), state.legal_mask(1))


def test_move_values_are_the_exact_root_values_clipped_to_outcomes():
    """``ppo+search`` as a teacher: every legal move valued by the full-window search, the
    frontier's network values kept, a decided game's ±(WIN - plies) read as ±1."""
    net = LinearNetwork(151, 24)
    agent = SearchAgent(Invers(), net, depth=2)
    state = midgame()
    values = agent.move_values(state)
    exact = NetworkSearch(net, depth=2, exact_root=True).search(state).move_values
    assert sorted(values) == np.flatnonzero(state.legal_mask(state.to_move)).tolist()
    for action, value in values.items():
        assert value == pytest.approx(np.sign(exact[action]) if abs(exact[action]) > 1 else exact[action])
        assert -1.0 <= value <= 1.0
    board = "yryryY" + "ryryry" * 4 + "ryryrR"
    winning = InversState.from_position(Invers(), board, hands="yr", to_move=0)
    won = SearchAgent(Invers(), net, depth=2).move_values(winning)
    assert won[0] == won[23] == 1.0


def test_move_values_refuse_a_time_limit_and_a_finished_game():
    with pytest.raises(ValueError, match="fixed depth"):
        SearchAgent(Invers(), LinearNetwork(151, 24), ms=5).move_values(midgame())
    board = "yryryY" + "ryryry" * 4 + "ryryrR"
    state = InversState.from_position(Invers(), board, hands="yr", to_move=0)
    state.apply(0, 0)
    with pytest.raises(ValueError, match="game is over"):
        SearchAgent(Invers(), LinearNetwork(151, 24), depth=2).move_values(state)
