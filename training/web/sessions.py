"""Games in progress and replays on the server, and the view of one seat that the page draws.

A :class:`GameSession` is one game: the rules core's state, stepped with
``GameState.apply`` (no rule is written here), at most one seat played by the person
at the page (``human``) and an agent in every other seat, built by the agent registry
and reset as :func:`agents.match.start_game` resets them, so a game without a person is
the game :func:`agents.match.play_game` plays from the same seed. The person moves with
:meth:`GameSession.move`; each call of :meth:`GameSession.advance` plays one agent move,
so the page shows the other seats' moves one at a time (and watches agents play).

A :class:`ReplaySession` is a recorded game (:mod:`training.records.game_record`) replayed
from its seed, viewed at any step. :class:`SessionStore` holds both, at most
``max_sessions`` of them, each forgotten ``ttl_s`` seconds after its last use.

What a view shows (:func:`seat_view`): for a seat, what that seat may see (the game's
table for that seat, :mod:`training.web.tables`, and its own legal moves); in a game of
simultaneous moves, the other seats' moves only once their round has resolved, and the
agents commit only after the person has (so nothing tells whether they have). A
spectator (no person in the game, or a replay) sees the whole table.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.match import outcome_words, start_game
from envs.core import Game, GameState
from training.records.game_record import GameRecord
from training.web.tables import move_fields, move_outcome, table

HUMAN = "human"


class NotFound(LookupError):
    """No session (or replay) with that id: never created, deleted or expired."""


class Conflict(RuntimeError):
    """A request that does not fit the game's moment (an agent move while the person is to act)."""


class Full(RuntimeError):
    """The server holds as many sessions as it may."""


def seat_view(
    env: str,
    state: GameState,
    viewer: int | None,
    seats: list[str],
    moves: list[tuple[int, int]],
    visible: int,
    outcomes: list[str],
) -> dict[str, Any]:
    """What the page draws of ``state`` for ``viewer`` (None: a spectator).

    ``moves`` are the actions played, of which the first ``visible`` may be told to
    everyone (the rest are this round's commits of a simultaneous game, told only to
    their own player); ``outcomes`` what each brought (:func:`~training.web.tables.move_outcome`).
    """
    game = state.game
    over = state.is_terminal()
    acting = list(state.acting_players())
    if viewer is not None and game.simultaneous:
        acting = [viewer] if viewer in acting else []  # who else has still to commit is not told
    told = [
        {"number": n + 1, "player": p, "action": a, "name": game.action_name(a), "outcome": outcome}
        for n, ((p, a), outcome) in enumerate(zip(moves, outcomes))
        if viewer is None or n < visible or p == viewer
    ]
    legal = []
    if viewer is not None and viewer in state.acting_players():
        legal = [
            {"action": int(a), "name": game.action_name(int(a)), **move_fields(env, state, int(a))}
            for a in np.flatnonzero(state.legal_mask(viewer))
        ]
    view = {
        "env": env,
        "options": game.options(),
        "seats": seats,
        "viewer": viewer,
        "over": over,
        "acting": acting,
        "legal": legal,
        "moves": told,
        "table": table(env, state, viewer),
        "text": state.render() if viewer is None else state.render_for(viewer),
        "scores": state.scores().tolist(),
    }
    if over:
        view["returns"] = state.returns().tolist()
        view["result"] = result_words(state, viewer)
        view["outcome"] = outcome_kind(state, viewer)
    return view


def outcome_kind(state: GameState, viewer: int | None) -> str:
    """ "win", "draw" or "loss" for the viewer's seat of a game of several players, which the
    page colours its result by; "over" for a spectator or a solitaire game."""
    if viewer is None or state.game.num_players == 1:
        return "over"
    return {1: "win", 0: "draw", -1: "loss"}[int(np.sign(state.returns()[viewer]))]


def result_words(state: GameState, viewer: int | None) -> str:
    """The final line: the viewer's outcome (or score, solitaire), or the winners for a spectator."""
    scores = " / ".join(f"P{p} {s:g}" for p, s in enumerate(state.scores()))
    if state.game.num_players == 1:
        return f"Game over: final score {state.scores()[0]:g}."
    return f"{outcome_words(state, viewer)} Scores: {scores}."


class GameSession:
    """One game played at the page: a person in seat ``human`` (or none: agents only)."""

    def __init__(self, env: str, game: Game, seats: list[str], agents: dict[int, Agent], seed: int):
        self.env, self.game, self.seats, self.agents, self.seed = env, game, seats, agents, seed
        humans = [p for p, choice in enumerate(seats) if choice == HUMAN]
        self.human = humans[0] if humans else None
        self.kind = "play" if self.human is not None else "watch"
        self.state, _ = start_game(game, [agents.get(p) for p in range(game.num_players)], seed)
        self.moves: list[tuple[int, int]] = []
        self.outcomes: list[str] = []  # what each move brought, read off the state right after it
        self.visible = 0  # moves told to every seat: all but this round's commits (simultaneous games)
        self.lock = threading.Lock()

    def _apply(self, player: int, action: int) -> None:
        self.state.apply(player, action)
        self.moves.append((player, action))
        self.outcomes.append(move_outcome(self.env, self.state, player, action))
        if not self.game.simultaneous or self.state.is_terminal() or player in self.state.acting_players():
            self.visible = len(self.moves)  # the round resolved: every commit of it is told

    def next_agent(self) -> int | None:
        """The seat whose agent plays next, or None when the person is to act or the game is over.

        In a round of simultaneous moves the agents commit after the person has (they
        cannot see the person's pending choice, so the order changes nothing).
        """
        acting = self.state.acting_players()
        if self.human in acting:
            return None
        return acting[0] if acting else None

    def move(self, action: Any) -> None:
        """The person's move. An illegal one raises ``IllegalActionError``, one out of turn
        :class:`Conflict`, each with the rules' message, and changes nothing."""
        if self.human is None:
            raise Conflict("no seat of this game is played from the page (a game of agents only: advance it)")
        error = self.state.illegal_action_error(self.human, action)
        if error is not None and self.human not in self.state.acting_players():
            raise Conflict(error.args[0])  # out of turn (or the game is over), in the rules' words
        if error is not None:
            raise error
        self._apply(self.human, self.game.check_action(action))

    def advance(self) -> None:
        """Play one agent move (the next seat to act), or raise :class:`Conflict` if none is due."""
        seat = self.next_agent()
        if seat is None:
            why = "the game is over" if self.state.is_terminal() else f"seat {self.human} (you) is to act"
            raise Conflict(f"no agent is to act: {why}")
        state = self.state
        action = int(self.agents[seat].act(state.observe(seat), state.legal_mask(seat)))
        self._apply(seat, action)

    def view(self) -> dict[str, Any]:
        view = seat_view(self.env, self.state, self.human, self.seats, self.moves, self.visible, self.outcomes)
        view["kind"] = self.kind
        view["next"] = "over" if self.state.is_terminal() else ("agent" if self.next_agent() is not None else "human")
        return view

    def record(self) -> GameRecord:
        """The game so far as a record (the person's seat recorded as ``human``).

        A game with a person in it only once it is over: the record holds the seed,
        which deals every card and every roll to come.
        """
        if self.human is not None and not self.state.is_terminal():
            raise Conflict(
                "the record of a game you play is given once it is over (its seed tells the cards and dice to come)"
            )
        return GameRecord(self.env, self.game.options(), self.seed, list(self.seats), list(self.moves))


class ReplaySession:
    """A recorded game, replayed from its seed; viewed at any step 0..``length``."""

    kind = "replay"

    def __init__(self, record: GameRecord, states: list[GameState]):
        self.record, self.states = record, states
        self.lock = threading.Lock()

    @property
    def length(self) -> int:
        return len(self.states) - 1

    def view(self, step: int) -> dict[str, Any]:
        if not 0 <= step <= self.length:
            raise NotFound(f"step {step} is not in this replay (steps 0..{self.length})")
        moves = self.record.moves[:step]
        outcomes = [move_outcome(self.record.env, self.states[n + 1], p, a) for n, (p, a) in enumerate(moves)]
        view = seat_view(self.record.env, self.states[step], None, self.record.seats, moves, len(moves), outcomes)
        view.update(kind="replay", step=step, length=self.length, seed=self.record.seed)
        return view


class SessionStore:
    """At most ``max_sessions`` sessions, each forgotten ``ttl_s`` seconds after its last use."""

    def __init__(self, max_sessions: int = 64, ttl_s: float = 3600.0, clock: Callable[[], float] = time.monotonic):
        self.max_sessions, self.ttl_s, self.clock = max_sessions, ttl_s, clock
        self._sessions: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, (used, _) in self._sessions.items() if now - used > self.ttl_s]:
            del self._sessions[key]

    def add(self, session: Any) -> str:
        with self._lock:
            self._expire()
            if len(self._sessions) >= self.max_sessions:
                raise Full(
                    f"the server holds {self.max_sessions} sessions, its limit; "
                    f"try again when one expires ({self.ttl_s:g} s unused)"
                )
            key = secrets.token_urlsafe(12)
            self._sessions[key] = (self.clock(), session)
            return key

    def get(self, key: str, kind: type | tuple[type, ...] = object) -> Any:
        with self._lock:
            self._expire()
            entry = self._sessions.get(key)
            if entry is None or not isinstance(entry[1], kind):
                raise NotFound(f"no session {key!r} (it may have expired after {self.ttl_s:g} s unused)")
            self._sessions[key] = (self.clock(), entry[1])
            return entry[1]

    def delete(self, key: str) -> None:
        with self._lock:
            if self._sessions.pop(key, None) is None:
                raise NotFound(f"no session {key!r}")

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)
