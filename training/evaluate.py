"""Evaluate a trained agent against the bots of its game, with confidence intervals.

    python training/evaluate.py --env inverted_dice                    # latest run vs bots
    python training/evaluate.py --env inverted_dice --checkpoint checkpoints/inverted_dice/<run> --games 2000
    python training/evaluate.py --env inverted_dice --agents heuristic random   # bots only

One-player games report mean score (95% CI), the paired difference to the first agent,
per-game statistics (e.g. bonus rates) and the score distribution; games with several
players report win / draw / loss rates (95% CI) for every pairing, seats swapped. The
report is printed and written as Markdown and CSV (default: ``<run>/evaluation/``, or
``results/<env>/`` without a checkpoint). See :mod:`training.evaluation` for the method.
"""

from __future__ import annotations

import argparse
import csv
import sys
from itertools import combinations
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import yaml
from tqdm import tqdm

from agents.registry import bot_names, make_agent
from agents.trained import CheckpointError
from envs.registry import get_entry, make_game
from training.config import CHECKPOINT_DIR, ROOT
from training.evaluation import PairingResult, SolitaireResult, evaluate_pairing, evaluate_solitaire, mean_ci

PERCENTILES = (5, 25, 50, 75, 95)


def latest_run(env: str) -> Path | None:
    """The most recently written run of ``env`` under ``checkpoints/``, if any."""
    runs = sorted((CHECKPOINT_DIR / env).glob("*/model.zip"), key=lambda p: p.stat().st_mtime)
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


def evaluate(
    env: str,
    agent_specs: list[str],
    games: int,
    seed: int,
    out_dir: Path,
    env_kwargs: dict | None = None,
    random_opening_plies: int = 0,
) -> str:
    """Run the evaluation, write the report files and return the Markdown report."""
    import torch

    torch.set_num_threads(1)  # one observation at a time: threads only add overhead
    game = make_game(env, **(env_kwargs or {}))
    agents = {}
    for spec in agent_specs:
        label = "trained" if Path(spec).exists() else spec
        agents[label] = make_agent(env, spec, game, seed=seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    title = f"# {env} evaluation\n\nGame: `{game!r}`; seed {seed}.\n\n"
    if game.num_players == 1:
        with tqdm(total=games * len(agents), desc="games", leave=False, disable=None) as bar:
            results = evaluate_solitaire(game, agents, range(seed, seed + games), progress=bar.update)
        table, rows = solitaire_report(results)
        _write_csv(out_dir / "summary.csv", rows)
        _write_csv(out_dir / "games.csv", [{"seed": seed + i, **{r.agent: float(r.scores[i]) for r in results}} for i in range(games)])
        _score_histogram(out_dir / "scores.png", results)
        note = f"All agents played the same {games} seeds (same dice). Δ is the paired mean difference with its 95% CI."
    else:
        pairs = list(combinations(agents.items(), 2))
        with tqdm(total=games * len(pairs), desc="games", leave=False, disable=None) as bar:
            results = [evaluate_pairing(game, a, b, games, seed, random_opening_plies, bar.update) for a, b in pairs]
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
    """Evaluate a trained run against its config's opponents; prints and saves the report.

    The run's own table comes first, then every table of ``evaluation.tables`` (game
    options overriding the run's), each in its own subfolder of ``evaluation/``.
    """
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    evaluation = config.get("evaluation") or {}
    specs = [str(run_dir), *evaluation.get("opponents", ["random"])]
    env_kwargs = config.get("env_kwargs") or {}
    tables = [(run_dir / "evaluation", env_kwargs)]
    tables += [(run_dir / "evaluation" / table_name(t), {**env_kwargs, **t}) for t in evaluation.get("tables", [])]
    reports = [
        evaluate(
            config["env"],
            specs,
            games or evaluation.get("games", 1000),
            seed,
            out_dir,
            options,
            evaluation.get("random_opening_plies", 0),
        )
        for out_dir, options in tables
    ]
    report = "\n".join(reports)
    print(report)
    print(f"Report written to {run_dir / 'evaluation'}")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="env name")
    parser.add_argument("--checkpoint", help="trained run directory or model .zip (default: the latest run of the env)")
    parser.add_argument("--agents", nargs="+", help="agent specs to compare (default: the checkpoint and every bot)")
    parser.add_argument("--games", type=int, help="games per agent or pairing (default: the run's config, else 1000)")
    parser.add_argument("--seed", type=int, default=10_000, help="first game seed (default 10000)")
    parser.add_argument("--out", help="output directory")
    parser.add_argument("--random-opening", type=int, default=None, metavar="PLIES",
                        help="random plies opening every game of several players (default: the run's config, else 0)")
    parser.add_argument("--env-kwargs", default=None, help='game options as YAML, e.g. "{num_players: 2}" (default: the run\'s)')
    args = parser.parse_args(argv)
    try:
        get_entry(args.env)
        if args.games is not None and args.games <= 0:
            raise ValueError("--games must be positive")
        env_kwargs = yaml.safe_load(args.env_kwargs) if args.env_kwargs else None
        if env_kwargs is not None and not isinstance(env_kwargs, dict):
            raise ValueError(f"--env-kwargs must be a mapping, got {args.env_kwargs!r}")
        checkpoint = Path(args.checkpoint) if args.checkpoint else None
        if args.agents is None:
            checkpoint = checkpoint or latest_run(args.env)
            specs = ([str(checkpoint)] if checkpoint else []) + bot_names(args.env)
        else:
            specs = ([str(checkpoint)] if checkpoint else []) + args.agents
        if checkpoint is not None:
            if not checkpoint.exists():
                raise CheckpointError(f"checkpoint {checkpoint} does not exist")
            config_path = (checkpoint if checkpoint.is_dir() else checkpoint.parent) / "config.yaml"
            if config_path.is_file():
                run_config = yaml.safe_load(config_path.read_text()) or {}
                if env_kwargs is None:
                    env_kwargs = run_config.get("env_kwargs")
                run_evaluation = run_config.get("evaluation") or {}
                if args.random_opening is None:
                    args.random_opening = run_evaluation.get("random_opening_plies")
                if args.games is None:
                    args.games = run_evaluation.get("games")
        out = Path(args.out) if args.out else (
            (checkpoint if checkpoint.is_dir() else checkpoint.parent) / "evaluation" if checkpoint else ROOT / "results" / args.env
        )
        if args.random_opening is not None and args.random_opening < 0:
            raise ValueError("--random-opening must be 0 or more")
        report = evaluate(args.env, specs, args.games or 1000, args.seed, out, env_kwargs, args.random_opening or 0)
    except (KeyError, ValueError, TypeError) as error:
        print(f"error: {error.args[0] if error.args else error}", file=sys.stderr)
        return 2
    print(report)
    print(f"Report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
