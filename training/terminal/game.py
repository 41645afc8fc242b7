"""A game played in the terminal: the board drawn as text as one seat sees it
(``GameState.render_for``), moves typed by id or by name (``3``, or ``row 1 ←``; case and
spaces do not matter, a unique beginning of a name is enough), ``?`` for the legal moves
and ``q`` to quit. The input and output are functions, so a test plays it without a
terminal.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.match import outcome_words
from envs.core import Game, GameState


class Quit(Exception):
    """The player typed ``q``."""


#: what a keyboard types for the arrows that move names use ("row 3 →" reads as "row 3 right" or "row 3 >")
ARROWS = {"→": "right", "←": "left", "↑": "up", "↓": "down", ">": "right", "<": "left", "^": "up"}


def _normalise(text: str) -> str:
    """A move name as compared: lower case, arrows as their words, no spaces."""
    text = text.lower()
    for arrow, word in ARROWS.items():
        text = text.replace(arrow, word)
    return "".join(text.split())


def legal_moves_text(game: Game, legal: np.ndarray) -> str:
    return "legal moves: " + ", ".join(f"{a} ({game.action_name(int(a))})" for a in legal)


def parse_move(game: Game, text: str, legal: np.ndarray) -> tuple[int | None, str]:
    """The legal action ``text`` names (by id, name or unique beginning of a name), or None and why not."""
    text = text.strip()
    if text.lstrip("-").isdigit():
        action = int(text)
        if action in legal:
            return action, ""
        if 0 <= action < game.num_actions:
            return None, f"move {action} ({game.action_name(action)}) is not legal now"
        return None, f"there is no move {action} (ids run 0..{game.num_actions - 1})"
    key = _normalise(text)
    names = {int(a): _normalise(game.action_name(int(a))) for a in legal}
    exact = [a for a, name in names.items() if name == key]
    matches = exact or [a for a, name in names.items() if key and name.startswith(key)]
    if len(matches) == 1:
        return matches[0], ""
    if len(matches) > 1:
        return None, f"{text!r} could be any of " + ", ".join(game.action_name(a) for a in matches)
    return None, f"{text!r} is not a legal move"


def read_move(game: Game, state: GameState, player: int, ask: Callable[[str], str], say: Callable[[str], None]) -> int:
    """Ask until the player types a legal move; ``q`` raises :class:`Quit`."""
    legal = np.flatnonzero(state.legal_mask(player))
    while True:
        text = ask(f"Your move (player {player}; id or name, ? for the list, q to quit): ")
        if text.strip().lower() in ("q", "quit", "exit"):
            raise Quit
        if text.strip() in ("?", "help", ""):
            say(legal_moves_text(game, legal))
            continue
        action, problem = parse_move(game, text, legal)
        if action is not None:
            return action
        say(f"{problem}; {legal_moves_text(game, legal)}")


def play(
    game: Game,
    opponent,
    human_seat: int,
    seed: int,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> GameState:
    """One game: the person in ``human_seat``, ``opponent`` everywhere else. Returns the final state.

    The board is drawn as the person's seat sees it (``GameState.render_for``: no hidden
    cards, no other player's roll), before each of their moves and again after it when
    another player replies. In a game of simultaneous moves the other players' choices
    are told only once the round has resolved, as at the table.
    """
    opponent.reset(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    while not state.is_terminal():
        told = []  # the round's moves, told when the round resolves (simultaneous games)
        for player in state.acting_players():
            if player == human_seat:
                say(state.render_for(human_seat))
                action = read_move(game, state, player, ask, say)
                move = f"You play {action} ({game.action_name(action)})."
            else:
                action = opponent.act(state.observe(player), state.legal_mask(player))
                move = f"Player {player} ({opponent.name}) plays {action} ({game.action_name(action)})."
            state.apply(player, action)
            if game.simultaneous and player != human_seat:
                told.append(move)
                continue
            say(move)
            if (
                player == human_seat
                and not game.simultaneous
                and not state.is_terminal()
                and human_seat not in state.acting_players()
            ):
                say(state.render_for(human_seat))  # the person's move on the board, before the reply
        for move in told:
            say(move)
    say(state.render_for(human_seat))
    say(final_words(state, human_seat))
    return state


def final_words(state: GameState, seat: int) -> str:
    """The last line of a game: the final score in solitaire (nobody to beat), else the outcome."""
    if state.game.num_players == 1:
        return f"Game over: your final score is {state.scores()[seat]:g}."
    return outcome_words(state, seat)
