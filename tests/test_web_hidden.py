"""No hidden Roll Five card or roll reaches the browser before the rules reveal it.

Whole games are played through the API with a person in one seat; every answer the
browser gets (the new game, each move, each agent move, each look at the game) is
checked two ways against the server's state:

* directly: the other players' cards are face down (None) and their rolls and commits
  absent until the game is over, and their moves of a round are told only once it resolves;
* by counterfactual: the answer is computed again from a copy of the server's state in
  which every other player's cards and roll are different; it must be the same, byte for
  byte, so nothing in it (table, text, moves, scores) depends on what the seat cannot see.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from training.web.app import create_app
from training.web.sessions import GameSession, seat_view

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette's note that its TestClient will move to httpx2
    from starlette.testclient import TestClient


def with_other_hands_changed(session: GameSession, rng: np.random.Generator):
    """A copy of the session's state in which every seat but the person's holds other cards and another roll."""
    state = session.state.clone()
    cards = [list(row) for row in state._cards]
    rolls = [tuple(roll) for roll in state._roll]
    for p in range(state.game.num_players):
        if p != session.human:
            cards[p] = [int(v) for v in rng.integers(1, 7, size=len(cards[p]))]
            rolls[p] = tuple(int(v) for v in rng.integers(1, 7, size=len(rolls[p])))
    state._cards, state._roll = cards, rolls
    return state


def check_answer(session: GameSession, answer: dict, rng: np.random.Generator) -> None:
    state = session.state
    viewer = session.human
    rows = next(part for part in answer["table"] if part["type"] == "cards")["rows"]
    for row in rows:
        p = row["player"]
        if p == viewer:
            assert row["cards"] == list(state.cards(p))
        elif not state.is_terminal():
            assert row["cards"] == [None] * 5 and row["roll"] is None and row["committed"] is None
            assert "bid" not in row
        else:
            assert row["cards"] == list(state.cards(p))  # revealed at the end
    told = [(m["player"], m["action"]) for m in answer["moves"]]
    assert told == [m for n, m in enumerate(session.moves) if n < session.visible or m[0] == viewer]
    if not state.is_terminal():
        again = seat_view(
            session.env,
            with_other_hands_changed(session, rng),
            viewer,
            session.seats,
            session.moves,
            session.visible,
            session.outcomes,
        )
        view = {k: answer[k] for k in again}
        assert json.dumps(view, sort_keys=True) == json.dumps(again, sort_keys=True)


@pytest.mark.parametrize(
    "seed, seats",
    [(3, ["human", "heuristic"]), (8, ["search", "human", "random"]), (21, ["random", "heuristic", "random", "human"])],
)
def test_no_other_hand_or_roll_reaches_the_browser_before_the_reveal(seed, seats):
    rng = np.random.default_rng(seed)
    app = create_app("no-checkpoints")
    with TestClient(app) as client:
        answer = client.post(
            "/api/sessions",
            json={"env": "roll_five", "options": {"num_players": len(seats)}, "seats": seats, "seed": seed},
        ).json()
        session = app.state.store.get(answer["id"])
        answers = 1
        check_answer(session, answer, rng)
        while answer["next"] != "over":
            if answer["next"] == "human":
                action = answer["legal"][int(rng.integers(len(answer["legal"])))]["action"]
                answer = client.post(f"/api/sessions/{answer['id']}/move", json={"action": action}).json()
            else:
                answer = client.post(f"/api/sessions/{answer['id']}/advance").json()
            check_answer(session, answer, rng)
            check_answer(session, client.get(f"/api/sessions/{answer['id']}").json(), rng)
            answers += 2
        assert session.state.is_terminal() and answers > 20
        # the counterfactual is not vacuous: a spectator's view does change with the cards
        changed = with_other_hands_changed(session, rng)
        assert (
            seat_view("roll_five", changed, None, seats, [], 0, [])["table"]
            != seat_view("roll_five", session.state, None, seats, [], 0, [])["table"]
        )


def session_id(answer: dict) -> str:
    return answer["id"]
