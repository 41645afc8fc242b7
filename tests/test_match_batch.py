"""The harness's games in batch (``batch=``): the very games it plays one at a time, for bots written over arrays."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from agents.base import Agent
from agents.match import pairing_seats, play_games_in_batch
from agents.registry import make_agent
from envs.registry import make_game
from tests.test_benchmark import USER_MODULE
from training import evaluate
from training.evaluation.harness import evaluate_pairing, evaluate_solitaire, played_in_batches, tables_one_at_a_time

PAIRINGS = [
    ("lost_dice", {"num_players": 3}, "heuristic", "search", 0),
    ("keldice", {}, "search", "random", 3),  # the random agent draws per game; random openings too
    ("roll_five", {"num_players": 3}, "heuristic", "random", 0),  # simultaneous moves
    ("inverted_dice", {"num_players": 2}, "heuristic", "random", 0),
]


@pytest.mark.parametrize("env, options, candidate, opponent, plies", PAIRINGS, ids=[p[0] for p in PAIRINGS])
def test_a_pairing_in_batch_plays_the_games_of_one_at_a_time(env, options, candidate, opponent, plies):
    game = make_game(env, **options)
    played = {}
    for batch in (0, 7):  # 7: chunks that do not divide the games, seats rotating inside them
        records = []
        result = evaluate_pairing(
            game,
            (candidate, make_agent(env, candidate, game, seed=1)),
            (opponent, make_agent(env, opponent, game, seed=2)),
            24,  # whole openings at 2 and 3 players
            500,
            plies,
            on_game=lambda labels, seed, history, state, records=records: records.append((labels, seed, history)),
            batch=batch,
        )
        played[batch] = (records, result.outcomes.tolist(), result.seats.tolist())
    assert played[0] == played[7]
    assert len({history for _, _, history in played[0][0]}) >= 20  # an opening's seatings may play alike


def test_solitaire_in_batch_plays_the_games_of_one_at_a_time():
    game = make_game("six_hundred")
    agents = {
        "heuristic": make_agent("six_hundred", "heuristic", game),
        "random": make_agent("six_hundred", "random", game),
    }
    one, batched = (evaluate_solitaire(game, agents, range(30, 42), batch=batch) for batch in (0, 5))
    for a, b in zip(one, batched):
        np.testing.assert_array_equal(a.scores, b.scores)
        assert a.stats.keys() == b.stats.keys() and all(np.array_equal(a.stats[k], b.stats[k]) for k in a.stats)


class OneAtATime(Agent):
    """Uniformly random, with ``act`` only: an agent that cannot act in batch, as a user may write one."""

    name = "one-at-a-time"

    def act(self, observation, action_mask):
        return int(self.rng.choice(np.flatnonzero(action_mask)))


def test_an_agent_that_cannot_act_in_batch_is_refused_by_name():
    game = make_game("invers")
    with pytest.raises(ValueError, match="cannot act in batch"):
        play_games_in_batch(game, [[OneAtATime(game), make_agent("invers", "random", game)]], [0])


def test_a_table_with_an_agent_that_cannot_act_in_batch_falls_back_alone_and_plays_the_same_games():
    game = make_game("lost_dice")
    heuristic, alone = make_agent("lost_dice", "heuristic", game, seed=1), OneAtATime(game, seed=2)
    tables = [
        ("bots", lambda g: pairing_seats(game, heuristic, make_agent("lost_dice", "random", game), g)),
        ("user", lambda g: pairing_seats(game, alone, heuristic, g)),
    ]
    assert tables_one_at_a_time(tables) == ["user"]
    seeds = list(range(300, 311))
    played = {
        batch: [(i, key, history) for i, key, (_, history) in played_in_batches(game, tables, seeds, 0, batch)]
        for batch in (0, 4)
    }
    assert played[0] == played[4]


def test_the_evaluation_command_plays_in_batch_by_default_and_alone_where_an_agent_cannot(
    tmp_path, capsys, monkeypatch
):
    common = ["--games", "6", "--overwrite"]
    for batch in ("0", "4"):
        out = tmp_path / batch
        assert (
            evaluate.main(
                ["--env", "lost_dice", "--agents", "heuristic", "random", "--out", str(out), "--batch", batch, *common]
            )
            == 0
        )
    assert (tmp_path / "0" / "summary.csv").read_text() == (tmp_path / "4" / "summary.csv").read_text()
    assert "played one at a time (--batch 0)" in (tmp_path / "0" / "report.md").read_text()
    assert "4 at a time as rows of the batched twin" in (tmp_path / "4" / "report.md").read_text()
    (tmp_path / "slow_agents.py").write_text(textwrap.dedent(USER_MODULE))  # a user's Uniform: act only
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "slow_agents", raising=False)
    summaries = {}
    for batch in ("0", "4"):
        out = tmp_path / f"user-{batch}"
        agents = ["--agents", "slow_agents:Uniform", "heuristic", "random"]
        assert evaluate.main(["--env", "lost_dice", *agents, "--out", str(out), "--batch", batch, *common]) == 0
        summaries[batch] = (out / "summary.csv").read_text()
    assert summaries["0"] == summaries["4"]
    report = (tmp_path / "user-4" / "report.md").read_text()
    assert "except every game of `slow_agents:Uniform`, played one at a time: it has no act_batch" in report
