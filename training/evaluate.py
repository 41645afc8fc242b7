"""Evaluate a trained agent against the bots of its game, with confidence intervals.

    python training/evaluate.py --env inverted_dice                    # latest run vs bots
    python training/evaluate.py --checkpoint checkpoints/inverted_dice/<run> --games 2000
    python training/evaluate.py --env inverted_dice --agents heuristic random   # bots only

One-player games report mean score (95% CI), the paired difference to the first agent,
per-game statistics (e.g. bonus rates) and the score distribution; games with several
players report win / draw / loss rates (95% CI) for every pairing, seats swapped. See
:mod:`training.evaluation.harness` for the method.

The report is printed and written as Markdown and CSV to a new, dated folder
(``<run>/evaluation-<date>-<time>/``, or ``./results/<env>/<date>-<time>/`` under the
current directory without a checkpoint: :mod:`training.framework.paths`), so no report
is ever replaced; ``--out DIR`` writes to ``DIR`` and
refuses to replace a report there unless ``--overwrite``. Progress (games done / total,
time left) is shown on stderr.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path


import numpy as np
import yaml
from tqdm import tqdm

from agents.registry import bot_names
from agents.trained import CheckpointError
from envs.registry import get_entry
from training.framework.cli import USER_ERRORS, fail, interrupted, yaml_mapping
from training.framework.config import ConfigError, build_agent, make_checked_game
from training.framework.paths import checkpoint_root, results_root
from training.evaluation.harness import PairingResult, SolitaireResult, evaluate_pairing, evaluate_solitaire, mean_ci
from training.framework.run_files import CONFIG_FILE, EVALUATION_DIR, MODEL_FILE, new_report_dir

PERCENTILES = (5, 25, 50, 75, 95)


def latest_run(env: str) -> Path | None:
    """The most recently written run of ``env`` under ``./checkpoints/`` (:func:`checkpoint_root`), if any."""
    runs = sorted((checkpoint_root() / env).glob(f"*/{MODEL_FILE}"), key=lambda p: p.stat().st_mtime)
    return runs[-1].parent if runs else None


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
        cells = [r.agent, str(len(r.scores)), f"{mean:.1f}", f"[{mean - half:.1f}, {mean + half:.1f}]", f"{row['std']:.1f}"]
        cells.append("—" if r is reference else f"{diff:+.1f} ± {diff_half:.1f}")
        cells += [f"{row[f'{k}_rate']:.3f}" if row[f"{k}_rate"] is not None else "—" for k in stat_keys]
        cells += [f"{v:g}" for v in percentiles] + [f"{row['min']:g}", f"{row['max']:g}"]
        table.append(cells)
    return _markdown(header, table), rows


def pairing_report(results: list[PairingResult]) -> tuple[str, list[dict]]:
    header = ["agent", "opponent", "games", "distinct", "win rate", "95% CI", "draw rate", "loss rate", "95% CI", "mean outcome"]
    rows, table = [], []
    for r in results:
        win, win_low, win_high = r.rate(1)
        draw, _, _ = r.rate(0)
        loss, loss_low, loss_high = r.rate(-1)
        mean, half = mean_ci(r.outcomes)
        rows.append(
            {
                "agent": r.candidate, "opponent": r.opponent, "games": r.games, "distinct_games": r.distinct_games,
                "win_rate": round(win, 4), "win_ci95_low": round(win_low, 4), "win_ci95_high": round(win_high, 4),
                "draw_rate": round(draw, 4),
                "loss_rate": round(loss, 4), "loss_ci95_low": round(loss_low, 4), "loss_ci95_high": round(loss_high, 4),
                "mean_outcome": round(mean, 4), "mean_outcome_ci95_half_width": round(half, 4),
            }
        )
        table.append(
            [r.candidate, r.opponent, str(r.games), str(r.distinct_games), f"{win:.3f}", f"[{win_low:.3f}, {win_high:.3f}]", f"{draw:.3f}",
             f"{loss:.3f}", f"[{loss_low:.3f}, {loss_high:.3f}]", f"{mean:+.3f} ± {half:.3f}"]
        )
    return _markdown(header, table), rows


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _score_histogram(path: Path, results: list[SolitaireResult]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


@contextmanager
def progress(total: int) -> Iterator[Callable[[], None]]:
    """Games done / total and the time left, on stderr: a bar on a terminal, else a line per 10%."""
    if sys.stderr.isatty():
        with tqdm(total=total, desc="games", unit="game", file=sys.stderr) as bar:
            yield bar.update
        return
    started, done, step = time.perf_counter(), 0, max(1, total // 10)

    def update() -> None:
        nonlocal done
        done += 1
        if done % step == 0 or done == total:
            elapsed = time.perf_counter() - started
            left = elapsed / done * (total - done)
            print(f"games {done}/{total}, {elapsed:.0f} s elapsed, about {left:.0f} s left", file=sys.stderr, flush=True)

    yield update


def evaluate(
    env: str,
    agent_specs: list[str],
    games: int,
    seed: int,
    out_dir: Path,
    env_kwargs: dict | None = None,
    random_opening_plies: int = 0,
) -> str:
    """Run the evaluation, write the report files into ``out_dir`` and return the Markdown report.

    Every agent is built (and any bad spec reported) before the first game.
    """
    import torch

    torch.set_num_threads(1)  # one observation at a time: threads only add overhead
    game = make_checked_game(env, env_kwargs or {})
    agents = {}
    for spec in agent_specs:
        label = "trained" if Path(spec).exists() else spec
        agents[label] = build_agent(env, spec, game, seed=seed)
    title = f"# {env} evaluation\n\nGame: `{game!r}`; seed {seed}.\n\n"
    if game.num_players == 1:
        print(f"Evaluating {', '.join(agents)}: {len(agents)} agents x {games} games", flush=True)
        with progress(games * len(agents)) as update:
            results = evaluate_solitaire(game, agents, range(seed, seed + games), progress=update)
        out_dir.mkdir(parents=True, exist_ok=True)
        table, rows = solitaire_report(results)
        _write_csv(out_dir / "summary.csv", rows)
        _write_csv(out_dir / "games.csv", [{"seed": seed + i, **{r.agent: float(r.scores[i]) for r in results}} for i in range(games)])
        _score_histogram(out_dir / "scores.png", results)
        note = f"All agents played the same {games} seeds (same dice). Δ is the paired mean difference with its 95% CI."
    else:
        pairs = list(combinations(agents.items(), 2))
        print(f"Evaluating {', '.join(agents)}: {len(pairs)} pairings x {games} games", flush=True)
        with progress(games * len(pairs)) as update:
            results = [evaluate_pairing(game, a, b, games, seed, random_opening_plies, update) for a, b in pairs]
        out_dir.mkdir(parents=True, exist_ok=True)
        table, rows = pairing_report(results)
        _write_csv(out_dir / "summary.csv", rows)
        note = (
            f"{games} games per pairing, the first agent in each seat equally often; rates are the first agent's. "
            f"The first {random_opening_plies} plies of every game are uniformly random (same openings for every "
            "pairing); 'distinct' counts the games that differ in their moves."
        )
    report = title + table + "\n\n" + note + "\n"
    (out_dir / "report.md").write_text(report)
    return report


def table_name(options: dict) -> str:
    """Folder name of an extra evaluation table: ``{num_players: 4}`` -> ``num_players=4``."""
    return ",".join(f"{key}={value}" for key, value in sorted(options.items()))


def evaluate_run(run_dir: Path, games: int | None = None, seed: int = 10_000) -> str:
    """The closing evaluation of a trained run against its config's opponents; prints and saves the report.

    It goes to ``<run>/evaluation/``, or to a new dated ``evaluation-<date>-<time>/`` when
    an earlier session of the run (before a ``--resume``) already wrote one there. The
    run's own table comes first, then every table of ``evaluation.tables`` (game options
    overriding the run's), each in its own subfolder.
    """
    config = yaml.safe_load((run_dir / CONFIG_FILE).read_text())
    evaluation = config.get("evaluation") or {}
    specs = [str(run_dir), *evaluation.get("opponents", ["random"])]
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
        )
        for table_out, options in tables
    ]
    report = "\n".join(reports)
    print(report)
    print(f"Report written to {out}")
    return report


def run_config(checkpoint: Path) -> dict:
    """The config a checkpoint (run folder or model .zip) was trained with; {} when there is none."""
    path = (checkpoint if checkpoint.is_dir() else checkpoint.parent) / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        config = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise CheckpointError(f"{path} is not valid YAML: {error}") from None
    return config if isinstance(config, dict) else {}


def output_dir(out: str | None, overwrite: bool, checkpoint: Path | None, env: str) -> Path:
    """Where the report goes: ``--out`` (never over a report unless ``--overwrite``), else a new dated folder."""
    if out is not None:
        out_dir = Path(out)
        if out_dir.is_dir() and any(out_dir.iterdir()) and not overwrite:
            raise ConfigError(f"{out_dir} already holds files (an earlier report?); choose another --out or pass --overwrite")
        return out_dir
    if checkpoint is not None:
        return new_report_dir(checkpoint if checkpoint.is_dir() else checkpoint.parent, f"{EVALUATION_DIR}-")
    return new_report_dir(results_root() / env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", help="env name (default: the checkpoint's)")
    parser.add_argument("--checkpoint", help="trained run directory or model .zip (default: the latest run of the env in ./checkpoints/)")
    parser.add_argument("--agents", nargs="+", help="agent specs to compare (default: the checkpoint and every bot)")
    parser.add_argument("--games", type=int, help="games per agent or pairing (default: the run's config, else 1000)")
    parser.add_argument("--seed", type=int, default=10_000, help="first game seed (default 10000)")
    parser.add_argument("--out", help="output directory (default: a new dated folder)")
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier report")
    parser.add_argument("--random-opening", type=int, default=None, metavar="PLIES",
                        help="random plies opening every game of several players (default: the run's config, else 0)")
    parser.add_argument("--env-kwargs", default=None, help='game options as YAML, e.g. "{num_players: 2}" (default: the run\'s)')
    args = parser.parse_args(argv)
    if not (args.env or args.checkpoint):
        parser.error("give --env NAME or --checkpoint RUN")
    try:
        if args.games is not None and args.games <= 0:
            raise ConfigError("--games must be positive")
        if args.random_opening is not None and args.random_opening < 0:
            raise ConfigError("--random-opening must be 0 or more")
        env_kwargs = yaml_mapping(args.env_kwargs, "--env-kwargs") if args.env_kwargs else None
        checkpoint = Path(args.checkpoint) if args.checkpoint else None
        if checkpoint is not None and not checkpoint.exists():
            raise CheckpointError(f"checkpoint {checkpoint} does not exist")
        trained = run_config(checkpoint) if checkpoint is not None else {}
        env = args.env or trained.get("env")
        if env is None:
            raise CheckpointError(f"checkpoint {checkpoint} has no {CONFIG_FILE} naming its env: pass --env")
        try:
            get_entry(env)
        except KeyError as error:
            raise ConfigError(error.args[0]) from None
        if trained.get("env") not in (None, env):
            raise CheckpointError(
                f"checkpoint {checkpoint} was trained on {trained['env']}, not {env}: use --env {trained['env']} (or leave --env out)"
            )
        if args.agents is None and checkpoint is None:
            checkpoint = latest_run(env)
        specs = ([str(checkpoint)] if checkpoint else []) + (args.agents if args.agents is not None else bot_names(env))
        trained_evaluation = trained.get("evaluation") or {}
        if env_kwargs is None:
            env_kwargs = trained.get("env_kwargs")
        random_opening = args.random_opening if args.random_opening is not None else trained_evaluation.get("random_opening_plies", 0)
        games = args.games or trained_evaluation.get("games") or 1000
        out = output_dir(args.out, args.overwrite, checkpoint, env)
        report = evaluate(env, specs, games, args.seed, out, env_kwargs, random_opening)
    except USER_ERRORS as error:
        return fail(error)
    except KeyboardInterrupt:
        print("\nevaluation interrupted; no report written", file=sys.stderr)
        return interrupted()
    print(report)
    print(f"Report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
