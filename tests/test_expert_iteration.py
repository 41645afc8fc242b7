"""Expert iteration: every position is credited with its own seat's outcome; a tiny run end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.base import RandomAgent
from agents.registry import make_agent
from envs.games.invers import Invers
from tests.test_search import LinearNetwork
from training import train
from training.framework import run as framework_run
from training.framework.config import load_config
from training.framework.schema import ConfigError
from training.pipelines.expert_iteration.config import ExpertIterationConfig
from training.pipelines.expert_iteration.learner import ExpertIteration
from training.pipelines.expert_iteration.play import Learner, learner_targets, play_training_game
from training.teacher.labels import teacher_targets


def learner(**changes):
    config = ExpertIterationConfig(env="invers", search_depth=1, explore_plies=4, **changes)
    return Learner(LinearNetwork(151, 24), config, Invers())


@pytest.mark.parametrize("seat", [0, 1])
def test_the_learner_is_credited_only_with_its_own_seats_outcome(seat):
    game = Invers()
    decided = 0
    for seed in range(4):
        seats = [RandomAgent(game, seed=seed), RandomAgent(game, seed=seed)]
        seats[seat] = learner()
        final, records = play_training_game(game, seats, np.random.default_rng(seed), 2, recorded={seat})
        assert records and all(r.seat == seat for r in records)
        targets = learner_targets(records, final, value_mix=0.0)
        assert all(value == final.returns()[seat] for *_, value in targets)
        decided += final.returns()[seat] != 0
    assert decided  # some games were won or lost, so the check could fail


def test_self_play_and_imitated_positions_each_get_their_own_seat():
    game = Invers(max_plies=40)
    me = learner()
    final, records = play_training_game(game, [me, me], np.random.default_rng(1), 2, recorded={0, 1})
    assert {r.seat for r in records} == {0, 1}
    for record, (*_, value) in zip(records, learner_targets(records, final, value_mix=0.5)):
        assert value == pytest.approx(0.5 * record.search_value + 0.5 * final.returns()[record.seat])
    bot = make_agent("invers", "search:depth=1", game, seed=0)
    final, records = play_training_game(game, [me, bot], np.random.default_rng(2), 2, recorded={0, 1})
    imitated = [r for r in records if r.seat == 1]
    assert imitated and all(r.search_value is None and r.policy.sum() == 1 and r.policy.max() == 1 for r in imitated)
    for record, (*_, value) in zip(records, learner_targets(records, final, value_mix=0.5)):
        if record.seat == 1:
            assert value == final.returns()[1]


def test_policy_targets_are_distributions_over_legal_moves():
    game = Invers()
    state = game.new_initial_state()
    action, record = learner().move(state, ply=10, rng=np.random.default_rng(0))
    assert record.policy.sum() == pytest.approx(1.0)
    assert np.all(record.policy[record.mask == 0] == 0) and record.mask[action]
    assert -1.0 <= record.search_value <= 1.0


def tiny_config(tmp_path, **changes) -> Path:
    """Invers' expert-iteration config at a size that trains a generation in seconds."""
    config = yaml.safe_load(open("configs/invers_expert_iteration.yaml"))
    config.update(
        {
            "env_kwargs": {"max_plies": 30},
            "policy_kwargs": {"net_arch": [16]},
            "games_per_generation": 2,
            "generations": 1,
            "pool": ["random", "search:depth=1"],
            "batch_size": 32,
            "max_minutes": None,
            **changes,
        }
    )
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_tiny_run_trains_saves_resumes_and_loads_as_agents(tmp_path):
    path = tiny_config(tmp_path)
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--eval-games", "4", "--no-progress"]) == 0
    assert (run / "evaluation" / "report.md").is_file()  # the closing evaluation, as every pipeline has
    assert train.main(["--resume", str(run), "--generations", "2", "--no-eval", "--no-progress"]) == 0
    metadata = json.loads((run / "metadata.json").read_text())
    assert [g["generation"] for g in metadata["generation_log"]] == [0, 1] and metadata["positions"] > 0
    assert metadata["generations"] == 2 and [s["ended"] for s in metadata["sessions"]] == ["completed", "completed"]
    game = Invers(max_plies=30)
    for spec in (f"ppo:path={run}", f"ppo+search:depth=2,path={run}"):
        agent = make_agent("invers", spec, game, seed=0)
        state = game.new_initial_state()
        assert state.legal_mask(0)[agent.act(state.observe(0), state.legal_mask(0))]


def test_config_errors_name_the_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"env": "invers", "serch_depth": 2}))
    with pytest.raises(ConfigError, match="serch_depth"):
        load_config(ExpertIterationConfig, path)
    path.write_text(yaml.safe_dump({"env": "invers", "value_mix": 2.0}))
    with pytest.raises(ConfigError, match="value_mix"):
        load_config(ExpertIterationConfig, path)


def test_teacher_games_keep_both_bots_positions_with_their_outcomes(tmp_path):
    config = ExpertIterationConfig(
        env="invers",
        env_kwargs={"max_plies": 60},
        policy_kwargs={"net_arch": [8]},
        games_per_generation=2,
        pool=["search:depth=1"],
        bot_game_weight=1.0,
    )
    trainer = ExpertIteration(config, tmp_path)
    units, results = trainer.play_generation()
    data = [target for unit in units for target in unit.targets()]
    assert data and results == {} and sum(unit.games for unit in units) == 2  # no learner game was played
    assert {value for *_, value in data} <= {-1.0, 0.0, 1.0}  # bot positions: their seat's outcome alone
    assert all(policy.max() == 1.0 for _, _, policy, _ in data)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_teacher_labels_every_position_with_its_move_values(tmp_path, workers):
    config = ExpertIterationConfig(
        env="invers",
        env_kwargs={"max_plies": 40},
        policy_kwargs={"net_arch": [8]},
        games_per_generation=2,
        pool=["search:depth=1"],
        bot_game_weight=1.0,
        random_move_rate=0.2,
        teacher="search:depth=2",
        workers=workers,
        value_mix=0.5,
        policy_temperature=0.05,
    )
    trainer = ExpertIteration(config, tmp_path)
    try:
        units, _ = trainer.play_generation()
        data = [target for unit in units for target in unit.targets()]
    finally:
        trainer.close()
    game = Invers(max_plies=40)
    teacher = make_agent("invers", "search:depth=2", game, seed=0)
    assert len(data) > 20
    for observation, mask, policy, value in data[:: max(1, len(data) // 6)]:
        values = teacher.move_values(game.state_from_observation(observation))
        expected, best = teacher_targets(values, 24, 0.05)
        assert np.allclose(policy, expected) and policy[mask == 0].sum() == 0
        assert min(abs(value - (0.5 * best + 0.5 * outcome)) for outcome in (-1.0, 0.0, 1.0)) < 1e-6
    assert not all(policy.max() == 1.0 for _, _, policy, _ in data)  # soft targets, not the bots' one-hot moves


def test_max_minutes_ends_a_generation_of_teacher_games_and_its_progress_is_told_as_it_goes(
    tmp_path, capsys, monkeypatch
):
    """A distillation's generation (48 teacher games, labelled by search:depth=4) ran three
    minutes in silence past a two-minute limit: now it tells its games as they are played and
    labelled, and past the limit starts no further unit than the first."""
    monkeypatch.setattr(framework_run, "LOG_EVERY_S", 0.0)  # every progress line, as a terminal shows them
    path = tiny_config(
        tmp_path,
        generations=3,
        games_per_generation=6,
        games_per_unit=2,
        pool=["search:depth=1"],
        bot_game_weight=1.0,
        teacher="search:depth=1",
        workers=1,
        max_minutes=1e-6,
    )
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval"]) == 0
    out = capsys.readouterr().out
    assert "generation 1: games played and labelled 2/6, " in out
    assert out.index("generation 1: games played and labelled 2/6") < out.index("generations 1/3")
    metadata = json.loads((run / "metadata.json").read_text())
    (entry,) = metadata["generation_log"]
    assert entry["games"] == 2 and entry["units"] == 1 and entry["positions"] > 0 and metadata["games"] == 2
    assert metadata["sessions"][0]["ended"] == "stopped: time limit (1e-06 minutes)"


def test_a_log_gets_the_first_progress_line_then_one_a_minute(tmp_path, capsys):
    """Printed to a file, a 5-generation run wrote 134 lines and the default run 6,990."""
    path = tiny_config(tmp_path, generations=5, games_per_unit=1, teacher="search:depth=1")
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-eval"]) == 0
    out = capsys.readouterr().out.splitlines()
    routine = [line for line in out if line.startswith(("generation 1:", "generation 2:", "generations "))]
    assert routine == [line for line in out if line.startswith("generation 1: games played and labelled 1/2")]
    assert len(out) < 10


def test_a_teacher_without_move_values_is_refused(tmp_path):
    config = ExpertIterationConfig(env="invers", policy_kwargs={"net_arch": [8]}, teacher="greedy")
    with pytest.raises(ConfigError, match="move_values"):
        ExpertIteration(config, tmp_path)


def test_learning_with_symmetries_keeps_targets_on_legal_moves(tmp_path):
    config = ExpertIterationConfig(
        env="invers",
        env_kwargs={"max_plies": 40},
        policy_kwargs={"net_arch": [8]},
        games_per_generation=2,
        pool=["search:depth=1"],
        bot_game_weight=1.0,
        batch_size=16,
    )
    trainer = ExpertIteration(config, tmp_path)
    assert len(trainer.symmetries) == 8
    units, _ = trainer.play_generation()
    for unit in units:
        trainer.buffer.add(unit.observations, unit.masks, unit.policies, unit.values)
    losses = trainer.update(sum(unit.positions for unit in units))
    assert np.isfinite(losses["policy_loss"]) and losses["policy_loss"] < 50  # an illegal target would cost 1e9


@pytest.mark.parametrize(
    "recipe, network",
    [
        ("configs/invers_distill.yaml", "checkpoints/invers/distill_depth4"),
        ("configs/invers_search_distill.yaml", "checkpoints/invers/search_distill_1"),
        ("configs/invers_search_distill_2.yaml", "checkpoints/invers/search_distill_2"),
        ("configs/invers_more_compute.yaml", "checkpoints/invers/shipped"),
    ],
)
def test_each_kept_networks_recipe_is_the_config_it_ran_and_names_a_teacher_that_values_moves(recipe, network):
    """The shipped Invers network and the three it was distilled from: each recipe is its run's
    config but for the budget, which a recipe fixes at the generations the run reached (a run
    stopped by its time limit or by hand would not remake the same network otherwise)."""
    config = load_config(ExpertIterationConfig, recipe)
    assert config.teacher and config.bot_game_weight == 1.0
    teacher = make_agent("invers", config.teacher, Invers(), seed=0)
    assert callable(teacher.move_values)
    ran = yaml.safe_load(open(f"{network}/config.yaml"))
    budget = ("generations", "max_minutes")
    assert {k: v for k, v in ran.items() if k not in budget} == {k: config.to_dict()[k] for k in ran if k not in budget}
    if config.max_minutes is None:  # the recipe fixes the budget: the generations the run reached
        assert json.loads(open(f"{network}/metadata.json").read())["generations"] == config.generations


def test_a_run_honours_its_learning_curve_section(tmp_path):
    """The framework's curve serves every pipeline: expert iteration's network, played greedily, at 0 and each point."""
    path = tiny_config(tmp_path, generations=2, learning_curve={"every": 1, "games": 2, "reference": "random"})
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval", "--no-progress"]) == 0
    rows = (run / "learning_curve.csv").read_text().splitlines()
    assert rows[0].startswith("generations,win_rate") and [row.split(",")[0] for row in rows[1:]] == ["0", "1", "2"]


def two_stage_config(tmp_path, **changes) -> Path:
    """The tiny config distilling search:depth=1, handing over to the network's one-ply search after a generation."""
    return tiny_config(
        tmp_path,
        teacher="search:depth=1",
        bot_game_weight=1.0,
        workers=1,
        self_teacher_from=1,
        self_teacher_depth=1,
        **changes,
    )


def test_the_teacher_hands_over_to_the_networks_own_frozen_search(tmp_path):
    """``self_teacher_from: 1``: generation 0 is labelled by the first teacher; generation 1 first
    freezes the network in the run folder, then its own search labels and the second pool plays."""
    path = two_stage_config(tmp_path, generations=2, self_teacher_pool=["ppo:path={teacher}", "search:depth=1"])
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval", "--no-progress"]) == 0
    frozen = run / "teacher" / "model.zip"
    log = json.loads((run / "metadata.json").read_text())["generation_log"]
    assert [entry["teacher"] for entry in log] == ["search:depth=1", f"ppo+search:depth=1,path={frozen}"]
    assert frozen.is_file() and all(entry["positions"] > 0 for entry in log)


def test_the_teacher_is_frozen_again_every_so_many_generations(tmp_path):
    """``self_teacher_every: 2`` after ``self_teacher_from: 1``: hand-overs at generations 1 and 3,
    each freezing the network of that moment (the teacher file is rewritten, the buffer emptied)."""
    path = two_stage_config(tmp_path, generations=4, self_teacher_every=2, self_teacher_pool=["random"])
    run = tmp_path / "run"
    frozen = []
    original = ExpertIteration.hand_over_to_self_teacher

    def record(self):
        original(self)
        frozen.append((self.done, self.frozen_teacher().read_bytes(), len(self.buffer)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExpertIteration, "hand_over_to_self_teacher", record)
        assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval", "--no-progress"]) == 0
    assert [generation for generation, _, _ in frozen] == [1, 3]
    assert frozen[0][1] != frozen[1][1] and all(size == 0 for _, _, size in frozen)
    log = json.loads((run / "metadata.json").read_text())["generation_log"]
    assert [entry["teacher"].split(",")[0] for entry in log] == ["search:depth=1"] + ["ppo+search:depth=1"] * 3


def test_freezing_the_teacher_again_needs_a_first_hand_over(tmp_path):
    path = tiny_config(tmp_path, teacher="search:depth=1", self_teacher_every=2)
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2


@pytest.mark.parametrize("every", [None, 1])
@pytest.mark.parametrize("first_session", [1, 2])
def test_a_run_resumed_on_either_side_of_the_hand_over_learns_what_one_straight_through_does(
    tmp_path, first_session, every
):
    from tests.test_resume_exact import policy_weights_of, same_tensors  # noqa: PLC0415

    path = two_stage_config(
        tmp_path,
        generations=3,
        max_snapshots=1,
        self_teacher_pool=["ppo:path={teacher}", "random"],
        self_teacher_every=every,
    )
    quiet = ["--no-eval", "--no-progress"]
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train.main(["--config", str(path), "--run-dir", str(straight), *quiet]) == 0
    assert (
        train.main(["--config", str(path), "--run-dir", str(resumed), "--generations", str(first_session), *quiet]) == 0
    )
    assert train.main(["--resume", str(resumed), "--generations", "3", *quiet]) == 0
    assert same_tensors(policy_weights_of(straight), policy_weights_of(resumed))


def test_a_second_stage_without_a_first_teacher_is_refused(tmp_path):
    path = tiny_config(tmp_path, teacher=None, self_teacher_from=2)
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
