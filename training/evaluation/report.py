"""Evaluation reports: agents played against each other, written as Markdown and CSV.

:func:`evaluate` plays a set of agent specs (one-player games: mean scores on common
dice; several players: every pairing in seat-paired openings; see
:mod:`training.evaluation.harness`) and writes ``report.md``, ``summary.csv`` and, for
one player, ``games.csv`` and ``scores.png``; :func:`evaluate_run` is the closing
evaluation of a trained run against its config's opponents. The command line is
``training/evaluate.py``.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from agents.base import Agent, acts_in_batch
from agents.registry import NETWORK_AGENTS, TURN_VALUE_AGENTS, parse_spec
from agents.run_folder import CONFIG_FILE, EVALUATION_DIR, folder_of, read_config, run_loaders
from agents.shipped import is_shipped, shipped_network
from envs.core import Game
from training.evaluation.harness import (
    DEFAULT_BATCH,
    PairingResult,
    SolitaireResult,
    clipped_mean_ci,
    evaluate_pairings,
    evaluate_solitaire,
    mean_ci,
    opening_scores,
)
from training.evaluation.sprt import Sprt
from training.evaluation.workers import one_torch_thread
from training.framework.config import build_agent, make_checked_game
from training.framework.paths import checkpoint_root, results_root
from training.framework.progress import Progress
from training.framework.run_files import new_report_dir
from training.framework.schema import ConfigError
from training.records.game_record import SUFFIX, record_of

PERCENTILES = (5, 25, 50, 75, 95)


def latest_run(env: str) -> Path | None:
    """The most recently saved run of ``env`` under ``checkpoints/`` that an evaluation can play, if any.

    A run counts by its checkpoint file (:func:`agents.run_folder.run_loaders`): ``model.zip``
    (PPO, expert iteration), ``value.pt`` (turn-value TD, for the games with a ``td``
    agent) and ``rllib_checkpoint.zip`` (RLlib, only where Ray is installed to play it).
    A shipped network's folder (:func:`agents.shipped.is_shipped`) is never a run: in a
    fresh clone every file is as new as the others, and the shipped agents are played by
    their specs (``ppo``, ``td``).
    """
    names = [loader.checkpoint for loader in run_loaders() if loader.plays(env)]
    runs = [path for name in names for path in (checkpoint_root() / env).glob(f"*/{name}")]
    runs = [path for path in runs if not is_shipped(path.parent)]
    return max(runs, key=lambda p: p.stat().st_mtime).parent if runs else None


def trained_runs(env: str, specs: list[str]) -> list[Path]:
    """The run folders of the trained agents among ``specs``, in order: a path to a run
    (or its checkpoint file), ``ppo`` / ``ppo+search`` / ``td`` (the shipped network's
    folder, or their ``path=``). Only those that exist; bots have none."""
    runs = []
    for spec in specs:
        if Path(spec).exists():
            path = Path(spec)
        else:
            try:
                name, options = parse_spec(spec)
            except ValueError:
                continue  # a bad spec: the evaluation names it when it builds the agent
            if name in NETWORK_AGENTS:
                path = Path(str(options["path"])) if "path" in options else shipped_network(env)
            elif name == "td" and env in TURN_VALUE_AGENTS:
                path = Path(str(options["path"])) if "path" in options else shipped_network(env, "td")
            else:
                continue
        folder = folder_of(path)
        if (folder / CONFIG_FILE).is_file() and folder not in runs:
            runs.append(folder)
    return runs


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


def solitaire_report(results: list[SolitaireResult]) -> tuple[str, list[dict]]:
    """Markdown table and CSV rows of a one-player evaluation (first agent = reference)."""
    reference = results[0]
    stat_keys = sorted({k for r in results for k in r.stats})
    header = ["agent", "games", "mean score", "95% CI", "std", f"Δ vs {reference.agent} (paired)"]
    header += [f"{k} (mean)" for k in stat_keys] + [f"p{q}" for q in PERCENTILES] + ["min", "max"]
    rows, table = [], []
    for r in results:
        mean, half = mean_ci(r.scores)
        diff, diff_half = mean_ci(r.scores - reference.scores)
        row = {
            "agent": r.agent,
            "games": len(r.scores),
            "mean": round(mean, 3),
            "ci95_low": round(mean - half, 3),
            "ci95_high": round(mean + half, 3),
            "std": round(float(r.scores.std(ddof=1)), 3),
            "diff_vs_reference": round(diff, 3),
            "diff_ci95_half_width": round(diff_half, 3),
        }
        row.update({f"{k}_rate": round(float(r.stats[k].mean()), 4) if k in r.stats else None for k in stat_keys})
        percentiles = np.percentile(r.scores, PERCENTILES)
        row.update({f"p{q}": float(v) for q, v in zip(PERCENTILES, percentiles)})
        row.update({"min": float(r.scores.min()), "max": float(r.scores.max())})
        rows.append(row)
        cells = [
            r.agent,
            str(len(r.scores)),
            f"{mean:.1f}",
            f"[{mean - half:.1f}, {mean + half:.1f}]",
            f"{row['std']:.1f}",
        ]
        cells.append("—" if r is reference else f"{diff:+.1f} ± {diff_half:.1f}")
        cells += [f"{row[f'{k}_rate']:.3f}" if row[f"{k}_rate"] is not None else "—" for k in stat_keys]
        cells += [f"{v:g}" for v in percentiles] + [f"{row['min']:g}", f"{row['max']:g}"]
        table.append(cells)
    return _markdown(header, table), rows


def pairing_report(
    results: list[PairingResult], references: dict[str, PairingResult] | None = None, players: int = 2
) -> tuple[str, list[dict]]:
    """Markdown table and CSV rows of the pairings of a game of ``players``; with ``references``
    (opponent -> that opponent against copies of itself, :func:`reference_pairings`), a column
    gives the share of a game an agent as good as the opponent would take at that table. At two
    players a column counts the openings by the points the agent took in their two games (the
    pentanomial model's five outcomes)."""
    references = references or {}
    header = [
        "agent",
        "opponent",
        "games",
        "distinct",
        "win rate",
        "95% CI",
        "draw rate",
        "loss rate",
        "95% CI",
        "score (wins + ½ draws), 95% CI",
        "mean outcome, 95% CI",
    ]
    if references:
        header.append("opponent's own score, 95% CI")
    two_players = players == 2
    if two_players:
        header.append("openings 0 / ½ / 1 / 1½ / 2")
    rows, table = [], []
    for r in results:
        win, win_low, win_high = r.rate(1)
        draw, _, _ = r.rate(0)
        loss, loss_low, loss_high = r.rate(-1)
        score, score_low, score_high = r.share()
        # the mean outcome is 2 score - 1 game by game: its interval is the score's, mapped onto [-1, 1]
        mean, mean_low, mean_high = 2 * score - 1, 2 * score_low - 1, 2 * score_high - 1
        rows.append(
            {
                "agent": r.candidate,
                "opponent": r.opponent,
                "games": r.games,
                "openings": int(len(np.unique(r.openings))),
                "distinct_games": r.distinct_games,
                "win_rate": round(win, 4),
                "win_ci95_low": round(win_low, 4),
                "win_ci95_high": round(win_high, 4),
                "draw_rate": round(draw, 4),
                "loss_rate": round(loss, 4),
                "loss_ci95_low": round(loss_low, 4),
                "loss_ci95_high": round(loss_high, 4),
                "score": round(score, 4),
                "score_ci95_low": round(score_low, 4),
                "score_ci95_high": round(score_high, 4),
                "mean_outcome": round(mean, 4),
                "mean_outcome_ci95_low": round(mean_low, 4),
                "mean_outcome_ci95_high": round(mean_high, 4),
            }
        )
        table.append(
            [
                r.candidate,
                r.opponent,
                str(r.games),
                str(r.distinct_games),
                f"{win:.3f}",
                f"[{win_low:.3f}, {win_high:.3f}]",
                f"{draw:.3f}",
                f"{loss:.3f}",
                f"[{loss_low:.3f}, {loss_high:.3f}]",
                f"{score:.3f} [{score_low:.3f}, {score_high:.3f}]",
                f"{mean:+.3f} [{mean_low:+.3f}, {mean_high:+.3f}]",
            ]
        )
        if r.sprt is not None:
            rows[-1].update({"sprt": r.sprt.decision or "undecided", "sprt_llr": round(r.sprt.llr, 3)})
        if references:
            own, own_low, own_high = references[r.opponent].share()
            rows[-1].update(
                {
                    "opponent_own_score": round(own, 4),
                    "opponent_own_score_ci95_low": round(own_low, 4),
                    "opponent_own_score_ci95_high": round(own_high, 4),
                }
            )
            table[-1].append(f"{own:.3f} [{own_low:.3f}, {own_high:.3f}]")
        if two_players:
            counts = r.pentanomial()
            rows[-1]["pentanomial"] = "/".join(map(str, counts))
            table[-1].append(" / ".join(map(str, counts)))
    return _markdown(header, table), rows


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


def paired_report(results: list[PairingResult]) -> tuple[str, list[dict]]:
    """Two agents against the same opponent on the same games (seeds, seats, openings): the
    paired difference of their scores, with its 95% CI over the openings (much tighter than
    the two scores' own intervals, since each game's dice are shared). Empty without such pairs."""
    header = ["agent", "minus agent", "against", "games", "score difference (paired)", "95% CI"]
    rows, table = [], []
    for first, second in combinations(results, 2):
        if first.opponent != second.opponent or first.games != second.games or not (first.seats == second.seats).all():
            continue
        diff, low, high = clipped_mean_ci(opening_scores(first.scores - second.scores, first.openings), -1.0, 1.0)
        rows.append(
            {
                "agent": first.candidate,
                "minus_agent": second.candidate,
                "against": first.opponent,
                "games": first.games,
                "score_difference": round(diff, 4),
                "ci95_low": round(low, 4),
                "ci95_high": round(high, 4),
            }
        )
        table.append(
            [
                first.candidate,
                second.candidate,
                first.opponent,
                str(first.games),
                f"{diff:+.4f}",
                f"[{low:+.4f}, {high:+.4f}]",
            ]
        )
    return (_markdown(header, table) if table else ""), rows


def pairing_games_rows(results: list[PairingResult]) -> list[dict]:
    """Every game of the pairings, for ``games.csv``: the agent's score per game with its opening
    and seat, what an aggregate over several runs resamples (:mod:`training.evaluation.run_sets`)."""
    return [
        {
            "agent": r.candidate,
            "opponent": r.opponent,
            "game": g,
            "opening": int(opening),
            "seat": int(seat),
            "score": score,
        }
        for r in results
        for g, (opening, seat, score) in enumerate(zip(r.openings, r.seats, r.scores.tolist()))
    ]


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@contextmanager
def report_folder(out_dir: Path) -> Iterator[Path]:
    """A fresh hidden folder beside ``out_dir`` to write a report into.

    Its files move into ``out_dir`` (created then) when the block ends without an error,
    and the folder is removed either way: an evaluation that fails while writing its
    report leaves no half report, and nothing in ``out_dir`` that blocks a rerun.
    """
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
    try:
        yield staging
        out_dir.mkdir(parents=True, exist_ok=True)
        for path in sorted(staging.iterdir()):
            os.replace(path, out_dir / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def agent_labels(specs: list[str]) -> list[str]:
    """The name of each agent in the tables: a run's path is ``trained`` (``trained seed 3``, by its
    config's seed, where several runs of different seeds play), anything else its spec; a name
    given twice gets ``#2``, ``#3`` ... so that no agent is lost."""
    runs = [spec for spec in specs if Path(spec).exists()]
    seeds = {run: read_config(run).get("seed") for run in runs}
    by_seed = len(runs) > 1 and None not in seeds.values() and len(set(seeds.values())) == len(runs)
    labels: list[str] = []
    for spec in specs:
        base = spec if spec not in runs else f"trained seed {seeds[spec]}" if by_seed else "trained"
        label, copy = base, 1
        while label in labels:
            copy += 1
            label = f"{base} #{copy}"
        labels.append(label)
    return labels


def _score_histogram(path: Path, results: list[SolitaireResult]) -> None:
    import matplotlib  # noqa: PLC0415 (matplotlib takes a second to import; only the histogram needs it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 (as matplotlib, and after its backend is chosen)

    fig, ax = plt.subplots(figsize=(7, 4))
    low = min(r.scores.min() for r in results)
    high = max(r.scores.max() for r in results)
    bins = np.linspace(low, high + 1, 40)
    for r in results:
        ax.hist(r.scores, bins=bins, histtype="step", linewidth=1.5, label=f"{r.agent} (mean {r.scores.mean():.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


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
        table, rows = solitaire_report(solitaire)
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
        _write_csv(staging / "summary.csv", rows)
        if game.num_players > 1 and paired_rows:
            _write_csv(staging / "paired.csv", paired_rows)
        if game.num_players > 1:
            _write_csv(staging / "games.csv", pairing_games_rows(pairings))
        if game.num_players == 1:
            _write_csv(
                staging / "games.csv",
                [{"seed": seed + i, **{r.agent: float(r.scores[i]) for r in solitaire}} for i in range(games)],
            )
            _score_histogram(staging / "scores.png", solitaire)
        (staging / "report.md").write_text(report)
    return report


def how_played(agents: dict[str, Agent], specs: dict[str, str], batch: int) -> str:
    """The report's line on how the games were played: in batches, and which agents' games one at a time."""
    if batch <= 0:
        return "The games were played one at a time (--batch 0)."
    unable = [f"`{specs[label]}`" for label, agent in agents.items() if not acts_in_batch(agent)]
    line = f"The games were played {batch} at a time as rows of the batched twin"
    if not unable:
        return line + " (the same games as one at a time)."
    return (
        line + f", except every game of {', '.join(unable)}, played one at a time: "
        f"{'it has' if len(unable) == 1 else 'they have'} no act_batch."
    )


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


def output_dir(out: str | None, overwrite: bool, checkpoint: Path | None, env: str) -> Path:
    """Where the report goes: ``--out`` (never over a report unless ``--overwrite``), else a new
    dated folder: in the run folder of ``checkpoint`` when it is one (it holds the run's
    config) and not a shipped network's, else under ``results/<env>/`` (neither a shipped
    folder nor a bare model file's folder is the user's to write in)."""
    if out is not None:
        out_dir = Path(out)
        if out_dir.is_dir() and any(out_dir.iterdir()) and not overwrite:
            raise ConfigError(
                f"{out_dir} already holds files (an earlier report?); choose another --out or pass --overwrite"
            )
        return out_dir
    folder = None if checkpoint is None else folder_of(checkpoint)
    if folder is not None and (folder / CONFIG_FILE).is_file() and not is_shipped(folder):
        return new_report_dir(folder, f"{EVALUATION_DIR}-")
    return new_report_dir(results_root() / env)
