"""``--above``: an evaluation's share of games scoring above given scores, with its interval."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from training import evaluate
from training.evaluation.harness import SolitaireResult, wilson_interval
from training.evaluation.report_tables import solitaire_report
from training.evaluation.request import parse_above
from training.framework.schema import ConfigError


def test_the_report_gives_each_agents_share_of_games_above_each_score():
    results = [
        SolitaireResult("a", np.array([10.0, 58.0, 59.0, 120.0])),
        SolitaireResult("b", np.array([0.0, 0.0, 101.0, 58.5])),
    ]
    table, rows = solitaire_report(results, (58.0, 100.0))
    header = table.splitlines()[0]
    assert header.endswith("| P(> 58), 95% CI | P(> 100), 95% CI |")
    # strictly above: a game of exactly 58 does not pass 58
    assert [r["above_58"] for r in rows] == [0.5, 0.5] and [r["above_100"] for r in rows] == [0.25, 0.25]
    low, high = wilson_interval(2, 4)
    assert rows[0]["above_58_ci95_low"] == round(low, 4) and rows[0]["above_58_ci95_high"] == round(high, 4)
    one_low, one_high = wilson_interval(1, 4)
    assert table.splitlines()[2].endswith(f"| 0.500 [{low:.3f}, {high:.3f}] | 0.250 [{one_low:.3f}, {one_high:.3f}] |")
    plain, plain_rows = solitaire_report(results)
    assert "P(>" not in plain and "above_58" not in plain_rows[0]


@pytest.mark.parametrize("text", ["58,x", "100,58", "58,58", "nan"])
def test_bad_above_scores_are_refused(text):
    with pytest.raises(ConfigError, match="--above"):
        parse_above(text)


def test_evaluate_writes_the_above_columns(tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["--env", "inverted_dice", "--agents", "heuristic", "--games", "20", "--above", "50,200", "--out", str(out)]
    assert evaluate.main(argv) == 0
    rows = list(csv.DictReader(open(out / "summary.csv")))
    scores = np.array([float(r["heuristic"]) for r in csv.DictReader(open(out / "games.csv"))])
    assert float(rows[0]["above_50"]) == pytest.approx((scores > 50).mean(), abs=1e-4)
    assert "| P(> 50), 95% CI | P(> 200), 95% CI |" in (out / "report.md").read_text()
    argv = [
        "--env",
        "roll_five",
        "--agents",
        "random",
        "random",
        "--games",
        "2",
        "--above",
        "5",
        "--out",
        str(tmp_path / "x"),
    ]
    assert evaluate.main(argv) == 2
    assert "--above gives each agent's share" in capsys.readouterr().err
