"""Playing in the terminal: moves by id or name, bad moves refused with the legal ones."""

from __future__ import annotations

import numpy as np

from envs.games.invers import Invers
from training import play
from training.play import parse_move, read_move


def scripted(*answers):
    replies = iter(answers)
    return lambda prompt: next(replies)


def test_moves_by_id_name_and_unique_beginning():
    game = Invers()
    legal = np.arange(24)
    assert parse_move(game, "7", legal) == (7, "")
    assert parse_move(game, "Row 1  ←", legal) == (6, "")
    assert parse_move(game, "column 6 ↑", legal) == (23, "")
    action, problem = parse_move(game, "row 1", legal)
    assert action is None and "could be any of" in problem
    action, problem = parse_move(game, "99", legal)
    assert action is None and "0..23" in problem


def test_a_bad_move_is_refused_with_the_legal_ones_and_asked_again():
    game = Invers()
    board = "yryryY" + "ryryry" * 4 + "ryryrR"
    from envs.games.invers import InversState

    state = InversState.from_position(game, board, hands="yr", to_move=0)
    legal = np.flatnonzero(state.legal_mask(0))
    illegal = next(a for a in range(24) if a not in legal)
    said = []
    action = read_move(game, state, 0, scripted(str(illegal), "nonsense", "?", str(legal[0])), said.append)
    assert action == legal[0]
    assert "is not legal now" in said[0] and "legal moves:" in said[0]
    assert "is not a legal move" in said[1] and said[2].startswith("legal moves:")


def test_a_whole_game_against_an_agent_and_quitting(monkeypatch):
    said = []
    assert play.main(["--env", "invers", "--opponent", "greedy", "--seat", "1"], ask=scripted("q"), say=said.append) == 0
    assert any("plays" in line for line in said) and said[-1] == "Game abandoned."

    from agents.base import RandomAgent

    moves = []  # a person who always types the id of the first legal move
    monkeypatch.setattr(play, "read_move", lambda game, state, player, ask, say: moves.append(player) or int(np.flatnonzero(state.legal_mask(player))[0]))
    game = Invers(max_plies=6)
    final = play.play(game, RandomAgent(game), 0, seed=0, say=said.append)
    assert final.is_terminal() and moves == [0, 0, 0] and said[-1] == "A draw."
