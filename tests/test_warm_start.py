"""Warm start, learning curves and the tuner, on tiny budgets."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import Logger

from agents.registry import make_agent
from agents.run_folder import DEMONSTRATIONS_FILE
from envs.registry import make_game
from training.framework.config import config_from_dict as checked_config
from training.framework.run import run_training
from training.framework.schema import ConfigError
from training.pipelines.ppo import warm_start as warm_start_module
from training.pipelines.ppo.config import PPOConfig
from training.pipelines.ppo.learner import PPO
from training.pipelines.ppo.vector import make_training_env
from training.pipelines.ppo.warm_start import (
    TeacherGuidedPPO,
    behaviour_clone,
    collect_demonstrations,
    imitation_loss,
    split_evenly,
    teacher_agreement,
)
from training.teacher.symmetry import symmetry_maps
from training.tune import main as tune_main


def config_from_dict(raw: dict) -> PPOConfig:
    return checked_config(PPOConfig, raw)


def train(config: PPOConfig, run_dir, checkpoint=None) -> dict:
    return run_training(PPO(config, run_dir, checkpoint), checkpoint, progress=False)


def tiny_config(**overrides) -> dict:
    config = {
        "env": "inverted_dice",
        "total_timesteps": 512,
        "n_envs": 2,
        "policy_kwargs": {"net_arch": [32, 32]},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "gamma": 1.0},
        "checkpoint_every": 512,
        "evaluation": {"games": 2, "opponents": ["random"]},
    }
    config.update(overrides)
    return config


def test_demonstrations_carry_the_teachers_actions_and_returns_to_go():
    config = config_from_dict(tiny_config(normalize_reward=False))
    venv, _ = make_training_env(config)
    game = make_game("inverted_dice")
    demos = collect_demonstrations(venv, "inverted_dice", game, "heuristic", episodes=4, gamma=1.0, seed=0)
    assert demos.episodes >= 4
    assert len(demos) == len(demos.actions) == len(demos.returns) == len(demos.masks)
    assert demos.masks[torch.arange(len(demos)), demos.actions].all()  # every action was legal
    # With gamma 1 and raw rewards, the return-to-go of a game's first decision is its score.
    first = demos.observations[:, 86] == 1.0  # turns left 20/20: the first turn
    first &= demos.observations[:, 56] == 1.0  # roll 1
    assert first.sum() >= 4
    assert demos.returns[first].min() > 20 and np.isclose(
        demos.returns[first].mean(), demos.mean_episode_return, rtol=0.35
    )


def test_behaviour_cloning_makes_the_policy_agree_with_the_teacher():
    config = config_from_dict(tiny_config())
    venv, _ = make_training_env(config)
    game = make_game("inverted_dice")
    demos = collect_demonstrations(venv, "inverted_dice", game, "heuristic", episodes=6, gamma=1.0, seed=0)
    model = TeacherGuidedPPO(
        "MlpPolicy", venv, seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]}, n_steps=64, batch_size=64
    )
    before = teacher_agreement(model.policy, demos)
    summary = behaviour_clone(model.policy, demos, epochs=15, batch_size=64, learning_rate=3e-3, value_coef=0.5, seed=0)
    assert summary["accuracy"] > before + 0.25


def test_guide_weight_decays_to_zero_and_saved_models_load_as_plain_maskable_ppo(tmp_path):
    config = config_from_dict(tiny_config())
    venv, _ = make_training_env(config)
    demos = collect_demonstrations(venv, "inverted_dice", make_game("inverted_dice"), "heuristic", 2, 1.0, 0)
    model = TeacherGuidedPPO("MlpPolicy", venv, seed=0, device="cpu", n_steps=64, batch_size=64)
    model.attach_teacher(demos, guide_coef=2.0, guide_decay_steps=1000)
    assert model.current_guide_coef() == 2.0
    model.num_timesteps = 250
    assert model.current_guide_coef() == pytest.approx(1.5)
    model.num_timesteps = 5000
    assert model.current_guide_coef() == 0.0
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert not hasattr(loaded, "demonstrations") or loaded.demonstrations is None


def test_a_warm_started_run_records_its_warm_start_and_learning_curve(tmp_path):
    config = config_from_dict(
        tiny_config(
            total_timesteps=512,
            warm_start={"enabled": True, "episodes": 2, "epochs": 1, "guide_decay_steps": 1000},
            learning_curve={"every": 256, "games": 3},
        )
    )
    metadata = train(config, tmp_path)
    assert metadata["warm_start"]["teacher"] == "heuristic" and metadata["warm_start"]["episodes"] >= 2
    with (tmp_path / "learning_curve.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["timesteps"]) for r in rows] == [0, 256, 512]
    assert all(float(r["reference_mean"]) > 100 for r in rows)  # the heuristic on the same 3 games each time
    assert len({r["reference_mean"] for r in rows}) == 1
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000


def test_tuner_grid_trains_every_value_and_writes_the_best_config(tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text(yaml.safe_dump(tiny_config(learning_curve={"games": 2})))
    out = tmp_path / "tune"
    code = tune_main(
        [
            "--config",
            str(base),
            "--grid",
            "ppo.gae_lambda=0.2,0.9",
            "--timesteps",
            "256",
            "--evaluations",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    with (out / "trials.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(float(r["ppo.gae_lambda"]) for r in rows) == [0.2, 0.9]
    best = config_from_dict(yaml.safe_load((out / "best.yaml").read_text()))
    assert best.ppo["gae_lambda"] in (0.2, 0.9)


@pytest.mark.parametrize(
    "grid, message",
    [
        (
            ["ppo.gae_lambda=0.5,x"],
            "error: trial config (ppo.gae_lambda=x): ppo.gae_lambda must be a number in [0, 1], got 'x'",
        ),
        (["ppo.learnin_rate=1e-3"], "error: trial config (ppo.learnin_rate=1e-3): unknown ppo key(s) ['learnin_rate']"),
    ],
)
def test_a_grid_value_the_config_cannot_take_is_refused_before_any_trial_or_file(tmp_path, capsys, grid, message):
    base = tmp_path / "base.yaml"
    base.write_text(yaml.safe_dump(tiny_config()))
    out = tmp_path / "tune"
    assert tune_main(["--config", str(base), "--grid", *grid, "--timesteps", "256", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.splitlines()) == 1
    assert not out.exists()  # no folder with a trials.csv of a failed "complete" trial


def test_a_resumed_warm_started_run_keeps_its_teacher_guide(tmp_path, capsys):
    settings = {"enabled": True, "episodes": 2, "epochs": 1, "guide_decay_steps": 100_000}
    train(config_from_dict(tiny_config(total_timesteps=256, warm_start=settings)), tmp_path)
    assert (tmp_path / DEMONSTRATIONS_FILE).is_file()
    longer = config_from_dict(tiny_config(total_timesteps=512, warm_start=settings))
    train(longer, tmp_path, PPO.read_checkpoint(tmp_path))
    assert "the teacher guide resumes at weight" in capsys.readouterr().out
    (tmp_path / DEMONSTRATIONS_FILE).unlink()
    with pytest.raises(ConfigError, match="demonstrations.pt is missing"):
        train(
            config_from_dict(tiny_config(total_timesteps=768, warm_start=settings)),
            tmp_path,
            PPO.read_checkpoint(tmp_path),
        )


def invers_config(**overrides) -> dict:
    return tiny_config(
        env="invers",
        env_kwargs={"max_plies": 40},
        normalize_reward=False,
        self_play={"enabled": True, "pool": ["search:depth=1"], "snapshot_every": 10_000},
        **overrides,
    )


def make_agent_for_test(spec, game):
    return make_agent("invers", spec, game, seed=0)


def test_a_search_labels_the_demonstrations_with_the_softmax_of_its_move_values():
    config = config_from_dict(invers_config())
    venv, _ = make_training_env(config)
    game = make_game("invers", max_plies=40)
    demos = collect_demonstrations(
        venv,
        "invers",
        game,
        "search:depth=1",
        episodes=2,
        gamma=0.99,
        seed=0,
        temperature=0.05,
        label_with="search:depth=2",
        workers=2,
    )
    assert demos.policies.shape == (len(demos), 24)
    assert torch.allclose(demos.policies.sum(dim=1), torch.ones(len(demos)))
    assert (demos.policies[~demos.masks] == 0).all()
    teacher = make_agent_for_test("search:depth=2", game)
    for i in range(0, len(demos), max(1, len(demos) // 5)):  # the labeller's values, not the player's move
        values = teacher.move_values(game.state_from_observation(demos.observations[i].numpy()))
        best = max(values.values())
        assert {a for a, v in values.items() if v == best} == set(
            np.flatnonzero((demos.policies[i] == demos.policies[i].max()).numpy()).tolist()
        )
    assert (demos.policies.max(dim=1).values < 1).any()  # several moves share the target somewhere
    model = TeacherGuidedPPO(
        "MlpPolicy", venv, seed=0, device="cpu", policy_kwargs={"net_arch": [32]}, n_steps=64, batch_size=64
    )
    _, before = imitation_loss(model.policy, demos, torch.arange(len(demos)))
    behaviour_clone(model.policy, demos, epochs=10, batch_size=64, learning_rate=3e-3, value_coef=0.5, seed=0)
    _, after = imitation_loss(model.policy, demos, torch.arange(len(demos)))
    assert after < before - 0.3
    with pytest.raises(ConfigError, match="move_values"):
        collect_demonstrations(venv, "invers", game, "greedy", episodes=1, gamma=0.99, seed=0, temperature=0.05)


def test_a_planner_labels_its_own_decisions_with_the_softmax_of_its_action_values():
    """Inverted Dice's planners (the exact solver, the heuristic) value every action of a
    batch as they play: the targets are the softmax of those values in points, so the move
    played has the largest share, a move one point worse e^-1 of it at temperature 1."""
    config = config_from_dict(tiny_config(n_envs=2))
    venv, _ = make_training_env(config)
    game = make_game("inverted_dice")
    demos = collect_demonstrations(
        venv, "inverted_dice", game, "heuristic", episodes=2, gamma=1.0, seed=0, temperature=1.0
    )
    assert demos.policies.shape == (len(demos), game.num_actions)
    assert torch.allclose(demos.policies.sum(dim=1), torch.ones(len(demos)))
    assert (demos.policies[~demos.masks] == 0).all()
    played = demos.policies[torch.arange(len(demos)), demos.actions]
    assert torch.equal(played, demos.policies.max(dim=1).values)
    teacher = make_agent("inverted_dice", "heuristic", game)
    _, values = teacher.act_and_value_batch(demos.observations.numpy(), demos.masks.numpy())
    expected = np.exp(values - values.max(axis=1, keepdims=True))
    assert np.allclose(demos.policies.numpy(), expected / expected.sum(axis=1, keepdims=True), atol=1e-6)
    assert (demos.policies.max(dim=1).values < 0.999).any()  # somewhere another move keeps a share
    venv, _ = make_training_env(config)  # the same games played move by move, without values
    plain = collect_demonstrations(venv, "inverted_dice", game, "heuristic", episodes=2, gamma=1.0, seed=0)
    assert torch.equal(plain.actions, demos.actions) and torch.equal(plain.observations, demos.observations)


def test_symmetry_maps_turn_moves_with_their_masks_and_targets():
    game = make_game("invers")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(15):
        state.apply(state.to_move, int(rng.choice(np.flatnonzero(state.legal_mask(state.to_move)))))
    observation, mask = state.observe(state.to_move), state.legal_mask(state.to_move)
    maps = symmetry_maps(game)
    assert maps[0] is None and len(maps) == 8
    for observation_index, action_index, action_image in maps[1:]:
        turned = game.state_from_observation(observation[observation_index.numpy()])
        for action in np.flatnonzero(mask):
            image = int(action_image[action])
            assert turned.legal_mask(turned.to_move)[image] and int(action_index[image]) == action
            original, copy = state.clone(), turned.clone()
            original.apply(state.to_move, int(action))
            copy.apply(turned.to_move, image)
            assert np.array_equal(original.observe(0)[observation_index.numpy()], copy.observe(0))


def test_a_bot_teacher_decides_every_env_in_one_call_and_plays_the_same_games(monkeypatch):
    """The search bot breaks ties at random: in batch, each env's ties still come from that
    env's own teacher copy, so the demonstrations are those of the game-by-game teacher."""
    config = config_from_dict(tiny_config(env="keldice", n_envs=4, vec_env="batched", opponents=["heuristic"]))
    game = make_game("keldice")

    def demonstrations():
        venv, _ = make_training_env(config)
        return collect_demonstrations(venv, "keldice", game, "search", episodes=6, gamma=1.0, seed=3)

    calls = []
    search = type(make_agent("keldice", "search", game))
    original = search.act_batch

    def counted(self, observations, action_masks, rngs=None):
        calls.append(len(observations))
        return original(self, observations, action_masks, rngs=rngs)

    monkeypatch.setattr(search, "act_batch", counted)
    batched = demonstrations()
    assert calls and max(calls) == 4, "the teacher was not asked in batch"
    monkeypatch.setattr(warm_start_module, "draws_per_row", lambda agent: False)
    one_by_one = demonstrations()
    assert torch.equal(batched.actions, one_by_one.actions)
    assert torch.equal(batched.observations, one_by_one.observations)
    assert torch.equal(batched.returns, one_by_one.returns)


def test_the_teacher_plays_in_a_wider_twin_whose_reward_scale_the_training_env_takes(tmp_path):
    config = config_from_dict(
        tiny_config(
            env="keldice",
            vec_env="batched",
            opponents=["heuristic"],
            warm_start={"enabled": True, "teacher": "heuristic", "episodes": 40, "envs": 32, "epochs": 1},
        )
    )
    learner = PPO(config, tmp_path, None)
    learner.model.set_logger(Logger(None, []))
    [table] = learner._demonstration_tables()
    twin = table.venv
    assert twin.num_envs == 32 and learner.venv.num_envs == 2 and table.options == {}
    summary = warm_start_module.warm_start(
        learner.model, learner.venv, config.warm_start, "keldice", learner.game, 0, tmp_path, tables=[table]
    )
    assert "tables" not in summary  # one table: the training one
    assert summary["episodes"] >= 40
    assert learner.venv.ret_rms.count == twin.ret_rms.count > 40 * 20  # every decision of the twin's games
    assert learner.venv.ret_rms.var == pytest.approx(twin.ret_rms.var)
    learner.venv.ret_rms.var += 1.0  # a copy, not the twin's own statistics
    assert learner.venv.ret_rms.var != pytest.approx(twin.ret_rms.var)
    twin.close()


def test_the_twin_of_the_warm_start_is_refused_a_negative_size():
    with pytest.raises(ConfigError, match="warm_start.envs"):
        config_from_dict(tiny_config(warm_start={"enabled": True, "envs": -1}))


def roll_five_tables(**warm_start) -> dict:
    """A tiny two-player Roll Five config whose teacher plays at the two- and four-player tables."""
    return tiny_config(
        env="roll_five",
        env_kwargs={"num_players": 2},
        opponents=["heuristic"],
        normalize_reward=False,
        warm_start={
            "enabled": True,
            "teacher": "heuristic",
            "episodes": 9,
            "epochs": 1,
            "tables": [{"num_players": 2}, {"num_players": 4}],
            **warm_start,
        },
    )


def test_the_teachers_episodes_are_split_evenly_among_the_tables(tmp_path):
    assert split_evenly(9, 2) == [5, 4] and split_evenly(4, 4) == [1, 1, 1, 1]
    config = config_from_dict(roll_five_tables(envs=3))
    learner = PPO(config, tmp_path, None)
    learner.model.set_logger(Logger(None, []))
    tables = learner._demonstration_tables()
    assert [(t.options, t.game.num_players, t.venv.num_envs) for t in tables] == [
        ({"num_players": 2}, 2, 3),
        ({"num_players": 4}, 4, 3),
    ]
    summary = warm_start_module.warm_start(
        learner.model, learner.venv, config.warm_start, "roll_five", learner.game, 0, tmp_path, tables=tables
    )
    assert [t["table"] for t in summary["tables"]] == config.warm_start.tables
    assert [t["episodes"] >= n for t, n in zip(summary["tables"], [5, 4])] == [True, True]
    assert summary["decisions"] == sum(t["decisions"] for t in summary["tables"])
    assert summary["episodes"] == sum(t["episodes"] for t in summary["tables"])
    saved = torch.load(tmp_path / DEMONSTRATIONS_FILE, weights_only=True)
    assert len(saved["actions"]) == summary["decisions"]  # the guide keeps every table's decisions
    for table in tables:
        table.venv.close()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (roll_five_tables(tables=[{"num_players": 5}]), "warm_start.tables: {'num_players': 5}: env_kwargs"),
        (roll_five_tables(tables=[{"colour": 1}]), "warm_start.tables: {'colour': 1}: env_kwargs: roll_five has no"),
        (roll_five_tables(tables=[{}]), "warm_start.tables must be a list of non-empty mapping"),
        (roll_five_tables(episodes=1), "warm_start.episodes (1) must give each of the 2 warm_start.tables"),
        ({**roll_five_tables(), "normalize_reward": True}, "set normalize_reward: false"),
        (
            {
                **roll_five_tables(tables=[{"num_players": 3}, {"num_players": 4}]),
                "env_kwargs": {"num_players": 3},
                "opponents": ["heuristic", "random"],
            },
            "opponents needs 1 or 3 agent specs for 4 players (warm_start.tables {'num_players': 4})",
        ),
        (
            tiny_config(warm_start={"enabled": True, "tables": [{"num_players": 2}]}, normalize_reward=False),
            "warm_start.tables: {'num_players': 2} changes the observation shape (112,) to (133,)",
        ),
    ],
)
def test_a_warm_start_table_the_learner_could_not_play_is_refused(config, message):
    with pytest.raises(ConfigError) as error:
        config_from_dict(config)
    assert message in str(error.value)
