"""Recorded games (``training/records/game_record.py``): written by ``tabletop record`` and the
evaluation, replayed from the seed by the rules to the same end."""

from __future__ import annotations

import json

import pytest

from agents.base import RandomAgent
from agents.match import play_game
from envs.registry import ENVS, make_game
from training import evaluate, record
from training.records import game_record
from training.records.game_record import RecordError


@pytest.mark.parametrize("env", sorted(ENVS))
def test_a_game_of_every_env_replays_from_its_record_to_the_same_end(env):
    game = make_game(env)
    final, history = play_game(game, [RandomAgent(game) for _ in range(game.num_players)], seed=5)
    text = game_record.record_of(env, game.options(), 5, ["random"] * game.num_players, history).text(final)
    header, *actions, end = (json.loads(line) for line in text.splitlines())
    assert header == {
        "format": "tabletop-game",
        "version": 1,
        "env": env,
        "options": game.options(),
        "seed": 5,
        "seats": ["random"] * game.num_players,
    }
    assert [(a["player"], a["action"]) for a in actions] == list(history)
    assert all(a["name"] == game.action_name(a["action"]) for a in actions)
    assert end == {"end": True, "scores": final.scores().tolist(), "returns": final.returns().tolist()}
    parsed, states = game_record.parse(text)
    assert parsed.moves == list(history) and len(states) == len(history) + 1
    assert states[-1] == final and states[-1].scores().tolist() == final.scores().tolist()


def test_the_replay_checks_the_rules_and_the_end(tmp_path):
    path = tmp_path / "game.jsonl"
    assert record.main(["--env", "roll_five", "--agent", "heuristic", "--players", "3", "--seed", "2", str(path)]) == 0
    recorded, states = game_record.read(path)
    assert len(states) == 19 and states[-1].is_terminal() and recorded.seats == ["heuristic"] * 3
    lines = path.read_text().splitlines()
    with pytest.raises(RecordError, match="the replayed game is not over"):
        game_record.parse("\n".join(lines[:5] + lines[-1:]))
    with pytest.raises(
        RecordError, match="line 2: action 0 is named 'place 1 on card 1' by these rules, not 'bid High'"
    ):
        game_record.parse("\n".join([lines[0], '{"player": 0, "action": 0, "name": "bid High"}']))
    other_seed = lines[0].replace('"seed": 2', '"seed": 3')
    with pytest.raises(RecordError, match="refused by the rules"):
        game_record.parse("\n".join([other_seed, *lines[1:]]))  # other dice: the recorded placements do not fit
    with pytest.raises(RecordError, match="cannot read record"):
        game_record.read(tmp_path / "missing.jsonl")


def test_the_evaluation_records_its_games(tmp_path, capsys):
    folder = tmp_path / "games"
    code = evaluate.main(
        [
            "--env",
            "invers",
            "--agents",
            "greedy",
            "random",
            "--games",
            "2",
            "--out",
            str(tmp_path / "report"),
            "--env-kwargs",
            "{max_plies: 20}",
            "--record-games",
            str(folder),
        ]
    )
    assert code == 0, capsys.readouterr().err
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["greedy-vs-random-10000.jsonl", "random-vs-greedy-10000.jsonl"]  # one opening, both seats
    recorded, states = game_record.read(folder / names[1])
    assert recorded.seats == ["random", "greedy"] and recorded.options == {"num_players": 2, "max_plies": 20}
    assert states[-1].is_terminal()
    assert (
        evaluate.main(
            [
                "--env",
                "invers",
                "--agents",
                "greedy",
                "random",
                "--games",
                "2",
                "--out",
                str(tmp_path / "r2"),
                "--record-games",
                str(folder / names[0]),
            ]
        )
        == 2
    )
    assert "is a file; give a folder" in capsys.readouterr().err
