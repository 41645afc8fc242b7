"""A recorded game: the documented JSON-lines format that ``tabletop record``, the
evaluation and the web page write, and the replay that re-steps the rules from it.

A record holds no picture and no rule: it is the game's seed, options and actions, and
a game is replayed by creating the env's game from them, seeding its chance as
``env.reset(seed=seed)`` does, and applying the actions again (:meth:`GameRecord.states`).
So a record replays exactly wherever the rules are the same, and says so when they are
not (an action the rules refuse, a name or a final score that differs).

The format, version 1 (one JSON object per line, UTF-8)::

    {"format": "tabletop-game", "version": 1, "env": "roll_five", "options": {"num_players": 2, "mode": "casual"},
     "seed": 7, "seats": ["human", "heuristic"]}
    {"player": 0, "action": 12, "name": "place 3 on card 3"}
    {"player": 1, "action": 30, "name": "bid High"}
    ...
    {"end": true, "scores": [3.0, 2.0], "returns": [1.0, -1.0]}

The header comes first: ``env`` (a name of ``envs/registry.py``), ``options`` (the
game's keyword arguments, ``Game.options()``), ``seed`` (the chance seed), ``seats``
(who played each seat: an agent spec, or ``human``). Then one line per action in the
order played, with the acting ``player``, the ``action`` id and its ``name``
(``Game.action_name``, checked on replay). The ``end`` line, written once the game is
over, gives the final ``scores`` and ``returns`` (checked on replay); a record of an
unfinished game has none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gymnasium.utils import seeding

from envs.core import GameState, IllegalActionError
from envs.registry import ENVS
from training.framework.config import make_checked_game
from training.framework.schema import ConfigError

FORMAT = "tabletop-game"
VERSION = 1
#: The file name ending that ``tabletop record`` writes a record for (a ``.gif`` is a picture).
SUFFIX = ".jsonl"


class RecordError(ConfigError):
    """A record that cannot be read or replayed; the message names the line and the problem."""


@dataclass
class GameRecord:
    """One game: what recreates it (env, options, seed) and the actions played."""

    env: str
    options: dict[str, Any]
    seed: int
    seats: list[str]
    moves: list[tuple[int, int]] = field(default_factory=list)  #: ``(player, action)`` in the order played

    def lines(self, final: GameState | None = None) -> list[str]:
        """The record as JSON lines; ``final`` (the game's last state, when over) adds the end line."""
        game = make_checked_game(self.env, self.options)
        header = {
            "format": FORMAT,
            "version": VERSION,
            "env": self.env,
            "options": game.options(),
            "seed": self.seed,
            "seats": list(self.seats),
        }
        out = [json.dumps(header)]
        out += [
            json.dumps({"player": p, "action": a, "name": game.action_name(a)}, ensure_ascii=False)
            for p, a in self.moves
        ]
        if final is not None and final.is_terminal():
            out.append(
                json.dumps({"end": True, "scores": final.scores().tolist(), "returns": final.returns().tolist()})
            )
        return out

    def text(self, final: GameState | None = None) -> str:
        return "\n".join(self.lines(final)) + "\n"

    def write(self, path: str | Path, final: GameState | None = None) -> None:
        Path(path).write_text(self.text(final), encoding="utf-8")

    def states(self) -> list[GameState]:
        """The game's state before any action and after each one, replayed from the seed.

        Raises :class:`RecordError` when the rules refuse an action of the record.
        """
        game = make_checked_game(self.env, self.options)
        state = game.new_initial_state(seeding.np_random(self.seed)[0])
        states = [state.clone()]
        for number, (player, action) in enumerate(self.moves, start=1):
            try:
                state.apply(player, action)
            except IllegalActionError as error:
                raise RecordError(
                    f"action {number} of the record (player {player}, action {action}) is refused by the rules: {error}"
                ) from None
            states.append(state.clone())
        return states


def parse(text: str, source: str = "record", check_options=None) -> tuple[GameRecord, list[GameState]]:
    """Read a record's text and replay it: the record and its states (see :meth:`GameRecord.states`).

    Every line is checked: the header's format, version, env and options (and
    ``check_options(env, options)``, which may raise ``ConfigError``: the web page refuses
    options that name files), each action's player, id and name, and the end line's scores and returns
    against the replay. Problems raise :class:`RecordError` naming ``source`` and the line.
    """
    rows = [line for line in text.splitlines() if line.strip()]
    if not rows:
        raise RecordError(f'{source}: empty; a record starts with a header line {{"format": "{FORMAT}", ...}}')
    parsed = []
    for number, line in enumerate(rows, start=1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"{source} line {number}: not JSON ({error.msg})") from None
        if not isinstance(value, dict):
            raise RecordError(f"{source} line {number}: expected a JSON object, got {type(value).__name__}")
        parsed.append(value)
    record = _header(parsed[0], source, check_options)
    game = make_checked_game(record.env, record.options)
    end = None
    for number, row in enumerate(parsed[1:], start=2):
        if end is not None:
            raise RecordError(f"{source} line {number}: a line after the end line")
        if row.get("end") is True:
            end = (number, row)
            continue
        player, action, name = row.get("player"), row.get("action"), row.get("name")
        if not _is_int(player) or not 0 <= player < game.num_players:
            raise RecordError(
                f"{source} line {number}: 'player' must be a seat 0..{game.num_players - 1}, got {player!r}"
            )
        if not _is_int(action) or not 0 <= action < game.num_actions:
            raise RecordError(
                f"{source} line {number}: 'action' must be an id 0..{game.num_actions - 1}, got {action!r}"
            )
        if name is not None and name != game.action_name(action):
            raise RecordError(
                f"{source} line {number}: action {action} is named {game.action_name(action)!r} by these rules, "
                f"not {name!r}"
            )
        record.moves.append((player, action))
    try:
        states = record.states()
    except RecordError as error:
        raise RecordError(f"{source}: {error}") from None
    if end is not None:
        _check_end(source, *end, states[-1])
    return record, states


def read(path: str | Path, check_options=None) -> tuple[GameRecord, list[GameState]]:
    """:func:`parse` of the file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecordError(f"cannot read record {path}: {error}") from None
    return parse(text, str(path), check_options)


def record_of(
    env: str, options: dict[str, Any], seed: int, seats: Sequence[str], history: Sequence[tuple[int, int]]
) -> GameRecord:
    """The record of a game played by :func:`agents.match.play_game` (its ``history``)."""
    return GameRecord(env, dict(options), int(seed), list(seats), [(int(p), int(a)) for p, a in history])


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _header(row: dict, source: str, check_options) -> GameRecord:
    where = f"{source} line 1 (the header)"
    if row.get("format") != FORMAT:
        raise RecordError(f"{where}: 'format' must be {FORMAT!r}, got {row.get('format')!r}")
    if row.get("version") != VERSION:
        raise RecordError(f"{where}: version {row.get('version')!r} is not supported (this reads version {VERSION})")
    env, options, seed, seats = row.get("env"), row.get("options", {}), row.get("seed"), row.get("seats", [])
    if env not in ENVS:
        raise RecordError(f"{where}: unknown env {env!r}; known envs: {', '.join(sorted(ENVS))}")
    if not isinstance(options, dict):
        raise RecordError(f"{where}: 'options' must be an object of game options, got {options!r}")
    if check_options is not None:
        try:
            check_options(env, options)
        except ConfigError as error:
            raise RecordError(f"{where}: {error}") from None
    if not _is_int(seed) or seed < 0:
        raise RecordError(f"{where}: 'seed' must be an integer >= 0, got {seed!r}")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RecordError(f"{where}: 'seats' must be a list of agent names, got {seats!r}")
    try:
        game = make_checked_game(env, options)
    except ConfigError as error:
        raise RecordError(f"{where}: {error}") from None
    if seats and len(seats) != game.num_players:
        raise RecordError(f"{where}: {len(seats)} seats for a game of {game.num_players} players")
    return GameRecord(env, game.options(), seed, seats or ["?"] * game.num_players)


def _check_end(source: str, number: int, row: dict, final: GameState) -> None:
    if not final.is_terminal():
        raise RecordError(f"{source} line {number}: an end line, but the replayed game is not over")
    for key, values in (("scores", final.scores()), ("returns", final.returns())):
        if row.get(key) != values.tolist():
            raise RecordError(
                f"{source} line {number}: the record's {key} {row.get(key)!r} "
                f"differ from the replay's {values.tolist()}"
            )
