"""The benchmark's referee: the agent under test judged move by move, a broken rule a lost game.

:class:`GuardedAgent` wraps the agent under test: an agent that, during a game, raises,
returns an illegal action, or takes longer than ``move_time_limit`` seconds over a move
(timed after it returns: an agent that never returns is not stopped) breaks a rule
(:class:`Forfeit`) and **forfeits** that game: a loss (share 0) with several players, the
game's lowest possible score (:meth:`envs.core.Game.score_bounds`) alone, and the games
go on. :func:`play_task_games` plays a task's numbered games under it, one at a time or in
batch with the same records, and writes each as a :class:`GameRecord`: the score, the
forfeit if any, the moves and the thinking time. Kept apart from the benchmark's run
(:mod:`training.evaluation.benchmark`) so that what a game's result is, and how a rule is
judged, is read in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from agents.match import pairing_seat, pairing_seats, play_game, play_games_in_batch
from envs.core import Game
from training.evaluation.suite import Anchors, Task
from training.evaluation.timed import TimedAgent


class Forfeit(Exception):
    """The agent under test broke a rule of the benchmark during a game."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


class GuardedAgent(TimedAgent):
    """The agent under test, refereed: an exception, an illegal action or a move over the
    time limit is a :class:`Forfeit`; thinking time and moves are added up
    (:class:`~training.evaluation.timed.TimedAgent`, in batch too)."""

    def __init__(self, agent: Agent, game: Game, move_time_limit: float | None = None):
        self.move_time_limit = move_time_limit
        super().__init__(agent)
        self.game = game

    def failed(self, call: str, error: Exception) -> Exception:
        return Forfeit("exception", f"{call} raised {type(error).__name__}: {error}")

    def judge(self, action, action_mask: np.ndarray, seconds: float) -> int:
        if self.move_time_limit is not None and seconds > self.move_time_limit:
            raise Forfeit("time limit", f"a move took {seconds:.3f} s, over the limit of {self.move_time_limit:g} s")
        try:
            action = self.game.check_action(action)
        except ValueError as error:
            raise Forfeit("illegal action", str(error)) from None
        if not action_mask[action]:
            raise Forfeit("illegal action", f"action {action} ({self.game.action_name(action)}) is not legal here")
        return action


@dataclass(frozen=True)
class GameRecord:
    """One game of a task, as the CSV of every game writes it."""

    task: str
    game: int  #: the game's number in the task
    seed: int
    seat: int  #: the agent's seat
    raw: float  #: final score (one player) or 1 / ½ / 0 (several)
    normalized: float
    forfeit: str  #: "" or the kind: "exception", "illegal action", "time limit"
    detail: str
    moves: int  #: the agent's moves
    think_seconds: float


def play_task_game(
    task: Task, game: Game, agent: GuardedAgent, opponent: Agent | None, number: int, anchors: Anchors
) -> GameRecord:
    """Game ``number`` of ``task``; a forfeit ends it as the agent's loss."""
    seat = pairing_seat(game, number)
    moves, seconds = agent.moves, agent.seconds
    forfeit = detail = ""
    seats = [agent] if opponent is None else pairing_seats(game, agent, opponent, number)
    try:
        state, _ = play_game(game, seats, task.game_seed(number), task.random_opening_plies)
        raw = float(state.scores()[0]) if opponent is None else (float(state.returns()[seat]) + 1.0) / 2.0
    except Forfeit as error:
        forfeit, detail = error.kind, error.detail
        raw = float(game.score_bounds()[0]) if opponent is None else 0.0
    return GameRecord(
        task.name,
        number,
        task.game_seed(number),
        seat,
        raw,
        float(anchors.normalize(raw)),
        forfeit,
        detail,
        agent.moves - moves,
        agent.seconds - seconds,
    )


def play_task_games(
    task: Task,
    game: Game,
    agent: GuardedAgent,
    opponent: Agent | None,
    numbers: range,
    anchors: Anchors,
    in_batch: bool,
) -> list[GameRecord]:
    """Games ``numbers`` of ``task``: one at a time (:func:`play_task_game`), or, ``in_batch``, all
    at once as rows of the batched twin (:func:`agents.match.play_games_in_batch`; every agent
    of the table must act in batch), with the same records. A forfeit in batch (an exception of
    ``act_batch``, an illegal action, a batch over the time limit per move) plays the games
    again one at a time, where each game's forfeit is judged on its own move, so a table's
    records never depend on how it was played. In batch a game's thinking time is its share,
    by its moves, of the time of the calls that decided them."""
    if not in_batch:
        return [play_task_game(task, game, agent, opponent, g, anchors) for g in numbers]
    before = (agent.tally.seconds, agent.tally.moves)
    tables = [[agent] if opponent is None else pairing_seats(game, agent, opponent, g) for g in numbers]
    try:
        seeds = [task.game_seed(g) for g in numbers]
        played = play_games_in_batch(game, tables, seeds, task.random_opening_plies, states=False)
    except Forfeit:
        agent.tally.seconds, agent.tally.moves = before  # the games are played again: their time then counts
        return [play_task_game(task, game, agent, opponent, g, anchors) for g in numbers]
    seconds = agent.tally.seconds - before[0]
    seats = [pairing_seat(game, g) for g in numbers]
    moves = [
        sum(1 for ply, (player, _) in enumerate(history) if player == seat and ply >= task.random_opening_plies)
        for seat, (_, history) in zip(seats, played)
    ]
    records = []
    for g, seat, (state, _), own in zip(numbers, seats, played, moves):
        raw = float(state.scores()[0]) if opponent is None else (float(state.returns()[seat]) + 1.0) / 2.0
        share = seconds * own / max(sum(moves), 1)
        records.append(
            GameRecord(task.name, g, task.game_seed(g), seat, raw, float(anchors.normalize(raw)), "", "", own, share)
        )
    return records
