"""The evaluation's estimate of the time it has left holds from its first progress line.

A pairing of a search bot costs many times a pairing of quick bots; played one pairing
after the other, the first lines extrapolated from the quick pairings alone (the closing
evaluation of a short Invers run said 33 s and took 189 s). The harness now plays the games
of every pairing (every agent, in a one-player game) in rounds: these tests check that the
results are those of each pairing played alone, and the estimate on a fake clock, with
agents whose every game costs a fixed time on it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.registry import make_agent
from envs.core import Game
from envs.registry import make_game
from training.evaluation.harness import evaluate_pairing, evaluate_pairings, evaluate_solitaire
from training.framework.progress import Progress

LINE = re.compile(r"games (\d+)/(\d+), (\d+) s, about (\d+) s left")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TimedAgent(RandomAgent):
    """A random agent whose every game (it is reset once per game and seat) costs ``cost`` seconds on ``clock``."""

    def __init__(self, game: Game, clock: FakeClock, cost: float):
        self.clock, self.cost = clock, cost
        super().__init__(game, seed=0)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.clock.now += self.cost


def estimates(err: str) -> list[tuple[float, float]]:
    """(elapsed, elapsed + time left) of every progress line."""
    return [(float(e), float(e) + float(left)) for _, _, e, left in LINE.findall(err)]


def test_rounds_of_pairings_play_the_games_each_pairing_plays_alone():
    game = make_game("invers")
    labels = ("random", "greedy", "search:depth=1")
    agents = {label: (label, make_agent("invers", label, game, seed=3)) for label in labels}
    pairs = [(agents["random"], agents["greedy"]), (agents["greedy"], agents["search:depth=1"])]
    together = evaluate_pairings(game, pairs, games=6, base_seed=40, random_opening_plies=2)
    for result, (a, b) in zip(together, pairs):
        alone = evaluate_pairing(game, a, b, games=6, base_seed=40, random_opening_plies=2)
        assert (result.candidate, result.opponent) == (alone.candidate, alone.opponent)
        np.testing.assert_array_equal(result.outcomes, alone.outcomes)
        np.testing.assert_array_equal(result.seats, alone.seats)
        assert result.distinct_games == alone.distinct_games


def test_one_player_agents_playing_seed_by_seed_score_as_each_alone():
    game = make_game("inverted_dice")
    agents = {label: make_agent("inverted_dice", label, game, seed=1) for label in ("random", "heuristic")}
    together = evaluate_solitaire(game, agents, range(5, 12))
    for result, (label, agent) in zip(together, agents.items()):
        [alone] = evaluate_solitaire(game, {label: agent}, range(5, 12))
        assert result.agent == label
        np.testing.assert_array_equal(result.scores, alone.scores)
        assert result.stats.keys() == alone.stats.keys()
        for key in alone.stats:
            np.testing.assert_array_equal(result.stats[key], alone.stats[key])


def test_the_time_left_of_cheap_and_costly_pairings_holds_from_the_first_line(capsys):
    clock = FakeClock()
    game = make_game("invers")
    cheap, costly = (("cheap", TimedAgent(game, clock, 0.1)), ("costly", TimedAgent(game, clock, 10.0)))
    other = ("other", TimedAgent(game, clock, 0.1))
    pairs = [(cheap, other), (other, cheap), (cheap, costly)]  # the costly pairing last, as the search bots come
    started = clock.now
    with Progress.on_stderr("games", 20 * len(pairs), clock=clock) as progress:
        evaluate_pairings(game, pairs, games=20, base_seed=0, progress=progress.advance)
    took = clock.now - started
    lines = estimates(capsys.readouterr().err)
    assert len(lines) == 10
    for elapsed, whole in lines:
        assert whole == pytest.approx(took, abs=1.0), f"after {elapsed} s the estimate was {whole} s of {took} s"


def test_the_time_left_of_a_costly_one_player_agent_holds_from_the_first_line(capsys):
    clock = FakeClock()
    game = make_game("inverted_dice")
    agents = {"quick": TimedAgent(game, clock, 0.1), "slow": TimedAgent(game, clock, 5.0)}
    started = clock.now
    with Progress.on_stderr("games", 10 * len(agents), clock=clock) as progress:
        evaluate_solitaire(game, agents, range(10), progress=progress.advance)
    took = clock.now - started
    lines = estimates(capsys.readouterr().err)
    assert len(lines) == 10
    for elapsed, whole in lines:
        assert whole == pytest.approx(took, abs=1.0), f"after {elapsed} s the estimate was {whole} s of {took} s"


class CountedCalls:
    """Wraps an agent that acts in batch, counting its ``act_batch`` calls."""

    def __init__(self, agent):
        self.agent, self.calls = agent, 0
        self.game, self.rng = agent.game, agent.rng

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, mask):
        return self.agent.act(observation, mask)

    def act_batch(self, observations, masks):
        self.calls += 1
        return self.agent.act_batch(observations, masks)


@pytest.mark.parametrize("players", [1, 2])
def test_games_played_in_batch_are_reported_as_they_end_not_when_the_batch_is_done(players):
    """A batch holds every game (1000 at a time by default): a closing evaluation told its
    progress only once all were played, every line at once. Each game is counted as it ends."""
    game = make_game("invers" if players == 2 else "inverted_dice")
    agent = CountedCalls(make_agent(game.name, "greedy" if players == 2 else "heuristic", game, seed=0))
    seen = []  # the agent's calls so far, at each game counted
    if players == 1:
        evaluate_solitaire(game, {"heuristic": agent}, range(30), progress=lambda: seen.append(agent.calls), batch=100)
    else:
        opponent = ("random", make_agent("invers", "random", game, seed=1))
        evaluate_pairing(game, ("greedy", agent), opponent, 30, 0, 2, lambda: seen.append(agent.calls), batch=100)
    assert len(seen) == 30 and seen == sorted(seen)
    assert seen[0] < agent.calls  # the first game was counted before the batch's last move


def test_a_benchmarks_jobs_of_several_games_give_a_line_about_every_tenth_and_silence_when_told(capsys):
    """The one reporter serves a benchmark's jobs too (several games a step): a line once each tenth
    is passed, the last at the end; ``--no-progress`` (enabled False) prints nothing."""
    with Progress.on_stderr("games", 95) as progress:
        for _ in range(19):
            progress.advance(5)
    done = [int(done) for done, *_ in LINE.findall(capsys.readouterr().err)]
    assert done == [10, 20, 30, 40, 45, 55, 65, 75, 85, 90, 95]
    with Progress.on_stderr("games", 95, enabled=False) as progress:
        progress.advance(95)
    assert capsys.readouterr().err == ""
