"""The ``tabletop`` command: one entry point for every command of the project.

    tabletop train --env inverted_dice                 # = python training/train.py --env inverted_dice
    tabletop evaluate --env invers --agents ppo random
    tabletop <command> --help                          # that command's own options

Each command is the ``main(argv, prog)`` of one module, called with the rest of the command
line, so ``tabletop train ...`` and ``python training/train.py ...`` are the same program.
The table of commands is :data:`training.framework.console.COMMANDS`. What every
command shares (bad input as one line and exit code 2, Ctrl-C as 130, how a command
names itself in its hints) is :mod:`training.framework.console`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from training.framework.console import COMMANDS, PROG, arguments


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [
        f"usage: {PROG} <command> [options ...]",
        "",
        "Tabletop dice RL: train, evaluate and play the games' agents.",
        f"`{PROG} <command> --help` lists a command's options.",
        "",
        "commands:",
        *(f"  {name:<{width}}  {description}" for name, (_, description) in COMMANDS.items()),
    ]
    return "\n".join(lines)


def command_function(name: str) -> Callable[..., int | None]:
    """The ``main`` function behind command ``name`` (imported only when that command runs)."""
    module, _, function = COMMANDS[name][0].partition(":")
    return getattr(importlib.import_module(module), function)


def main(argv: list[str] | None = None) -> int:
    """The ``tabletop`` entry point: run the command named first with the rest of the line."""
    args = arguments() if argv is None else list(argv)
    if not args:
        print(usage(), file=sys.stderr)
        return 2
    name, rest = args[0], args[1:]
    if name in ("-h", "--help", "help"):
        print(usage())
        return 0
    if name not in COMMANDS:
        print(
            f"{PROG}: error: unknown command {name!r} (choose from {', '.join(COMMANDS)}; see {PROG} --help)",
            file=sys.stderr,
        )
        return 2
    code = command_function(name)(rest, prog=f"{PROG} {name}")
    return 0 if code is None else code


if __name__ == "__main__":
    sys.exit(main())
