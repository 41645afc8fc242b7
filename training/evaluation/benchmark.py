"""Playing an agent through the benchmark suite (:mod:`training.evaluation.suite`): a benchmark run.

:func:`run_benchmark` takes the agent under test as a spec, a mapping of task or env names
to specs, a factory or an agent object (:mod:`training.evaluation.candidate`), builds it
once per task, and plays every task's games under the referee
(:mod:`training.evaluation.referee`) through the project's game loop
(:func:`agents.match.play_game`, :func:`agents.match.play_games_in_batch`): in this process
or spread over ``workers`` processes (:mod:`training.evaluation.workers`), with the same
games and results either way (every game is seeded by its number).

A task the agent cannot be built for is **not played**: the result names it and why, and
the aggregates cover the tasks played. A game the agent forfeits (an exception, an
illegal action, a move over ``move_time_limit``) is lost and the suite goes on. The
:class:`BenchmarkRun` holds every game's record; :mod:`training.evaluation.benchmark_scores`
scores it and :mod:`training.evaluation.benchmark_report` writes its report folder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from agents.base import Agent, acts_in_batch
from agents.registry import make_agent
from envs.core import Game
from envs.registry import make_game
from training.evaluation.candidate import AgentSource, NotPlayable, build_candidate, check_source, describe
from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.referee import GameRecord, GuardedAgent, play_task_games
from training.evaluation.suite import SUITE_VERSION, Anchors, Task, load_anchors, suite, task_by_name
from training.evaluation.workers import one_torch_thread, worker_pool
from training.framework.progress import Progress
from training.framework.schema import ConfigError


@dataclass
class TaskRun:
    """One task's outcome: its games, or why it was not played."""

    task: Task
    records: list[GameRecord] = field(default_factory=list)
    not_played: str = ""
    wall_seconds: float = 0.0
    #: why a run in batch played this task one game at a time ("" when it did not)
    one_at_a_time: str = ""


@dataclass
class BenchmarkRun:
    agent: str
    quick: bool
    workers: int
    move_time_limit: float | None
    tasks: list[TaskRun]
    anchors: dict[str, Anchors]
    wall_seconds: float = 0.0
    batch: int = 0  #: games of a task played at once (0: one at a time)
    suite_version: str = SUITE_VERSION

    @property
    def played(self) -> list[TaskRun]:
        return [t for t in self.tasks if not t.not_played]


#: This process's games, agents and anchors (built on first use, per task): the process
#: that runs the benchmark checks the agents with them, and each worker plays with its own.
_worker: dict = {}


def _start_worker(source: AgentSource, move_time_limit: float | None, anchors: dict[str, Anchors]) -> None:
    _worker.update(source=source, limit=move_time_limit, tasks={}, anchors=anchors)


def _task_players(task: Task) -> tuple[Game, GuardedAgent, Agent | None]:
    players = _worker["tasks"]
    if task.name not in players:
        game = make_game(task.env, **task.env_kwargs)
        candidate = GuardedAgent(build_candidate(_worker["source"], task, game), game, _worker["limit"])
        opponent = make_agent(task.env, task.opponent, game, seed=task.seed) if task.opponent else None
        players[task.name] = (game, candidate, opponent)
    return players[task.name]


def _play_job(job: tuple[Task, int, int, bool]) -> tuple[list[GameRecord], float]:
    task, first, count, in_batch = job
    started = time.perf_counter()
    game, candidate, opponent = _task_players(task)
    anchors = _worker["anchors"][task.name]
    records = play_task_games(task, game, candidate, opponent, range(first, first + count), anchors, in_batch)
    return records, time.perf_counter() - started


def _jobs(tasks: list[tuple[Task, bool]], quick: bool, workers: int, batch: int) -> list[tuple[Task, int, int, bool]]:
    """Each task's games in ranges, ``(task, first, count, in batch)``: up to ``batch`` games a
    range for a task played in batch (split so that every worker has one), ten or fewer for one
    played one game at a time (so that the workers share the costly tasks' games evenly)."""
    jobs = []
    for task, in_batch in tasks:
        games = task.game_count(quick)
        if in_batch:
            chunk = min(batch, -(-games // workers))
        else:
            chunk = max(1, min(10, games // (4 * workers) or 1))
        jobs += [(task, first, min(chunk, games - first), in_batch) for first in range(0, games, chunk)]
    return jobs


def run_benchmark(
    agent: AgentSource,
    quick: bool = False,
    workers: int = 1,
    tasks: list[str] | None = None,
    move_time_limit: float | None = None,
    show_progress: bool = True,
    anchors: dict[str, Anchors] | None = None,
    label: str | None = None,
    batch: int = DEFAULT_BATCH,
    suite_version: str = SUITE_VERSION,
) -> BenchmarkRun:
    """Play ``agent`` through the suite of ``suite_version`` (or the ``tasks`` named) and return every game.

    ``batch`` above 0 plays up to that many games of a task at once as rows of the batched
    twin (:func:`~training.evaluation.referee.play_task_games`: the same records), wherever
    the agent and the task's opponent both act in batch; a task where one cannot is played
    one game at a time, and its :attr:`TaskRun.one_at_a_time` says why. 0 plays every task
    one game at a time.

    ``agent``: an agent spec (``"heuristic"``, ``"my_agents:Greedy"``, a run folder), a
    mapping of task or env names to specs, a factory ``factory(game, seed=seed)`` or an
    agent object. Bad input is a :class:`ConfigError`; see the module docstring for the
    tasks not played and the games forfeited. ``anchors`` replaces the suite's stored
    references (:func:`~training.evaluation.references.measure_anchors` scores raw points
    with the identity); ``label`` names the agent in reports (default: the spec, or the
    factory's or object's class).
    """
    if workers <= 0:
        raise ConfigError(f"workers must be positive, got {workers}")
    if move_time_limit is not None and move_time_limit <= 0:
        raise ConfigError(f"the move time limit must be positive, got {move_time_limit}")
    if batch < 0:
        raise ConfigError(f"batch must be 0 (one game at a time) or a number of games, got {batch}")
    try:
        suite_tasks = suite(suite_version).tasks
        chosen = list(suite_tasks) if tasks is None else [task_by_name(name, suite_version) for name in tasks]
    except KeyError as error:
        raise ConfigError(error.args[0]) from None
    check_source(agent, chosen)
    started = time.perf_counter()
    anchors = anchors or load_anchors(version=suite_version)
    one_torch_thread()
    _start_worker(agent, move_time_limit, anchors)
    runs = {task.name: TaskRun(task) for task in chosen}
    for task in chosen:  # built here first: a task the agent cannot play is known before any game
        try:
            _, candidate, opponent = _task_players(task)
        except NotPlayable as error:
            runs[task.name].not_played = str(error)
            continue
        unable = [
            who for who, a in (("the agent", candidate), ("the opponent", opponent)) if a and not acts_in_batch(a)
        ]
        if batch > 0 and unable:
            runs[task.name].one_at_a_time = f"{' and '.join(unable)} cannot act in batch (no act_batch)"
    if all(r.not_played for r in runs.values()):
        _worker.clear()
        reasons = "; ".join(f"{name}: {r.not_played}" for name, r in runs.items())
        raise ConfigError(f"the agent {describe(agent)} can play none of the tasks: {reasons}")
    playable = [
        (task, batch > 0 and not runs[task.name].one_at_a_time) for task in chosen if not runs[task.name].not_played
    ]
    jobs = _jobs(playable, quick, workers, batch)
    try:
        with (
            Progress.on_stderr("benchmark games", sum(job[2] for job in jobs), show_progress) as progress,
            worker_pool(workers, _start_worker, (agent, move_time_limit, anchors)) as imap,
        ):
            for job, (records, seconds) in zip(jobs, imap(_play_job, jobs)):
                runs[job[0].name].records += records  # jobs come back in order: games stay in order
                runs[job[0].name].wall_seconds += seconds
                progress.advance(len(records))
    finally:
        _worker.clear()
    return BenchmarkRun(
        label or describe(agent),
        quick,
        workers,
        move_time_limit,
        list(runs.values()),
        anchors,
        time.perf_counter() - started,
        batch,
        suite_version,
    )
