"""Playing an agent through the benchmark suite (:mod:`training.evaluation.suite`) and scoring it.

:func:`run_benchmark` takes the agent as a spec (the same at every task), a mapping of
task or env names to specs, a factory called as ``factory(game, seed=seed)``, or an
agent object (any object with ``reset(seed)`` and ``act(observation, action_mask)``),
builds it once per task, and plays every task's games through the project's game loop
(:func:`agents.match.play_game`, :func:`agents.match.pairing_game`): in this process or
spread over ``workers`` processes, with the same games and results either way (every
game is seeded by its number).

A task the agent cannot be built for (no such bot in that game, no network shipped for
that table, a factory that raises) is **not played**: the result names it and why, and
the aggregates cover the tasks played. An agent that, during a game, raises, returns an
illegal action, or takes longer than ``move_time_limit`` seconds over a move (timed
after it returns: an agent that never returns is not stopped) **forfeits** that game:
a loss (share 0) with several players, the game's lowest possible score
(:meth:`envs.core.Game.score_bounds`) alone; the suite goes on, and the result counts
each kind of forfeit and names its first occurrence.

Scores per task (:func:`task_score`): the raw mean with its 95% interval (for a share, over
the task's seat-paired openings, always inside [0, 1]; the normal one for a mean score), and
both mapped to the normalized scale. Aggregates over tasks (:func:`aggregates`) are rliable's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent, acts_in_batch
from agents.inverted_dice.solver import START, cached_solution
from agents.registry import make_agent
from envs.core import Game
from envs.registry import make_game
from training.evaluation.candidate import AgentSource, NotPlayable, build_candidate, check_source, describe
from training.evaluation.harness import (
    DEFAULT_BATCH,
    PSEUDO_OPENINGS,
    mean_ci,
    opening_scores,
    paired_share_interval,
    played_in_batches,
    share_interval,
)
from training.evaluation.referee import GameRecord, GuardedAgent, play_task_games
from training.evaluation.suite import SUITE_VERSION, Anchors, Task, load_anchors, suite, task_by_name
from training.evaluation.workers import one_torch_thread, worker_pool
from training.framework.progress import Progress
from training.framework.schema import ConfigError

#: Bootstrap resamples behind the aggregates' intervals and the performance profile's bands.
BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 0
#: Normalized-score thresholds of the performance profile.
PROFILE_TAUS = np.linspace(-0.25, 2.0, 91)


# -- running -----------------------------------------------------------------------------
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
    twin (:func:`play_task_games`: the same records), wherever the agent and the task's
    opponent both act in batch; a task where one cannot is played one game at a time, and
    its :attr:`TaskRun.one_at_a_time` says why. 0 plays every task one game at a time.

    ``agent``: an agent spec (``"heuristic"``, ``"my_agents:Greedy"``, a run folder), a
    mapping of task or env names to specs, a factory ``factory(game, seed=seed)`` or an
    agent object. Bad input is a :class:`ConfigError`; see the module docstring for the
    tasks not played and the games forfeited. ``anchors`` replaces the suite's stored
    references (:func:`measure_anchors` scores raw points with the identity); ``label`` names
    the agent in reports (default: the spec, or the factory's or object's class).
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


# -- scores ------------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskScore:
    task: str
    games: int
    raw: float
    raw_low: float
    raw_high: float
    normalized: float
    low: float
    high: float
    forfeits: dict[str, int]  #: kind -> games
    forfeit_examples: dict[str, str]  #: kind -> the first one's detail
    ms_per_move: float


def task_score(run: TaskRun, anchors: Anchors) -> TaskScore:
    """The raw mean and its 95% interval (the normal one for a mean score; for a share, over the
    openings where the task is seat-paired, :func:`~training.evaluation.harness.paired_share_interval`,
    else Wilson's), both also on the normalized scale."""
    raw = np.array([r.raw for r in run.records])
    if run.task.players == 1:
        mean, half = mean_ci(raw)
        low, high = mean - half, mean + half
    elif run.task.seat_paired:
        mean, low, high = paired_share_interval(raw, [run.task.opening(r.game) for r in run.records])
    else:
        mean, low, high = share_interval(raw)
    forfeits: dict[str, int] = {}
    examples: dict[str, str] = {}
    for record in run.records:
        if record.forfeit:
            forfeits[record.forfeit] = forfeits.get(record.forfeit, 0) + 1
            examples.setdefault(record.forfeit, f"game {record.game}: {record.detail}")
    moves = sum(r.moves for r in run.records)
    seconds = sum(r.think_seconds for r in run.records)
    return TaskScore(
        run.task.name,
        len(raw),
        mean,
        low,
        high,
        float(anchors.normalize(mean)),
        float(anchors.normalize(low)),
        float(anchors.normalize(high)),
        forfeits,
        examples,
        1000.0 * seconds / max(moves, 1),
    )


AGGREGATES = ("IQM", "mean", "median", "optimality gap")


def _aggregate(*task_scores: np.ndarray) -> np.ndarray:
    """rliable's aggregates over the tasks' mean normalized scores (one agent: one run per task)."""
    from rliable import metrics  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    means = np.array([[scores.mean() for scores in task_scores]])
    return np.array(
        [
            metrics.aggregate_iqm(means),
            metrics.aggregate_mean(means),
            metrics.aggregate_median(means),
            metrics.aggregate_optimality_gap(means, 1.0),
        ]
    )


def _profile(*task_scores: np.ndarray) -> np.ndarray:
    """The performance profile: the fraction of tasks whose mean normalized score exceeds each threshold."""
    means = np.array([scores.mean() for scores in task_scores])
    return (means[:, None] > PROFILE_TAUS[None, :]).mean(axis=0)


def _interval_estimates(per_task: list[np.ndarray], func) -> tuple[np.ndarray, np.ndarray]:
    """``func`` of the tasks' samples and its 95% stratified bootstrap interval: each task's
    samples resampled on their own (rliable's ``StratifiedIndependentBootstrap``)."""
    from rliable import library  # noqa: PLC0415 (rliable loads statsmodels and arch: seconds, paid only to aggregate)

    # rliable's StratifiedIndependentBootstrap draws its indices from numpy's global generator
    # (its random_state goes unused): seeded here, for the same intervals on every run, and restored
    saved = np.random.get_state()
    np.random.seed(BOOTSTRAP_SEED)
    try:
        point, interval = library.get_interval_estimates(
            {"agent": per_task}, func, reps=BOOTSTRAP_REPS, random_state=np.random.RandomState(BOOTSTRAP_SEED)
        )
    finally:
        np.random.set_state(saved)
    return np.asarray(point["agent"]), np.asarray(interval["agent"])


def per_task_normalized(run: BenchmarkRun) -> list[np.ndarray]:
    """Each task's normalized score per opening, the bootstrap's unit: the mean of its seat
    rotations' games in a seat-paired task (:meth:`Task.opening`), else per game."""
    return [
        opening_scores([r.normalized for r in task.records], [task.task.opening(r.game) for r in task.records])
        for task in run.played
    ]


def bootstrap_samples(run: BenchmarkRun) -> list[np.ndarray]:
    """:func:`per_task_normalized`, each share task with :data:`PSEUDO_OPENINGS` pseudo-openings
    at a share of 0 and as many at 1 (normalized): a task whose openings all scored alike (an
    agent that lost every game) still carries into the aggregates the uncertainty its own
    Wilson-like interval shows, where resampling its openings alone would give none, and an
    aggregate of such tasks an interval of zero width. The point estimates are the games' own."""
    samples = []
    for task, values in zip(run.played, per_task_normalized(run)):
        if task.task.players > 1:
            ends = run.anchors[task.task.name].normalize(np.array([0.0, 1.0]))
            values = np.concatenate([values, np.repeat(ends, PSEUDO_OPENINGS)])
        samples.append(values)
    return samples


def aggregates(run: BenchmarkRun) -> dict[str, tuple[float, float, float]]:
    """IQM, mean, median and optimality gap over the tasks played, each with its 95% interval
    from a stratified bootstrap over each task's openings (:func:`bootstrap_samples`).

    The pseudo-openings move the bootstrap's centre (towards ½ on a share task, as Wilson's
    centre moves), so the interval is the bootstrap's spread about its own centre put about
    the games' point estimate: it always holds the point, and where the games are many it is
    the plain percentile interval."""
    point = _aggregate(*per_task_normalized(run))
    centre, interval = _interval_estimates(bootstrap_samples(run), _aggregate)
    low, high = point - (centre - interval[0]), point + (interval[1] - centre)
    return {name: (float(point[i]), float(low[i]), float(high[i])) for i, name in enumerate(AGGREGATES)}


def performance_profile(run: BenchmarkRun) -> tuple[np.ndarray, np.ndarray]:
    """The profile over :data:`PROFILE_TAUS` and its 95% band (2 x taus)."""
    _, band = _interval_estimates(bootstrap_samples(run), _profile)
    return _profile(*per_task_normalized(run)), band


# -- the references ----------------------------------------------------------------------
def measure_anchors(
    workers: int = 1, show_progress: bool = True, suite_version: str = SUITE_VERSION, batch: int = DEFAULT_BATCH
) -> dict[str, Anchors]:
    """Every task's anchors, measured on the default games of suite ``suite_version``."""
    tasks = suite(suite_version).tasks
    identity = Anchors(0.0, 1.0, "", "")  # raw scores: the run is scored against nothing yet
    raw = {task.name: identity for task in tasks}
    measured = dict(show_progress=show_progress, anchors=raw, batch=batch, suite_version=suite_version)
    random_run = run_benchmark("random", workers=workers, **measured)
    anchors = {}
    for task in tasks:
        (played,) = [r for r in random_run.tasks if r.task.name == task.name]
        random_mean = float(np.mean([r.raw for r in played.records]))
        random_source = f"random's {task.measure} over the task's {task.games} games"
        if task.env == "inverted_dice":
            reference = float(cached_solution(task.env_kwargs.get("free_cross_out", False)).value[START])
            source = "the exact optimum: the solver's expected score of a fresh sheet (agents/inverted_dice/solver.py)"
        elif task.players == 1:
            run = run_benchmark(task.reference, workers=workers, tasks=[task.name], **measured)
            reference = float(np.mean([r.raw for r in run.tasks[0].records]))
            source = f"{task.reference}'s mean score over the task's {task.games} games"
        elif task.players == 2:
            reference = 0.5
            source = f"{task.reference} against itself: exactly ½ (the two seats' scores add up to 1 in every game)"
        else:
            reference = self_play_share(task, batch)
            source = (
                f"{task.reference} against {task.players - 1} copies of itself: the mean share of all "
                f"{task.players} seats over the task's {task.games} games, measured"
            )
        anchors[task.name] = Anchors(random_mean, reference, random_source, source)
    return anchors


def self_play_share(task: Task, batch: int = DEFAULT_BATCH) -> float:
    """The reference's mean share at a table of itself: every seat of the task's games, counted
    (``batch`` games at a time as rows of the batched twin, the same games as one at a time)."""
    game = make_game(task.env, **task.env_kwargs)
    agents = [make_agent(task.env, task.opponent, game, seed=task.seed + seat) for seat in range(game.num_players)]
    seeds = [task.game_seed(number) for number in range(task.games)]
    total = 0.0
    for _, _, (state, _) in played_in_batches(game, [(0, lambda _: agents)], seeds, task.random_opening_plies, batch):
        total += float(((state.returns() + 1.0) / 2.0).sum())
    return total / (task.games * game.num_players)
