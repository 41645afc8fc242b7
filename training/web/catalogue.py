"""What the browser may choose from: the games, the options it may set, and the agents.

Everything a browser sends is a choice from these server-side lists, never a path or
a piece of code: an option is one the game declares (``Game.options()``) with a value of
its default's type, except options that name a file on the server (Lost Dice's
``dice_file``), which stay at their default; an agent is ``human``, a bot name of the
game, a shipped network (``ppo``, ``ppo+search``, ``td``) where one is shipped, or
``run:<folder>``, a run folder found under the checkpoints folder
(``<checkpoints>/<env>/<folder>/`` holding a checkpoint file), mapped here to its path.
An agent spec of any other form (a path, ``module:attr``) is refused.

Not every agent can sit at every table: a network is trained for one table size, the
exact solver and the turn-value agents play solitaire, the search two-player games of
public state. :meth:`Catalogue.seating` tells them apart by building each agent for the
table, as a session would, and keeps the answer per table, so the page offers only the
agents that can play and says why the others cannot.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agents.registry import NETWORK_AGENTS, TURN_VALUE_AGENTS, bot_names
from agents.run_folder import CheckpointError, holds_trained_agent
from agents.shipped import shipped_envs
from agents.solution_cache import CacheError
from envs.games.lost_dice_faces import VARIANTS
from envs.games.roll_five import MODES
from envs.registry import ENVS, make_game
from training.framework.config import build_agent, make_checked_game
from training.framework.schema import ConfigError

HUMAN = "human"
RUN_PREFIX = "run:"
#: Options that name a file on the server: the browser cannot set them.
FILE_OPTIONS = frozenset({"dice_file"})
#: The values of options that take one of a few words, for the page's menus.
OPTION_CHOICES = {"mode": MODES, "variant": VARIANTS}
#: An option's type as the page's error messages name it.
TYPE_WORDS = {int: "a whole number", bool: "true or false", float: "a number", str: "a string"}
#: A whole-number game option from the page (a game's length) is at most this many times its
#: default: a session's game must end while the session is kept.
MAX_OPTION_FACTOR = 10
#: Tables whose seating (:meth:`Catalogue.seating`) is remembered, the least recently asked
#: for forgotten first: every option value is a table, so the memory must be bounded.
SEATINGS_KEPT = 256


class Catalogue:
    """The choices offered to the browser, with ``checkpoints`` the folder of run folders."""

    def __init__(self, checkpoints: Path):
        self.checkpoints = Path(checkpoints)
        self._seatings: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self._seatings_lock = threading.Lock()

    def games(self) -> list[dict[str, Any]]:
        """Every game with its player counts, settable options and agent choices (``GET /api/games``)."""
        out = []
        for env in ENVS:
            game = make_game(env)
            options = [
                {
                    "name": name,
                    "default": value,
                    "type": type(value).__name__,
                    **({"choices": list(OPTION_CHOICES[name])} if name in OPTION_CHOICES else {}),
                }
                for name, value in game.options().items()
                if name != "num_players" and name not in FILE_OPTIONS
            ]
            out.append(
                {
                    "env": env,
                    "title": env.replace("_", " ").title(),
                    "min_players": game.min_players,
                    "max_players": game.max_players,
                    "default_players": game.default_players,
                    "simultaneous": game.simultaneous,
                    "options": options,
                    "agents": self.agents(env),
                }
            )
        return out

    def agents(self, env: str) -> list[str]:
        """The agent choices of ``env``: ``human``, its bots, shipped networks, then run folders."""
        choices = [HUMAN, *bot_names(env)]
        if env in shipped_envs("ppo"):
            choices += NETWORK_AGENTS
        if env in TURN_VALUE_AGENTS and env in shipped_envs("td"):
            choices.append("td")
        return choices + [RUN_PREFIX + name for name in sorted(self.runs(env))]

    def seating(self, env: str, options: Any) -> dict[str, Any]:
        """The agent choices that can sit at the table ``env`` with ``options`` (``POST /api/agents``).

        ``{"agents": [...], "refused": {choice: reason}}``, in :meth:`agents`' order:
        ``human`` always sits, and every other choice is built for the table as a session
        builds it, so a choice is offered exactly when a session with it would start.
        """
        game = self.game(env, options)
        choices = self.agents(env)
        key = (env, json.dumps(game.options(), sort_keys=True, default=str), tuple(choices))
        with self._seatings_lock:
            if key in self._seatings:
                self._seatings.move_to_end(key)
                return self._seatings[key]
        seating: dict[str, Any] = {"agents": [], "refused": {}}
        for choice in choices:
            if choice != HUMAN:
                try:
                    build_agent(env, self.agent_spec(env, choice), game)
                except (ConfigError, CheckpointError, CacheError) as refusal:
                    seating["refused"][choice] = str(refusal)
                    continue
            seating["agents"].append(choice)
        with self._seatings_lock:
            self._seatings[key] = seating
            while len(self._seatings) > SEATINGS_KEPT:
                self._seatings.popitem(last=False)
        return seating

    def runs(self, env: str) -> dict[str, Path]:
        """The run folders of ``env`` under the checkpoints folder, by folder name."""
        root = self.checkpoints / env
        if not root.is_dir():
            return {}
        return {folder.name: folder for folder in root.iterdir() if folder.is_dir() and holds_trained_agent(folder)}

    def agent_spec(self, env: str, choice: Any) -> str:
        """The agent spec behind a choice from :meth:`agents` (``human`` stays ``human``), or ConfigError."""
        if not isinstance(choice, str) or choice not in self.agents(env):
            raise ConfigError(f"unknown agent {choice!r} for {env}; choose one of {self.agents(env)}")
        if choice.startswith(RUN_PREFIX):
            return str(self.runs(env)[choice.removeprefix(RUN_PREFIX)])
        return choice

    def check_options(self, env: str, options: Any) -> None:
        """Options the browser may set for ``env``, or a ConfigError naming the one that is not.

        ``num_players`` and the game's own options with values of their default's type;
        a file option only at its default (None).
        """
        if env is None:
            raise ConfigError(f'the request names no game (its field "env"); known games: {", ".join(sorted(ENVS))}')
        if env not in ENVS:
            raise ConfigError(f"unknown game {env!r}; known games: {', '.join(sorted(ENVS))}")
        if not isinstance(options, dict):
            raise ConfigError(f"options must be an object of game options, got {options!r}")
        defaults = make_game(env).options()
        for name, value in options.items():
            if name not in defaults:
                raise ConfigError(f"{env} has no option {name!r}; its options: {sorted(set(defaults) - FILE_OPTIONS)}")
            if name in FILE_OPTIONS:
                if value is not None:
                    raise ConfigError(f"option {name!r} names a file on the server and cannot be set from the browser")
                continue
            expected = int if name == "num_players" else type(defaults[name])
            if type(value) is not expected:
                raise ConfigError(f"option {name!r} of {env} must be {TYPE_WORDS[expected]}, got {value!r}")
            if expected is int and name != "num_players" and value > MAX_OPTION_FACTOR * defaults[name]:
                raise ConfigError(
                    f"option {name!r} of {env} may be at most {MAX_OPTION_FACTOR * defaults[name]} on the web page "
                    f"({MAX_OPTION_FACTOR} times its default), got {value!r}"
                )

    def game(self, env: str, options: Any):
        """The game ``env`` with browser ``options``, checked (:meth:`check_options`, then the game's own checks)."""
        self.check_options(env, options)
        return make_checked_game(env, options)
