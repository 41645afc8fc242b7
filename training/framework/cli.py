"""What the command-line scripts share: bad input as one line on stderr and exit code 2.

Every error a user can cause (a config value, a command-line option, an unusable
checkpoint or solver cache) is one of :data:`USER_ERRORS` and carries a message that
names the problem; the scripts print it as ``error: <message>`` and exit with 2, the
code ``argparse`` uses for bad arguments. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import Any

import yaml

from agents.solution_cache import CacheError
from agents.trained import CheckpointError
from training.console import COMMANDS, PROG
from training.framework.schema import ConfigError, yaml_error_line

USER_ERRORS = (ConfigError, CheckpointError, CacheError)
BAD_INPUT = 2


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


def invocation(script: str) -> str:
    """How to run ``script`` (``"training/evaluate.py"``) the way this process was started: ``tabletop
    evaluate`` under the ``tabletop`` command (which sets ``sys.argv[0]`` to ``"tabletop <command>"``;
    an installed package has no ``training/`` folder to run), else ``python training/evaluate.py``."""
    if sys.argv[0].startswith(f"{PROG} "):
        module = script.removesuffix(".py").replace("/", ".")
        for name, (target, _) in COMMANDS.items():
            if target.partition(":")[0] == module:
                return f"{PROG} {name}"
    return f"python {script}"


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
