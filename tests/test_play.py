"""Playing in the terminal: moves by id or name, bad moves refused with the legal ones, bad
command lines refused in one line with exit code 2."""

from __future__ import annotations

import numpy as np
import pytest

from agents import registry, shipped
from agents.base import RandomAgent
from envs.games.invers import Invers, InversState
from envs.games.roll_five import RollFive
from envs.games.six_hundred import SixHundred
from training import play
from training.terminal import game as terminal
from training.terminal.game import parse_move, read_move


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
    # the arrows as a keyboard types them ("row 1 right" was "not a legal move")
    assert parse_move(game, "row 1 left", legal) == parse_move(game, "row 1 <", legal) == (6, "")
    assert parse_move(game, "column 6 up", legal) == parse_move(game, "column 6 ^", legal) == (23, "")
    assert parse_move(game, "row 1 right", legal) == parse_move(game, "row 1 >", legal) == (0, "")
    action, problem = parse_move(game, "99", legal)
    assert action is None and "0..23" in problem


def test_a_bad_move_is_refused_with_the_legal_ones_and_asked_again():
    game = Invers()
    board = "yryryY" + "ryryry" * 4 + "ryryrR"
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
    assert (
        play.main(["--env", "invers", "--opponent", "greedy", "--seat", "1"], ask=scripted("q"), say=said.append) == 0
    )
    assert any("plays" in line for line in said) and said[-1] == "Game abandoned."

    moves = []  # a person who always types the id of the first legal move
    monkeypatch.setattr(
        terminal,
        "read_move",
        lambda game, state, player, ask, say: moves.append(player) or int(np.flatnonzero(state.legal_mask(player))[0]),
    )
    game = Invers(max_plies=6)
    final = terminal.play(game, RandomAgent(game), 0, seed=0, say=said.append)
    assert final.is_terminal() and moves == [0, 0, 0]
    assert said[-1] == "A draw: the game reached its length limit, where the scores do not count."


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env", "nope"], "error: --env: unknown env 'nope'; known envs: invers, inverted_dice"),
        (
            ["--env", "invers", "--opponent", "nope"],
            "error: --opponent: unknown agent 'nope' for invers: "
            "expected one of ['random', 'greedy', 'search', 'ppo', 'ppo+search']",
        ),
        (
            ["--env", "invers", "--opponent", "search:width=3"],
            "error: --opponent: agent spec 'search:width=3': got an unexpected keyword argument 'width'",
        ),
        (["--env", "invers", "--seat", "2"], "error: --seat must be in 0..1 for invers, got 2"),
        (
            ["--env", "invers", "--opponent", "ppo"],
            "error: agent 'ppo': no network is shipped for invers (networks are shipped for ",
        ),
    ],
    ids=["unknown env", "unknown agent", "unknown option", "bad seat", "missing shipped network"],
)
def test_bad_input_is_one_line_and_exit_code_2(argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(
        registry, "shipped_network", lambda env, **options: tmp_path / "no_network"
    )  # as if none were shipped
    asked = []
    assert play.main(argv, ask=asked.append, say=asked.append) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err
    assert not asked  # no game was started


def test_anything_else_keeps_its_traceback(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a bug, not bad input")

    monkeypatch.setattr(play, "play", broken)
    with pytest.raises(ValueError, match="a bug"):
        play.main(["--env", "invers"], ask=scripted("q"), say=print)


def test_a_missing_shipped_network_names_the_envs_that_have_one_and_how_to_train_one(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(
        registry, "shipped_network", lambda env, **options: tmp_path / "no_network"
    )  # as if none were shipped
    assert play.main(["--env", "roll_five", "--opponent", "ppo"], ask=scripted("q"), say=print) == 2
    assert capsys.readouterr().err == (
        "error: agent 'ppo': no network is shipped for roll_five "
        f"(networks are shipped for {', '.join(shipped.shipped_envs())}); "
        "train one with `python training/train.py --env roll_five` "
        "and play it as ppo:path=checkpoints/roll_five/<run>\n"
    )


def first_legal(game, state, player, ask, say):
    return int(np.flatnonzero(state.legal_mask(player))[0])


@pytest.mark.parametrize("seat", [0, 1])
def test_roll_five_shows_the_person_only_what_their_seat_may_see(seat, monkeypatch):
    monkeypatch.setattr(terminal, "read_move", first_legal)
    game, said = RollFive(), []
    final = terminal.play(game, RandomAgent(game, seed=1), seat, seed=3, say=said.append)
    other = 1 - seat
    boards = [line for line in said if line.startswith("Roll Five")]
    for board in boards[:-1]:  # every board before the reveal
        rows = board.splitlines()
        assert rows[1 + other].startswith(f"player {other}: cards/dice ?/") and "roll" not in rows[1 + other]
        assert "committed" not in rows[1 + other]  # nor whether the opponent has chosen
        assert rows[1 + seat].startswith(f"player {seat} (you): cards/dice " + str(final.cards(seat)[0]))
        assert ("roll" in rows[1 + seat]) == ("bid" not in rows[0])  # the person's own roll, on every placing turn
    assert str(final.cards(other)[0]) + "/" in boards[-1].splitlines()[1 + other]  # revealed at the end
    # the opponent's choice is told only once the round has resolved: after the person's own move
    moves = [line for line in said if line.startswith(("You play", f"Player {other}"))]
    assert (
        moves[:2] == [moves[0], moves[1]]
        and moves[0].startswith("You play")
        and moves[1].startswith(f"Player {other} (random) plays")
    )
    assert len(moves) == 12  # five placing turns and the bid, two moves each


def test_the_persons_move_is_on_the_board_before_the_reply(monkeypatch):
    monkeypatch.setattr(terminal, "read_move", first_legal)
    game, said = Invers(max_plies=6), []
    terminal.play(game, RandomAgent(game), 0, seed=0, say=said.append)
    first_move = said.index(next(line for line in said if line.startswith("You play")))
    assert said[first_move + 1] == play_board_after_first_move(game)
    assert said[first_move + 2].startswith("Player 1 (random) plays")


def play_board_after_first_move(game):
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(0, int(np.flatnonzero(state.legal_mask(0))[0]))
    return state.render_for(0)


def test_a_solitaire_game_ends_with_the_final_score(monkeypatch):
    monkeypatch.setattr(terminal, "read_move", first_legal)
    game, said = SixHundred(), []
    final = terminal.play(game, RandomAgent(game), 0, seed=0, say=said.append)
    assert said[-1] == f"Game over: your final score is {final.scores()[0]:g}."
    boards = [i for i, line in enumerate(said) if not line.startswith("You play")]
    assert all(b + 1 not in boards for b in boards[:-2])  # alone, the board is drawn once per move, not twice


def test_a_game_cut_off_by_max_plies_says_so_rather_than_seeming_won_on_points():
    state = Invers(max_plies=6).new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        (player,) = state.acting_players()
        state.apply(player, int(rng.choice(np.flatnonzero(state.legal_mask(player)))))
    assert state.is_truncated()
    assert terminal.final_words(state, 0) == "A draw: the game reached its length limit, where the scores do not count."
