"""evaluate.py plays the game each run was trained for, says which run and game it plays,
loads every kind of run folder, and never leaves files that block a rerun."""

from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

import gymnasium
import pytest
import yaml
from sb3_contrib import MaskablePPO

import envs  # noqa: F401  (registers the Gymnasium ids)
from envs.registry import get_entry
from training import evaluate
from training.evaluation import report, request

ROOT = Path(__file__).resolve().parent.parent


def make_run(folder: Path, env: str, env_kwargs: dict, evaluation: dict, algorithm: str = "ppo") -> Path:
    """A run folder as train.py leaves it: an untrained MaskablePPO's
    model.zip and the config."""
    folder.mkdir(parents=True)
    model = MaskablePPO(
        "MlpPolicy",
        gymnasium.make(get_entry(env).gym_id, **env_kwargs),
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
    )
    model.save(folder / "model.zip")
    config = {"env": env, "env_kwargs": env_kwargs, "seed": 0, "evaluation": evaluation}
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (folder / "metadata.json").write_text(f'{{"algorithm": "{algorithm}", "env": "{env}"}}')
    return folder


@pytest.fixture
def tournament_run(tmp_path, monkeypatch):
    """The latest Roll Five run, trained in tournament mode with 2 random opening plies and 4 games,
    in ./checkpoints/."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(request, "bot_names", lambda env: ["random"])  # keep it quick: the run against random
    return make_run(
        Path("checkpoints/roll_five/20250101-000000-seed0"),
        "roll_five",
        {"num_players": 2, "mode": "tournament"},
        {"games": 4, "random_opening_plies": 2, "opponents": ["random"]},
    )


def test_the_latest_run_is_played_at_its_own_game_and_the_report_says_so(tournament_run, capsys):
    assert evaluate.main(["--env", "roll_five"]) == 0
    told = (
        f"Run: {tournament_run} (the latest run of roll_five); "
        "game RollFive(num_players=2, mode='tournament') (the run's env_kwargs), "
        "2 random opening plies (the run's evaluation.random_opening_plies), "
        "4 games per pairing (the run's evaluation.games), seed 10000."
    )
    out = capsys.readouterr().out
    assert out.splitlines()[0] == told  # one line before the games
    (folder,) = tournament_run.glob("evaluation-*")
    assert told in (folder / "report.md").read_text()
    (row,) = csv.DictReader((folder / "summary.csv").open())
    assert row["agent"] == "trained" and row["games"] == "4"


def test_a_run_is_scored_against_its_own_closing_evaluation_s_opponents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = make_run(
        Path("checkpoints/roll_five/20250101-000000-seed0"),
        "roll_five",
        {"num_players": 2},
        {"games": 2, "opponents": ["heuristic", "random"]},
    )
    assert evaluate.main(["--env", "roll_five"]) == 0
    (folder,) = run.glob("evaluation-*")
    assert [(r["agent"], r["opponent"]) for r in csv.DictReader((folder / "summary.csv").open())] == [
        ("trained", "heuristic"),
        ("trained", "random"),
        ("heuristic", "random"),
    ]  # not every bot of the game (search too)


def test_a_run_with_a_damaged_metadata_file_is_named_before_any_game(tmp_path, capsys):
    run = make_run(tmp_path / "run", "roll_five", {"num_players": 2}, {"games": 2, "opponents": ["random"]})
    (run / "metadata.json").write_text('{"algorithm": "ppo", "env": ')  # cut short, as a full disk leaves it
    assert evaluate.main(["--checkpoint", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run / 'metadata.json'} is not valid JSON") and err.count("\n") == 1
    assert not list(run.glob("evaluation*"))


def test_a_bare_model_file_s_report_goes_to_the_results_folder_not_beside_it(tmp_path, monkeypatch):
    run = make_run(tmp_path / "run", "roll_five", {"num_players": 2}, {"games": 2, "opponents": ["random"]})
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    shutil.copy(run / "model.zip", downloads / "model.zip")
    monkeypatch.chdir(tmp_path)
    assert (
        evaluate.main(
            ["--env", "roll_five", "--checkpoint", str(downloads / "model.zip"), "--agents", "random", "--games", "2"]
        )
        == 0
    )
    assert sorted(p.name for p in downloads.iterdir()) == ["model.zip"]
    (report,) = Path("results/roll_five").glob("*/report.md")
    assert "| trained | random | 2 |" in report.read_text()


def test_a_shipped_folder_is_never_the_latest_run_nor_written_into(tmp_path, monkeypatch, capsys):
    """In a fresh clone the shipped folders are as new as anything: the latest run is the
    user's own, else none; a shipped network's report goes to results/, its folder untouched."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(request, "bot_names", lambda env: ["random"])  # keep it quick: against random
    shipped = Path("checkpoints/inverted_dice")
    for name in ("shipped", "shipped_td"):
        shutil.copytree(ROOT / shipped / name, shipped / name)
    before = sorted(p.as_posix() for p in shipped.rglob("*"))
    assert evaluate.main(["--env", "inverted_dice", "--games", "2"]) == 0
    assert capsys.readouterr().out.startswith(
        "Run: none (no run of inverted_dice in checkpoints/inverted_dice: the bots only); "
    )
    assert evaluate.main(["--checkpoint", str(shipped / "shipped_td"), "--agents", "random", "--games", "2"]) == 0
    assert capsys.readouterr().out.startswith(f"Run: {shipped / 'shipped_td'} (--checkpoint); ")
    assert sorted(p.as_posix() for p in shipped.rglob("*")) == before
    assert len(list(Path("results/inverted_dice").glob("*/report.md"))) == 2
    own = make_run(shipped / "20250101-000000-seed0", "inverted_dice", {}, {"games": 2, "opponents": ["random"]})
    (shipped / "shipped_td" / "value.pt").touch()  # newer than the user's run
    assert evaluate.main(["--env", "inverted_dice"]) == 0
    assert capsys.readouterr().out.startswith(f"Run: {own} (the latest run of inverted_dice); ")
    assert len(list(own.glob("evaluation-*/report.md"))) == 1


def test_the_user_may_ask_for_another_game_and_is_told_what_was_kept(tournament_run, capsys):
    assert (
        evaluate.main(["--env", "roll_five", "--env-kwargs", "{mode: casual}", "--random-opening", "0", "--games", "2"])
        == 0
    )
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"Run: {tournament_run} (the latest run of roll_five); game RollFive(num_players=2, mode='casual') "
        "(--env-kwargs over the run's {'num_players': 2, 'mode': 'tournament'}), "
        "0 random opening plies (--random-opening), "
        "2 games per pairing (--games), seed 10000."
    )


def test_a_run_named_in_agents_sets_the_game_and_two_runs_of_different_games_are_refused(tournament_run, capsys):
    assert evaluate.main(["--env", "roll_five", "--agents", str(tournament_run), "random", "--out", "mine"]) == 0
    assert "mode='tournament') (the run's env_kwargs)" in (Path("mine") / "report.md").read_text()
    assert f"Run: {tournament_run} (the first trained agent of --agents)" in capsys.readouterr().out
    casual = make_run(
        Path("checkpoints/roll_five/casual"), "roll_five", {"num_players": 2, "mode": "casual"}, {"games": 4}
    )
    assert evaluate.main(["--env", "roll_five", "--agents", str(tournament_run), str(casual), "--out", "other"]) == 2
    assert capsys.readouterr().err == (
        "error: the trained agents were trained at different games: "
        f"{tournament_run} at {{'num_players': 2, 'mode': 'tournament'}}, "
        f"{casual} at {{'num_players': 2, 'mode': 'casual'}}; choose the game with --env-kwargs\n"
    )
    assert not Path("other").exists()
    assert (
        evaluate.main(
            [
                "--env",
                "roll_five",
                "--agents",
                str(tournament_run),
                str(casual),
                "--env-kwargs",
                "{mode: casual}",
                "--games",
                "2",
                "--out",
                "other",
            ]
        )
        == 0
    )
    assert "| trained | trained #2 |" in (Path("other") / "report.md").read_text()  # two runs, two agents


def test_bots_alone_are_played_at_the_default_game_and_say_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert evaluate.main(["--env", "invers", "--agents", "greedy", "random", "--games", "2", "--out", "bots"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "Run: none (no trained run among the agents); game Invers(num_players=2, max_plies=400) (the game's defaults), "
        "0 random opening plies (default), 2 games per pairing (--games), seed 10000."
    )


def test_one_agent_for_a_game_of_two_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "report"
    assert evaluate.main(["--env", "invers", "--agents", "greedy", "--games", "2", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "error: invers with 2 players plays agents against each other, so the evaluation needs two agents or more; "
        "got 1 (greedy): add an opponent, e.g. --agents greedy random\n"
    )
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert evaluate.main(["--env", "invers", "--agents", "greedy", "random", "--games", "2", "--out", str(out)]) == 0


def test_an_evaluation_that_fails_while_writing_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(path, results):
        raise RuntimeError("the picture could not be drawn")

    out = tmp_path / "report"
    monkeypatch.setattr(report, "score_histogram", broken)
    with pytest.raises(RuntimeError, match="could not be drawn"):  # a bug keeps its traceback ...
        evaluate.main(["--env", "inverted_dice", "--agents", "random", "--games", "2", "--out", str(out)])
    assert list(tmp_path.iterdir()) == []  # ... and leaves no file, not even a hidden partial folder
    monkeypatch.undo()
    assert evaluate.main(["--env", "inverted_dice", "--agents", "random", "--games", "2", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "report.md", "scores.png", "summary.csv"]


def test_a_turn_value_run_folder_is_evaluated_as_the_td_agent(tmp_path, capsys):
    run = tmp_path / "td-run"
    shutil.copytree(ROOT / "checkpoints" / "inverted_dice" / "shipped_td", run)
    assert evaluate.main(["--checkpoint", str(run), "--agents", "random", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"Run: {run} (--checkpoint); game InvertedDice(num_players=1, free_cross_out=False) (the run's env_kwargs)"
    )
    (folder,) = run.glob("evaluation-*")
    rows = list(csv.DictReader((folder / "summary.csv").open()))
    assert [r["agent"] for r in rows] == ["trained", "random"] and float(rows[0]["mean"]) > float(rows[1]["mean"])


def test_an_expert_iteration_run_folder_is_evaluated_like_ppo(tmp_path, capsys):
    run = make_run(tmp_path / "ei-run", "invers", {"max_plies": 40}, {"games": 2}, algorithm="expert_iteration")
    assert evaluate.main(["--checkpoint", str(run), "--agents", "greedy"]) == 0
    assert "game Invers(num_players=2, max_plies=40) (the run's env_kwargs)" in capsys.readouterr().out


def test_an_rllib_run_without_ray_and_an_empty_folder_are_refused_in_one_line(tmp_path, capsys):
    rllib = tmp_path / "rllib-run"
    rllib.mkdir()
    (rllib / "config.yaml").write_text("env: invers\nenv_kwargs: {}\n")
    (rllib / "metadata.json").write_text('{"algorithm": "rllib"}')
    (rllib / "rllib_checkpoint.zip").write_bytes(b"")
    try:
        import ray  # noqa: F401, PLC0415 (Ray is optional: the test checks the refusal where it is missing)
    except ImportError:
        assert evaluate.main(["--checkpoint", str(rllib), "--games", "2"]) == 2
        assert capsys.readouterr().err == (
            f"error: agent '{rllib}': checkpoint {rllib} is an RLlib run (rllib_checkpoint.zip): "
            "playing it needs Ray RLlib, "
            'which is not installed here; install it with pip install -e ".[rllib]" (or "ray[rllib]>=2.60,<3")\n'
        )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert evaluate.main(["--env", "invers", "--checkpoint", str(empty), "--games", "2"]) == 2
    assert capsys.readouterr().err == (
        f"error: agent '{empty}': checkpoint {empty} holds no trained agent: "
        "a run folder holds model.zip (PPO, expert iteration), "
        "rllib_checkpoint.zip (RLlib), tianshou_policy.pt (Tianshou) or value.pt (turn-value TD); "
        "an interrupted run may not have saved one yet\n"
    )
    assert list(empty.iterdir()) == [] and sorted(p.name for p in rllib.iterdir()) == [
        "config.yaml",
        "metadata.json",
        "rllib_checkpoint.zip",
    ]


def test_a_tianshou_run_without_tianshou_is_refused_in_one_line_naming_what_to_install(tmp_path, capsys, monkeypatch):
    run = tmp_path / "tianshou-run"
    run.mkdir()
    (run / "config.yaml").write_text("env: invers\nenv_kwargs: {}\n")
    (run / "metadata.json").write_text('{"algorithm": "tianshou_ppo"}')
    (run / "tianshou_policy.pt").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "agents.tianshou_policy", None)  # its import fails as without Tianshou
    assert evaluate.main(["--checkpoint", str(run), "--games", "2"]) == 2
    assert capsys.readouterr().err == (
        f"error: agent '{run}': checkpoint {run} is a Tianshou run (tianshou_policy.pt): playing it needs "
        'Tianshou, which is not installed here; install it with pip install -e ".[tianshou]" (or "tianshou==2.0.1")\n'
    )
