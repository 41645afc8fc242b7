"""The ``tabletop`` command: its table, its help, its errors, and one command run through it."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from training import console

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_installs_the_command():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tabletop"] == "training.console:main"


def test_every_command_names_a_function():
    assert set(console.COMMANDS) == {
        "train",
        "train-td",
        "expert-iteration",
        "train-rllib",
        "tune",
        "evaluate",
        "ladder",
        "benchmark",
        "play",
        "record",
        "serve",
        "solve",
    }
    for name in console.COMMANDS:
        assert callable(console.command_function(name)), name


def test_help_lists_every_command_on_one_line(capsys):
    assert console.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tabletop <command>")
    lines = out.splitlines()
    for name, (_, description) in console.COMMANDS.items():
        assert [line for line in lines if line.split()[:1] == [name] and line.endswith(description)], name


def test_an_unknown_command_is_one_error_line_and_exit_2(capsys):
    assert console.main(["trian", "--env", "invers"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "tabletop: error: unknown command 'trian' (choose from train, train-td, expert-iteration, train-rllib, tune, evaluate, ladder, benchmark, play, record, serve, solve; see tabletop --help)"
    ]


def test_no_command_shows_the_usage_and_exits_2(capsys):
    assert console.main([]) == 2
    assert "commands:" in capsys.readouterr().err


def test_a_commands_help_is_its_own_under_the_tabletop_name(capsys):
    argv = sys.argv[:]
    with pytest.raises(SystemExit) as exit_info:
        console.main(["evaluate", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tabletop evaluate") and "--checkpoint" in out and "--agents" in out
    assert sys.argv == argv


@pytest.mark.parametrize("name", sorted(console.COMMANDS))
def test_every_commands_usage_line_names_it_as_the_user_typed_it(name, capsys):
    """``tabletop train --help`` says ``usage: tabletop train``, not ``training/train.py`` (which an installed package lacks)."""
    with pytest.raises(SystemExit) as exit_info:
        console.main([name, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: tabletop {name} ")


def test_the_commands_a_training_run_tells_of_are_the_ones_the_user_runs(monkeypatch):
    """After Ctrl-C or a failed closing evaluation a run prints how to resume or evaluate it:
    ``tabletop train --resume ...`` when it was started as ``tabletop train``, the script otherwise."""
    from training.framework.cli import invocation

    monkeypatch.setattr(sys, "argv", ["tabletop train", "--env", "invers"])  # as console.main sets it
    assert invocation("training/train.py") == "tabletop train"
    assert invocation("training/evaluate.py") == "tabletop evaluate"
    assert invocation("training/train_td.py") == "tabletop train-td"
    monkeypatch.setattr(sys, "argv", ["training/train.py", "--env", "invers"])
    assert invocation("training/train.py") == "python training/train.py"
    assert invocation("training/evaluate.py") == "python training/evaluate.py"


def test_a_command_runs_with_the_rest_of_the_line(tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        console.main(["evaluate", "--env", "inverted_dice", "--agents", "random", "--games", "2", "--out", str(out)])
        == 0
    )
    assert (out / "report.md").is_file()
    assert "random" in capsys.readouterr().out
    assert console.main(["evaluate", "--env", "no_such_game", "--agents", "random"]) == 2
