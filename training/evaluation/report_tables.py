"""An evaluation's tables: what :func:`training.evaluation.report.evaluate` writes of its results.

One player: each agent's mean score with its interval, its paired difference to the first
agent, the rate of each of the game's statistics and the score's percentiles
(:func:`solitaire_report`), and a histogram of the scores (:func:`score_histogram`).
Several players: each pairing's rates, score and mean outcome with their intervals, the
opponent's own score at the table and, at two players, the pentanomial counts
(:func:`pairing_report`); the paired differences of agents against a common opponent
(:func:`paired_report`); and every game as a row (:func:`pairing_games_rows`). Each comes as
a Markdown table and CSV rows; :func:`how_played` says how the games were played.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from agents.base import Agent, acts_in_batch
from training.evaluation.harness import (
    PairingResult,
    SolitaireResult,
    clipped_mean_ci,
    mean_ci,
    opening_scores,
    wilson_interval,
)
from training.evaluation.report_files import interval_cell, markdown_table

PERCENTILES = (5, 25, 50, 75, 95)


def solitaire_report(results: list[SolitaireResult], above: tuple[float, ...] = ()) -> tuple[str, list[dict]]:
    """Markdown table and CSV rows of a one-player evaluation (first agent = reference); for each
    score of ``above``, each agent's share of games scoring more than it, with its 95% Wilson interval."""
    reference = results[0]
    stat_keys = sorted({k for r in results for k in r.stats})
    header = ["agent", "games", "mean score", "95% CI", "std", f"Δ vs {reference.agent} (paired)"]
    header += [f"{k} (mean)" for k in stat_keys] + [f"p{q}" for q in PERCENTILES] + ["min", "max"]
    header += [f"P(> {t:g}), 95% CI" for t in above]
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
        shares = []
        for t in above:
            count = int((r.scores > t).sum())
            low, high = wilson_interval(count, len(r.scores))
            shares.append((count / len(r.scores), low, high))
            key = f"above_{t:g}"
            row.update(
                {key: round(shares[-1][0], 4), f"{key}_ci95_low": round(low, 4), f"{key}_ci95_high": round(high, 4)}
            )
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
        cells += [interval_cell(share, low, high) for share, low, high in shares]
        table.append(cells)
    return markdown_table(header, table), rows


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
                interval_cell(score, score_low, score_high),
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
            table[-1].append(interval_cell(own, own_low, own_high))
        if two_players:
            counts = r.pentanomial()
            rows[-1]["pentanomial"] = "/".join(map(str, counts))
            table[-1].append(" / ".join(map(str, counts)))
    return markdown_table(header, table), rows


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
    return (markdown_table(header, table) if table else ""), rows


def pairing_games_rows(results: list[PairingResult]) -> list[dict]:
    """Every game of the pairings, for ``games.csv``: the agent's score per game with its opening
    and seat, what an aggregate over several runs resamples (:mod:`training.evaluation.run_aggregate`)."""
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


def score_histogram(path: Path, results: list[SolitaireResult]) -> None:
    """``scores.png``: each agent's final scores, a histogram over the same bins."""
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
