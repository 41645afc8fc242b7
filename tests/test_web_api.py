"""The web page's JSON API (``training/web/app.py``) through Starlette's ASGI test client:
games played to the end through it, refusals as one-line 4xx errors that change nothing,
agents only from the server's list, sessions capped and expiring, and a watched game
that is the game ``agents.match.play_game`` plays from the same seed."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from agents.match import play_game
from agents.registry import make_agent
from envs.games.six_hundred import SCORE as SIX_HUNDRED_SCORE
from envs.games.six_hundred import SixHundred, lock_action
from envs.registry import ENVS, make_game
from training import serve
from training.records import game_record
from training.web import catalogue
from training.web.app import create_app
from training.web.tables import sheet_game

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette's note that its TestClient will move to httpx2
    from starlette.testclient import TestClient

#: Quick settings of every game for whole games through the API.
QUICK = {
    "inverted_dice": ({}, ["human"]),
    "six_hundred": ({}, ["human"]),
    "invers": ({"max_plies": 30}, ["human", "greedy"]),
    "roll_five": ({"num_players": 3, "mode": "tournament"}, ["random", "human", "heuristic"]),
    "lost_dice": ({"rolls_per_player": 3}, ["human", "heuristic"]),
    "keldice": ({"rolls_per_player": 3}, ["heuristic", "human"]),
}


@pytest.fixture
def client(tmp_path):
    run = tmp_path / "checkpoints" / "invers" / "my_run"
    run.mkdir(parents=True)
    (run / "model.zip").write_bytes(b"not a model")  # listed as a run folder; loading it fails cleanly
    with TestClient(create_app(tmp_path / "checkpoints", max_sessions=4, ttl_s=60)) as test_client:
        yield test_client


def new_game(client, env, options=None, seats=None, seed=1, status=201):
    response = client.post("/api/sessions", json={"env": env, "options": options or {}, "seats": seats, "seed": seed})
    assert response.status_code == status, response.text
    return response.json()


def play_out(client, view):
    """Play the game to its end: the first legal move for the person, one request per agent move."""
    while view["next"] != "over":
        if view["next"] == "human":
            response = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][0]["action"]})
        else:
            response = client.post(f"/api/sessions/{view['id']}/advance")
        assert response.status_code == 200, response.text
        view = response.json()
    return view


@pytest.mark.parametrize("env", sorted(ENVS))
def test_a_whole_game_of_every_env_through_the_api_and_its_record_replays(client, env):
    options, seats = QUICK[env]
    view = play_out(client, new_game(client, env, {"num_players": len(seats), **options}, seats))
    assert view["over"] and view["result"] and view["legal"] == []
    assert len(view["returns"]) == len(seats)
    outcome = "over" if len(seats) == 1 else {1: "win", 0: "draw", -1: "loss"}[int(np.sign(view["returns"][0]))]
    assert view["outcome"] == outcome  # the person's seat, 0: the page colours the result by it
    text = client.get(f"/api/sessions/{view['id']}/record").text
    record, states = game_record.parse(text)
    assert states[-1].is_terminal() and states[-1].scores().tolist() == view["scores"]
    replay = client.post("/api/replays", content=text)
    assert replay.status_code == 201, replay.text
    last = client.get(f"/api/replays/{replay.json()['id']}?step={len(record.moves)}").json()
    assert (
        last["over"]
        and last["table"] == client.get(f"/api/replays/{replay.json()['id']}?step={len(record.moves)}").json()["table"]
    )
    assert [m["action"] for m in last["moves"]] == [a for _, a in record.moves]


def test_the_catalogue_offers_bots_shipped_networks_and_run_folders(client):
    games = {g["env"]: g for g in client.get("/api/games").json()["games"]}
    assert set(games) == set(ENVS)
    assert games["invers"]["agents"][:3] == ["human", "random", "greedy"]
    assert "ppo" in games["invers"]["agents"] and "run:my_run" in games["invers"]["agents"]
    assert "ppo" in games["keldice"]["agents"]
    assert "td" in games["six_hundred"]["agents"]  # a turn-value network is shipped for Six Hundred
    assert "td" in games["lost_dice"]["agents"]  # and for solo Lost Dice
    assert "td" in games["keldice"]["agents"]  # and for solo Keldice
    assert "td" not in games["invers"]["agents"] and "td" not in games["roll_five"]["agents"]  # none for these
    # not dice_file (a file on the server), nor variant (Keldice is a game of its own)
    assert [o["name"] for o in games["lost_dice"]["options"]] == ["rolls_per_player"]
    rolls = games["lost_dice"]["options"][0]
    assert rolls["label"] == "Rolls per player" and rolls["defaults"] == {"1": 30, "2": 25, "3": 20, "4": 20}
    assert "defaults" not in games["keldice"]["options"][0]  # 20 at every table size
    mode = games["roll_five"]["options"][0]
    assert [c["value"] for c in mode["choices"]] == ["casual", "tournament"]
    assert mode["label"] == "Ties for the most pairs"


def test_a_game_without_a_shipped_network_is_offered_none(client, monkeypatch):
    shipped = catalogue.shipped_envs
    monkeypatch.setattr(catalogue, "shipped_envs", lambda kind="ppo": [e for e in shipped(kind) if e != "keldice"])
    games = {g["env"]: g for g in client.get("/api/games").json()["games"]}
    assert not {"ppo", "ppo+search"} & set(games["keldice"]["agents"])
    assert "ppo" in games["lost_dice"]["agents"]


def test_a_table_is_offered_only_the_agents_that_can_sit_at_it(client):
    def seating(env, options):
        """The table's seating once every agent is built (the optimal agent may be solving: asked again)."""
        while True:
            answer = client.post("/api/agents", json={"env": env, "options": options})
            assert answer.status_code == 200, answer.text
            if not answer.json()["preparing"]:
                return answer.json()

    solitaire = seating("inverted_dice", {"num_players": 1})
    assert {"optimal", "ppo", "td"} <= set(solitaire["agents"])
    assert solitaire["refused"]["ppo+search"]["reason"] == "plays two-player games with nothing hidden (Invers) only"
    assert "plays two-player games only" in solitaire["refused"]["ppo+search"]["detail"]
    pair = seating("inverted_dice", {"num_players": 2})
    assert pair["agents"] == ["human", "random", "heuristic"]
    assert set(pair["refused"]) == {"optimal", "ppo", "ppo+search", "td"}
    assert pair["refused"]["ppo"]["reason"] == "trained for 1 player; this table has 2 players"  # a player's words
    assert "expects observations" in pair["refused"]["ppo"]["detail"]  # and the server's, behind them
    assert pair["refused"]["td"]["reason"] == "plays solitaire only; this table has 2 players"
    assert not any(str(Path.cwd()) in why["detail"] for why in pair["refused"].values())  # no server path
    invers = seating("invers", {})
    assert {"search", "ppo", "ppo+search"} <= set(invers["agents"])
    assert list(invers["refused"]) == ["run:my_run"] and "unreadable" in invers["refused"]["run:my_run"]["detail"]
    assert invers["refused"]["run:my_run"]["reason"] == "its trained network cannot be loaded for this table"
    assert "ppo" in seating("keldice", {"num_players": 2})["agents"]
    assert "td" in seating("lost_dice", {"num_players": 1})["agents"]  # the solo game's trained agent
    assert seating("lost_dice", {"num_players": 2})["refused"]["td"]["reason"] == (
        "plays solitaire only; this table has 2 players"
    )
    assert "ppo" in seating("keldice", {"num_players": 3})["refused"]
    assert "td" in seating("keldice", {"num_players": 1})["agents"]  # solo Keldice's trained agent
    assert seating("keldice", {"num_players": 2})["refused"]["td"]["reason"] == (
        "plays solitaire only; this table has 2 players"
    )
    for seats in (["human", "td"], ["human", "ppo"]):  # what is not offered does not start either
        new_game(client, "inverted_dice", {"num_players": 2}, seats, status=400)
    assert client.post("/api/agents", json={"options": {}}).json()["error"].startswith("the request names no game")
    assert client.post("/api/agents", json={"env": "invers", "seats": []}).status_code == 400


def test_a_watched_game_is_the_game_play_game_plays_from_the_same_seed(client):
    seats = ["heuristic", "random", "search"]
    view = play_out(client, new_game(client, "roll_five", {"num_players": 3}, seats, seed=12))
    game = make_game("roll_five", num_players=3)
    state, history = play_game(game, [make_agent("roll_five", s, game) for s in seats], 12)
    assert [(m["player"], m["action"]) for m in view["moves"]] == list(history)
    assert view["scores"] == state.scores().tolist() and view["kind"] == "watch"


@pytest.mark.parametrize("env", ["lost_dice", "keldice"])
def test_a_solo_lost_dice_or_keldice_game_is_watched_as_td_plays_it(client, env):
    """The web page's solo Lost Dice or Keldice game with the shipped turn-value agent in the seat."""
    view = play_out(client, new_game(client, env, {"num_players": 1}, ["td"], seed=5))
    game = make_game(env, num_players=1)
    state, history = play_game(game, [make_agent(env, "td", game)], 5)
    assert [(m["player"], m["action"]) for m in view["moves"]] == list(history)
    assert view["scores"] == state.scores().tolist()


def test_the_solo_lost_dice_log_shows_each_throw_and_what_a_pass_costs(client):
    """A newcomer's solo game: every roll's line in the log names the three faces it threw, a pass
    says it spent a roll, the sheet's legend says what each start of a turn costs, and a replay of
    the game tells the same outcomes."""
    view = new_game(client, "lost_dice", {"num_players": 1}, ["human"], seed=3)
    assert "pass spends it without throwing" in [p for p in view["table"] if p["type"] == "sheet"][0]["legend"]
    names = {m["name"]: m["action"] for m in view["legal"]}
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": names["pass"]}).json()
    assert view["moves"][-1]["outcome"] == "a roll spent without throwing, 29 left"
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": names["roll"]}).json()
    colours = [f["colour"] for p in view["table"] if p["type"] == "dice" for f in p["faces"]]
    thrown = view["moves"][-1]["outcome"]
    assert re.fullmatch(r"threw [1-6$]/[RYBGWK] [1-6$]/[RYBGWK] [1-6$]/[RYBGWK]", thrown), thrown
    assert [face.split("/")[1] for face in thrown.split()[1:]] == colours  # the dice on the table
    view = play_out(client, view)
    rolls = [m for m in view["moves"] if m["name"] == "roll"]
    assert len(rolls) == 29 and all(m["outcome"].startswith("threw ") for m in rolls)
    assert all(m["outcome"] == "" for m in view["moves"] if m["name"] not in ("roll", "pass"))
    replay = client.post("/api/replays", content=client.get(f"/api/sessions/{view['id']}/record").text).json()
    step = client.get(f"/api/replays/{replay['id']}", params={"step": replay["length"]}).json()
    assert [m["outcome"] for m in step["moves"]] == [m["outcome"] for m in view["moves"]]


@pytest.mark.parametrize(
    "request_body, message",
    [
        ({"env": "chess", "seats": ["human"]}, "unknown game 'chess'"),
        ({"env": "invers", "seats": ["human", "grandmaster"]}, "unknown agent 'grandmaster' for invers"),
        ({"env": "invers", "seats": ["human", "agents.invers.greedy:InversGreedy"]}, "unknown agent"),
        ({"env": "invers", "seats": ["human", "/etc/passwd"]}, "unknown agent '/etc/passwd'"),
        ({"env": "invers", "seats": ["human", "ppo:path=/tmp"]}, "unknown agent 'ppo:path=/tmp'"),
        ({"env": "invers", "seats": ["human", "run:../../etc"]}, "unknown agent 'run:../../etc'"),
        ({"env": "invers", "seats": ["human", "human"]}, "at most one seat"),
        ({"env": "invers", "seats": ["human"]}, "seats must list who sits in each of the 2 seats"),
        (
            {"env": "invers", "options": {"colour": "blue"}, "seats": ["human", "random"]},
            "Invers has no option 'colour'",
        ),
        (
            {"env": "invers", "options": {"max_plies": "many"}, "seats": ["human", "random"]},
            "Move limit (plies, then a draw) must be a whole number, got 'many'",
        ),
        (
            {"env": "invers", "options": {"max_plies": 1_000_000_000}, "seats": ["human", "random"]},
            "Move limit (plies, then a draw) must be from 1 to 4000 on the web page",
        ),
        (
            {"env": "invers", "options": {"max_plies": 0}, "seats": ["human", "random"]},
            "Move limit (plies, then a draw) must be from 1 to 4000 on the web page",
        ),
        ({}, 'the request names no game (its field "env")'),
        (
            {"env": "roll_five", "options": {"mode": "blitz"}, "seats": ["human", "random"]},
            "Ties for the most pairs must be one of casual, tournament, got 'blitz'",
        ),
        (
            {"env": "roll_five", "options": {"num_players": 9}, "seats": ["human"] * 9},
            "Roll Five is played by 2 to 4 players, not 9",
        ),
        (
            {"env": "lost_dice", "options": {"variant": "keldice"}, "seats": ["human", "random"]},
            "is the game itself: Keldice is in the game menu",
        ),
        (
            {"env": "lost_dice", "options": {"dice_file": "/etc/passwd"}, "seats": ["human", "random"]},
            "names a file on the server",
        ),
        ({"env": "invers", "seats": ["human", "random"], "seed": -1}, "seed must be an integer"),
        ({"env": "invers", "seats": ["human", "random"], "code": "import os"}, "unknown field(s) ['code']"),
        ({"env": "invers", "seats": ["human", "run:my_run"]}, "my_run"),  # listed, but holds no model: refused, named
    ],
)
def test_bad_requests_are_one_line_4xx_errors(client, request_body, message):
    response = client.post("/api/sessions", json=request_body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert message in error and "\n" not in error
    assert len(client.app.state.store) == 0


def test_an_illegal_or_out_of_turn_move_is_refused_with_the_rules_message_and_changes_nothing(client):
    view = new_game(client, "roll_five", {}, ["human", "heuristic"])
    illegal = next(a for a in range(32) if a not in {m["action"] for m in view["legal"]})
    before = client.get(f"/api/sessions/{view['id']}").json()
    for body, status, words in [
        ({"action": illegal}, 400, "is illegal for player 0 now; legal:"),
        ({"action": 99}, 400, "outside the action space 0..31"),
        ({"action": "bid High"}, 400, "an action must be an integer id"),
        ({}, 400, 'the body must give the move: {"action": <id>}'),
    ]:
        response = client.post(f"/api/sessions/{view['id']}/move", json=body)
        assert response.status_code == status and words in response.json()["error"], response.text
    assert client.get(f"/api/sessions/{view['id']}").json() == before
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][0]["action"]}).json()
    assert view["next"] == "agent"
    response = client.post(f"/api/sessions/{view['id']}/move", json={"action": 0})
    assert response.status_code == 409 and "player 0 is not to act" in response.json()["error"]
    assert client.get(f"/api/sessions/{view['id']}").json() == view
    view = client.post(f"/api/sessions/{view['id']}/advance").json()
    response = client.post(f"/api/sessions/{view['id']}/advance")
    assert response.status_code == 409 and "seat 0 (you) is to act" in response.json()["error"]


def test_the_status_counts_the_sessions_held_against_the_cap(client):
    def status():
        return client.get("/api/status").json()

    assert status() == {"sessions": 0, "max_sessions": 4, "session_ttl_s": 60.0}
    first = new_game(client, "six_hundred", {}, ["random"])
    new_game(client, "six_hundred", {}, ["random"])
    assert status()["sessions"] == 2
    client.delete(f"/api/sessions/{first['id']}")
    assert status()["sessions"] == 1
    store = client.app.state.store
    now = store.clock()
    store.clock = lambda: now + 61
    assert status()["sessions"] == 0


def test_the_record_of_a_game_in_play_waits_for_its_end(client):
    view = new_game(client, "roll_five", {}, ["human", "random"])
    response = client.get(f"/api/sessions/{view['id']}/record")
    assert response.status_code == 409 and "once it is over" in response.json()["error"]


def test_sessions_are_capped_expire_and_unknown_ids_are_404(client):
    store = client.app.state.store
    ids = [new_game(client, "six_hundred", {}, ["random"])["id"] for _ in range(4)]
    response = client.post("/api/sessions", json={"env": "six_hundred", "seats": ["random"]})
    assert response.status_code == 503 and "holds 4 sessions, its limit" in response.json()["error"]
    assert client.delete(f"/api/sessions/{ids[0]}").status_code == 204
    assert client.get(f"/api/sessions/{ids[0]}").status_code == 404
    new_game(client, "six_hundred", {}, ["random"])
    now = store.clock()
    store.clock = lambda: now + 61  # every session unused for longer than its 60 s
    response = client.get(f"/api/sessions/{ids[1]}")
    assert response.status_code == 404 and "expired" in response.json()["error"]
    assert len(store) == 0


def test_a_bad_record_is_refused_naming_its_line(client):
    good = new_game(client, "invers", {"max_plies": 6}, ["random", "greedy"])
    text = client.get(f"/api/sessions/{play_out(client, good)['id']}/record").text
    lines = text.splitlines()
    cases = [
        ("", "empty"),
        ("not json\n", "line 1: not JSON"),
        (lines[0].replace('"invers"', '"chess"') + "\n", "unknown env 'chess'"),
        (lines[0].replace('"version": 1', '"version": 9') + "\n", "version 9 is not supported"),
        ("\n".join([lines[0], lines[1].replace('"action": ', '"action": 1000 + ')] + lines[2:]), "line 2"),
        ("\n".join([lines[0], lines[2], lines[1]] + lines[3:]), "refused by the rules"),
        ("\n".join(lines[:-1] + [lines[-1].replace("[", "[7, ", 1)]), "differ from the replay's"),
        (
            '{"format": "tabletop-game", "version": 1, "env": "lost_dice", '
            '"options": {"dice_file": "/etc/passwd"}, "seed": 0}',
            "names a file on the server",
        ),
    ]
    for body, words in cases:
        response = client.post("/api/replays", content=body)
        assert response.status_code == 400 and words in response.json()["error"], (words, response.text)
    replay = client.post("/api/replays", content=text).json()
    assert client.get(f"/api/replays/{replay['id']}?step=999").status_code == 404
    assert client.get(f"/api/replays/{replay['id']}?step=-1").status_code == 400
    assert client.post("/api/replays", content="x" * (2 << 20)).status_code == 413


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


def test_serve_refuses_bad_input_in_one_line(capsys, tmp_path):
    assert serve.main(["--port", "0"]) == 2
    assert capsys.readouterr().err == "error: --port must be 1..65535, got 0\n"
    afile = tmp_path / "file"
    afile.write_text("")
    assert serve.main(["--checkpoints", str(afile)]) == 2
    assert capsys.readouterr().err == f"error: --checkpoints {afile} is not a folder\n"
    assert serve.main(["--max-sessions", "0"]) == 2


def test_shipped_networks_and_the_user_s_run_folders_play_from_the_page(tmp_path):
    """``ppo`` and ``run:<folder>`` sit at the table. The seat menu listed the repository's own
    folders as runs too (``run:shipped`` beside ``ppo``, the kept ``run:distill_depth4``): only a
    user's runs are offered as runs."""
    repository = Path(__file__).resolve().parent.parent / "checkpoints"
    with TestClient(create_app(repository)) as client:
        games = {g["env"]: g for g in client.get("/api/games").json()["games"]}
        assert "ppo" in games["invers"]["agents"]
        assert not [agent for game in games.values() for agent in game["agents"] if agent.startswith("run:")]
    shutil.copytree(repository / "invers" / "shipped", tmp_path / "invers" / "my_run")
    shutil.copytree(repository / "lost_dice" / "shipped_3p", tmp_path / "lost_dice" / "my_3p")
    with TestClient(create_app(tmp_path)) as client:
        games = {g["env"]: g for g in client.get("/api/games").json()["games"]}
        assert "run:my_run" in games["invers"]["agents"] and "run:my_3p" in games["lost_dice"]["agents"]
        view = new_game(client, "invers", {}, ["run:my_run", "ppo"])
        assert view["kind"] == "watch"
        for _ in range(2):
            view = client.post(f"/api/sessions/{view['id']}/advance").json()
        assert [m["player"] for m in view["moves"]] == [0, 1]
        response = client.post(
            "/api/sessions",
            json={
                "env": "lost_dice",
                "options": {"num_players": 4},
                "seats": ["human", "run:my_3p", "random", "random"],
            },
        )
        assert response.status_code == 400 and "\n" not in response.json()["error"]


def test_the_favicon_is_served_where_browsers_ask_for_it(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert "/static/favicon.svg" in client.get("/").text


def test_six_hundreds_locked_dice_are_explained_beside_them():
    state = SixHundred().new_initial_state(np.random.default_rng(0))
    (dice,) = [part for part in sheet_game(state, 0) if part["type"] == "dice"]
    assert dice["locked"] == 0 and dice["note"] == ""
    state.apply(0, lock_action((0, 1)))
    (dice,) = [part for part in sheet_game(state, 0) if part["type"] == "dice"]
    assert dice["locked"] == 2 and "locked" in dice["note"]


def test_a_reroll_names_the_dice_it_rolls_again(client):
    """Each reroll (Inverted Dice) or lock (Six Hundred) move lists the positions of the dice
    it rolls again, which the page picks it by; other moves carry nothing more."""
    view = new_game(client, "inverted_dice", {}, ["human"])
    (dice,) = [part for part in view["table"] if part["type"] == "dice"]
    assert dice["faces"] == [1, 3, 4, 5, 6]
    legal = {move["action"]: move for move in view["legal"]}
    assert legal[0] == {"action": 0, "name": "reroll dice 1", "reroll": [0]}
    assert legal[8] == {"action": 8, "name": "reroll dice 1,4", "reroll": [0, 3]}
    assert legal[30] == {"action": 30, "name": "reroll dice 1,2,3,4,5", "reroll": [0, 1, 2, 3, 4]}
    assert legal[31] == {"action": 31, "name": "score the inverted sum"}
    assert sorted(tuple(m["reroll"]) for m in view["legal"] if "reroll" in m) == sorted(
        tuple(k for k in range(5) if subset >> k & 1) for subset in range(1, 32)
    )  # every non-empty set of the five dice, once
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": 8}).json()
    assert view["moves"][-1]["name"] == "reroll dice 1,4" and "roll 2/3" in view["table"][0]["text"]

    view = new_game(client, "six_hundred", {}, ["human"])
    view = client.post(f"/api/sessions/{view['id']}/move", json={"action": lock_action((0, 1))}).json()
    (dice,) = [part for part in view["table"] if part["type"] == "dice"]
    assert dice["faces"] == [1, 1, 2, 2, 5, 6] and dice["locked"] == 2
    legal = {move["action"]: move for move in view["legal"]}
    assert legal[0] == {"action": 0, "name": "roll the unlocked dice", "reroll": [2, 3, 4, 5]}
    assert legal[lock_action((2, 5))] == {
        "action": lock_action((2, 5)),
        "name": "lock dice 3,6 and roll the rest",
        "reroll": [3, 4],
    }
    assert not any(0 in m.get("reroll", []) or 1 in m.get("reroll", []) for m in view["legal"])  # locked dice stay
    assert lock_action((2, 3, 4, 5)) not in legal  # the last unlocked die is never locked: nothing would roll
    assert "reroll" not in legal[SIX_HUNDRED_SCORE]


def test_a_push_names_the_square_its_tile_enters_from(client):
    """Each Invers push carries the square off the board where the page draws its arrow."""
    view = new_game(client, "invers", {}, ["human", "greedy"])
    edges = {move["name"]: move["edge"] for move in view["legal"]}
    assert len(edges) == 24
    assert edges["row 1 →"] == [0, -1] and edges["row 4 ←"] == [3, 6]
    assert edges["column 2 ↓"] == [-1, 1] and edges["column 6 ↑"] == [6, 5]
    beside_rows = [(k, side) for k in range(6) for side in (-1, 6)]
    assert sorted(map(tuple, edges.values())) == sorted(beside_rows + [(side, k) for k, side in beside_rows])


@pytest.mark.parametrize(
    "env, word, legend",
    [
        ("six_hundred", "ok", "ok: the rungs written so far can still rise"),
        ("lost_dice", "·", "(the numbers' sum − 20) × (1 + investments)"),
        ("keldice", "·", "6 or more: +10"),
        ("inverted_dice", None, ""),
    ],
)
def test_a_sheet_s_words_are_explained_under_it(client, env, word, legend):
    view = new_game(client, env, {"num_players": 2}, ["human", "random"])
    (sheet,) = [part for part in view["table"] if part["type"] == "sheet"]
    assert legend in sheet["legend"] and (sheet["legend"] == "") == (legend == "")
    if word is not None:  # the word the legend explains is on the sheet
        assert any(word in cell for row in sheet["rows"] for cell in row[1:])


def test_an_error_never_shows_a_path_of_the_server(client):
    """The shipped Six Hundred network plays solitaire: asked for at two players, it is refused
    naming its checkpoint from checkpoints/ on, not where the server keeps it."""
    request_body = {"env": "six_hundred", "options": {"num_players": 2}, "seats": ["human", "ppo"]}
    response = client.post("/api/sessions", json=request_body)
    assert response.status_code == 400, response.text
    message = response.json()["error"]
    assert "checkpoints/six_hundred/shipped" in message and " /" not in message and "'/" not in message
