"""Agents: the registry's specs, the Inverted Dice heuristic, the dice tables behind it."""

from __future__ import annotations

import ast
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.base import RandomAgent, acts_in_batch
from agents.inverted_dice.heuristic import InvertedDiceHeuristic, turn_hit_probability
from agents.match import pairing_games, play_game
from agents.registry import bot_names, make_agent, parse_spec
from agents.run_folder import CheckpointError
from agents.trained import TrainedAgent
from envs.games.dice_math import keep_tables, reroll_positions_for_keep, roll_probability
from envs.games.invers import Invers
from envs.games.inverted_dice import InvertedDice, inverted_sum
from envs.registry import make_game
from training.evaluation.harness import evaluate_solitaire


@pytest.mark.parametrize("num_dice", [1, 2, 5, 6])
def test_keep_tables_are_exact_probabilities(num_dice):
    tables = keep_tables(num_dice)
    assert len(tables.rolls) == math.comb(num_dice + 5, 5)
    assert len(tables.keeps) == math.comb(num_dice + 6, 6)
    np.testing.assert_allclose(tables.transition.sum(axis=1), 1.0)
    # The first roll agrees with brute-force enumeration of the ordered rolls.
    counts = np.zeros(len(tables.rolls))
    for roll in itertools.product(range(1, 7), repeat=num_dice):
        counts[tables.roll_index[tuple(sorted(roll))]] += 1
    np.testing.assert_allclose(tables.first_roll, counts / 6**num_dice)
    # Keeping a whole roll leads to that roll for sure.
    for roll in tables.rolls[:10]:
        assert tables.transition[tables.keep_index[roll], tables.roll_index[roll]] == 1.0


def test_roll_probability_and_reroll_positions():
    assert roll_probability((1, 2, 3, 4, 5)) == pytest.approx(120 / 7776)
    assert roll_probability((6, 6, 6, 6, 6)) == pytest.approx(1 / 7776)
    assert reroll_positions_for_keep((1, 2, 2, 5, 6), (2, 5)) == (0, 2, 4)
    with pytest.raises(ValueError, match="not a sub-multiset"):
        reroll_positions_for_keep((1, 2, 3, 4, 5), (6,))


def test_best_keep_finds_the_obvious_target():
    tables = keep_tables(5)
    values = np.array([[1.0 if inverted_sum(r) == 20 else 0.0] for r in tables.rolls])  # want all ones
    _, keep = tables.best_reroll(tables.expected_partial(values))
    assert tables.keeps[keep[tables.roll_index[(1, 1, 1, 4, 6)], 0]] == (1, 1, 1)


def test_turn_hit_probability_of_twenty_is_exact():
    # Inverted sum 20 = five ones: the chance of a Yahtzee of ones in three rolls aimed at it.
    p_one = 1 / 6
    # Per die, probability to be a one within three tries, all five independent.
    assert turn_hit_probability(20) == pytest.approx((1 - (1 - p_one) ** 3) ** 5, rel=1e-12)


def test_heuristic_plays_legal_moves_and_beats_random_by_far():
    game = InvertedDice()
    results = evaluate_solitaire(
        game, {"heuristic": InvertedDiceHeuristic(game), "random": RandomAgent(game)}, range(40)
    )
    heuristic, random_ = (r.scores.mean() for r in results)
    assert heuristic > 180 and random_ < 100


@pytest.mark.parametrize("free", [False, True])
def test_heuristic_crosses_out_the_rare_boxes_first(free):
    game = InvertedDice(free_cross_out=free)
    agent = InvertedDiceHeuristic(game)
    first_cross_outs = []
    for seed in range(30):
        state, _ = play_game(game, [agent], seed)
        crossed = [b + 1 for b, v in enumerate(state._boxes[0]) if v == 0]
        first_cross_outs.extend(crossed)
    assert first_cross_outs.count(19) + first_cross_outs.count(20) >= 40  # nearly always among the losses


def test_agent_specs_parse_and_unknown_agents_fail_clearly(tmp_path):
    assert parse_spec("search:depth=3,c=1.5,fast=true,name=x") == (
        "search",
        {"depth": 3, "c": 1.5, "fast": True, "name": "x"},
    )
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("search:depth")
    game = InvertedDice()
    assert "heuristic" in bot_names("inverted_dice") and bot_names("inverted_dice")[0] == "random"
    assert isinstance(make_agent("inverted_dice", "heuristic", game), InvertedDiceHeuristic)
    with pytest.raises(ValueError, match="unknown agent 'genius'.*heuristic"):
        make_agent("inverted_dice", "genius", game)
    with pytest.raises(ValueError, match="takes no options"):
        make_agent("inverted_dice", "random:x=1", game)

    # a misspelt option is named with those the bot takes (it used to be Python's "InversSearch.__init__() got ...")
    with pytest.raises(ValueError, match=r"agent spec 'search:depht=3': .*'depht'; InversSearch options: \['depth', "):
        make_agent("invers", "search:depht=3", Invers())


def test_broken_checkpoints_fail_clearly(tmp_path):
    game = InvertedDice()
    with pytest.raises(CheckpointError, match="does not exist"):
        TrainedAgent.load(tmp_path / "missing.zip", game)
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip file")
    with pytest.raises(CheckpointError, match="unreadable"):
        TrainedAgent.load(garbage, game)
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.zip").write_bytes(b"x")
    (run / "config.yaml").write_text("env: six_hundred\n")
    with pytest.raises(CheckpointError, match="trained on 'six_hundred', not 'inverted_dice'"):
        TrainedAgent.load(run, game)


# -- the layers: agents never import training -------------------------------------------
def test_agents_import_nothing_from_training():
    """``agents`` sits below ``training``: the game loop lives in ``agents.match``, so no agent
    needs the training package (an upward import would come back as an import cycle)."""
    offenders = []
    for path in sorted(Path(agents.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [
                f"{path.name}:{node.lineno} {name}"
                for name in names
                if name == "training" or name.startswith("training.")
            ]
    assert not offenders, offenders


def test_a_pairing_plays_each_game_by_its_number():
    game = Invers(max_plies=30)
    a, b = RandomAgent(game), RandomAgent(game)
    whole = list(pairing_games(game, a, b, range(6), base_seed=7, random_opening_plies=2))
    split = [
        g
        for part in (range(0, 4), range(4, 6))
        for g in pairing_games(game, a, b, part, base_seed=7, random_opening_plies=2)
    ]
    assert [seat for seat, _, _ in whole] == [0, 1, 0, 1, 0, 1]
    assert [(seat, history) for seat, _, history in whole] == [(seat, history) for seat, _, history in split]
    for g, (seat, state, history) in enumerate(whole):
        players = [b, b]
        players[seat] = a
        alone, alone_history = play_game(game, players, 7 + g // 2, 2)  # seat-paired: an opening per two games
        assert alone_history == history and alone.returns().tolist() == state.returns().tolist()


def test_act_batch_plays_each_row_as_act_does():
    """A trained agent's batched forward pass (the batched env's opponents) picks what act picks."""
    game = make_game("lost_dice")
    agent = make_agent("lost_dice", "ppo", game, seed=3)
    rng = np.random.default_rng(0)
    observations = rng.random((64, *game.observation_shape), dtype=np.float32)
    masks = (rng.random((64, game.num_actions)) < 0.3).astype(np.int8)
    masks[np.arange(64), rng.integers(game.num_actions, size=64)] = 1  # at least one legal action each
    expected = [agent.act(o, m) for o, m in zip(observations, masks)]
    assert agent.act_batch(observations, masks).tolist() == expected
    agent.deterministic = False
    agent.reset(seed=5)
    sampled = np.stack([agent.act_batch(observations, masks) for _ in range(20)])
    assert masks[np.arange(64), sampled].all()  # only legal actions
    assert len({tuple(row) for row in sampled}) > 1  # a sample, not the argmax
    agent.reset(seed=5)
    assert (agent.act_batch(observations, masks) == sampled[0]).all()  # seeded


def test_random_act_batch_draws_uniform_legal_actions_from_its_seed():
    """The random agent acts in batch (a rollout's base): every row's legal actions equally
    often, nothing else, the same draws from the same seed; a row with nothing legal is named."""
    game = InvertedDice()
    agent = RandomAgent(game, seed=1)
    masks = np.zeros((3, game.num_actions), np.int8)
    masks[0, [2, 7]] = 1
    masks[1, [0, 5, 9, 51]] = 1
    masks[2, 31] = 1
    draws = np.stack([agent.act_batch(np.zeros((3, *game.observation_shape), np.float32), masks) for _ in range(4000)])
    for row, legal in enumerate([[2, 7], [0, 5, 9, 51], [31]]):
        counts = np.bincount(draws[:, row], minlength=game.num_actions)
        assert set(np.flatnonzero(counts)) == set(legal)
        assert np.allclose(counts[legal] / len(draws), 1 / len(legal), atol=0.03)
    agent.reset(seed=1)
    assert (agent.act_batch(np.zeros((3, *game.observation_shape), np.float32), masks) == draws[0]).all()
    masks[1] = 0
    with pytest.raises(ValueError, match="random agent: the action mask of row 1 allows no action"):
        agent.act_batch(np.zeros((3, *game.observation_shape), np.float32), masks)
    assert acts_in_batch(agent) and acts_in_batch(make_agent("inverted_dice", "ppo", game))
    assert acts_in_batch(make_agent("inverted_dice", "td", game))  # every bot and shipped agent does
    # with one generator per row, each row draws as act does from that generator
    rows = [np.random.default_rng(seed) for seed in (5, 6, 7)]
    copies = [np.random.default_rng(seed) for seed in (5, 6, 7)]
    masks[1, 0] = 1
    drawn = agent.act_batch(np.zeros((3, *game.observation_shape), np.float32), masks, rngs=rows)
    alone = [RandomAgent(game) for _ in copies]
    for one, rng in zip(alone, copies):
        one.rng = rng
    assert drawn.tolist() == [one.act(None, mask) for one, mask in zip(alone, masks)]
