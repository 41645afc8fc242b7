"""Where the package finds its data and puts its output, in a source checkout and as installed.

The installed wheel itself is checked by ``tests/wheel_check.py`` (``make wheel-check``,
run by CI after the tests): it builds the wheel, installs it in a clean virtual
environment and runs the tools from another directory. Here, in the checkout: each
lookup answers the repository's own folders, and would answer the package data first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import shipped
from agents.registry import make_agent
from envs import invers_v0
from envs.games.lost_dice_faces import default_dice_file, load_dice
from envs.registry import ENVS, make_game
from training.evaluation.report_files import output_dir
from training.framework import paths
from training.framework.command import default_config
from training.framework.config import load_config
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.learner import PPO

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_networks_are_the_checkouts_folders():
    assert shipped.shipped_network("inverted_dice") == ROOT / "checkpoints" / "inverted_dice" / "shipped"
    assert shipped.shipped_network("inverted_dice", "td") == ROOT / "checkpoints" / "inverted_dice" / "shipped_td"
    for env in ("inverted_dice", "six_hundred", "invers"):
        assert (shipped.shipped_network(env) / "model.zip").is_file()
    assert (shipped.shipped_network("inverted_dice", "td") / "value.pt").is_file()
    with pytest.raises(ValueError, match="kind must be one of"):
        shipped.shipped_network("invers", "sac")


def test_the_ppo_spec_plays_the_shipped_network():
    env = invers_v0.env()
    env.reset(seed=0)
    observation, *_ = env.last()
    agent = make_agent("invers", "ppo", make_game("invers"), seed=0)
    action = agent.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action]


def test_package_data_wins_over_the_checkout(tmp_path, monkeypatch):
    """In an installed wheel, ``agents/checkpoints/`` and ``training/configs/`` exist: they are used."""
    (tmp_path / "checkpoints" / "invers" / "shipped").mkdir(parents=True)
    (tmp_path / "configs").mkdir()
    monkeypatch.setattr(shipped.resources, "files", lambda package: tmp_path)
    assert shipped.shipped_network("invers") == tmp_path / "checkpoints" / "invers" / "shipped"
    assert paths.config_path("invers") == tmp_path / "configs" / "invers.yaml"


def test_every_env_has_a_default_config_and_it_loads():
    for env in ENVS:
        path = default_config(PPO, env)
        # the env's main config, or its PPO recipe beside a main config of another pipeline (Six Hundred's TD)
        assert path in (ROOT / "configs" / f"{env}.yaml", ROOT / "configs" / f"{env}_ppo.yaml")
        assert load_config(PPOConfig, path).env == env
    assert paths.config_path("inverted_dice_td").is_file()
    assert paths.source_root() == ROOT


def test_new_runs_and_reports_go_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.checkpoint_root().resolve() == tmp_path / "checkpoints"
    assert paths.results_root().resolve() == tmp_path / "results"
    assert output_dir(None, False, None, "invers").resolve().parent == tmp_path / "results" / "invers"


def test_default_dice_are_package_data_and_a_users_file_is_a_path(tmp_path):
    assert Path(str(default_dice_file("keldice"))) == ROOT / "envs" / "games" / "dice" / "keldice.yaml"
    own = tmp_path / "dice.yaml"
    own.write_text(default_dice_file("lost_dice").read_text())
    assert load_dice(str(own), "lost_dice") == load_dice(default_dice_file("lost_dice"), "lost_dice")


def test_a_network_trained_at_another_table_size_is_played_there(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped, "checkpoints_root", lambda: tmp_path)
    for folder in ("shipped", "shipped_3p"):
        (tmp_path / "lost_dice" / folder).mkdir(parents=True)
        (tmp_path / "lost_dice" / folder / "model.zip").write_bytes(b"")
    assert shipped.shipped_network("lost_dice", num_players=3) == tmp_path / "lost_dice" / "shipped_3p"
    assert shipped.shipped_network("lost_dice", num_players=2) == tmp_path / "lost_dice" / "shipped"
    assert shipped.shipped_network("lost_dice", num_players=4) == tmp_path / "lost_dice" / "shipped"
