"""The rating ladder: Bradley–Terry fits and a small round-robin end to end."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agents.registry import make_agent
from envs.registry import make_game
from training import ladder
from training.evaluation import ladder as tournament
from training.evaluation.ratings import fit_bradley_terry, rate
from training.evaluation.timed import TimedAgent


def test_bradley_terry_recovers_a_known_rating_gap():
    games = np.array([[0, 1000], [1000, 0]], float)
    scores = np.array([[0, 750], [250, 0]], float)  # a scored 75% against b
    elo = fit_bradley_terry(scores, games)
    assert elo[0] == 0 and elo[1] == pytest.approx(-400 * math.log10(3), abs=2)  # 75% is 191 Elo


def test_a_clean_sweep_stays_finite_and_intervals_bracket_the_fit():
    outcomes = {(0, 1): np.ones(20), (1, 2): np.ones(20), (0, 2): np.r_[np.ones(15), -np.ones(5)]}
    ratings = rate(["a", "b", "c"], outcomes, bootstrap=200)
    assert np.all(np.isfinite(ratings.elo)) and ratings.elo[0] == 0 > ratings.elo[1] > ratings.elo[2]
    assert np.all(ratings.low <= ratings.elo + 1e-9) and np.all(ratings.elo <= ratings.high + 1e-9)


def test_ladder_writes_table_heatmap_and_chart(tmp_path):
    report = tournament.run_ladder(
        "invers", ["random", "greedy", "search:depth=1"], games=4, seed=0, out=tmp_path, random_opening_plies=2
    )
    assert report.count("| `") >= 3 + 3  # three ratings and three pairings
    for name in ("ladder.md", "pairings.csv", "heatmap.png", "ratings.png", "timing.md"):
        assert (tmp_path / name).stat().st_size > 0
    assert (
        "ms / move" in (tmp_path / "timing.md").read_text() and "ms / move" not in report
    )  # the machine's figures stand apart
    with pytest.raises(ValueError, match="distinct"):
        tournament.run_ladder("invers", ["random", "random"], games=2, seed=0, out=tmp_path, random_opening_plies=0)


def test_parallel_and_batched_games_are_the_sequential_games():
    specs = ["random", "greedy", "search:depth=1"]
    game = make_game("invers", max_plies=60)
    runs = {}
    for batch in (0, 4):  # 4: chunks that do not divide the games
        agents = {spec: TimedAgent(make_agent("invers", spec, game, seed=5)) for spec in specs}
        runs[batch] = (tournament.round_robin(game, agents, 6, 5, 2, batch=batch), agents)
    parallel, timings = tournament.parallel_round_robin(
        "invers", {"max_plies": 60}, specs, 6, 5, 2, workers=2, batch=4, in_batch=frozenset(specs)
    )
    sequential, agents = runs[0]
    for other in (runs[4][0], parallel):
        for a, b in zip(sequential, other):
            assert (a.candidate, a.opponent, a.distinct_games) == (b.candidate, b.opponent, b.distinct_games)
            assert np.array_equal(a.outcomes, b.outcomes) and np.array_equal(a.seats, b.seats)
    assert all(timings[spec].moves == agents[spec].moves == runs[4][1][spec].moves > 0 for spec in specs)


# -- the command line: bad input is one line and exit 2, a bug keeps its traceback ----------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env", "yahtzee", "--agents", "random", "greedy"], "unknown env 'yahtzee'"),
        (["--env", "invers", "--agents", "random", "wizard"], "unknown agent 'wizard'"),
        (["--env", "invers", "--agents", "random", "search:width=3"], "search:width=3"),
        (["--env", "invers", "--agents", "random", "ppo+search:width=3"], "takes"),
        (["--env", "invers", "--agents", "random", "random"], "distinct"),
        (["--env", "invers", "--agents", "random"], "distinct"),
        (["--env", "invers", "--agents", "random", "greedy", "--games", "0"], "--games must be positive"),
        (["--env", "invers", "--agents", "random", "greedy", "--workers", "0"], "--workers must be positive"),
        (["--env", "invers", "--agents", "random", "greedy", "--random-opening", "-1"], "--random-opening"),
        (["--env", "invers", "--agents", "random", "/no/such/run.zip"], "unknown agent"),
    ],
)
def test_bad_command_lines_are_one_line_and_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(ladder, "run_ladder", lambda *a, **k: pytest.fail("no game may start on bad input"))
    assert ladder.main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_game_of_one_player_is_refused_before_any_game(capsys, tmp_path):
    assert (
        ladder.main(
            ["--env", "inverted_dice", "--agents", "random", "heuristic", "--games", "2", "--out", str(tmp_path)]
        )
        == 2
    )
    assert "several players" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("bug", [KeyError("a key"), TypeError("a type"), ValueError("a value")])
def test_a_bug_inside_the_ladder_keeps_its_traceback(bug, monkeypatch, tmp_path):
    def broken(*args, **kwargs):
        raise bug

    monkeypatch.setattr(ladder, "run_ladder", broken)
    with pytest.raises(type(bug)):
        ladder.main(["--env", "invers", "--agents", "random", "greedy", "--games", "2", "--out", str(tmp_path)])


def test_a_ladder_never_replaces_an_earlier_one_unless_asked(tmp_path, monkeypatch, capsys):
    (tmp_path / "ladder.md").write_text("an earlier ladder")
    monkeypatch.setattr(ladder, "run_ladder", lambda *a, **k: "report")
    argv = ["--env", "invers", "--agents", "random", "greedy", "--games", "2", "--out", str(tmp_path)]
    assert ladder.main(argv) == 2
    assert (
        "already holds files" in capsys.readouterr().err and (tmp_path / "ladder.md").read_text() == "an earlier ladder"
    )
    assert ladder.main([*argv, "--overwrite"]) == 0


def test_a_ladder_without_out_goes_to_a_new_dated_folder_beside_the_committed_one(tmp_path, monkeypatch):
    """The README's ladder command in a fresh clone, where results/invers/ladder/ is committed."""
    committed = tmp_path / "results" / "invers" / "ladder"
    committed.mkdir(parents=True)
    (committed / "ladder.md").write_text("the committed ladder")
    monkeypatch.chdir(tmp_path)
    outs = []
    monkeypatch.setattr(
        ladder, "run_ladder", lambda env, agents, games, seed, out, *a, **k: outs.append(out) or "report"
    )
    argv = ["--env", "invers", "--agents", "random", "greedy", "--games", "2"]
    assert ladder.main(argv) == 0
    (out,) = outs
    assert out.parent == Path("results/invers") and out.name.startswith("ladder-")
    assert (committed / "ladder.md").read_text() == "the committed ladder"
