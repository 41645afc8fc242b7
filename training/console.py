"""``tabletop``: the project's command-line tools under one command, installed with the package.

    tabletop train --env inverted_dice                 # = python training/train.py --env inverted_dice
    tabletop evaluate --env invers --agents ppo random
    tabletop <command> --help                          # that command's own options

Each command is the ``main(argv)`` of one module, called with the rest of the command
line, so ``tabletop train ...`` and ``python training/train.py ...`` are the same program.
:data:`COMMANDS` is the table: a command whose module moves is one line to change.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

#: command -> ("module:function", one line of help). The function takes ``argv`` and returns the exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "train": (
        "training.train:main",
        "train MaskablePPO on an env (default config configs/<env>.yaml; the run goes to ./checkpoints/<env>/)",
    ),
    "train-td": (
        "training.train_td:main",
        "train a turn-value agent by TD (solitaire dice games; configs/<env>_td.yaml)",
    ),
    "expert-iteration": (
        "training.expert_iteration:main",
        "expert iteration: a network improved by the search it guides (two-player games)",
    ),
    "train-rllib": (
        "training.train_rllib:main",
        "train with Ray RLlib's PPO, one shared masked policy (needs the rllib extra)",
    ),
    "tune": ("training.tune:main", "search a PPO config's hyperparameters with Optuna on short runs"),
    "evaluate": (
        "training.evaluate:main",
        "evaluate a trained run or agent specs against the bots, with 95% confidence intervals",
    ),
    "ladder": (
        "training.ladder:main",
        "rating ladder: a round-robin among agent specs of a game of two or more players",
    ),
    "benchmark": (
        "training.benchmark:main",
        "benchmark an agent on the whole suite: normalized scores, rliable aggregates, a report folder",
    ),
    "play": ("training.play:main", "play a game in the terminal against a bot or a trained agent"),
    "record": ("training.record:main", "record a whole game as an animated GIF or a JSON-lines record"),
    "serve": ("training.serve:main", "play, watch and replay the games in a web browser (http://127.0.0.1:8000)"),
    "solve": (
        "agents.inverted_dice.solver:main",
        "solve solitaire Inverted Dice exactly (or load the cached solution)",
    ),
}

PROG = "tabletop"


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


def command_function(name: str) -> Callable[[list[str]], int | None]:
    """The ``main`` function behind command ``name`` (imported only when that command runs)."""
    module, _, function = COMMANDS[name][0].partition(":")
    return getattr(importlib.import_module(module), function)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
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
    saved = sys.argv
    sys.argv = [f"{PROG} {name}", *rest]  # the command's usage line and its recorded command read "tabletop <name> ..."
    try:
        code = command_function(name)(rest)
    finally:
        sys.argv = saved
    return 0 if code is None else code


if __name__ == "__main__":
    sys.exit(main())
