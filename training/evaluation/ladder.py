"""A rating ladder for any game of two or more players: a round-robin among agent specs.

Every pair of agents plays the same numbered games in seat-paired openings, each opening
once with each agent in every seat (in games of more than two players the other seats are
all the opponent: :func:`agents.match.pairing_seed`), from random opening plies so that
games between deterministic players are still independent; with an SPRT
(:mod:`training.evaluation.sprt`) a pairing stops once it is decided.
The ratings are a Bradley–Terry fit on the Elo scale over all games, with 95% bootstrap
intervals (:mod:`training.evaluation.ratings`), anchored at the first agent (0); each
agent's thinking time per move is measured over the whole tournament, in its own file.
A run set among the agents plays as its runs, and is rated as the mean of theirs.
:func:`run_ladder` plays the tournament and writes ``ladder.md``, ``pairings.csv``,
``heatmap.png`` and ``ratings.png``, which come out the same on every run, and ``timing.md``
(the time per move, the machine's), their contents :mod:`training.evaluation.ladder_report`'s;
the command line is ``training/ladder.py``.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from agents.base import acts_in_batch
from agents.match import pairing_seat, pairing_seats, pairing_seed
from agents.registry import make_agent
from envs.registry import make_game
from training.evaluation.harness import (
    DEFAULT_BATCH,
    PairingResult,
    evaluate_pairing,
    opening_scores,
    played_in_batches,
)
from training.evaluation.ladder_report import (
    how_played,
    ladder_report,
    pairing_row,
    plot_ladder,
    run_set_table,
    timing_report,
)
from training.evaluation.machine import TIMING_FILE
from training.evaluation.ratings import BOOTSTRAP, Ratings, rate
from training.evaluation.report_files import write_csv
from training.evaluation.sprt import Sprt, SprtResult
from training.evaluation.timed import Tally, TimedAgent
from training.evaluation.workers import one_torch_thread, worker_pool
from training.framework.config import build_agent, make_checked_game
from training.framework.progress import Progress
from training.framework.run_set_folder import is_run_set, runs_of
from training.framework.schema import ConfigError


def round_robin(
    game,
    agents: dict[str, TimedAgent],
    games: int,
    seed: int,
    random_opening_plies: int,
    progress=None,
    batch: int = DEFAULT_BATCH,
    sprt: Sprt | None = None,
) -> list[PairingResult]:
    """Every pairing of ``agents`` (insertion order), ``games`` games each in seat-paired openings
    (with ``sprt``, at most: a decided pairing stops); ``batch`` games of a pairing at a time
    where both agents act in batch (the same games)."""
    return [
        evaluate_pairing(game, a, b, games, seed, random_opening_plies, progress, batch=batch, sprt=sprt)
        for a, b in combinations(agents.items(), 2)
    ]


#: A worker's game, env name and agents (built on first use, one per spec).
_worker: dict = {}


def _start_worker(env: str, env_kwargs: dict, seed: int) -> None:
    _worker.update(env=env, game=make_game(env, **env_kwargs), seed=seed, agents={})


def _worker_agent(spec: str) -> TimedAgent:
    agents = _worker["agents"]
    if spec not in agents:
        agents[spec] = TimedAgent(make_agent(_worker["env"], spec, _worker["game"], seed=_worker["seed"]))
    return agents[spec]


def _play_games(
    job: tuple[str, str, int, int, int, int, int],
) -> tuple[list[float], list[tuple], dict[str, tuple[float, int]]]:
    """Games ``first`` to ``first + count`` of one pairing, exactly as :func:`evaluate_pairing`
    plays them (:func:`~agents.match.pairing_seed`: each game seeded by its number, so the
    split into jobs changes nothing), ``batch`` at a time where both agents act in batch."""
    candidate_spec, opponent_spec, first, count, seed, random_opening_plies, batch = job
    game = _worker["game"]
    candidate, opponent = _worker_agent(candidate_spec), _worker_agent(opponent_spec)
    pair = ((candidate_spec, candidate), (opponent_spec, opponent))
    before = {spec: (agent.seconds, agent.moves) for spec, agent in pair}
    table = [(0, lambda i: pairing_seats(game, candidate, opponent, first + i))]
    seeds = [pairing_seed(game, seed, g) for g in range(first, first + count)]
    outcomes, histories = [], []
    for i, _, (state, history) in played_in_batches(game, table, seeds, random_opening_plies, batch, states=False):
        outcomes.append(float(state.returns()[pairing_seat(game, first + i)]))
        histories.append(history)
    timing = {spec: (agent.seconds - before[spec][0], agent.moves - before[spec][1]) for spec, agent in pair}
    return outcomes, histories, timing


def parallel_round_robin(
    env: str,
    env_kwargs: dict,
    specs: list[str],
    games: int,
    seed: int,
    random_opening_plies: int,
    workers: int,
    progress=None,
    batch: int = DEFAULT_BATCH,
    in_batch: frozenset[str] = frozenset(),
    sprt: Sprt | None = None,
) -> tuple[list[PairingResult], dict[str, Tally]]:
    """:func:`round_robin` with the games spread over ``workers`` processes (two or more: with one,
    :func:`round_robin` plays in this process; :func:`~training.evaluation.workers.worker_pool`): the same games
    and results (every game is seeded by its number), in a fraction of the wall time.
    Thinking times are measured inside the workers, all under the same load. A pairing of two
    agents of ``in_batch`` (the specs that act in batch) is dealt out in jobs of up to ``batch``
    games, any other in jobs of a few games. With ``sprt`` the games are dealt in stretches of
    whole openings, ``batch`` games a pairing (as :func:`~training.evaluation.harness.evaluate_pairings`
    stretches them), and a pairing decided after a stretch is dealt no more."""
    game = make_game(env, **env_kwargs)
    n = game.num_players
    pairs = list(combinations(specs, 2))
    stretch = games if sprt is None else max(n, batch - batch % n)
    timings = {spec: Tally() for spec in specs}
    outcomes: dict[tuple[str, str], list] = {pair: [] for pair in pairs}
    histories: dict[tuple[str, str], set] = {pair: set() for pair in pairs}
    decisions: dict[tuple[str, str], SprtResult] = {}
    with worker_pool(workers, _start_worker, (env, env_kwargs, seed)) as imap:
        for start in range(0, games, stretch):
            end = min(start + stretch, games)
            jobs = []
            for a, b in (pair for pair in pairs if pair not in decisions):
                if batch > 0 and a in in_batch and b in in_batch:
                    chunk = min(batch, -(-(end - start) // workers))
                else:
                    chunk = max(1, min(8, (end - start) // (2 * workers) or 1))
                jobs += [
                    (a, b, first, min(chunk, end - first), seed, random_opening_plies, batch)
                    for first in range(start, end, chunk)
                ]
            for job, (job_outcomes, job_histories, timing) in zip(jobs, imap(_play_games, jobs)):
                outcomes[job[:2]] += job_outcomes  # imap keeps the jobs' order: games stay in order
                histories[job[:2]].update(job_histories)
                for spec, (seconds, moves) in timing.items():
                    timings[spec].seconds += seconds
                    timings[spec].moves += moves
                if progress is not None:
                    progress(len(job_outcomes))
            if sprt is not None:
                for pair in {job[:2] for job in jobs}:
                    played = np.arange(len(outcomes[pair]))
                    per_opening = opening_scores((np.array(outcomes[pair]) + 1) / 2, played // n)
                    decision = sprt.decision(per_opening)
                    if decision is not None or end >= games:
                        decisions[pair] = SprtResult(sprt, decision, sprt.llr(per_opening))
    results = []
    for a, b in pairs:
        played = np.arange(len(outcomes[(a, b)]))
        results.append(
            PairingResult(
                a, b, np.array(outcomes[(a, b)]), played % n, len(histories[(a, b)]), played // n, decisions.get((a, b))
            )
        )
    return results, timings


def ladder_ratings(
    labels: list[str], results: list[PairingResult], players: int = 2, bootstrap: int = BOOTSTRAP
) -> Ratings:
    """Bradley–Terry ratings of the round robin, the bootstrap resampling whole openings of ``players`` games."""
    index = {label: i for i, label in enumerate(labels)}
    outcomes = {(index[r.candidate], index[r.opponent]): r.outcomes.astype(float) for r in results}
    return rate(labels, outcomes, anchor=0, bootstrap=bootstrap, opening=players)


def expand_run_sets(specs: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The ladder's agents with every run set (:mod:`training.framework.run_set_folder`) replaced by its
    runs, and each set's runs by the set."""
    expanded, sets = [], {}
    for spec in specs:
        if is_run_set(Path(spec)):
            sets[spec] = [str(run) for run in runs_of(Path(spec)).values()]
            expanded += sets[spec]
        else:
            expanded.append(spec)
    return expanded, sets


def run_set_ratings(
    ratings: Ratings, sets: dict[str, list[str]], seed: int = 0
) -> dict[str, tuple[float, float, float]]:
    """Each run set's rating: the mean of its runs' ratings, with a 95% interval from
    a two-level bootstrap (each ratings draw, which resamples the games' openings, then the
    set's runs drawn with replacement), so that it holds the seeds' spread and the games' noise."""
    rng = np.random.default_rng(seed)
    rated = {}
    for name, runs in sets.items():
        columns = [ratings.agents.index(run) for run in runs]
        draws = [
            ratings.replicas[b, rng.choice(columns, size=len(columns))].mean() for b in range(len(ratings.replicas))
        ]
        low, high = np.percentile(draws, [2.5, 97.5])
        rated[name] = (float(ratings.elo[columns].mean()), float(low), float(high))
    return rated


def check_distinct(specs: list[str]) -> None:
    if len(set(specs)) != len(specs) or len(specs) < 2:
        raise ConfigError(f"a ladder needs two or more distinct agent specs, got {specs}")


def run_ladder(
    env: str,
    specs: list[str],
    games: int,
    seed: int,
    out: Path,
    random_opening_plies: int,
    env_kwargs: dict | None = None,
    workers: int = 1,
    batch: int = DEFAULT_BATCH,
    sprt: Sprt | None = None,
) -> str:
    """Play the round robin of ``specs``, write the ladder's files into ``out`` and return its report.

    ``games`` must be a multiple of the players (seat-paired openings); with ``sprt`` it is the
    most a pairing plays, one stopping as soon as its test is decided.

    A pairing of two agents that act in batch plays up to ``batch`` games at a time as rows of
    the batched twin (0: one at a time); any other pairing one at a time. The games, and so the
    tables, are the same either way; the report says which pairings were played one at a time.
    """
    one_torch_thread()
    game = make_checked_game(env, env_kwargs or {})
    if game.num_players < 2:
        raise ConfigError(f"a ladder needs a game of several players; {env} is set up for {game.num_players}")
    if games % game.num_players:
        raise ConfigError(
            f"--games ({games}) must be a multiple of the {game.num_players} players: every opening is played "
            "once from every seat"
        )
    specs, sets = expand_run_sets(specs)
    check_distinct(specs)
    agents = {spec: TimedAgent(build_agent(env, spec, game, seed=seed)) for spec in specs}  # also checks every spec
    in_batch = frozenset(spec for spec, agent in agents.items() if acts_in_batch(agent))
    pairs = len(specs) * (len(specs) - 1) // 2
    with Progress.on_stderr("ladder games", games * pairs) as progress:
        if workers > 1:
            results, agents = parallel_round_robin(
                env,
                env_kwargs or {},
                specs,
                games,
                seed,
                random_opening_plies,
                workers,
                progress.advance,
                batch,
                in_batch,
                sprt,
            )
        else:
            results = round_robin(game, agents, games, seed, random_opening_plies, progress.advance, batch, sprt)
    ratings = ladder_ratings(specs, results, game.num_players)
    out.mkdir(parents=True, exist_ok=True)
    report = f"# {env} rating ladder\n\nGame: `{game!r}`; seed {seed}.\n\n" + ladder_report(
        ratings, results, games, random_opening_plies
    )
    if sets:
        table = run_set_table(sets, run_set_ratings(ratings, sets))
        report += "\nRun sets, each run rated on its own above:\n\n" + table + "\n"
    report += "\n" + how_played(specs, in_batch, batch) + "\n"
    (out / "ladder.md").write_text(report)
    (out / TIMING_FILE).write_text(f"# {env} rating ladder: time per move\n\n" + timing_report(ratings, agents))
    write_csv(out / "pairings.csv", [pairing_row(r) for r in results])
    plot_ladder(out, ratings, results)
    return report
