"""Expert iteration: every position is credited with its own seat's outcome; a tiny run end to end;
its stages (the lookup, the hand-over to the network's frozen search, the refusal of the keys that
spelled them before, an earlier run resumed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.base import RandomAgent
from agents.registry import make_agent
from envs.games.invers import Invers
from tests.expert_iteration_runs import MIXED, mixed_config, weights_digest
from tests.test_search import LinearNetwork
from training import train
from training.framework import run as framework_run
from training.framework.config import load_config
from training.framework.schema import ConfigError
from training.pipelines.expert_iteration.config import EARLIER_KEYS, ExpertIterationConfig, Stage, stages_from_earlier
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


RECIPE = yaml.safe_load(open("configs/invers_expert_iteration.yaml"))


def tiny_stage(**changes) -> dict:
    """The recipe's one stage (the learner's own search, a share of games between bots), against cheap bots."""
    return {**RECIPE["stages"][0], "pool": ["random", "search:depth=1"], **changes}


def tiny_config(tmp_path, **changes) -> Path:
    """Invers' expert-iteration config at a size that trains a generation in seconds."""
    config = {
        **RECIPE,
        "env_kwargs": {"max_plies": 30},
        "policy_kwargs": {"net_arch": [16]},
        "games_per_generation": 2,
        "generations": 1,
        "stages": [tiny_stage()],
        "batch_size": 32,
        "max_minutes": None,
        **changes,
    }
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
        stages=[Stage(pool=["search:depth=1"], bot_game_weight=1.0)],
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
        stages=[Stage(teacher="search:depth=2", pool=["search:depth=1"], bot_game_weight=1.0)],
        random_move_rate=0.2,
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
        stages=[{"teacher": "search:depth=1", "pool": ["search:depth=1"], "bot_game_weight": 1.0}],
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
    path = tiny_config(tmp_path, generations=5, games_per_unit=1, stages=[tiny_stage(teacher="search:depth=1")])
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-eval"]) == 0
    out = capsys.readouterr().out.splitlines()
    routine = [line for line in out if line.startswith(("generation 1:", "generation 2:", "generations "))]
    assert routine == [line for line in out if line.startswith("generation 1: games played and labelled 1/2")]
    assert len(out) < 10


def test_a_teacher_without_move_values_is_refused(tmp_path):
    config = ExpertIterationConfig(env="invers", policy_kwargs={"net_arch": [8]}, stages=[Stage(teacher="greedy")])
    with pytest.raises(ConfigError, match="move_values"):
        ExpertIteration(config, tmp_path)


def test_learning_with_symmetries_keeps_targets_on_legal_moves(tmp_path):
    config = ExpertIterationConfig(
        env="invers",
        env_kwargs={"max_plies": 40},
        policy_kwargs={"net_arch": [8]},
        games_per_generation=2,
        stages=[Stage(pool=["search:depth=1"], bot_game_weight=1.0)],
        batch_size=16,
    )
    trainer = ExpertIteration(config, tmp_path)
    assert len(trainer.symmetries) == 8
    units, _ = trainer.play_generation()
    for unit in units:
        trainer.buffer.add(unit.observations, unit.masks, unit.policies, unit.values)
    losses = trainer.update(sum(unit.positions for unit in units))
    assert np.isfinite(losses["policy_loss"]) and losses["policy_loss"] < 50  # an illegal target would cost 1e9


#: keys that only the learner's own games read (none is played where every game is between two bots)
LEARNER_KEYS = {"search_depth", "explore_plies", "explore_temperature", "imitate_pool"}
#: a stage's keys that only the learner's own games read
LEARNER_STAGE_KEYS = {"self_play_weight", "snapshot_weight"}


def read_by_the_run(config: ExpertIterationConfig, raw: dict) -> dict:
    """``raw`` (a config mapping) without the keys that ``config``'s run never reads: the learner's, where
    no stage plays a learner game, and a stage's shares of learner games where all of its are between bots."""
    learner_plays = any(stage.learner_plays for stage in config.stages)
    kept = {key: value for key, value in raw.items() if learner_plays or key not in LEARNER_KEYS}
    if "stages" in kept:
        kept["stages"] = [
            {key: value for key, value in entry.items() if stage.learner_plays or key not in LEARNER_STAGE_KEYS}
            for entry, stage in zip(kept["stages"], config.stages, strict=True)
        ]
    return kept


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
    stopped by its time limit or by hand would not remake the same network otherwise), and but for
    the keys that no game of the run reads (the recipes leave them out)."""
    config = load_config(ExpertIterationConfig, recipe)
    first = config.stages[0]
    assert first.teacher and all(stage.bot_game_weight == 1.0 for stage in config.stages)
    teacher = make_agent("invers", first.teacher, Invers(), seed=0)
    assert callable(teacher.move_values)
    ran = read_by_the_run(config, yaml.safe_load(open(f"{network}/config.yaml")))
    planned = read_by_the_run(config, config.to_dict())
    budget = ("generations", "max_minutes")
    assert {k: v for k, v in ran.items() if k not in budget} == {k: planned[k] for k in ran if k not in budget}
    if config.max_minutes is None:  # the recipe fixes the budget: the generations the run reached
        assert json.loads(open(f"{network}/metadata.json").read())["generations"] == config.generations


def shipped_expert_iteration_configs() -> list[Path]:
    return [
        path
        for path in sorted(Path("configs").glob("*.yaml"))
        if yaml.safe_load(path.read_text()).get("pipeline") == "expert_iteration"
    ]


@pytest.mark.parametrize("path", shipped_expert_iteration_configs(), ids=str)
def test_a_shipped_config_sets_no_key_its_run_never_reads(path):
    """``search_depth: 1  # unused`` stood in the default config, whose learner plays no game."""
    raw = yaml.safe_load(path.read_text())
    assert read_by_the_run(load_config(ExpertIterationConfig, path), raw) == raw


def test_a_run_honours_its_learning_curve_section(tmp_path):
    """The framework's curve serves every pipeline: expert iteration's network, played greedily, at 0 and each point."""
    path = tiny_config(tmp_path, generations=2, learning_curve={"every": 1, "games": 2, "reference": "random"})
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--no-eval", "--no-progress"]) == 0
    rows = (run / "learning_curve.csv").read_text().splitlines()
    assert rows[0].startswith("generations,win_rate") and [row.split(",")[0] for row in rows[1:]] == ["0", "1", "2"]


QUIET = ["--no-eval", "--no-progress"]


def two_stage_config(tmp_path, later_pool: list[str], later: tuple[int | None, ...] = (None,), **changes) -> Path:
    """The tiny config distilling search:depth=1 for a generation, then the network's one-ply search,
    frozen as each later stage begins (``later``: their generations, the last None: to the end)."""
    first = {
        "generations": 1,
        "teacher": "search:depth=1",
        "pool": ["random", "search:depth=1"],
        "bot_game_weight": 1.0,
    }
    frozen = {"teacher": "ppo+search:depth=1,path={frozen}", "pool": later_pool, "bot_game_weight": 1.0}
    stages = [first, *({**frozen, **({"generations": n} if n else {})} for n in later)]
    return tiny_config(tmp_path, stages=stages, workers=1, **changes)


def test_the_stage_of_a_generation_and_the_generation_it_begins_at():
    stages = [Stage(generations=2, teacher="search:depth=1"), Stage(generations=3), Stage(teacher="search:depth=2")]
    config = ExpertIterationConfig(env="invers", generations=9, stages=stages)
    found = [config.stage_at(generation) for generation in range(9)]
    assert [first for first, _ in found] == [0, 0, 2, 2, 2, 5, 5, 5, 5]
    assert [[s is stage for s in stages].index(True) for _, stage in found] == [0, 0, 1, 1, 1, 2, 2, 2, 2]
    with pytest.raises(ValueError, match="generation 5 is past the stages, which end at 5"):
        ExpertIterationConfig(env="invers", stages=stages[:2]).stage_at(5)


def test_the_teacher_hands_over_to_the_networks_own_frozen_search(tmp_path):
    """A second stage whose teacher is ``{frozen}``: generation 0 is labelled by the first teacher;
    generation 1 first freezes the network in the run folder, then its own search labels and the
    second pool plays."""
    path = two_stage_config(tmp_path, ["ppo:path={frozen}", "search:depth=1"], generations=2)
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), *QUIET]) == 0
    frozen = run / "teacher" / "model.zip"
    log = json.loads((run / "metadata.json").read_text())["generation_log"]
    assert [entry["teacher"] for entry in log] == ["search:depth=1", f"ppo+search:depth=1,path={frozen}"]
    assert frozen.is_file() and all(entry["positions"] > 0 for entry in log)
    assert log[1]["games_vs"] == {}  # every game between two bots: the learner's results are none


def test_each_later_stage_freezes_a_newer_network(tmp_path):
    """Stages of 1 and 2 generations, then one to the end: hand-overs at generations 1 and 3, each
    freezing the network of that moment (the teacher file is rewritten, the buffer emptied)."""
    path = two_stage_config(tmp_path, ["random"], later=(2, None), generations=4)
    run = tmp_path / "run"
    frozen = []
    original = ExpertIteration.begin_stage

    def record(self, stage):
        original(self, stage)
        if stage.freezes:
            frozen.append((self.done, self.frozen_teacher().read_bytes(), len(self.buffer)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExpertIteration, "begin_stage", record)
        assert train.main(["--config", str(path), "--run-dir", str(run), *QUIET]) == 0
    assert [generation for generation, _, _ in frozen] == [1, 3]
    assert frozen[0][1] != frozen[1][1] and all(size == 0 for _, _, size in frozen)
    log = json.loads((run / "metadata.json").read_text())["generation_log"]
    assert [entry["teacher"].split(",")[0] for entry in log] == ["search:depth=1"] + ["ppo+search:depth=1"] * 3


@pytest.mark.parametrize("later", [(None,), (1, None)])
@pytest.mark.parametrize("first_session", [1, 2])
def test_a_run_resumed_on_either_side_of_a_hand_over_learns_what_one_straight_through_does(
    tmp_path, first_session, later
):
    path = two_stage_config(tmp_path, ["ppo:path={frozen}", "random"], later=later, generations=3, max_snapshots=1)
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train.main(["--config", str(path), "--run-dir", str(straight), *QUIET]) == 0
    assert (
        train.main(["--config", str(path), "--run-dir", str(resumed), "--generations", str(first_session), *QUIET]) == 0
    )
    assert train.main(["--resume", str(resumed), "--generations", "3", *QUIET]) == 0
    assert weights_digest(straight) == weights_digest(resumed)


@pytest.mark.parametrize(
    "stages, message",
    [
        (
            [{"generations": 1}, {"generations": 2}],
            "the stages last 1 + 2 = 3 generations, but generations is 5: generations 3 to 4 would have no stage; "
            "lengthen the last stage, or leave out its generations to run it until the run ends",
        ),
        ([{"generations": 4}], "the stages last 4 = 4 generations, but generations is 5: generation 4 would have"),
        (
            [{}, {"generations": 2}],
            "stages[0].generations is missing: only the last stage may leave it out (it then runs until the run ends)",
        ),
        ([], "stages must be a non-empty list of stage mappings, got []"),
        (
            [{"teacher": "ppo:path={frozen}"}],
            "stages[0].teacher 'ppo:path={frozen}': the frozen network labels positions inside its search, "
            "ppo+search:depth=D,path={frozen}",
        ),
        (
            [{"self_play_weight": 0.7, "snapshot_weight": 0.5}],
            "stages[0]: self_play_weight + snapshot_weight must be at most 1, got 1.2",
        ),
        ([{"generations": 0}], "stages[0].generations must be an integer > 0 or null, got 0"),
        ([{"self_teacher_depth": 2}], "unknown stages[0] key(s) ['self_teacher_depth']; known keys: "),
    ],
)
def test_stages_that_do_not_fit_the_run_are_refused_naming_the_problem(tmp_path, stages, message):
    path = tiny_config(tmp_path, generations=5, stages=stages)
    with pytest.raises(ConfigError) as refused:
        load_config(ExpertIterationConfig, path)
    assert str(refused.value).startswith(f"{path}: {message}")


def test_a_config_without_stages_is_refused_saying_what_they_are(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({key: value for key, value in RECIPE.items() if key != "stages"}))
    with pytest.raises(ConfigError, match="stages is missing: expert iteration's curriculum is a list of stages"):
        load_config(ExpertIterationConfig, path)


#: the start of the refusal of the keys that spelled the curriculum before stages (after the keys)
NO_LONGER_READ = (
    "no longer read: expert iteration's curriculum is a `stages:` list, each stage with its generations, "
    'teacher, pool and game weights (docs/guides/training.md, "Expert iteration\'s stages"); '
)


@pytest.mark.parametrize("key", list(EARLIER_KEYS))
def test_each_key_that_spelled_the_curriculum_is_refused_in_one_line_saying_how_to_write_it_now(tmp_path, capsys, key):
    path = tiny_config(tmp_path, **{key: EARLIER_KEYS[key]})  # its default then: any value is refused
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), *QUIET]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"error: {path}: `{key}` is {NO_LONGER_READ}write what it says in this config's stages"
    assert not (tmp_path / "run").exists()


#: ``configs/invers.yaml``'s curriculum as the keys before stages spelled it
EARLIER_DEFAULT = {
    "pool": ["search:depth=1", "search:depth=2", "search:depth=3", "search:depth=4"],
    "teacher": "search:depth=4",
    "bot_game_weight": 1.0,
    "self_play_weight": 0.0,
    "snapshot_weight": 0.0,
    "self_teacher_from": 110,
    "self_teacher_depth": 2,
    "self_teacher_every": 65,
    "self_teacher_pool": [
        "ppo+search:depth=2,path={teacher}",
        "ppo:path={teacher}",
        "search:depth=2",
        "search:depth=3",
    ],
}


def test_the_default_config_in_the_earlier_keys_is_refused_with_its_stages_as_the_default_writes_them(tmp_path, capsys):
    default = yaml.safe_load(open("configs/invers.yaml"))
    path = tmp_path / "earlier.yaml"
    path.write_text(yaml.safe_dump({**{k: v for k, v in default.items() if k != "stages"}, **EARLIER_DEFAULT}))
    assert train.main(["--config", str(path), *QUIET]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    named = ", ".join(f"`{key}`" for key in EARLIER_KEYS)
    assert line.startswith(f"error: {path}: {named} are {NO_LONGER_READ}this config's, as stages: `stages: [")
    shown = line.split("this config's, as stages: `")[1].removesuffix("`")
    assert yaml.safe_load(shown)["stages"] == default["stages"]


@pytest.mark.parametrize(
    "earlier, lengths",
    [
        ({}, [None]),
        ({"teacher": "search:depth=1", "self_teacher_from": 4}, [4, None]),
        ({"teacher": "search:depth=1", "self_teacher_from": 4, "self_teacher_every": 3}, [4, 3, None]),
        ({"teacher": "search:depth=1", "self_teacher_from": 4, "self_teacher_every": 2}, [4, 2, 2, None]),
        ({"teacher": "search:depth=1", "self_teacher_from": 10}, [None]),  # a hand-over the run never reached
    ],
)
def test_the_earlier_keys_as_stages_cover_the_runs_generations_as_they_did(earlier, lengths):
    """Over 10 generations: the hand-over at ``self_teacher_from``, then every ``self_teacher_every``."""
    assert [stage.get("generations") for stage in stages_from_earlier({"generations": 10, **earlier})] == lengths


@pytest.mark.parametrize("recipe", ["configs/invers.yaml", "configs/invers_more_compute.yaml"])
def test_each_generation_of_a_recipe_has_the_teacher_pool_and_hand_over_that_the_earlier_keys_gave(recipe):
    """The fixture is what the learner's hand-over methods made of the recipe's earlier keys
    (``self_teacher_from``, ``self_teacher_every``, ``self_teacher_pool``) before stages replaced
    them, generation by generation, in runs of generations alike: whether its first froze the
    network (and emptied the buffer), the teacher, the pool, the share of games between bots."""
    expected = json.loads(Path("tests/fixtures/expert_iteration_schedules.json").read_text())[recipe]
    config = load_config(ExpertIterationConfig, recipe, {"generations": expected["generations"]})
    schedule = []
    for generation in range(config.generations):
        first, stage = config.stage_at(generation)
        begins = first == generation and generation > 0  # generation 0's stage begins on an empty buffer
        assert not begins or stage.freezes  # a stage begins where the buffer was emptied: at a hand-over
        entry = {"freezes": first == generation and stage.freezes, "teacher": stage.teacher, "pool": stage.pool}
        schedule.append({**entry, "bot_game_weight": stage.bot_game_weight})
    runs = expected["runs"]
    assert schedule == [
        {
            **{key: run[key] for key in ("teacher", "pool", "bot_game_weight")},
            "freezes": run["freezes"] and g == run["from"],
        }
        for run in runs
        for g in range(run["from"], run["to"] + 1)
    ]
    assert not any(stage.learner_plays for stage in config.stages)  # so the learner's shares are never read


#: :data:`tests.expert_iteration_runs.MIXED`'s curriculum as the keys before stages spelled it, a newer
#: network frozen every two generations
EARLIER_MIXED = {
    "pool": ["search:depth=1", "random"],
    "teacher": "search:depth=2",
    "bot_game_weight": 0.4,
    "self_play_weight": 0.3,
    "snapshot_weight": 0.3,
    "self_teacher_from": 2,
    "self_teacher_depth": 1,
    "self_teacher_every": 2,
    "self_teacher_pool": ["ppo:path={teacher}", "ppo+search:depth=1,path={teacher}", "search:depth=1"],
}


def test_a_run_folder_written_with_the_earlier_keys_resumes_as_the_stages_they_meant(tmp_path, capsys):
    """A run folder of the earlier version differs from today's in its config.yaml alone (the
    curriculum in the earlier keys): it resumes, the keys read as the stages they meant over the
    budget the resume asks for (a hand-over past the first session's included), the file rewritten
    so, and the run learns what one straight through learns, every tensor."""
    first, later = MIXED["stages"]
    config = mixed_config(tmp_path, generations=5, stages=[first, {"generations": 2, **later}, later])
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    assert train.main(["--config", str(config), "--run-dir", str(straight), *QUIET]) == 0
    assert train.main(["--config", str(config), "--run-dir", str(resumed), "--generations", "3", *QUIET]) == 0
    saved = yaml.safe_load((resumed / "config.yaml").read_text())
    del saved["stages"]
    (resumed / "config.yaml").write_text(yaml.safe_dump({**saved, **EARLIER_MIXED}))
    capsys.readouterr()
    assert train.main(["--resume", str(resumed), "--generations", "5", *QUIET]) == 0
    retired = ", ".join(sorted(EARLIER_MIXED))
    assert f"{resumed / 'config.yaml'} was written with keys this version no longer reads ({retired}): resumed as " in (
        capsys.readouterr().out
    )
    assert weights_digest(resumed) == weights_digest(straight)
    rewritten = yaml.safe_load((resumed / "config.yaml").read_text())
    assert rewritten["stages"] == yaml.safe_load((straight / "config.yaml").read_text())["stages"]
    assert not set(EARLIER_KEYS) & set(rewritten)
