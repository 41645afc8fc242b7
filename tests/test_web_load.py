"""A bounded load test of ``tabletop serve`` on loopback: 50 games played at once, 20 move
requests each (``benchmarks/web_load.py``, the server in its own process). Every request
must be answered 200; the latencies are printed (``pytest -s`` shows them), never asserted."""

from __future__ import annotations

import json
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


def test_a_short_soak_holds_the_cap_and_the_expiry_and_reports_every_figure(tmp_path):
    """``benchmarks/web_soak.py`` at a small scale: whole games by 3 clients, then the server filled
    to its cap (refused there with 503) and emptied by the time to live."""
    command = [sys.executable, "-m", "benchmarks.web_soak", "--clients", "3", "--minutes", "0.2"]
    command += ["--session-ttl", "2", "--max-sessions", "30", "--sample", "2", "--out", str(tmp_path)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    soak = json.loads((tmp_path / "soak.json").read_text())
    assert soak["errors"] == 0 and soak["games"] > 0 and soak["requests"] > soak["games"]
    assert soak["refusal"]["status"] == 503 and soak["held_at_refusal"] == 30 and soak["cap_held"]
    assert soak["held_after_ttl"] == 0 and soak["new_game_after_ttl"] == 201
    assert soak["memory_mb"]["end"] > 0 and len(soak["memory_samples"]) >= 3
    page = (tmp_path / "report.md").read_text()
    assert "| errors (any answer but 200, 201, 204) | **0** |" in page and "(held)" in page


def test_a_soak_refuses_bad_arguments_in_one_line():
    command = [sys.executable, "-m", "benchmarks.web_soak", "--clients", "0"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith("error: --clients, --minutes")
