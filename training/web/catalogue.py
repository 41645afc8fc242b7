"""What the browser may choose from: the games, the options it may set, and the agents.

Everything a browser sends is a choice from these server-side lists, never a path or
a piece of code: an option is one the game declares (``Game.options()``) with a value of
its default's type, except the options in :data:`FIXED_OPTIONS` (one that names a file on
the server, Lost Dice's ``dice_file``; Lost Dice's ``variant``, which the game menu picks:
Keldice is a game of its own), which stay at their default; an agent is ``human``, a bot name of the
game, a shipped network (``ppo``, ``ppo+search``, ``td``) where one is shipped, or
``run:<folder>``, a run folder found under the checkpoints folder
(``<checkpoints>/<env>/<folder>/`` holding a checkpoint file), mapped here to its path.
An agent spec of any other form (a path, ``module:attr``) is refused.

Not every agent can sit at every table: a network is trained for one table size, the
exact solver and the turn-value agents play solitaire, the search two-player games of
public state. :meth:`Catalogue.seating` tells them apart by building each agent for the
table, as a session would, and keeps the answer per table, so the page offers only the
agents that can play and says why the others cannot.

Building an agent can take minutes: the exact Inverted Dice solver solves the game on its
first use where no solution is cached. So the agents of a table are built in the
background (:class:`Builders`), and a request for the table's seating waits for them only
:data:`PATIENCE_S`: an agent still being built is answered as ``preparing`` (with the time
its class says a first build takes, ``preparation``), and the page asks again until it is
ready, offering the others meanwhile.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.registry import NETWORK_AGENTS, TURN_VALUE_AGENTS, bot_names, preparation_time
from agents.run_folder import CheckpointError, holds_trained_agent, read_config
from agents.shipped import is_kept, shipped_envs, shipped_network
from agents.solution_cache import CacheError
from envs.games.roll_five import MODES
from envs.registry import ENVS, make_game
from envs.registry import game_title as title
from training.framework.config import build_agent
from training.framework.schema import ConfigError

HUMAN = "human"
RUN_PREFIX = "run:"
#: Options the browser cannot set, with why: each stays at its game's default.
FIXED_OPTIONS = {
    "dice_file": "names a file on the server",
    "variant": "is the game itself: Keldice is in the game menu",
}
#: The values of options that take one of a few words, for the page's menus.
OPTION_CHOICES = {"mode": MODES}
#: Each option as the page labels it (the rules' own words, ``docs/rules/``).
OPTION_LABELS = {
    "num_players": "Players",
    "free_cross_out": "Free cross-out (any open box, after any roll)",
    "max_plies": "Move limit (plies, then a draw)",
    "mode": "Ties for the most pairs",
    "rolls_per_player": "Rolls per player",
}
#: The words of an option's choices, where they need more than the value itself.
CHOICE_LABELS = {"mode": {"casual": "casual: shared win", "tournament": "tournament: the closest wins"}}
#: An option's type as the page's error messages name it.
TYPE_WORDS = {int: "a whole number", bool: "true or false", float: "a number", str: "a string"}
#: What a choice plays, in a player's words, where the table's size alone does not say why it cannot sit.
PLAYS = {
    "optimal": "plays solitaire only",
    "td": "plays solitaire only",
    "search": "plays two-player games with nothing hidden (Invers) only",
    "ppo+search": "plays two-player games with nothing hidden (Invers) only",
}
#: The agent choices that play a trained network: refused at a table size it was not trained for.
NETWORK_CHOICES = frozenset(NETWORK_AGENTS)
#: A whole-number game option from the page (a game's length) is at most this many times its
#: default: a session's game must end while the session is kept.
MAX_OPTION_FACTOR = 10
#: Tables whose seating (:meth:`Catalogue.seating`) is remembered, the least recently asked
#: for forgotten first: every option value is a table, so the memory must be bounded.
SEATINGS_KEPT = 256
#: How long a request for a table's seating waits for its agents to be built (seconds); those
#: not built by then are answered as being prepared, and built on in the background.
PATIENCE_S = 2.0
#: Agents built at once in the background: a solve of minutes holds one builder, not the page.
BUILDERS = 4


class Preparing(RuntimeError):
    """An agent asked for while it is still being built for its table (a first solve)."""


class Builders:
    """A few daemon threads that build agents from a queue (daemons: a solve in progress
    never holds up the server's exit)."""

    def __init__(self, count: int = BUILDERS):
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue()
        self._count = count
        self._started = False
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if not self._started:
                for _ in range(self._count):
                    threading.Thread(target=self._work, daemon=True, name="agent-builder").start()
                self._started = True
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            self._jobs.get()()


class TableSeating:
    """Who can sit at one table: each agent choice built for it in the background, and what
    came of each (None: it sits; else the reason it cannot)."""

    def __init__(self, env: str, game, specs: dict[str, str], builders: Builders):
        self.choices = [HUMAN, *specs]
        self.outcomes: dict[str, str | None] = {HUMAN: None}
        self.failure: Exception | None = None  # an error other than a refusal: raised to the request
        self.changed = threading.Condition()
        for choice, spec in specs.items():
            builders.submit(lambda choice=choice, spec=spec: self._build(env, game, choice, spec))

    def _build(self, env: str, game, choice: str, spec: str) -> None:
        outcome: str | None = None
        try:
            build_agent(env, spec, game)
        except (ConfigError, CheckpointError, CacheError) as refusal:
            outcome = str(refusal)
        except Exception as failure:  # noqa: BLE001 (not swallowed: raised to every request for the table)
            with self.changed:
                self.failure = failure
                self.changed.notify_all()
            return
        with self.changed:
            self.outcomes[choice] = outcome
            self.changed.notify_all()

    @property
    def complete(self) -> bool:
        return len(self.outcomes) == len(self.choices)

    def answer(self, patience_s: float) -> dict[str, Any]:
        """``{"agents", "refused", "preparing"}`` after waiting at most ``patience_s`` for the
        builds: ``preparing`` lists the choices still being built."""
        deadline = time.monotonic() + patience_s
        with self.changed:
            while not self.complete and self.failure is None and (left := deadline - time.monotonic()) > 0:
                self.changed.wait(left)
            if self.failure is not None:
                raise self.failure
            outcomes = dict(self.outcomes)
        return {
            "agents": [c for c in self.choices if c in outcomes and outcomes[c] is None],
            "refused": {c: outcomes[c] for c in self.choices if outcomes.get(c) is not None},
            "preparing": [c for c in self.choices if c not in outcomes],
        }


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def players_words(game) -> str:
    """ "2 players", "1 to 4 players": the player counts of ``game``'s env."""
    low, high = game.min_players, game.max_players
    return plural(low, "player") if low == high else f"{low} to {high} players"


class Catalogue:
    """The choices offered to the browser, with ``checkpoints`` the folder of run folders."""

    def __init__(self, checkpoints: Path, patience_s: float = PATIENCE_S):
        self.checkpoints = Path(checkpoints)
        self.patience_s = patience_s
        self._builders = Builders()
        self._seatings: OrderedDict[tuple, TableSeating] = OrderedDict()
        self._seatings_lock = threading.Lock()

    def games(self) -> list[dict[str, Any]]:
        """Every game with its player counts, settable options and agent choices (``GET /api/games``)."""
        out = []
        for env in ENVS:
            game = make_game(env)
            counts = range(game.min_players, game.max_players + 1)
            by_players = {n: make_game(env, num_players=n).options() for n in counts}
            options = []
            for name, value in game.options().items():
                if name == "num_players" or name in FIXED_OPTIONS:
                    continue
                option = {"name": name, "label": OPTION_LABELS.get(name, name), "default": value}
                option["type"] = type(value).__name__
                if name in OPTION_CHOICES:
                    words = CHOICE_LABELS.get(name, {})
                    option["choices"] = [{"value": c, "label": words.get(c, c)} for c in OPTION_CHOICES[name]]
                if len({str(by_players[n][name]) for n in counts}) > 1:  # Lost Dice's rolls: 30 solo, 20 for 3-4
                    option["defaults"] = {str(n): by_players[n][name] for n in counts}
                options.append(option)
            out.append(
                {
                    "env": env,
                    "title": title(env),
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

        ``{"agents": [...], "refused": {choice: reason}, "preparing": {choice: note}}``, in
        :meth:`agents`' order: ``human`` always sits, and every other choice is built for the
        table as a session builds it, so a choice is offered exactly when a session with it
        would start. A choice still being built after :attr:`patience_s` is ``preparing``,
        its note naming how long a first build takes where its class says so.
        """
        game = self.game(env, options)
        answer = self._table(env, game).answer(self.patience_s)
        answer["preparing"] = {choice: self.preparing_note(env, choice) for choice in answer["preparing"]}
        answer["refused"] = {
            choice: {"reason": self.player_reason(env, choice, game), "detail": detail}
            for choice, detail in answer["refused"].items()
        }
        return answer

    def player_reason(self, env: str, choice: str, game) -> str:
        """Why ``choice`` cannot sit at ``game``'s table, in a player's words: the table size a
        network was trained for (its run's config), else what the agent plays (:data:`PLAYS`)."""
        table = f"this table has {plural(game.num_players, 'player')}"
        trained = self.trained_players(env, choice, game)
        if trained is not None and trained != game.num_players:
            return f"trained for {plural(trained, 'player')}; {table}"
        if choice in PLAYS:
            solitaire = PLAYS[choice].startswith("plays solitaire")
            return PLAYS[choice] + (f"; {table}" if solitaire else "")
        if choice in NETWORK_CHOICES or choice.startswith(RUN_PREFIX):
            return "its trained network cannot be loaded for this table"
        return "cannot play this table"

    def trained_players(self, env: str, choice: str, game) -> int | None:
        """The table size a network choice was trained at, as its run's config says; None for
        other choices, or a run that does not say (or cannot be read)."""
        if choice in NETWORK_CHOICES:
            folder = shipped_network(env, num_players=game.num_players)
        elif choice.startswith(RUN_PREFIX):
            folder = self.runs(env).get(choice.removeprefix(RUN_PREFIX))
        else:
            return None
        if folder is None:
            return None
        try:
            config = read_config(folder)
        except CheckpointError:
            return None
        if "env_kwargs" not in config:
            return None  # a run without its config (or a bare checkpoint): it does not say
        return (config["env_kwargs"] or {}).get("num_players", make_game(env).num_players)

    def _table(self, env: str, game) -> TableSeating:
        """The table's seating, started (its agents queued to be built) if it was not yet."""
        key = self._key(env, game)
        with self._seatings_lock:
            if key in self._seatings:
                self._seatings.move_to_end(key)
                return self._seatings[key]
            specs = {choice: self.agent_spec(env, choice) for choice in key[2] if choice != HUMAN}
            seating = self._seatings[key] = TableSeating(env, game, specs, self._builders)
            while len(self._seatings) > SEATINGS_KEPT:
                self._seatings.popitem(last=False)
            return seating

    def _key(self, env: str, game) -> tuple:
        """A table: the game, its options and the choices offered for it (a new run folder is a new table)."""
        return (env, json.dumps(game.options(), sort_keys=True, default=str), tuple(self.agents(env)))

    def preparing_note(self, env: str, choice: str) -> str:
        """What the page says of an agent being built: "preparing the optimal agent (about 2 min)"."""
        took = preparation_time(env, self.agent_spec(env, choice))
        return f"preparing the {choice} agent" + (f" ({took})" if took else "")

    def check_ready(self, env: str, game, choice: str) -> None:
        """Raise :class:`Preparing` if ``choice`` is still being built for ``game``'s table in
        the background: a session waits for it rather than building it a second time."""
        with self._seatings_lock:
            seating = self._seatings.get(self._key(env, game))
        if seating is not None and choice != HUMAN and choice not in seating.outcomes and seating.failure is None:
            raise Preparing(f"{self.preparing_note(env, choice)}: choose another agent, or start once it is offered")

    def runs(self, env: str) -> dict[str, Path]:
        """The user's run folders of ``env`` under the checkpoints folder, by folder name: not the
        networks the project ships (offered as ``ppo`` and ``td``) or keeps (:func:`~agents.shipped.is_kept`)."""
        root = self.checkpoints / env
        if not root.is_dir():
            return {}
        return {
            folder.name: folder
            for folder in root.iterdir()
            if folder.is_dir() and not is_kept(folder) and holds_trained_agent(folder)
        }

    def agent_spec(self, env: str, choice: Any) -> str:
        """The agent spec behind a choice from :meth:`agents` (``human`` stays ``human``), or ConfigError."""
        if not isinstance(choice, str) or choice not in self.agents(env):
            raise ConfigError(f"unknown agent {choice!r} for {env}; choose one of {self.agents(env)}")
        if choice.startswith(RUN_PREFIX):
            return str(self.runs(env)[choice.removeprefix(RUN_PREFIX)])
        return choice

    def check_options(self, env: str, options: Any) -> None:
        """Options the browser may set for ``env``, or a ConfigError naming the one that is not.

        ``num_players`` within the game's player counts and the game's own options with
        values of their default's type (whole numbers from 1 up to :data:`MAX_OPTION_FACTOR`
        times their default); a :data:`FIXED_OPTIONS` option only at its default. Messages
        name the option as the page labels it.
        """
        if env is None:
            raise ConfigError(f'the request names no game (its field "env"); known games: {", ".join(sorted(ENVS))}')
        if env not in ENVS:
            raise ConfigError(f"unknown game {env!r}; known games: {', '.join(sorted(ENVS))}")
        if not isinstance(options, dict):
            raise ConfigError(f"options must be an object of game options, got {options!r}")
        game = make_game(env)
        defaults = game.options()
        for name, value in options.items():
            if name not in defaults:
                raise ConfigError(
                    f"{title(env)} has no option {name!r}; its options: {sorted(set(defaults) - set(FIXED_OPTIONS))}"
                )
            label = OPTION_LABELS.get(name, name)
            if name in FIXED_OPTIONS:
                if value != defaults[name]:
                    raise ConfigError(f"option {name!r} {FIXED_OPTIONS[name]}; it cannot be set on the web page")
                continue
            expected = int if name == "num_players" else type(defaults[name])
            if type(value) is not expected:
                raise ConfigError(f"{label} must be {TYPE_WORDS[expected]}, got {value!r}")
            if name in OPTION_CHOICES and value not in OPTION_CHOICES[name]:
                raise ConfigError(f"{label} must be one of {', '.join(OPTION_CHOICES[name])}, got {value!r}")
            if name == "num_players" and not game.min_players <= value <= game.max_players:
                raise ConfigError(f"{title(env)} is played by {players_words(game)}, not {value}")
            if expected is int and name != "num_players" and not 1 <= value <= MAX_OPTION_FACTOR * defaults[name]:
                raise ConfigError(
                    f"{label} must be from 1 to {MAX_OPTION_FACTOR * defaults[name]} on the web page "
                    f"({MAX_OPTION_FACTOR} times its default), got {value!r}"
                )

    def game(self, env: str, options: Any):
        """The game ``env`` with browser ``options``, checked (:meth:`check_options`, then the game's own checks)."""
        self.check_options(env, options)
        try:
            return make_game(env, **options)
        except (TypeError, ValueError) as error:  # a rule of the game's own, past the checks above
            raise ConfigError(f"{title(env)} cannot be set up so: {error}") from None
