"""Evaluation reports: agents played against each other, from the agents to the report folder.

:func:`evaluate` plays a set of agent specs (one-player games: mean scores on common
dice; several players: every pairing in seat-paired openings; see
:mod:`training.evaluation.harness`) and writes ``report.md``, ``summary.csv`` and, for
one player, ``games.csv`` and ``scores.png``; :func:`evaluate_run` is the closing
evaluation of a trained run against its config's opponents. The command line is
``training/evaluate.py`` (:mod:`training.evaluation.request` resolves what it asks for).

This module runs an evaluation: it builds the agents, plays the games and puts the report
together; the runs it plays are found by :mod:`training.evaluation.trained_runs`, its tables
are :mod:`training.evaluation.report_tables`' and its files are written by
:mod:`training.evaluation.report_files`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from agents.base import Agent
from agents.run_folder import EVALUATION_DIR, read_config
from envs.core import Game
from training.evaluation.harness import DEFAULT_BATCH, evaluate_pairings, evaluate_solitaire
from training.evaluation.report_files import report_folder, write_csv
from training.evaluation.report_tables import (
    how_played,
    paired_report,
    pairing_games_rows,
    pairing_report,
    score_histogram,
    solitaire_report,
)
from training.evaluation.sprt import Sprt
from training.evaluation.trained_runs import agent_labels
from training.evaluation.workers import one_torch_thread
from training.framework.config import build_agent, make_checked_game
from training.framework.progress import Progress
from training.framework.run_files import new_report_dir
from training.framework.schema import ConfigError
from training.records.game_record import SUFFIX, record_of


def shown_path(path: Path) -> str:
    """``path`` as a report prints it: relative to the working directory when it lies below it,
    so that a report regenerated in another checkout reads the same."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


@dataclass
class Setup:
    """Which run an evaluation scores and where each of its settings came from.

    Told in one line before the games and at the top of the report, so that a reader
    knows which run was scored at which game (game options, random opening plies,
    games) and whether each came from the run's config, the command line or a default.
    """

    run: Path | None = None  #: the trained run whose config the game follows; None: no run (bots only)
    run_source: str = ""  #: how the run was chosen, e.g. "--checkpoint", "the latest run of roll_five"
    env_kwargs_source: str = "the game's defaults"
    random_opening_source: str = "default"
    games_source: str = "default"

    def describe(self, game: Game, games: int, random_opening_plies: int, seed: int) -> str:
        if self.run is not None:
            run = f"{shown_path(self.run)} ({self.run_source})"
        else:
            run = f"none ({self.run_source or 'no trained run among the agents'})"
        parts = [f"game {game!r} ({self.env_kwargs_source})"]
        if game.num_players > 1:
            parts.append(f"{random_opening_plies} random opening plies ({self.random_opening_source})")
        parts.append(f"{games} games per {'pairing' if game.num_players > 1 else 'agent'} ({self.games_source})")
        parts.append(f"seed {seed}")
        return f"Run: {run}; " + ", ".join(parts) + "."


def reference_pairings(
    env: str, game: Game, specs: dict[str, str], opponents: list[str], seed: int
) -> list[tuple[tuple[str, Agent], tuple[str, Agent]]]:
    """The pairings that measure each opponent's own score at the table: a fresh copy of it in
    the candidate's seat against it in the other seats, played on the same games (seeds, seats,
    openings) as every pairing.

    At two players that score is ½ by construction (the two seats' scores sum to 1), but
    with three or more a shared win counts for each winner, so an equal share is not
    1 / players: it is measured here, and an agent is above its opponent's level when its
    score is above this one.
    """
    return [
        (
            (label, build_agent(env, specs[label], game, seed=seed)),
            (label, build_agent(env, specs[label], game, seed=seed)),
        )
        for label in opponents
    ]


def game_recorder(folder: Path, env: str, game: Game, specs: dict[str, str]) -> Callable:
    """A harness ``on_game`` that writes each game to ``folder`` as ``<seat labels>-<seed>.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)

    def write(labels: list[str], seed: int, history, state) -> None:
        name = re.sub(r"[^A-Za-z0-9_.+=-]+", "_", "-vs-".join(labels)) + f"-{seed}{SUFFIX}"
        record_of(env, game.options(), seed, [specs[label] for label in labels], history).write(folder / name, state)

    return write


def evaluate(
    env: str,
    agent_specs: list[str],
    games: int,
    seed: int,
    out_dir: Path,
    env_kwargs: dict | None = None,
    random_opening_plies: int = 0,
    setup: Setup | None = None,
    record_games: Path | None = None,
    batch: int = DEFAULT_BATCH,
    first_agent_only: bool = False,
    sprt: Sprt | None = None,
    above: tuple[float, ...] = (),
) -> str:
    """Run the evaluation, write the report files into ``out_dir`` and return the Markdown report.

    With several players every two agents meet, or with ``first_agent_only`` only the first
    agent and each other one (a closing evaluation: the bots' own pairings do not change
    from run to run, and cost as much as the run's).

    ``batch`` above 0 plays that many games of a pairing (or an agent) at once, as rows of the
    game's batched twin (:func:`training.evaluation.harness.played_in_batches`), 0 one game at
    a time: the same games either way. A pairing with an agent that cannot act in batch plays
    one game at a time, and the report says so.

    Every agent is built (and any bad spec or a missing opponent reported) before the
    first game; ``setup`` (which run, and where the settings came from) is printed before
    the games and heads the report. Nothing is written until every game is played; then
    the files are written together (:func:`report_folder`). With ``record_games``, every
    game is also written there as a record (:mod:`training.records.game_record`) to replay.
    """
    one_torch_thread()
    game = make_checked_game(env, env_kwargs or {})
    if game.num_players > 1 and len(agent_specs) < 2:
        given = " ".join(agent_specs) or "none"
        raise ConfigError(
            f"{env} with {game.num_players} players plays agents against each other, so the evaluation needs two "
            f"agents or more; got {len(agent_specs)} ({given}): add an opponent, "
            f"e.g. --agents {agent_specs[0] if agent_specs else 'heuristic'} random"
        )
    specs = dict(zip(agent_labels(agent_specs), agent_specs))
    agents = {label: build_agent(env, spec, game, seed=seed) for label, spec in specs.items()}
    on_game = None if record_games is None else game_recorder(record_games, env, game, specs)
    about = (setup or Setup()).describe(game, games, random_opening_plies, seed)
    print(about, flush=True)
    title = f"# {env} evaluation\n\n{about}\n\n"
    if game.num_players == 1:
        print(f"Evaluating {', '.join(agents)}: {len(agents)} agents x {games} games", flush=True)
        with Progress.on_stderr("games", games * len(agents)) as progress:
            seeds = range(seed, seed + games)
            solitaire = evaluate_solitaire(game, agents, seeds, progress.advance, on_game, batch)
        table, rows = solitaire_report(solitaire, above)
        note = f"All agents played the same {games} seeds (same dice). Δ is the paired mean difference with its 95% CI."
    else:
        pairs = list(combinations(agents.items(), 2))
        if first_agent_only:
            pairs = [pair for pair in pairs if pair[0][0] == next(iter(agents))]
        opponents = list(dict.fromkeys(b for (_, _), (b, _) in pairs)) if game.num_players > 2 else []
        print(
            f"Evaluating {', '.join(agents)}: {len(pairs) + len(opponents)} pairings x {games} games"
            + (f" ({len(opponents)} of them an opponent against itself)" if opponents else ""),
            flush=True,
        )
        played = pairs + reference_pairings(env, game, specs, opponents, seed)
        with Progress.on_stderr("games", games * len(played)) as progress:
            advance = progress.advance
            results = evaluate_pairings(game, played, games, seed, random_opening_plies, advance, on_game, batch, sprt)
        pairings, references = results[: len(pairs)], {r.opponent: r for r in results[len(pairs) :]}
        table, rows = pairing_report(pairings, references, game.num_players)
        paired, paired_rows = paired_report(pairings)
        count = f"At most {games} games per pairing ({sprt.describe()})" if sprt else f"{games} games per pairing"
        note = (
            f"{count}, in seat-paired openings: each opening (seed) played once with the first agent in every seat "
            f"({games // game.num_players if not sprt else 'up to ' + str(games // game.num_players)} openings); "
            f"rates are the first agent's. The first {random_opening_plies} plies of every game are uniformly random "
            "(same openings for every pairing); 'distinct' counts the games that differ in their moves. A game's score "
            "is 1 for a win, ½ for a draw, 0 for a loss; its interval is taken over the openings, the independent "
            "samples (the normal interval of their mean scores, inside [0, 1]; Wilson's where every opening scored "
            "alike), the rates' is Wilson's, and the mean outcome (+1 / 0 / -1) is 2 score - 1."
        )
        if game.num_players == 2:
            note += (
                " 'openings 0 / ½ / 1 / 1½ / 2' counts the openings by the points the first agent took in their two "
                "games (the pentanomial model of chess engine testing)."
            )
        if sprt:
            note += "\n\n" + "\n".join(f"* {r.candidate} vs {r.opponent}: {r.sprt.words()}" for r in pairings)
        note += (
            " 'opponent's own score' is the opponent's score in the agent's seat against copies of itself, on the same "
            "games: the score of an agent exactly as good as the opponent at this table (a shared win counts for each "
            "winner, so it is not 1 / players). An agent beats the table when its score is above it."
            if opponents
            else " At two players an agent as good as its opponent scores ½."
        )
        if paired:
            note += (
                "\n\nAgents against a common opponent on the same games (seeds, seats and openings), "
                "the paired difference of their scores:\n\n" + paired
            )
    note += "\n\n" + how_played(agents, specs, batch)
    report = title + table + "\n\n" + note + "\n"
    with report_folder(out_dir) as staging:
        write_csv(staging / "summary.csv", rows)
        if game.num_players > 1 and paired_rows:
            write_csv(staging / "paired.csv", paired_rows)
        if game.num_players > 1:
            write_csv(staging / "games.csv", pairing_games_rows(pairings))
        if game.num_players == 1:
            write_csv(
                staging / "games.csv",
                [{"seed": seed + i, **{r.agent: float(r.scores[i]) for r in solitaire}} for i in range(games)],
            )
            score_histogram(staging / "scores.png", solitaire)
        (staging / "report.md").write_text(report)
    return report


def table_name(options: dict) -> str:
    """Folder name of an extra evaluation table: ``{num_players: 4}`` -> ``num_players=4``."""
    return ",".join(f"{key}={value}" for key, value in sorted(options.items()))


def evaluate_run(run_dir: Path, games: int | None = None, seed: int = 10_000, candidate: str | None = None) -> str:
    """The closing evaluation of a trained run against its config's opponents; prints and saves the report.

    The trained agent meets each opponent (the opponents' own pairings are not played: they
    are the same for every run, ``training/evaluate.py --agents`` plays them). Its games are
    played ``evaluation.batch`` at a time as rows of the batched twin (0: one at a time; the
    same games either way).

    It goes to ``<run>/evaluation/``, or to a new dated ``evaluation-<date>-<time>/`` when
    an earlier session of the run (before a ``--resume``) already wrote one there. The
    run's own table comes first, then every table of ``evaluation.tables`` (game options
    overriding the run's), each in its own subfolder.
    """
    config = read_config(run_dir)
    evaluation = config.get("evaluation") or {}
    specs = [candidate or str(run_dir), *evaluation.get("opponents", ["random"])]
    batch = evaluation.get("batch", DEFAULT_BATCH)
    out = run_dir / EVALUATION_DIR
    if out.exists():
        out = new_report_dir(run_dir, f"{EVALUATION_DIR}-")
    env_kwargs = config.get("env_kwargs") or {}
    tables = [(out, env_kwargs)]
    tables += [(out / table_name(t), {**env_kwargs, **t}) for t in evaluation.get("tables", [])]
    reports = [
        evaluate(
            config["env"],
            specs,
            games or evaluation.get("games", 1000),
            seed,
            table_out,
            options,
            evaluation.get("random_opening_plies", 0),
            Setup(
                run_dir,
                "the run's closing evaluation",
                "the run's env_kwargs" + (f" with evaluation.tables' {dict(extra)}" if extra else ""),
                "the run's evaluation.random_opening_plies",
                "the run's evaluation.games" if games in (None, evaluation.get("games", 1000)) else "--eval-games",
            ),
            batch=batch,
            first_agent_only=True,
        )
        for (table_out, options), extra in zip(tables, [{}, *evaluation.get("tables", [])])
    ]
    report = "\n".join(reports)
    print(report)
    print(f"Report written to {out}")
    return report
