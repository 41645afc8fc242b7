"""The benchmarks' command lines: bad input is one line on stderr and exit code 2, before anything is measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command, message",
    [
        (["benchmarks/train_speed.py", "--env", "yahtzee"], "error: unknown env 'yahtzee'; known envs: "),
        (["benchmarks/train_speed.py", "--config", "no/such.yaml"], "error: config file no/such.yaml does not exist"),
        (["benchmarks/search_speed.py", "--network", "no/such/run"], "error: checkpoint no/such/run does not exist"),
        (["benchmarks/env_speed.py", "--env", "yahtzee"], "error: unknown env 'yahtzee'; known envs: "),
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
