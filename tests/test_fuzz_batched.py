"""The batched fuzzer (``tests/fuzz_batched.py``, ``make fuzz``'s million games per env): a short
run of every env passes, each of its checks reports a planted bug, and a game it names plays
again alone exactly as it was played in the batch."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs import ENVS
from tests import fuzz_batched
from tests.fuzz_batched import Cell, CellFuzzer


@pytest.mark.parametrize("env", list(ENVS))
def test_a_short_run_of_every_env_finds_nothing(env):
    """Every player count and option combination of the env, every game's end replayed by the core."""
    tally = fuzz_batched.Tally()
    for cell in fuzz_batched.cells(env, 120, seed=5, players=None, options=None):
        tally.add(CellFuzzer(cell, deep=1, replay=1).run())
    assert tally.failures == 0, tally.kept
    assert tally.games == 120 and tally.replays == 120 and tally.steps > tally.games


def histories(fuzzer: CellFuzzer) -> dict[int, tuple]:
    """Every game's actions as it ends, by its seed."""
    seen = {}
    replay = fuzzer.replay_by_the_core

    def keep(row: int) -> None:
        seen[int(fuzzer.seeds[row])] = fuzzer.twin.history(row)
        replay(row)

    fuzzer.replay_by_the_core = keep
    fuzzer.run()
    return seen


def test_a_game_plays_alone_as_it_played_in_the_batch():
    """Its actions depend on its seed and ply only, so ``--games 1 --seed S`` is the same game."""
    batch = histories(CellFuzzer(Cell("lost_dice", 3, {}, 100, 40), deep=8, replay=1))
    alone = histories(CellFuzzer(Cell("lost_dice", 3, {}, 117, 1), deep=8, replay=1))
    assert sorted(batch) == list(range(100, 140)) and list(alone) == [117]
    assert alone[117] == batch[117] and len(batch[117]) > 10


def planted(monkeypatch, method: str, spoil) -> fuzz_batched.Tally:
    """A short Roll Five run with the twin's ``method`` spoiled for one game, the one of seed 3."""
    fuzzer = CellFuzzer(Cell("roll_five", 2, {}, 0, 30), deep=1, replay=1)
    twin = fuzzer.twin
    real = getattr(twin, method)

    def spoiled(*args):
        result = real(*args)
        return spoil(fuzzer, args, result)

    monkeypatch.setattr(twin, method, spoiled)
    return fuzzer.run()


def row_of_seed(fuzzer: CellFuzzer, seed: int) -> int | None:
    rows = np.flatnonzero(fuzzer.seeds == seed)
    return int(rows[0]) if rows.size else None


def empty_mask(fuzzer, args, result):
    rows, seats, out = args
    row = row_of_seed(fuzzer, 3)
    for k in np.flatnonzero(rows == row):
        out[k] = 0
    return result


def spoiled_observation(fuzzer, args, result):
    rows, seats, out = args
    row = row_of_seed(fuzzer, 3)
    for k in np.flatnonzero(rows == row):
        out[k].flat[0] = np.nan
    return result


def score_out_of_bounds(fuzzer, args, result):
    result = result.copy()
    row = row_of_seed(fuzzer, 3)
    if row is not None:
        result[row, 0] = 10_000.0
    return result


def bad_returns(fuzzer, args, result):
    return np.full_like(result, 0.5)


@pytest.mark.parametrize(
    ("method", "spoil", "found"),
    [
        ("legal_masks", empty_mask, "an empty mask to act"),
        ("observe", spoiled_observation, "observation not finite"),
        ("scores", score_out_of_bounds, "a score outside score_bounds()"),
        ("returns", bad_returns, "returns other than +1, 0, -1"),
    ],
)
def test_every_check_reports_a_planted_bug_with_the_game_that_shows_it(monkeypatch, method, spoil, found):
    tally = planted(monkeypatch, method, spoil)
    assert tally.failures > 0 and any(found in line for line in tally.kept), tally.kept
    line = next(line for line in tally.kept if found in line)
    assert "python -m tests.fuzz_batched --env roll_five --players 2 --games 1 --seed" in line


def test_the_core_replay_reports_a_twin_that_ends_otherwise(monkeypatch):
    """A twin whose final scores differ from the core's is caught by the replay (and only by it)."""

    def shifted(fuzzer, args, result):
        result = result.copy()
        result[fuzzer.twin.terminal()] += 1.0 if fuzzer.twin.terminal().any() else 0.0
        return np.clip(result, *fuzzer.game.score_bounds())

    tally = planted(monkeypatch, "scores", shifted)
    assert any("the rules core's replay differs at the end: scores" in line for line in tally.kept), tally.kept


def test_the_command_writes_its_report_and_fails_on_a_failure(tmp_path, monkeypatch, capsys):
    assert fuzz_batched.main(["--env", "invers", "--games", "20", "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "fuzz.json").read_text())
    assert summary["envs"]["invers"]["games"] == 20 and summary["envs"]["invers"]["failures"] == 0
    page = (tmp_path / "report.md").read_text()
    assert "| invers | 2 | 1 | 20 |" in page and "No failure." in page

    monkeypatch.setattr(CellFuzzer, "check_ended", lambda self, rows: self.fail(int(rows[0]), "planted"))
    assert fuzz_batched.main(["--env", "invers", "--games", "5"]) == 1
    assert "FAILED invers 2p, seed" in capsys.readouterr().out


def test_bad_arguments_are_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        fuzz_batched.main(["--env", "chess"])
    assert stop.value.code == 2 and "unknown env 'chess'" in capsys.readouterr().err
