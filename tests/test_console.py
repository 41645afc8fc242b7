"""The ``tabletop`` command: its table, its help, its errors, and one command run through it."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from training import tabletop, train, train_rllib, train_td
from training.framework import console

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_installs_the_command():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tabletop"] == "training.tabletop:main"


def test_every_command_names_a_function():
    assert set(tabletop.COMMANDS) == {
        "train",
        "train-td",
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
    for name in tabletop.COMMANDS:
        assert callable(tabletop.command_function(name)), name


def test_help_lists_every_command_on_one_line(capsys):
    assert tabletop.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tabletop <command>")
    lines = out.splitlines()
    for name, (_, description) in tabletop.COMMANDS.items():
        assert [line for line in lines if line.split()[:1] == [name] and line.endswith(description)], name


def test_an_unknown_command_is_one_error_line_and_exit_2(capsys):
    assert tabletop.main(["trian", "--env", "invers"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "tabletop: error: unknown command 'trian' (choose from train, train-td, train-rllib, tune, "
        "evaluate, ladder, benchmark, play, record, serve, solve; see tabletop --help)"
    ]


def test_no_command_shows_the_usage_and_exits_2(capsys):
    assert tabletop.main([]) == 2
    assert "commands:" in capsys.readouterr().err


def test_a_commands_help_is_its_own_under_the_tabletop_name(capsys):
    argv = sys.argv[:]
    with pytest.raises(SystemExit) as exit_info:
        tabletop.main(["evaluate", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tabletop evaluate") and "--checkpoint" in out and "--agents" in out
    assert sys.argv == argv


@pytest.mark.parametrize("name", sorted(tabletop.COMMANDS))
def test_every_commands_usage_line_names_it_as_the_user_typed_it(name, capsys):
    """``tabletop train --help`` says ``usage: tabletop train``, not ``training/train.py`` (which an installed
    package lacks)."""
    with pytest.raises(SystemExit) as exit_info:
        tabletop.main([name, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: tabletop {name} ")


def test_a_command_is_told_its_name_and_sys_argv_is_left_alone(monkeypatch):
    """The entry point passes ``prog`` to the command it runs: nothing rewrites ``sys.argv`` for it."""
    called = []

    def command(argv, prog):
        called.append((argv, prog))
        return 0

    monkeypatch.setattr(tabletop, "command_function", lambda name: command)
    argv = sys.argv[:]
    assert tabletop.main(["evaluate", "--games", "3"]) == 0
    assert called == [(["--games", "3"], "tabletop evaluate")]
    assert sys.argv == argv


def test_the_commands_a_training_run_tells_of_are_the_ones_the_user_runs():
    """After Ctrl-C or a failed closing evaluation a run prints how to resume or evaluate it:
    ``tabletop train --resume ...`` when it was started as ``tabletop train``, the script otherwise."""
    assert console.invocation("training/train.py", "tabletop train") == "tabletop train"
    assert console.invocation("training/evaluate.py", "tabletop train") == "tabletop evaluate"
    assert console.invocation("training/train_td.py", "tabletop train-td") == "tabletop train-td"
    assert console.invocation("training/train.py", None) == "python training/train.py"
    assert console.invocation("training/evaluate.py", None) == "python training/evaluate.py"


TRAINING_COMMANDS = {
    "train": train,
    "train-td": train_td,
    "train-rllib": train_rllib,
}


@pytest.mark.parametrize("name", sorted(TRAINING_COMMANDS))
def test_a_training_commands_help_says_what_the_closing_evaluation_costs(name, capsys):
    """A short run's closing evaluation can cost more than its training: ``--help`` says what it
    plays, how to shorten or skip it, and how to evaluate later, naming the commands as the user runs them."""
    for run, evaluate_command in (
        (lambda: tabletop.main([name, "--help"]), "tabletop evaluate"),
        (lambda: TRAINING_COMMANDS[name].main(["--help"]), "python training/evaluate.py"),
    ):
        with pytest.raises(SystemExit):
            run()
        epilog = " ".join(capsys.readouterr().out.partition("What a run costs in all")[2].split())
        assert "closing evaluation" in epilog and "games for every pairing" in epilog, name
        assert "against each of the config's evaluation.opponents" in epilog and "k opponents: k pairings" in epilog
        assert "--eval-games N plays N games per pairing instead and --no-eval skips it" in epilog
        assert epilog.endswith(f"{evaluate_command} --checkpoint RUN_DIR")


def test_no_module_but_the_console_reads_or_writes_sys_argv():
    """How a command was started is passed to it (``prog``), never read back from ``sys.argv``."""
    readers = []
    for path in sorted(p for top in ("envs", "agents", "training") for p in (ROOT / top).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            attribute = isinstance(node, ast.Attribute) and node.attr == "argv"
            attribute = attribute and isinstance(node.value, ast.Name) and node.value.id == "sys"
            imported = isinstance(node, ast.ImportFrom) and node.module == "sys"
            imported = imported and any(alias.name == "argv" for alias in node.names)
            if attribute or imported:
                readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert readers and all(reader.startswith("training/framework/console.py:") for reader in readers), readers


def test_a_command_runs_with_the_rest_of_the_line(tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        tabletop.main(["evaluate", "--env", "inverted_dice", "--agents", "random", "--games", "2", "--out", str(out)])
        == 0
    )
    assert (out / "report.md").is_file()
    assert "random" in capsys.readouterr().out
    assert tabletop.main(["evaluate", "--env", "no_such_game", "--agents", "random"]) == 2


def test_a_runs_recorded_command_reads_back_as_the_shell_read_it(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["training/evaluate.py", "--env-kwargs", "{num_players: 2}"])
    assert console.command_line() == "training/evaluate.py --env-kwargs '{num_players: 2}'"


def test_the_top_of_training_holds_only_commands():
    """Every module at the top of ``training/`` is a command a user runs (``python training/<name>.py``
    and, but for make's two, ``tabletop <name>``); what commands share or compute lives in packages."""
    listed = {target.partition(":")[0] for target, _ in tabletop.COMMANDS.values()}
    run_by_make = {"training.ship", "training.results_pages"}
    for path in sorted((ROOT / "training").glob("*.py")):
        if path.name == "__init__.py":
            continue
        module, text = f"training.{path.stem}", path.read_text()
        assert "\ndef main(" in text and '\nif __name__ == "__main__":' in text, f"{path.name} is not a command"
        assert module in listed | run_by_make | {"training.tabletop"}, f"{path.name} is no command of tabletop or make"
