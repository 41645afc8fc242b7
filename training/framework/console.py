"""What every command of the project shares on the command line.

How the user started a command is passed down explicitly: ``tabletop`` (:mod:`training.tabletop`)
calls a command with ``prog="tabletop <command>"``, its usage line shows that name and
:func:`invocation` names the commands of its hints (resume, evaluate) the same way; a script
run directly gets ``prog=None`` and names them ``python training/<script>.py``.
This is the one module that reads ``sys.argv`` (:func:`arguments`, :func:`command_line`); it never rewrites it.

The conventions every command keeps: bad input a user can cause (a config value, a
command-line option, an unusable checkpoint or solver cache) is one of
:data:`USER_ERRORS` with a message that names the problem, printed as one line
``error: <message>`` on stderr with exit code 2, the code ``argparse`` uses for bad
arguments (:func:`fail`, :func:`guarded`); Ctrl-C exits with 130 (:func:`interrupted`).
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Callable
from typing import Any

import yaml

from agents.run_folder import CheckpointError
from agents.solution_cache import CacheError
from training.framework.schema import ConfigError, yaml_error_line

PROG = "tabletop"

#: command -> ("module:function", one line of help). The function takes ``argv`` and ``prog`` (the name its
#: usage line and hints give the command) and returns the exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "train": (
        "training.train:main",
        "train an agent on an env with the pipeline its config names (configs/<env>.yaml: MaskablePPO, turn "
        "values, or Invers' expert iteration); the run goes to ./checkpoints/<env>/",
    ),
    "train-td": (
        "training.train_td:main",
        "train a turn-value agent by TD (solitaire dice games; configs/<env>_td.yaml)",
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

#: The errors of bad input a user can cause: one line and exit code :data:`BAD_INPUT`, no traceback.
USER_ERRORS = (ConfigError, CheckpointError, CacheError)
BAD_INPUT = 2  #: the exit code of bad input, as argparse exits on a bad argument


def invocation(script: str, prog: str | None) -> str:
    """How to run ``script`` (``"training/evaluate.py"``) the way the user started the command whose
    ``prog`` this is: ``tabletop evaluate`` when ``tabletop`` ran it (``prog`` is ``"tabletop <command>"``;
    an installed package has no ``training/`` folder to run), else ``python training/evaluate.py``."""
    if prog is not None and prog.startswith(f"{PROG} "):
        module = script.removesuffix(".py").replace("/", ".")
        for name, (target, _) in COMMANDS.items():
            if target.partition(":")[0] == module:
                return f"{PROG} {name}"
    return f"python {script}"


def arguments() -> list[str]:
    """The arguments the process was started with, after the program's name."""
    return sys.argv[1:]


def command_line() -> str:
    """The command line this process was started with, as a shell would read it back (a run's
    ``metadata.json`` records it)."""
    return shlex.join(sys.argv)


def fail(error: Exception) -> int:
    """Print ``error`` as one line on stderr; the exit code for bad input."""
    message = str(error.args[0]) if error.args else str(error)
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return BAD_INPUT


def guarded(command: Callable[[], int], on_interrupt: str) -> int:
    """Run a command's body: bad input (:data:`USER_ERRORS`) is one line and exit 2, Ctrl-C
    prints ``on_interrupt`` and exits 130, anything else keeps its traceback."""
    try:
        return command()
    except USER_ERRORS as error:
        return fail(error)
    except KeyboardInterrupt:
        print(f"\n{on_interrupt}", file=sys.stderr)
        return interrupted()


def interrupted(signum: int = signal.SIGINT) -> int:
    """The shell's exit code for a process stopped by ``signum`` (130 for Ctrl-C)."""
    return 128 + signum


def yaml_mapping(text: str, option: str) -> dict[str, Any]:
    """A command-line option given as a YAML mapping, e.g. ``--env-kwargs "{num_players: 2}"``."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(
            f'{option} is not valid YAML: {yaml_error_line(error)}; expected a mapping such as "{{num_players: 2}}"'
        ) from None
    if not isinstance(value, dict):
        raise ConfigError(f'{option} must be a mapping such as "{{num_players: 2}}", got {text!r}')
    return value
