"""The benchmark suite: its table and references, a user's ``module:attr`` agent, bad agents
forfeiting games, bounded intervals, identical figures on every run, and the command line."""

from __future__ import annotations

import csv
import json
import os
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.inverted_dice import solver
from agents.registry import check_spec, exact_optimum, is_user_spec, make_agent, parse_spec
from envs.registry import make_game
from training import benchmark as command
from training import evaluate
from training.evaluation import benchmark, benchmark_scores, bootstrap
from training.evaluation.benchmark_report import Summary, leaderboard_agents
from training.evaluation.harness import PairingResult, wilson_interval
from training.evaluation.report_tables import paired_report, pairing_report
from training.evaluation.suite import (
    SUITE_VERSION,
    SUITES,
    TASKS,
    agent_mapping,
    load_anchors,
    references_path,
    suite,
    task_by_name,
)
from training.framework.schema import ConfigError

#: Two quick tasks, one of each kind: solitaire Inverted Dice and two-player Roll Five against its search.
FEW = ["inverted_dice", "roll_five"]

USER_MODULE = '''
import numpy as np


class Uniform:
    """Uniformly random over the legal actions, written as a user would."""

    def __init__(self, game, seed=None):
        self.reset(seed)

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        return int(self.rng.choice(np.flatnonzero(action_mask)))


class Crashing(Uniform):
    def act(self, observation, action_mask):
        if self.rng.random() < 0.5:
            raise RuntimeError("out of ideas")
        return super().act(observation, action_mask)


class Illegal(Uniform):
    def act(self, observation, action_mask):
        if (action_mask == 0).any():
            return int(np.flatnonzero(action_mask == 0)[0])
        return super().act(observation, action_mask)


def make_uniform(game, seed=None, temperature=1.0):
    return Uniform(game, seed)
'''


@pytest.fixture(autouse=True)
def few_resamples(monkeypatch):
    monkeypatch.setattr(bootstrap, "BOOTSTRAP_REPS", 200)  # the intervals' code, not their precision, is tested here


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """``my_agents.py`` in the current directory, as a user would write it beside their work."""
    (tmp_path / "my_agents.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "my_agents", raising=False)
    return tmp_path


# -- the suite -------------------------------------------------------------------------
@pytest.mark.parametrize("version", sorted(SUITES))
def test_every_task_rotates_seats_evenly_and_has_its_references(version):
    anchors = load_anchors(version=version)
    tasks = suite(version).tasks
    assert [t.name for t in tasks] == list(anchors)
    seeds = set()
    for task in tasks:
        assert task.games % task.players == 0 and task.quick_games % task.players == 0, task.name
        assert 0 < task.quick_games < task.games
        seeds |= {task.seed, task.seed + task.games - 1}
        game = make_game(task.env, **task.env_kwargs)
        assert game.num_players == task.players
        assert (task.opponent is None) == (task.players == 1)
        a = anchors[task.name]
        assert a.reference > a.random and a.random_source and a.reference_source
        assert a.normalize(a.random) == 0 and a.normalize(a.reference) == 1
    assert len(seeds) == 2 * len(tasks)  # no two tasks share their seeds
    # two players: the reference against itself scores exactly one half, by symmetry
    assert all(anchors[t.name].reference == 0.5 for t in tasks if t.players == 2)
    assert all(anchors[t.name].reference != 0.5 for t in tasks if t.players > 2)


def test_suite_v3_is_v2_in_seat_paired_openings():
    """Version 3: version 2's tasks, every opening played once from every seat (game ``g`` seeded
    by its opening, ``g // players``), the current suite; version 2 stays runnable as it was."""
    v2, v3 = suite("2").tasks, suite("3").tasks
    assert TASKS == v3 and SUITE_VERSION == "3"
    assert [replace(t, seat_paired=False) for t in v3] == list(v2) and all(t.seat_paired for t in v3)
    four = task_by_name("roll_five_4p")
    assert [four.game_seed(g) for g in range(8)] == [four.seed] * 4 + [four.seed + 1] * 4
    assert [task_by_name("roll_five_4p", "2").game_seed(g) for g in range(3)] == [
        four.seed,
        four.seed + 1,
        four.seed + 2,
    ]
    run = benchmark.run_benchmark("heuristic", quick=True, tasks=["roll_five"], show_progress=False)
    assert [r.seed for r in run.tasks[0].records[:4]] == [task_by_name("roll_five").seed] * 2 + [
        four.seed - 10**6 + 1
    ] * 2


def test_a_losing_agents_aggregate_interval_is_never_of_zero_width():
    """Issue 57: an agent that lost every quick game of most tasks got an IQM of [-0.002, -0.002]
    while its tasks read [0.000, 0.555]; the bootstrap's pseudo-openings keep the tasks' uncertainty."""
    run = benchmark.run_benchmark("random", quick=True, show_progress=False)
    assert (
        sum(
            task.raw == 0
            for task in map(lambda t: benchmark_scores.task_score(t, run.anchors[t.task.name]), run.played)
        )
        >= 3
    )
    for name, (point, low, high) in benchmark_scores.aggregates(run).items():
        assert low <= point <= high and high - low > 0.05, (name, point, low, high)


def test_suite_v2_uses_new_seeds_and_keeps_v1_runnable():
    v1, v2 = suite("1").tasks, suite("2").tasks
    assert [t.name for t in v1] == [t.name for t in v2]
    first_seeds = {t.seed for t in v1}
    assert not any(t.seed <= s + 10**6 - 1 and s <= t.seed + t.games - 1 for t in v2 for s in first_seeds)
    run = benchmark.run_benchmark("heuristic", quick=True, tasks=["roll_five"], show_progress=False, suite_version="1")
    assert run.suite_version == "1" and len(run.tasks[0].records) == task_by_name("roll_five", "1").quick_games
    assert "Suite version 1" in Summary(run).markdown()
    with pytest.raises(ConfigError, match="unknown suite version '4'"):
        benchmark.run_benchmark("heuristic", quick=True, show_progress=False, suite_version="4")


def test_suite_v2_intervals_are_narrow_enough_for_an_agent_at_the_references_level():
    """At the reference's level (its share, or a normalized spread of its games), every task's
    normalized 95% half-width is at most 0.05: the bound behind the game counts of v2."""
    anchors = load_anchors(version="2")
    for task in suite("2").tasks:
        a = anchors[task.name]
        if task.players == 1:
            continue  # a mean score's spread is measured: the leaderboard's rows print it
        share = a.reference
        low, high = wilson_interval(share * task.games, task.games)
        assert (high - low) / 2 / (a.reference - a.random) <= 0.05, task.name


@pytest.mark.parametrize("version", sorted(SUITES))
def test_an_exact_reference_comes_from_the_games_own_package_as_its_references_file_says(version, monkeypatch):
    """The benchmark names no game: Inverted Dice's reference, the solver's expected score of a
    fresh sheet, is asked of the game's package through the registry (EXACT_OPTIMA), for the
    table's own rules, and is the value and the words the suite's references file holds."""
    asked = []

    def solved(free_cross_out=False, cache_dir=None, force=False):  # the full solve takes minutes: a stand-in
        asked.append(free_cross_out)
        value = np.zeros(solver.START + 1)
        value[solver.START] = 226.25
        return solver.Solution(free_cross_out, 20, value, value)

    monkeypatch.setattr(solver, "cached_solution", solved)
    stored = json.loads(references_path(version).read_text())["tasks"]
    for task in suite(version).tasks:
        optimum = exact_optimum(task.env, make_game(task.env, **task.env_kwargs))
        assert (optimum is not None) == (task.env == "inverted_dice"), task.name
        if optimum is not None:
            assert optimum == (226.25, stored[task.name]["reference_source"])
    assert asked == [False]
    assert exact_optimum("inverted_dice", make_game("inverted_dice", free_cross_out=True))[0] == 226.25
    assert asked == [False, True]
    assert exact_optimum("inverted_dice", make_game("inverted_dice", num_players=2)) is None  # alone at the table only


@pytest.mark.parametrize("version", sorted(SUITES))
def test_the_references_file_names_its_suite_version_and_command(version):
    data = json.loads(references_path(version).read_text())
    assert data["suite_version"] == version
    assert data["command"] in (
        f"python training/benchmark.py --measure-references --suite {version}",
        "python training/benchmark.py --measure-references",  # v1's, measured before there were versions
    )


# -- a user's module:attr ------------------------------------------------------------------
def test_the_module_attr_rule_tells_user_specs_from_the_projects():
    assert is_user_spec("my_agents:Uniform") and is_user_spec("lab.players:make:depth=2")
    assert not is_user_spec("search:depth=3") and not is_user_spec("ppo+search:ms=8") and not is_user_spec("random")
    assert not is_user_spec("checkpoints/lost_dice/run") and not is_user_spec("search")
    assert not is_user_spec("search:depth") and not is_user_spec("heuristic:Agent")  # the project's names are its own
    assert parse_spec("lab.players:make:depth=2,t=0.5") == ("lab.players:make", {"depth": 2, "t": 0.5})
    assert parse_spec("search:depth=3") == ("search", {"depth": 3})


def test_a_users_class_or_factory_plays_through_the_registry(user_module):
    game = make_game("invers")
    for spec in ("my_agents:Uniform", "my_agents:make_uniform:temperature=0.5"):
        check_spec("invers", spec)
        agent = make_agent("invers", spec, game, seed=0)
        agent.reset(1)
        state = game.new_initial_state(np.random.default_rng(0))
        mask = state.legal_mask(0)
        assert mask[agent.act(state.observe(0), mask)]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_module:Agent", "cannot import 'no_such_module'"),
        ("my_agents:Missing", "has no attribute 'Missing'"),
        ("my_agents:Uniform:depth=2", "unexpected keyword argument 'depth'"),
    ],
)
def test_a_spec_that_cannot_be_imported_is_one_line_and_exit_2(user_module, spec, message, capsys):
    assert command.main(["--agent", spec, "--quick", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


def test_the_uniform_random_agent_as_module_attr_scores_about_zero(user_module):
    summary = Summary(benchmark.run_benchmark("my_agents:Uniform", quick=True, tasks=FEW, show_progress=False))
    for name, score in summary.scores.items():
        assert abs(score.normalized) < 0.25, (name, score)
        assert score.low <= score.normalized <= score.high


# -- bad agents ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec, kind", [("my_agents:Crashing", "exception"), ("my_agents:Illegal", "illegal action")])
def test_an_agent_that_breaks_the_rules_loses_those_games_and_the_suite_goes_on(user_module, spec, kind):
    run = benchmark.run_benchmark(spec, quick=True, tasks=FEW, show_progress=False)
    summary = Summary(run)
    for task_run in run.tasks:
        task = task_run.task
        assert len(task_run.records) == task.quick_games  # every game was played to its end or forfeited
        forfeited = [r for r in task_run.records if r.forfeit]
        assert forfeited and all(r.forfeit == kind for r in forfeited)
        lowest = make_game(task.env, **task.env_kwargs).score_bounds()[0] if task.players == 1 else 0.0
        assert all(r.raw == lowest for r in forfeited)
        assert summary.scores[task.name].forfeits == {kind: len(forfeited)}
    assert f"for {kind}; the first, game " in summary.markdown()


def test_a_move_over_the_time_limit_loses_its_game():
    run = benchmark.run_benchmark("random", quick=True, tasks=["roll_five"], move_time_limit=1e-9, show_progress=False)
    (task_run,) = run.tasks
    assert all(r.forfeit == "time limit" and r.raw == 0.0 for r in task_run.records)


def test_a_task_the_agent_has_no_bot_for_is_not_played_and_named():
    run = benchmark.run_benchmark("heuristic", quick=True, tasks=["invers", "roll_five"], show_progress=False)
    invers, roll_five = run.tasks
    assert "unknown agent 'heuristic' for invers" in invers.not_played and not invers.records
    assert not roll_five.not_played and len(roll_five.records) == task_by_name("roll_five").quick_games
    assert "* invers: unknown agent 'heuristic' for invers" in Summary(run).markdown()


def test_an_agent_no_task_knows_is_refused():
    with pytest.raises(ConfigError, match="plays none of the suite's tasks"):
        benchmark.run_benchmark("heuristc", quick=True, show_progress=False)


def test_an_agent_object_or_factory_is_benchmarked_from_python():
    by_factory = benchmark.run_benchmark(RandomAgent, quick=True, tasks=["roll_five"], show_progress=False)
    by_spec = benchmark.run_benchmark("random", quick=True, tasks=["roll_five"], show_progress=False)
    assert [r.raw for r in by_factory.tasks[0].records] == [r.raw for r in by_spec.tasks[0].records]
    assert by_factory.agent == "agents.base:RandomAgent"


# -- figures and files ---------------------------------------------------------------------
def figures(summary: Summary) -> dict:
    data = summary.to_dict()
    assert (
        "machine" not in data and "timings" not in data
    )  # they go to timing.json: the figures alone come out the same
    assert summary.timing_dict()["timings"]["wall_seconds"] >= 0
    return data


def played(run) -> list[tuple]:
    """Every game's record but its thinking time (the machine's)."""
    return [
        (r.task, r.game, r.seed, r.seat, r.raw, r.normalized, r.forfeit, r.detail, r.moves)
        for t in run.tasks
        for r in t.records
    ]


def test_a_run_in_batch_plays_the_games_of_one_at_a_time():
    """Games as rows of the batched twin, in batches that do not divide the tasks' games: the same records."""
    tasks = ["inverted_dice", "roll_five_4p", "lost_dice_3p"]
    one = benchmark.run_benchmark("heuristic", quick=True, tasks=tasks, batch=0, show_progress=False)
    batched = benchmark.run_benchmark("heuristic", quick=True, tasks=tasks, batch=7, show_progress=False)
    assert played(one) == played(batched) and all(not t.one_at_a_time for t in batched.tasks)
    assert "7 at a time as rows of the batched twin" in Summary(batched).markdown()
    assert "one at a time (--batch 0)" in Summary(one).markdown()


BATCH_MODULE = '''
import numpy as np

from my_agents import Uniform


class Batched(Uniform):
    """Uniform, with an act_batch drawing each row from its game's generator."""

    def act_batch(self, observations, action_masks, rngs):
        return np.array([int(rng.choice(np.flatnonzero(m))) for rng, m in zip(rngs, action_masks)])


class CrashingInBatch(Batched):
    def act_batch(self, observations, action_masks, rngs):
        if len(action_masks) > 3:
            raise RuntimeError("too many at once")
        return super().act_batch(observations, action_masks, rngs)
'''


def test_a_users_agent_acts_in_batch_where_it_can_and_a_forfeit_in_batch_replays_its_games_alone(user_module):
    (user_module / "batch_agents.py").write_text(textwrap.dedent(BATCH_MODULE))
    for spec in ("batch_agents:Batched", "my_agents:Crashing", "batch_agents:CrashingInBatch"):
        one = benchmark.run_benchmark(spec, quick=True, tasks=FEW, batch=0, show_progress=False)
        batched = benchmark.run_benchmark(spec, quick=True, tasks=FEW, batch=5, show_progress=False)
        assert played(one) == played(batched), spec
    assert not any(r.forfeit for t in batched.tasks for r in t.records)  # alone, it never crashes
    alone = benchmark.run_benchmark("my_agents:Uniform", quick=True, tasks=FEW, batch=5, show_progress=False)
    assert all(t.one_at_a_time == "the agent cannot act in batch (no act_batch)" for t in alone.tasks)
    assert "one at a time: inverted_dice (the agent cannot act in batch" in Summary(alone).markdown()


def test_a_batch_over_the_time_limit_is_judged_move_by_move():
    run = benchmark.run_benchmark(
        "random", quick=True, tasks=["roll_five"], move_time_limit=1e-9, batch=6, show_progress=False
    )
    (task_run,) = run.tasks
    assert all(r.forfeit == "time limit" and r.raw == 0.0 for r in task_run.records)


def test_two_runs_and_any_number_of_workers_give_identical_figures():
    first = Summary(benchmark.run_benchmark("heuristic", quick=True, tasks=FEW, show_progress=False))
    again = Summary(benchmark.run_benchmark("heuristic", quick=True, tasks=FEW, show_progress=False))
    parallel = Summary(benchmark.run_benchmark("heuristic", quick=True, tasks=FEW, workers=2, show_progress=False))
    assert figures(first) == figures(again) == figures(parallel)
    low, high = first.aggregates["IQM"][1:]
    assert low <= first.aggregates["IQM"][0] <= high


def test_the_report_folder_holds_every_game_and_the_plots(tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        command.main(
            [
                "--agent",
                "random",
                "--agent",
                "inverted_dice=heuristic",
                "--quick",
                "--tasks",
                *FEW,
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "benchmark.json",
        "games.csv",
        "profile.png",
        "report.md",
        "tasks.png",
        "timing.json",
        "timing.md",
    ]
    timing = json.loads((out / "timing.json").read_text())
    assert timing["machine"]["cpus"] >= 1 and set(timing["timings"]["tasks"]) == set(FEW)
    assert (
        "s of wall time" in (out / "timing.md").read_text() and "s of wall time" not in (out / "report.md").read_text()
    )
    data = json.loads((out / "benchmark.json").read_text())
    assert data["schema_version"] == 1 and data["suite_version"] == SUITE_VERSION
    assert data["agent"] == "random inverted_dice=heuristic"
    assert {t["task"] for t in data["tasks"]} == set(FEW) and data["envs"]["roll_five"] == "roll_five_v0"
    assert set(data["aggregates"]) == {"tasks", "IQM", "mean", "median", "optimality gap"}
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(rows) == sum(task_by_name(t).quick_games for t in FEW) and {r["task"] for r in rows} == set(FEW)
    assert "Report written to" in capsys.readouterr().out
    assert (
        command.main(["--agent", "random", "--quick", "--tasks", "roll_five", "--out", str(out), "--no-progress"]) == 2
    )


def test_agent_options_name_envs_or_tasks():
    assert agent_mapping(["search:depth=3"]) == "search:depth=3"
    mapping = agent_mapping(["heuristic", "invers=greedy", "lost_dice_4p=random"])
    assert mapping["invers"] == "greedy" and mapping["lost_dice"] == "heuristic" and mapping["lost_dice_4p"] == "random"
    assert agent_mapping(["invers=greedy"]) == {task.name: "greedy" if task.env == "invers" else None for task in TASKS}
    with pytest.raises(ConfigError, match="no env or task"):
        agent_mapping(["chess=random"])


def test_the_leaderboard_tries_every_bot_and_shipped_agent():
    assert leaderboard_agents() == ["random", "heuristic", "optimal", "greedy", "search", "ppo", "ppo+search", "td"]


def test_a_search_that_needs_perfect_information_is_not_played_in_a_dice_game():
    with pytest.raises(ConfigError) as refused:  # it plays neither task: refused, with each reason
        benchmark.run_benchmark("ppo+search", quick=True, tasks=["lost_dice", "roll_five_4p"], show_progress=False)
    message = str(refused.value)
    assert "lost_dice: search: needs a game whose observation determines the state" in message
    assert "roll_five_4p: search: plays two-player games only" in message


def test_a_task_of_a_spec_mapping_is_played_by_its_own_entry_or_its_envs():
    mapping = {"roll_five": "heuristic", "roll_five_4p": None}
    run = benchmark.run_benchmark(mapping, quick=True, tasks=["roll_five", "roll_five_4p"], show_progress=False)
    assert not run.tasks[0].not_played and run.tasks[1].not_played == "no agent is named for roll_five_4p or roll_five"


# -- intervals inside what the quantity can take ---------------------------------------------
def test_share_and_outcome_intervals_stay_inside_their_range():
    seats, openings = np.arange(4) % 2, np.arange(4) // 2
    sweep = PairingResult("a", "bot", np.array([1, 1, 1, 1]), seats, 4, openings)
    rout = PairingResult("b", "bot", np.array([-1, -1, -1, 0]), seats, 4, openings)
    _, rows = pairing_report([sweep, rout])
    for row in rows:
        assert 0.0 <= row["score_ci95_low"] <= row["score"] <= row["score_ci95_high"] <= 1.0
        assert -1.0 <= row["mean_outcome_ci95_low"] <= row["mean_outcome"] <= row["mean_outcome_ci95_high"] <= 1.0
    assert rows[0]["score_ci95_high"] == 1.0 and rows[0]["score_ci95_low"] < 1.0
    _, paired = paired_report([sweep, rout])
    assert -1.0 <= paired[0]["ci95_low"] <= paired[0]["score_difference"] <= paired[0]["ci95_high"] <= 1.0


@pytest.mark.parametrize("version", sorted(SUITES))
def test_the_docs_table_is_the_suites(version):
    page = (Path(__file__).resolve().parent.parent / "docs" / "benchmark.md").read_text()
    heading = f"## The suite (version {version})"
    assert heading in page
    section = page.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[1:-1]]
        for line in section.splitlines()
        if line.startswith("| ") and line.count("|") == 7
    }
    for task in suite(version).tasks:
        row = rows[task.name]
        assert row[4:] == [f"{task.games} ({task.quick_games})", str(task.seed)], task.name
        assert (row[2] == "—") if task.opponent is None else (row[2] == f"`{task.opponent}`"), task.name
        if task.random_opening_plies:
            assert f"{task.random_opening_plies} random opening plies" in row[1], task.name


def test_the_docs_torch_policy_acts_in_batch_and_plays_the_games_of_one_at_a_time(tmp_path, monkeypatch):
    """The protocol's worked example, as printed: a torch policy with act_batch in one forward pass."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "benchmark.md").read_text()
    source = page.split("class TorchPolicy:", 1)[0].rsplit("```python", 1)[1] + "class TorchPolicy:"
    source += page.split("class TorchPolicy:", 1)[1].split("```", 1)[0]
    (tmp_path / "my_policies.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "my_policies", raising=False)
    one = benchmark.run_benchmark("my_policies:TorchPolicy", quick=True, tasks=FEW, batch=0, show_progress=False)
    batched = benchmark.run_benchmark("my_policies:TorchPolicy", quick=True, tasks=FEW, batch=5, show_progress=False)
    assert played(one) == played(batched) and not any(t.one_at_a_time for t in batched.tasks)


def test_every_command_that_takes_a_spec_takes_module_attr(user_module, capsys):
    assert (
        evaluate.main(
            ["--env", "roll_five", "--agents", "my_agents:Uniform", "random", "--games", "4", "--out", "report"]
        )
        == 0
    )
    assert "| my_agents:Uniform | random | 4 |" in (user_module / "report" / "report.md").read_text()


def test_a_reason_names_paths_relative_to_the_working_directory(monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # the two-player network, named by its path, at the four-player table: its observations do not fit
    run = benchmark.run_benchmark(
        "checkpoints/lost_dice/shipped", quick=True, tasks=["lost_dice_4p", "lost_dice"], show_progress=False
    )
    reason = run.tasks[0].not_played
    assert reason.startswith("checkpoint checkpoints/lost_dice/shipped/model.zip expects observations"), reason


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agent", "random", "--batch", "-5"], "error: --batch must be 0 (one game at a time) or a number of games"),
        ([], "error: give --agent SPEC, --leaderboard or --measure-references (one of them)"),
        (["--agent", "random", "--leaderboard"], "error: give --agent SPEC, --leaderboard or --measure-references"),
    ],
)
def test_a_bad_combination_of_options_is_one_line_and_exit_2(argv, message, capsys):
    assert command.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message), err
