"""Training and evaluation end to end at tiny step counts, and their error messages."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import yaml
from sb3_contrib import MaskablePPO

from agents.base import Agent
from agents.registry import make_agent
from agents.trained import TrainedAgent
from envs.games.inverted_dice import InvertedDice
from envs.registry import make_game
from training import evaluate, ship, train, train_rllib
from training.evaluation.harness import PairingResult, evaluate_pairing
from training.evaluation.report import Setup
from training.evaluation.report_tables import paired_report, pairing_report
from training.framework.config import config_from_dict, load_config
from training.framework.schema import ConfigError
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.self_play import SelfPlay

TINY = ["--timesteps", "256", "--no-progress"]


def tiny_config(tmp_path, **changes):
    config = yaml.safe_load(open("configs/inverted_dice.yaml"))
    config.update({"n_envs": 2, "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1}})
    config["evaluation"] = {"games": 5, "opponents": ["heuristic", "random"]}  # no exact solve in tests
    config["learning_curve"] = {"every": 0}  # no periodic evaluation (hundreds of games) in tiny runs
    config["warm_start"] = {"enabled": False}  # nor 2000 teacher episodes before the first step
    config.update(changes)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_train_resume_and_evaluate_a_tiny_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert train.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--eval-games", "5", *TINY]) == 0
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["timesteps"] >= 256 and metadata["seed"] == 0
    assert {"torch", "gymnasium", "pettingzoo", "sb3-contrib"} <= set(metadata["packages"])
    assert metadata["wall_time_s"] > 0
    assert yaml.safe_load((run / "config.yaml").read_text())["total_timesteps"] == 256
    assert list((run / "tensorboard").rglob("events.out.tfevents.*"))
    report = (run / "evaluation" / "report.md").read_text()
    assert "| trained | 5 |" in report and "| heuristic | 5 |" in report
    assert "trained" in capsys.readouterr().out

    agent = TrainedAgent.load(run, InvertedDice())  # the saved model plays legal moves
    assert agent.policy is not None

    assert train.main(["--resume", str(run), "--timesteps", "512", "--no-eval", "--no-progress"]) == 0
    metadata = json.loads((run / "metadata.json").read_text())
    assert metadata["timesteps"] >= 512 and len(metadata["sessions"]) == 2
    assert train.main(["--resume", str(run), "--timesteps", "256", "--no-eval", "--no-progress"]) == 2
    assert "already has" in capsys.readouterr().err


def test_evaluate_cli_writes_markdown_and_csv_with_common_dice(tmp_path):
    out = tmp_path / "eval"
    assert (
        evaluate.main(["--env", "inverted_dice", "--agents", "heuristic", "random", "--games", "12", "--out", str(out)])
        == 0
    )
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["agent"] for r in rows] == ["heuristic", "random"]
    assert float(rows[0]["ci95_low"]) <= float(rows[0]["mean"]) <= float(rows[0]["ci95_high"])
    games = list(csv.DictReader((out / "games.csv").open()))
    assert len(games) == 12 and (out / "scores.png").stat().st_size > 0
    assert "same 12 seeds" in (out / "report.md").read_text()


def test_evaluate_cli_runs_head_to_head_for_several_players(tmp_path):
    out = tmp_path / "eval"
    assert (
        evaluate.main(
            [
                "--env",
                "inverted_dice",
                "--env-kwargs",
                "{num_players: 2}",
                "--agents",
                "heuristic",
                "random",
                "--games",
                "10",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    (row,) = csv.DictReader((out / "summary.csv").open())
    assert row["agent"] == "heuristic" and row["opponent"] == "random" and int(row["games"]) == 10
    assert float(row["win_rate"]) + float(row["draw_rate"]) + float(row["loss_rate"]) == pytest.approx(1.0)


def test_at_three_players_each_opponent_s_own_score_stands_beside_the_agents(tmp_path):
    out = tmp_path / "eval"
    assert (
        evaluate.main(
            [
                "--env",
                "lost_dice",
                "--env-kwargs",
                "{num_players: 3}",
                "--agents",
                "heuristic",
                "random",
                "--games",
                "6",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    (row,) = csv.DictReader((out / "summary.csv").open())
    game = make_game("lost_dice", num_players=3)
    itself = evaluate_pairing(
        game,
        ("random", make_agent("lost_dice", "random", game)),
        ("random", make_agent("lost_dice", "random", game)),
        6,
        10_000,
    )
    assert float(row["opponent_own_score"]) == pytest.approx(itself.scores.mean(), abs=1e-4)
    assert "opponent's own score" in (out / "report.md").read_text()
    two = tmp_path / "two"
    assert (
        evaluate.main(["--env", "lost_dice", "--agents", "heuristic", "random", "--games", "4", "--out", str(two)]) == 0
    )
    assert "opponent's own score" not in (two / "report.md").read_text()  # ½ by construction: nothing to measure


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"learning_rat": 0.1}, r"unknown key\(s\) \['learning_rat'\]"),
        ({"ppo": {"learning_rat": 0.1}}, r"unknown ppo key\(s\) \['learning_rat'\]"),
        ({"n_envs": "eight"}, "n_envs must be an integer > 0, got 'eight'"),
        ({"n_envs": 0}, "n_envs must be an integer > 0, got 0"),
        ({"env": "yahtzee"}, "unknown env 'yahtzee'"),
        ({"vec_env": "ray"}, "vec_env must be one of"),
        ({"reward_mode": "points"}, "reward_mode must be one of"),
        ({"evaluation": {"gmes": 3}}, r"unknown evaluation key\(s\) \['gmes'\]"),
        ({"policy_kwargs": {"activation_fn": "swish"}}, "activation_fn must be one of"),
    ],
)
def test_bad_configs_fail_naming_the_problem(tmp_path, changes, message):
    with pytest.raises(ConfigError, match=message):
        load_config(PPOConfig, tiny_config(tmp_path, **changes))


def test_a_number_written_1e_3_is_a_number_although_yaml_reads_it_as_text(tmp_path):
    """PyYAML (YAML 1.1) reads ``1e-3`` without a dot as the string '1e-3'; a config means 0.001."""
    path = tmp_path / "config.yaml"
    path.write_text(tiny_config(tmp_path).read_text().replace("learning_rate: 0.0001", "learning_rate: 1e-3"))
    assert "learning_rate: 1e-3" in path.read_text()
    config = load_config(PPOConfig, path)
    assert config.ppo["learning_rate"] == 0.001 and isinstance(config.ppo["learning_rate"], float)
    with pytest.raises(ConfigError, match="learning_rate must be a number > 0, got 'fast'"):
        load_config(PPOConfig, path, {"ppo.learning_rate": "fast"})


def test_cli_errors_name_the_problem(tmp_path, capsys):
    assert train.main(["--env", "yahtzee", *TINY]) == 2
    assert "unknown env 'yahtzee'" in capsys.readouterr().err
    path = tiny_config(tmp_path, env_kwargs={"num_players": 9})
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "r"), *TINY]) == 2
    assert "num_players must be between 1 and 5" in capsys.readouterr().err
    assert train.main(["--resume", str(tmp_path / "nothing"), *TINY]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: [unclosed")
    assert train.main(["--config", str(bad), *TINY]) == 2
    assert "not valid YAML" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.zip").write_bytes(b"garbage")
    (broken / "config.yaml").write_text("env: inverted_dice\n")
    assert evaluate.main(["--env", "inverted_dice", "--checkpoint", str(broken), "--games", "2"]) == 2
    assert "unreadable" in capsys.readouterr().err
    assert evaluate.main(["--env", "yahtzee"]) == 2
    assert "unknown env" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env", "inverted_dice", "--timesteps", "-5"], "error: --timesteps must be positive, got -5\n"),
        (["--env", "inverted_dice", "--eval-games", "0"], "error: --eval-games must be positive, got 0\n"),
        (["--no-eval"], "error: give --env NAME, --config FILE or --resume RUN_DIR\n"),
        (
            ["--resume", "r", "--config", "c.yaml"],
            "error: --resume continues a run with its own config.yaml; --config cannot be combined with it\n",
        ),
    ],
)
def test_bad_option_values_are_one_line_like_every_other_bad_input(argv, message, capsys):
    assert train.main(argv) == 2
    assert capsys.readouterr().err == message  # no usage block before it


def test_a_folder_given_as_config_is_refused_in_one_line(tmp_path, capsys):
    assert train.main(["--config", str(tmp_path), *TINY]) == 2
    assert capsys.readouterr().err == f"error: config file {tmp_path} is a folder, not a YAML file\n"


def test_train_rllib_without_ray_says_what_to_install_before_anything_runs(tmp_path, capsys, monkeypatch):
    """Ray is an optional extra: without it, train_rllib.py is one line and exit 2, and no run folder is made."""
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed (find_spec then finds nothing)
    monkeypatch.chdir(tmp_path)
    assert train_rllib.main(["--env", "invers", "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        "error: training with RLlib needs Ray RLlib, which is not installed here; "
        'install it with pip install -e ".[rllib]" (or "ray[rllib]>=2.60,<3")\n'
    )
    assert list(tmp_path.iterdir()) == []


def test_random_openings_make_deterministic_games_differ():
    class FirstLegal(Agent):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    game = make_game("invers")
    first, also_first = ("first", FirstLegal(game)), ("also first", FirstLegal(game))
    fixed = evaluate_pairing(game, first, also_first, games=6, base_seed=0)
    assert fixed.distinct_games == 1  # deterministic players, no chance: one game, six times
    varied = evaluate_pairing(game, first, also_first, games=6, base_seed=0, random_opening_plies=2)
    # one game per opening: the two copies play it the same from either seat, and score ½ in every opening
    assert varied.distinct_games == 3 and varied.share()[0] == 0.5
    again = evaluate_pairing(game, first, also_first, games=6, base_seed=0, random_opening_plies=2)
    assert np.array_equal(again.outcomes, varied.outcomes)  # same seeds, same games


def test_self_play_trains_against_a_pool_that_gains_snapshots(tmp_path):
    config = yaml.safe_load(open("configs/invers_ppo.yaml"))
    config.update({"n_envs": 2, "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1}})
    config["self_play"].update({"pool": ["random"], "snapshot_every": 128, "max_snapshots": 2})
    config["warm_start"].update(
        {"episodes": 2, "epochs": 1, "label_with": "search:depth=1", "workers": 1}
    )  # the default's labelling takes 12 min
    config["evaluation"] = {"games": 4, "opponents": ["random"], "random_opening_plies": 2}
    path = tmp_path / "invers.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--timesteps", "512", "--no-progress"]) == 0
    (row,) = csv.DictReader((run / "evaluation" / "summary.csv").open())
    assert row["agent"] == "trained" and row["opponent"] == "random" and int(row["games"]) == 4


def test_pool_opponents_draw_snapshots_and_fixed_bots():
    config = config_from_dict(
        PPOConfig,
        {
            "env": "invers",
            "self_play": {"enabled": True, "pool": ["greedy"], "snapshot_weight": 1.0, "max_snapshots": 2},
        },
    )
    pool = SelfPlay(config, make_game("invers"))
    (opponent,) = pool.opponent()
    opponent.reset(seed=0)
    assert opponent.member is opponent.fixed[0]  # no snapshot yet: the fixed bot
    model = MaskablePPO("MlpPolicy", gymnasium.make("Invers-v0"), n_steps=32, batch_size=32)
    for _ in range(3):
        pool.add_snapshot(model.policy)
    assert len(pool.snapshots) == 2  # the oldest left the pool
    opponent.reset(seed=1)
    assert opponent.member in pool.snapshots  # snapshot_weight 1: always a snapshot now
    assert opponent.member.policy is not model.policy  # a frozen copy, not the learner
    obs, info = gymnasium.make("Invers-v0").reset(seed=0)
    assert info["action_mask"][opponent.act(obs, info["action_mask"])]


def test_scores_and_paired_differences_against_a_common_opponent():
    seats, openings = np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])
    a = PairingResult("a", "bot", np.array([1, 0, -1, 1]), seats, 4, openings)
    b = PairingResult("b", "bot", np.array([1, -1, -1, -1]), seats, 4, openings)
    c = PairingResult("a", "b", np.array([1, 1, 1, 1]), seats, 4, openings)
    _, rows = pairing_report([a])
    assert rows[0]["score"] == 0.625  # (1 + 0.5 + 0 + 1) / 4
    table, paired = paired_report([a, b, c])
    assert [(r["agent"], r["minus_agent"], r["against"]) for r in paired] == [("a", "b", "bot")]
    assert paired[0]["score_difference"] == 0.375  # (0 + 0.5 + 0 + 1) / 4
    assert "| a | b | bot | 4 | +0.3750 |" in table
    assert paired_report([a, c]) == ("", [])  # no two agents met the same opponent


def test_a_shipped_copy_plays_the_same_moves_from_a_smaller_file(tmp_path):
    run, shipped = tmp_path / "run", tmp_path / "shipped"
    assert (
        train.main(
            ["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--timesteps", "128", *TINY, "--no-eval"]
        )
        == 0
    )
    assert ship.main([str(run), str(shipped)]) == 0
    assert (shipped / "model.zip").stat().st_size < (run / "model.zip").stat().st_size
    assert {p.name for p in shipped.iterdir()} == {"model.zip", "config.yaml", "metadata.json"}
    game = make_game("inverted_dice", num_players=1)
    original, copy = (make_agent("inverted_dice", f"ppo:path={folder}", game) for folder in (run, shipped))
    state = game.new_initial_state(np.random.default_rng(0))
    for _ in range(20):
        observation, mask = state.observe(0), state.legal_mask(0)
        assert original.act(observation, mask) == copy.act(observation, mask)
        state.apply(0, copy.act(observation, mask))
    assert ship.main([str(tmp_path / "nothing"), str(shipped)]) == 2


def test_a_report_names_a_run_below_the_working_directory_by_its_relative_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "checkpoints" / "inverted_dice" / "shipped"
    line = Setup(run, "--checkpoint").describe(InvertedDice(), 10, 0, 1)
    assert line.startswith(
        f"Run: {Path('checkpoints/inverted_dice/shipped')} (--checkpoint)"
    )  # not the checkout's absolute path
    elsewhere = Setup(Path("/elsewhere/run"), "--checkpoint").describe(InvertedDice(), 10, 0, 1)
    assert elsewhere.startswith("Run: /elsewhere/run (--checkpoint)")
