"""A bounded load test of ``tabletop serve`` on loopback: 50 games played at once, 20 move
requests each (``benchmarks/web_load.py``, the server in its own process). Every request
must be answered 200; the latencies are printed (``pytest -s`` shows them), never asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_fifty_concurrent_games_of_twenty_moves_are_all_answered():
    result = subprocess.run(
        [sys.executable, "benchmarks/web_load.py", "--games", "50", "--moves", "20"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "move requests: 1000, errors: 0," in result.stdout
    assert re.search(r"p95 [0-9.]+ ms", result.stdout)


def test_bad_input_is_one_line_and_exit_code_2():
    result = subprocess.run(
        [sys.executable, "benchmarks/web_load.py", "--games", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stderr == "error: --games and --moves must be positive\n"
