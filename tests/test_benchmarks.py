"""The benchmarks' command lines: bad input is one line on stderr and exit code 2, before anything is measured."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from agents.six_hundred.estimate import category_tables
from envs.games.roll_five import RollFive
from envs.games.six_hundred import GAME_BONUS, SEXTET, SixHundred

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command, message",
    [
        (["benchmarks/train_speed.py", "--env", "yahtzee"], "error: unknown env 'yahtzee'; known envs: "),
        (["benchmarks/train_speed.py", "--config", "no/such.yaml"], "error: config file no/such.yaml does not exist"),
        (["benchmarks/search_speed.py", "--network", "no/such/run"], "error: checkpoint no/such/run does not exist"),
        (["benchmarks/env_speed.py", "--env", "yahtzee"], "error: unknown env 'yahtzee'; known envs: "),
        (
            ["benchmarks/six_hundred_speed.py", "--before", "/tmp"],
            "error: --before /tmp: not a checkout of this project",
        ),
        (["benchmarks/six_hundred_speed.py", "--repeats", "0"], "error: --repeats must be 1 or more, got 0"),
        (["benchmarks/rollout_strength.py", "--env", "yahtzee"], "error: unknown env 'yahtzee'; known envs: "),
        (["benchmarks/rollout_strength.py", "--games", "0"], "error: --games must be positive, got 0"),
        (
            ["benchmarks/rollout_strength.py", "--n", "0"],
            "error: rollout: n must be a positive integer (continuations per legal move), got 0",
        ),
        (["benchmarks/env_speed.py", "--page", "no/such/page.md"], "error: --page no/such/page.md: no folder no/such"),
        (
            ["benchmarks/train_speed.py", "--page", "no/such/page.md"],
            "error: --page no/such/page.md: no folder no/such",
        ),
        (
            ["benchmarks/bot_speed.py", "--positions", "0"],
            "error: --positions, --batch, --num-envs, --games and --eval-batch must be positive",
        ),
        (
            ["benchmarks/eval_speed.py", "--games", "0"],
            "error: --games, --batch-games, --batch and --workers must be positive",
        ),
        (["benchmarks/eval_speed.py", "--page", "no/such/page.md"], "error: --page no/such/page.md: no folder no/such"),
        (["benchmarks/eval_speed.py", "--tasks", "yahtzee"], "error: unknown task 'yahtzee'; the suite's tasks: "),
        (["benchmarks/default_runs.py", "--runs", "yahtzee"], "error: unknown run 'yahtzee'; the default runs: "),
        (["benchmarks/ceilings.py", "--only", "yahtzee"], "error: unknown game 'yahtzee'; the ceilings' games: "),
        (["benchmarks/ceilings.py", "--games-scale", "0"], "error: --games-scale must be positive, got 0.0"),
        (["benchmarks/ceilings.py", "--workers", "0"], "error: --workers must be positive, got 0"),
        (
            ["benchmarks/expert_iteration_scaling.py", "--generations", "2"],
            "error: --generations must be above 2 (the first 2 are not counted)",
        ),
        (
            ["benchmarks/expert_iteration_scaling.py", "--config", "no/such.yaml"],
            "error: config file no/such.yaml does not exist",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(command, message):
    result = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stdout == ""


def test_the_evaluation_speed_page_counts_the_games_that_differ_in_batch(tmp_path):
    """A few games of two tasks both ways: the page's table, and no game that differs."""
    page = tmp_path / "eval_speed.md"
    command = ["benchmarks/eval_speed.py", "--tasks", "roll_five", "lost_dice_3p", "--games", "6", "--batch-games", "9"]
    result = subprocess.run(
        [sys.executable, *command, "--batch", "4", "--page", str(page)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    rows = [
        line.split("|")[1:-1]
        for line in page.read_text().splitlines()
        if line.startswith("| roll_five") or line.startswith("| lost_dice_3p")
    ]
    assert len(rows) == 2
    for row in rows:
        assert row[-2].strip() == "6" and row[-1].strip() == "0", row  # 6 games compared, none differs


def test_a_default_run_is_timed_judged_against_its_bot_and_reported(tmp_path, monkeypatch):
    """A tiny run through the default-runs script: its record, its verdict read off the closing
    evaluation, the copied evaluation report and the table; a run that fails stops the script."""
    default_runs = load_script("default_runs", monkeypatch)
    monkeypatch.chdir(ROOT)
    config = yaml.safe_load(open("configs/lost_dice.yaml"))
    config.update({"n_envs": 2, "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1}})
    config.update({"warm_start": {"enabled": False}, "learning_curve": {"every": 0}})
    config["self_play"].update({"snapshot_every": 128})
    config["evaluation"].update({"games": 6, "opponents": ["heuristic", "random"]})
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(config))
    tiny = default_runs.DefaultRun(
        "lost_dice",
        ("training/train.py", "--config", str(tmp_path / "tiny.yaml"), "--timesteps", "256"),
        "heuristic",
        "shipped: another recipe",
    )
    out = tmp_path / "out"
    record = default_runs.measure(tiny, tmp_path / "runs", out)
    assert record["budget"].endswith("timesteps") and record["wall_s"] >= record["training_wall_s"]
    assert record["result"]["games"] == 6 and record["result"]["passed"] == (record["result"]["low"] > 0.5)
    assert (out / "lost_dice.json").is_file() and (out / "lost_dice" / "report.md").is_file()
    table = default_runs.report(out)
    row = next(line for line in table.splitlines() if line.startswith("| `python training/train.py --config"))
    assert record["machine"] in row and f"load {record['load_start']} /" in row
    assert not any(process in row for process in record["other_processes"])  # those go under the table
    assert "Other processes seen using a core during each run" in table
    assert default_runs.RUNS_BY_NAME["lost_dice"].shipped in table  # what is shipped now, not the record's line
    solitaire = default_runs.judged(default_runs.RUNS_BY_NAME["inverted_dice"], ROOT / "results" / "inverted_dice")
    assert solitaire["measure"] == "mean score − heuristic's, paired" and solitaire["low"] < solitaire["value"]
    assert solitaire["passed"] == (solitaire["low"] > 0) and solitaire["games"] == 1000
    broken = default_runs.DefaultRun("lost_dice", ("training/train.py", "--env", "yahtzee"), "heuristic", "")
    with pytest.raises(SystemExit, match="lost_dice: the run failed with exit code 2"):
        default_runs.measure(broken, tmp_path / "runs", out)


def test_a_turn_value_run_s_budget_counts_its_warm_start(monkeypatch):
    """Six Hundred's default is a warm start alone: its budget says so, never "0 games"."""
    default_runs = load_script("default_runs", monkeypatch)

    def metadata(warm: int | None, games: int) -> dict:
        config = {"warm_start": {"teacher": "heuristic", "games": warm}} if warm is not None else {}
        return {"games": games, "sessions": [{"config": config}]}

    assert default_runs.budget(metadata(32768, 0)) == "32,768 warm-start games, no self-play"
    assert default_runs.budget(metadata(2000, 30000)) == "2,000 warm-start + 30,000 self-play games"
    assert default_runs.budget(metadata(None, 500)) == "500 games"
    assert default_runs.budget({"timesteps": 3000320, "sessions": []}) == "3,000,320 timesteps"


def load_script(name: str, monkeypatch):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_ratio_interval_is_the_delta_methods_and_covers_a_known_ratio(monkeypatch):
    ceilings = load_script("ceilings", monkeypatch)
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):  # paired scores whose true ratio of means is 0.98
        b = rng.normal(200.0, 30.0, size=400)
        a = 0.98 * b + rng.normal(0.0, 10.0, size=400)
        ratio, low, high = ceilings.ratio_interval(a, b)
        assert low < ratio < high and ratio == pytest.approx(a.mean() / b.mean())
        covered += low <= 0.98 <= high
    assert 180 <= covered <= 199  # about 95% of the intervals hold the true ratio


def test_a_level_bar_is_met_by_an_interval_within_it_and_an_above_bar_by_one_above_it(monkeypatch):
    ceilings = load_script("ceilings", monkeypatch)

    def row(low, high, within):
        return ceilings.Ceiling("roll_five", 4, "ppo", "search", "score − paired", 0.0, 0.0, low, high, 100, within)

    assert row(-0.009, 0.01, 0.01).met and not row(-0.011, 0.0, 0.01).met and not row(0.002, 0.012, 0.01).met
    assert row(0.002, 0.012, None).met and not row(-0.009, 0.01, None).met
    assert ceilings.fmt(row(-0.009, 0.01, 0.01))[1] == "level: within ±0.01"
    assert ceilings.fmt(row(-0.009, 0.01, None))[1] == "above 0"


def test_the_ceilings_report_measures_each_bar_and_says_whether_it_is_met(tmp_path, monkeypatch):
    ceilings = load_script("ceilings", monkeypatch)
    out = tmp_path / "ceilings"
    assert ceilings.main(["--only", "roll_five", "--games-scale", "0.002", "--out", str(out)]) == 0
    report = (out / "report.md").read_text()
    rows = [line for line in report.splitlines() if line.startswith("| roll_five")]
    assert len(rows) == 2 and all(row.endswith("| 40 |") for row in rows)
    assert "| level: within [0.49, 0.51] |" in rows[0] and "| level: within ±0.01 |" in rows[1]
    assert "Games scaled by 0.002" in report
    records = json.loads((out / "ceilings.json").read_text())["rows"]
    for record in records:
        assert record["low"] <= record["value"] <= record["high"]
        band = (record["bar"] - record["within"], record["bar"] + record["within"])  # Roll Five's bars are level
        assert record["met"] == (band[0] <= record["low"] and record["high"] <= band[1])
    assert (out / "timing.md").is_file()
    (out / "report.md").unlink()
    assert ceilings.main(["--report-only", "--out", str(out)]) == 0
    assert (out / "report.md").read_text() == report
    assert ceilings.main(["--report-only", "--out", str(tmp_path / "none")]) == 2
    # --only measures its game again and keeps the other games' rows, in the games' order
    record = json.loads((out / "ceilings.json").read_text())
    saved = record["rows"][0] | {"game": "six_hundred", "agent": "td"}
    record["rows"].append({key: value for key, value in saved.items() if key != "within"})  # a record from before
    (out / "ceilings.json").write_text(json.dumps(record))
    assert ceilings.main(["--only", "roll_five", "--games-scale", "0.002", "--out", str(out)]) == 0
    games = [row["game"] for row in json.loads((out / "ceilings.json").read_text())["rows"]]
    assert games == ["six_hundred", "roll_five", "roll_five"]
    assert ceilings.main(["--only", "roll_five", "--games-scale", "0.004", "--out", str(out)]) == 0
    assert [row["game"] for row in json.loads((out / "ceilings.json").read_text())["rows"]] == ["roll_five"] * 2


def test_the_ceilings_measured_in_two_processes_are_the_same_report(tmp_path):
    reports = []
    for workers in ("1", "2"):
        out = tmp_path / f"workers-{workers}"
        command = ["benchmarks/ceilings.py", "--only", "roll_five", "invers", "--games-scale", "0.01"]
        result = subprocess.run(
            [sys.executable, *command, "--workers", workers, "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr
        reports.append((out / "report.md").read_text())
        assert set(json.loads((out / "ceilings.json").read_text())["seconds"]) == {
            *(f"invers/{k}" for k in range(4)),
            "roll_five/0",
            "roll_five/1",
        }
    assert reports[0] == reports[1] and reports[0].count("| invers |") == 4


def test_the_roll_five_headroom_study_measures_variants_of_search_on_the_same_games(tmp_path, monkeypatch):
    headroom = load_script("roll_five_headroom", monkeypatch)
    out = tmp_path / "headroom"
    arguments = ["--players", "2", "--games", "30", "--model-games", "40", "--min-samples", "1000", "--out", str(out)]
    assert headroom.main(arguments) == 0
    table = json.loads((out / "headroom.json").read_text())[0]
    rows = {row["variant"]: row for row in table["rows"]}
    assert list(rows) == ["search", "self-play model", "given the opponent's dice", "given its own cards", "oracle"]
    # no key has 1000 results among 40 games: every conditioned model falls back to the self-play one
    for variant in ("given the opponent's dice", "given its own cards"):
        assert rows[variant]["score"] == rows["self-play model"]["score"]
    assert rows["search"]["difference"] == 0 and "--min-samples 1000" in (out / "report.md").read_text()


def test_the_headroom_oracle_scores_a_finish_as_the_game_does(monkeypatch):
    headroom = load_script("roll_five_headroom", monkeypatch)
    known = headroom.KnownResults(RollFive(num_players=2, mode="tournament"), np.array([[3, 5]]))
    assert known.utility[4, 30] == 1 and known.utility[3, 4] == 1  # more pairs; as many, closer
    assert known.utility[3, 5] == 0 and known.utility[3, 6] == -1 and known.utility[2, 0] == -1
    table = headroom.KnownResults(RollFive(num_players=4, mode="tournament"), np.array([[3, 5], [3, 5], [2, 0]]))
    assert table.utility[3, 5] == 1  # a win shared with two of the three still counts whole
    all_tied = headroom.KnownResults(RollFive(num_players=3, mode="tournament"), np.array([[3, 5], [3, 5]]))
    assert all_tied.utility[3, 5] == 0  # everyone shares the win: a draw


def test_the_six_hundred_headroom_optimum_is_exact_where_it_is_known(monkeypatch):
    headroom = load_script("six_hundred_headroom", monkeypatch)
    par, hit = category_tables()
    sextet = headroom.optimum_values((SEXTET,))
    assert sextet[1][0, 0] == pytest.approx(par[SEXTET] + GAME_BONUS)  # a 0 there costs no game bonus
    ones = headroom.optimum_values((0,))[1]
    assert max(par[0], GAME_BONUS * hit[0]) <= ones[0, 0] <= par[0] + GAME_BONUS * hit[0] + 1e-9
    assert ones[0, 1] == pytest.approx(par[0])  # a zero already written: no bonus left to chase


def test_the_six_hundred_headroom_script_compares_on_the_same_games(tmp_path, monkeypatch, capsys):
    headroom = load_script("six_hundred_headroom", monkeypatch)
    out = tmp_path / "headroom"
    arguments = ["--games", "2", "--block", "1", "--agents", "heuristic", "td", "--reduced", "--out", str(out)]
    assert headroom.main(arguments) == 0
    scores = json.loads((out / "scores.json").read_text())
    assert [len(scores[spec]["scores"]) for spec in ("heuristic", "td")] == [2, 2]
    assert "| `td` |" in (out / "report.md").read_text()
    assert headroom.main([*arguments[:-2], "--reduced", "yahtzee"]) == 2
    assert "unknown reduced game 'yahtzee'" in capsys.readouterr().err


def test_the_reduced_games_optimal_agent_scores_what_its_values_expect(monkeypatch):
    """Ones to Fives written too (a Numbers total of 45): Sixes and the Sextet to play, solved and played."""
    headroom = load_script("six_hundred_headroom", monkeypatch)
    monkeypatch.setattr(headroom, "PREFILLED", {**headroom.PREFILLED, **dict(zip(range(5), (3, 6, 9, 12, 15)))})
    categories = (5, SEXTET)
    values = headroom.optimum_values(categories)
    game = SixHundred()
    points = headroom.play_reduced(headroom.ReducedOptimum(game, categories, values), game, categories, range(400))
    expected = values[3][45, 0]  # from a Numbers total of 45, no zero written
    assert abs(points.mean() - expected) < 4 * points.std() / np.sqrt(len(points))


def test_the_scaling_projection_is_amdahls_bound_from_the_one_worker_driver_s_share():
    from benchmarks.expert_iteration_scaling import figures, projection, table  # noqa: PLC0415 (beside its use)

    def log(play: float, learn: float, unit_wall: float) -> list[dict]:
        entry = {"positions": 100, "play_s": play, "learn_s": learn, "unit_cpu_s": unit_wall, "unit_wall_s": unit_wall}
        return [dict(entry, play_s=99.0)] * 2 + [entry] * 4  # the warm-up's generations are left out

    one, two = figures(log(9.0, 1.0, 8.0)), figures(log(4.5, 1.0, 8.0))
    assert one["generations"] == 4 and one["play_s"] == 36.0
    share, lines = projection(one)
    assert share == pytest.approx(0.2)  # learning 1 s and planning 1 s of a 10-second generation
    assert "| 8 | 3.3x | 33 |" in lines  # 1 / (0.2 + 0.8 / 8) = 3.33; 10 positions a second at one worker
    _, rows = table({"1 local worker": one, "2 local workers": two})
    assert rows[1][3:] == ["22", "18", "12", "1.00", "1.82x"]
