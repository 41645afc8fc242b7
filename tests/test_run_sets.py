"""Run sets (issue 57): several seeds of one recipe in one command, and an aggregate over the
runs whose interval holds both the spread between seeds and each run's game noise."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import yaml

from tests.test_turn_value import tiny_config
from training import benchmark, evaluate, ladder, train
from training.evaluation.run_aggregate import aggregate, probability_of_improvement
from training.evaluation.run_scores import RunScores
from training.evaluation.run_set_report import run_set_report
from training.framework.run_set import run_command


def test_the_aggregate_keeps_the_game_noise_a_bootstrap_over_run_means_drops():
    """Two runs of equal means but noisy games: a bootstrap over the two runs' means alone (the
    hand-written rliable call of the issue) gives an interval of zero width; the two-level
    bootstrap gives about one run's game noise divided by the square root of the runs."""
    rng = np.random.default_rng(0)
    games = [rng.permutation(np.repeat([0.0, 1.0], 100)) for _ in range(2)]
    runs = [RunScores(f"seed {k}", {"vs bot": values}) for k, values in enumerate(games)]
    result = aggregate(runs, reps=1000)
    assert result.mean[0] == 0.5 and result.iqm[0] == 0.5
    half = (result.mean[2] - result.mean[1]) / 2
    noise = result.game_noise / np.sqrt(2)  # one run's half-width 0.069, the mean of two 0.049
    assert 0.85 * noise < half < 1.25 * noise, (half, noise)
    means = np.array([[v.mean()] for v in games])
    assert means.max() - means.min() == 0  # what a runs-only bootstrap would resample: nothing


def test_probability_of_improvement_with_its_interval():
    rng = np.random.default_rng(1)
    better = [RunScores(str(k), {"vs bot": (rng.random(200) < 0.7).astype(float)}) for k in range(3)]
    worse = [RunScores(str(k), {"vs bot": (rng.random(200) < 0.4).astype(float)}) for k in range(3)]
    point, low, high = probability_of_improvement(better, worse, reps=300)
    assert point == 1.0 and 0.5 < low <= high <= 1.0
    point, low, high = probability_of_improvement(better, better, reps=300)
    assert point == 0.5 and low < 0.5 < high


def test_a_run_sets_command_of_each_run_drops_what_the_set_decides():
    argv = ["--env", "lost_dice", "--seeds", "1", "2", "3", "--timesteps", "100", "--run-dir=x", "--parallel", "2"]
    assert run_command(argv) == ["--env", "lost_dice", "--timesteps", "100"]
    assert run_command(["--seeds", "4", "--address", "h:1", "--no-eval"]) == ["--no-eval"]


def test_train_py_seeds_trains_a_run_per_seed_and_reports_over_them(tmp_path, capsys):
    config = tiny_config(tmp_path, "six_hundred")
    run_set = tmp_path / "set"
    assert train.main(["--config", str(config), "--seeds", "3", "4", "--run-dir", str(run_set), "--parallel", "1"]) == 0
    out = capsys.readouterr().out
    info = json.loads((run_set / "run_set.json").read_text())
    assert info["seeds"] == [3, 4] and info["pipeline"] == "td" and info["env"] == "six_hundred"
    for seed in (3, 4):
        assert yaml.safe_load((run_set / f"seed{seed}" / "config.yaml").read_text())["seed"] == seed
        assert (run_set / f"seed{seed}" / "evaluation" / "games.csv").is_file()
    report = (run_set / "report.md").read_text()
    assert "| seed 3 |" in report and "| seed 4 |" in report and "| IQM |" in report and report in out
    assert (run_set / "curves.png").stat().st_size > 10_000 and (run_set / "summary.csv").is_file()
    # a run lost half-way is trained again by a resume of the set, the other kept as it was
    kept = (run_set / "seed3" / "model.zip").read_bytes() if (run_set / "seed3" / "model.zip").exists() else None
    for path in sorted((run_set / "seed4").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    assert train.main(["--resume", str(run_set)]) == 0
    assert (run_set / "seed4" / "evaluation" / "games.csv").is_file()
    assert kept is None or (run_set / "seed3" / "model.zip").read_bytes() == kept
    assert run_set_report(run_set) == report  # the same games, the same report
    # a run trained but stopped in its closing evaluation gets the evaluation alone
    shutil.rmtree(run_set / "seed3" / "evaluation")
    assert train.main(["--resume", str(run_set)]) == 0
    assert run_set_report(run_set) == report
    # evaluate.py and benchmark.py take the set: every run plays, the aggregate is over them
    capsys.readouterr()
    out = tmp_path / "evaluated"
    assert evaluate.main(["--checkpoint", str(run_set), "--games", "6", "--out", str(out)]) == 0
    evaluated = (out / "report.md").read_text()
    assert "| seed 3 |" in evaluated and "| seed 4 |" in evaluated and (out / "seed4" / "games.csv").is_file()
    runs = [str(run_set / "seed3"), str(run_set / "seed4")]
    assert (
        evaluate.main(["--env", "six_hundred", "--agents", *runs, "--games", "2", "--out", str(tmp_path / "two")]) == 0
    )
    assert "| trained seed 3 |" in (tmp_path / "two" / "report.md").read_text()  # runs named by their seeds
    out = tmp_path / "benchmarked"
    argv = ["--agent", str(run_set), "--compare", "random", "--quick", "--tasks", "six_hundred", "--out", str(out)]
    assert benchmark.main([*argv, "--no-progress"]) == 0
    compared = (out / "report.md").read_text()
    assert "| seed 3 |" in compared and "Probability of improvement** over `random` (1 run(s)" in compared
    assert "P(X > Y) = **1.000**" in compared  # a trained turn-value agent above random on every draw


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env", "six_hundred", "--seeds", "1", "1"], "--seeds names a seed twice: 1 1"),
        (["--env", "six_hundred", "--seeds", "1", "--seed", "2"], "--seed cannot be combined with it"),
        (["--env", "six_hundred", "--parallel", "2"], "give --seeds"),
        (["--env", "six_hundred", "--seeds", "1", "2", "--parallel", "0"], "--parallel must be positive, got 0"),
        (["--env", "six_hundred", "--seeds", "1", "2", "--parallel", "64"], "the run reserves 64 CPUs"),
    ],
)
def test_a_bad_run_set_is_one_line_and_exit_2(argv, message, tmp_path, capsys):
    assert train.main([*argv, "--run-dir", str(tmp_path / "set")]) == 2
    assert message in capsys.readouterr().err


def test_the_ladder_rates_a_run_sets_runs_and_the_set(tmp_path):
    """A run set among the ladder's agents plays as its runs, and the report rates the set: the
    mean of its runs with a two-level interval."""
    run_set = tmp_path / "set"
    for seed in (1, 2):
        shutil.copytree("checkpoints/roll_five/shipped", run_set / f"seed{seed}")
    (run_set / "run_set.json").write_text(json.dumps({"env": "roll_five", "seeds": [1, 2]}))
    out = tmp_path / "ladder"
    argv = ["--env", "roll_five", "--agents", "heuristic", str(run_set), "--games", "40", "--out", str(out)]
    assert ladder.main(argv) == 0
    report = (out / "ladder.md").read_text()
    assert f"| `{run_set / 'seed1'}` |" in report and f"| `{run_set / 'seed2'}` |" in report
    [row] = [line for line in report.splitlines() if line.startswith(f"| `{run_set}` | 2 |")]
    low, high = (float(x) for x in row.split("[")[1].rstrip(" |]").split(","))
    assert low < float(row.split("|")[3]) < high
