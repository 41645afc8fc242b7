"""The six games as OpenSpiel games (:mod:`envs.integrations.openspiel`): OpenSpiel's own checks, explicit
chance, hidden information, parameters and parity with the PettingZoo envs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from envs.core import IllegalActionError  # noqa: E402
from envs.games.chance import DICE_ROLLS, card_draw, num_dice_outcomes  # noqa: E402
from envs.integrations.openspiel import GAMES, PREFIX  # noqa: E402
from envs.registry import ENVS, make_game  # noqa: E402
from tests.openspiel_parity import play_one  # noqa: E402

ALL_COUNTS = [(name, n) for name in ENVS for n in range(make_game(name).min_players, make_game(name).max_players + 1)]


def load(name: str, **params):
    return pyspiel.load_game(PREFIX + name, params)


def test_every_env_is_registered():
    registered = {name for name in pyspiel.registered_names() if name.startswith(PREFIX)}
    assert registered == {PREFIX + name for name in ENVS} == {PREFIX + name for name in GAMES}


@pytest.mark.parametrize(("name", "players"), ALL_COUNTS)
def test_random_sim_test(name, players):
    """OpenSpiel's own random-simulation test, serialization included, at every player count."""
    pyspiel.random_sim_test(load(name, players=players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("inverted_dice", {"free_cross_out": True, "reward_mode": "margin", "players": 2}),
        ("roll_five", {"mode": "tournament", "players": 3}),
        ("lost_dice", {"rolls_per_player": 4, "players": 3}),
        ("keldice", {"rolls_per_player": 3, "reward_mode": "score"}),
        ("invers", {"max_plies": 30}),
    ],
)
def test_options_reach_the_core(name, params):
    game = load(name, **params)
    options = {k: v for k, v in params.items() if k not in ("players", "reward_mode")}
    assert {k: game.core.options()[k] for k in options} == options
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_unset_options_take_the_rules_defaults():
    assert load("lost_dice", players=3).core.rolls_per_player == 20
    assert load("lost_dice", players=1).core.rolls_per_player == 30


def test_bad_parameters_are_named():
    with pytest.raises(Exception, match="reward_mode"):
        load("invers", reward_mode="points")
    with pytest.raises(Exception, match="mode"):
        load("roll_five", mode="blitz")
    with pytest.raises(Exception, match="num_players must be between 2 and 4"):
        load("roll_five", players=5)


def test_game_types():
    assert load("roll_five").get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert load("roll_five").get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert load("invers").get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    dice = load("inverted_dice")
    assert dice.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert dice.max_chance_outcomes() == num_dice_outcomes(5) == 461
    assert (dice.min_utility(), dice.max_utility()) == (0.0, 360.0)  # solo: the score
    assert (load("inverted_dice", players=2).min_utility(), load("inverted_dice", players=2).max_utility()) == (-1, 1)


def test_dice_rolls_are_exact_multisets():
    for k in range(1, 7):
        roll = DICE_ROLLS[k]
        assert math.isclose(sum(roll.probabilities), 1.0)
        assert len(roll.outcomes) == math.comb(k + 5, 5)
    two = DICE_ROLLS[2]
    assert two.probabilities[two.values.index((1, 1))] == 1 / 36
    assert two.probabilities[two.values.index((1, 2))] == 2 / 36
    draw = card_draw((4, 0, 2, 0, 0, 0), 100)
    assert draw.outcomes == (100, 102) and draw.probabilities == (4 / 6, 2 / 6)


def test_a_bad_chance_outcome_is_named():
    state = make_game("inverted_dice").new_chance_state()
    assert state.is_chance_node()
    with pytest.raises(IllegalActionError, match="not an outcome of the pending chance event"):
        state.apply_chance(10_000)
    assert not make_game("invers").new_chance_state().is_chance_node()


def _resolve(state, card, roll):
    """Resolve the pending chance node: a dealt card by ``card(index)``, a roll by ``roll(player, dice)``."""
    event = state.play.state._chance_queue[0]
    distribution = event.distribution
    if event.resolve == "_dealt":
        value = card(*event.args)
    else:
        value = roll(*event.args, len(distribution.values[0]))
    state.apply_action(distribution.outcomes[distribution.values.index(value)])


def _views(state, player):
    return (
        state.observation_string(player),
        state.observation_tensor(player),
        state.information_state_string(player),
        state.information_state_tensor(player),
    )


@pytest.mark.parametrize("players", [2, 3])
def test_roll_five_views_hide_the_others_cards_and_rolls(players):
    """Change every card and roll player 0 cannot see: their observation and information state,
    strings and tensors, stay the same all game (the others place the same values)."""
    game = load("roll_five", players=players)
    mine = [1, 2, 3, 4, 5]
    hands = {"a": mine + [6, 6, 6, 5, 5, 4, 4, 4, 6, 6], "b": mine + [2, 2, 3, 3, 1, 1, 2, 3, 1, 2]}
    states = {key: game.new_initial_state() for key in hands}
    rng = np.random.default_rng(0)
    decisions = 0
    while not states["a"].is_terminal():
        if states["a"].is_chance_node():
            for key, state in states.items():
                high = 6 if key == "a" else 3  # the others' rolls differ, but all show a 1

                def roll(player, k, high=high):
                    return (1,) * k if player == 0 else (1,) + (high,) * (k - 1)

                _resolve(state, lambda index, key=key: hands[key][index], roll)
            continue
        assert _views(states["a"], 0) == _views(states["b"], 0)
        joint = [int(rng.choice(states["a"].legal_actions(0)))] + [
            min(states["a"].legal_actions(p))
            for p in range(1, players)  # a 1 on the first free card, or High
        ]
        for state in states.values():
            state.apply_actions(joint)
        decisions += 1
    assert decisions == 6
    assert states["a"].information_state_string(0).count("->") == 6
    assert states["a"].play.state.cards(1) != states["b"].play.state.cards(1)


def test_serialization_round_trip():
    game = load("lost_dice", players=3, rolls_per_player=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(25):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = pyspiel.serialize_game_and_state(game, state)
    _, copy = pyspiel.deserialize_game_and_state(text)
    assert copy.history() == state.history() and str(copy) == str(state)
    assert np.array_equal(copy.play.state.state_tensor(), state.play.state.state_tensor())


@pytest.mark.parametrize(
    ("name", "players", "games"),
    [
        ("inverted_dice", 1, 20),
        ("inverted_dice", 3, 5),
        ("six_hundred", 2, 10),
        ("invers", 2, 20),
        ("roll_five", 2, 100),
        ("roll_five", 4, 50),
        ("lost_dice", 2, 20),
        ("lost_dice", 4, 5),
        ("keldice", 3, 10),
    ],
)
def test_parity_with_the_pettingzoo_envs(name, players, games):
    """Same chance, same actions: same legal actions, states, ending and rewards
    (``python -m tests.openspiel_parity`` plays thousands)."""
    for seed in range(games):
        play_one(name, players, seed)


def test_roll_five_turn_based_passes_random_sim_test():
    game = load("roll_five", players=3, turn_based=True)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


# -- the agents ------------------------------------------------------------------------
def test_openspiel_specs_parse():
    from agents.registry import parse_spec  # noqa: PLC0415

    assert parse_spec("openspiel:mcts,simulations=50") == ("openspiel", {"algorithm": "mcts", "simulations": 50})
    assert parse_spec("openspiel:ismcts") == ("openspiel", {"algorithm": "ismcts"})


@pytest.mark.parametrize(
    ("name", "spec"),
    [("invers", "openspiel:mcts,simulations=5"), ("six_hundred", "openspiel:mcts,simulations=3"),
     ("lost_dice", "openspiel:mcts,simulations=3"), ("roll_five", "openspiel:ismcts,simulations=5")],
)  # fmt: skip
def test_openspiel_agents_play_legal_moves(name, spec):
    from agents.registry import make_agent  # noqa: PLC0415

    game = make_game(name)
    agent = make_agent(name, spec, game, seed=0)
    state = game.new_initial_state(np.random.default_rng(0))
    for _ in range(4):
        for player in state.acting_players():
            mask = state.legal_mask(player)
            action = agent.act(state.observe(player), mask)
            assert mask[action]
            state.apply(player, action)


def test_openspiel_agents_refuse_games_they_cannot_play():
    from agents.registry import make_agent  # noqa: PLC0415

    with pytest.raises(ValueError, match="hidden information.*use openspiel:ismcts"):
        make_agent("roll_five", "openspiel:mcts", make_game("roll_five"))
    with pytest.raises(ValueError, match="perfect information.*use openspiel:mcts"):
        make_agent("lost_dice", "openspiel:ismcts", make_game("lost_dice"))
    with pytest.raises(ValueError, match="algorithm must be one of"):
        make_agent("invers", "openspiel:alphazero", make_game("invers"))
    with pytest.raises(ValueError, match="simulations must be a positive integer"):
        make_agent("invers", "openspiel:mcts,simulations=0", make_game("invers"))


def test_openspiel_agents_in_evaluate_the_ladder_and_the_benchmark(tmp_path):
    from training import benchmark, evaluate, ladder  # noqa: PLC0415

    spec = "openspiel:ismcts,simulations=3"
    out = tmp_path / "evaluate"
    assert evaluate.main(["--env", "roll_five", "--agents", spec, "random", "--games", "2", "--out", str(out)]) == 0
    assert spec in next(out.glob("*.md")).read_text()
    out = tmp_path / "ladder"
    assert ladder.main(["--env", "roll_five", "--agents", "random", spec, "--games", "2", "--out", str(out)]) == 0
    out = tmp_path / "benchmark"
    argv = ["--agent", f"roll_five={spec}", "--quick", "--tasks", "roll_five", "--out", str(out), "--no-progress"]
    assert benchmark.main(argv) == 0
    results = json.loads((out / "benchmark.json").read_text())
    assert results["aggregates"]["tasks"] == ["roll_five"]  # played, not refused


TWO_PLAYER = [name for name in ENVS if make_game(name).min_players <= 2 <= make_game(name).max_players]


@pytest.mark.parametrize("name", TWO_PLAYER)
@pytest.mark.parametrize("mode", ["win", "margin"])
def test_a_two_player_table_of_wins_or_margins_is_zero_sum(name, mode):
    """It was general-sum, which OpenSpiel's exploitability refuses; random_sim_test checks that every
    outcome's returns add up to the declared utility_sum."""
    game = load(name, players=2, reward_mode=mode)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and game.utility_sum() == 0.0
    assert game.min_utility() == -game.max_utility()
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_scores_and_three_player_tables_stay_general_sum():
    for game in (load("keldice", reward_mode="score"), load("lost_dice", players=3), load("roll_five", players=3)):
        assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM and game.utility_sum() is None
    assert load("roll_five", turn_based=True).get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert load("roll_five", turn_based=True).get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_exploitability_and_cfr_run_on_the_smallest_invers_and_cfr_s_exploitability_falls():
    """Invers cut to two plies, paid the lead in flipped tiles: a tree small enough to enumerate."""
    from open_spiel.python import policy  # noqa: PLC0415 (OpenSpiel's Python algorithms: this test only)
    from open_spiel.python.algorithms import cfr, exploitability  # noqa: PLC0415 (as above)

    game = load("invers", max_plies=2, reward_mode="margin")
    uniform = policy.UniformRandomPolicy(game)
    assert exploitability.nash_conv(game, uniform) == pytest.approx(2 * exploitability.exploitability(game, uniform))
    assert exploitability.exploitability(game, uniform) > 0  # not a tree of draws
    solver = cfr.CFRPlusSolver(game)
    curve = []
    for _ in range(4):
        solver.evaluate_and_update_policy()
        curve.append(exploitability.exploitability(game, solver.average_policy()))
    assert all(later < earlier for earlier, later in zip(curve, curve[1:])), curve


def test_the_exact_methods_benchmark_refuses_a_bad_option_in_one_line():
    command = [sys.executable, "benchmarks/openspiel_exact.py", "--iterations", "0"]
    result = subprocess.run(
        command, cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=120
    )
    assert (result.returncode, result.stderr) == (2, "error: --iterations must be positive, got 0\n")


def test_a_cut_game_under_win_rewards_warns_and_names_margin():
    """CFR on Invers cut to two plies, under the default "win", returned exploitability 0.0 without a word."""
    with pytest.warns(UserWarning, match="max_plies=2 under reward_mode 'win'.*reward_mode 'margin'"):
        pyspiel.load_game("python_tabletop_invers", {"max_plies": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pyspiel.load_game("python_tabletop_invers", {"max_plies": 2, "reward_mode": "margin"})
        pyspiel.load_game("python_tabletop_invers")
