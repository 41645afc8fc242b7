"""The ladder's report: ``ladder.md``'s tables, ``pairings.csv``'s rows, ``timing.md`` and the pictures.

:func:`ladder_report` writes the ratings, every pairing and, where an SPRT stopped pairings,
their tests; :func:`run_set_table` each run set's rating; :func:`pairing_row` a pairing for
``pairings.csv``; :func:`timing_report` each agent's time per move, the one table that changes
from run to run; :func:`plot_ladder` the heatmap of scores and the ratings with their
intervals. The tables are :mod:`training.evaluation.report_files`'; what they show is
:mod:`training.evaluation.ladder`'s tournament and ratings.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from training.evaluation.harness import PairingResult
from training.evaluation.machine import TIMING_FILE, load_average
from training.evaluation.ratings import BOOTSTRAP, Ratings
from training.evaluation.report_files import interval_cell, markdown_table
from training.evaluation.timed import TimedAgent

#: The columns of ``ladder.md``'s table of pairings.
PAIRING_COLUMNS = ["agent", "opponent", "games", "distinct", "win", "draw", "loss", "score, 95% CI over the openings"]


def elo_interval(low: float, high: float) -> str:
    """A rating's 95% interval as the ladder's tables write it."""
    return f"[{low:+.0f}, {high:+.0f}]"


def ladder_report(ratings: Ratings, results: list[PairingResult], games: int, random_opening_plies: int) -> str:
    """``ladder.md``'s tables: the ratings, every pairing and the tests of the pairings an SPRT
    stopped, then how the games were played and rated."""
    standings = []
    for rank, i in enumerate(np.argsort(-ratings.elo), 1):
        label = ratings.agents[i]
        played = [r for r in results if label in (r.candidate, r.opponent)]
        points = sum(
            float(((r.outcomes + 1) / 2).sum()) if r.candidate == label else float(((1 - r.outcomes) / 2).sum())
            for r in played
        )
        total = sum(r.games for r in played)
        standings.append(
            [
                str(rank),
                f"`{label}`",
                f"{ratings.elo[i]:+.0f}",
                elo_interval(ratings.low[i], ratings.high[i]),
                str(total),
                f"{points / total:.3f}",
            ]
        )
    pairings = [
        [
            f"`{r.candidate}`",
            f"`{r.opponent}`",
            str(r.games),
            str(r.distinct_games),
            *map(str, r.counts()),
            interval_cell(*r.share()),
        ]
        for r in results
    ]
    lines = [
        markdown_table(["rank", "agent", "Elo", "95% CI", "games", "score"], standings),
        "",
        markdown_table(PAIRING_COLUMNS, pairings),
    ]
    stopped = [r for r in results if r.sprt is not None]
    if stopped:
        rows = [[f"`{r.candidate}`", f"`{r.opponent}`", str(r.games), r.sprt.words()] for r in stopped]
        lines += ["", markdown_table(["agent", "opponent", "games", "SPRT"], rows)]
    played = (
        f"at most {games} games per pairing (an SPRT stopped each once decided)"
        if stopped
        else f"{games} games per pairing"
    )
    note = (
        f"\nBradley–Terry ratings (Elo scale) fitted over all games, anchored at `{ratings.agents[0]}` = 0; "
        f"95% intervals from {BOOTSTRAP} bootstrap resamples of each pairing's openings. {played}, in seat-paired "
        "openings (each opening played once with each agent in every seat; a score's interval is taken over the "
        f"openings), the first {random_opening_plies} plies of every game uniformly random. Every game is seeded "
        "by its number, so these tables come out the same, digit for digit, on every run. Each agent's time per "
        f"move, which is the machine's, is in `{TIMING_FILE}` beside this report.\n"
    )
    return "\n".join(lines) + "\n" + note


def run_set_table(sets: dict[str, list[str]], rated: dict[str, tuple[float, float, float]]) -> str:
    """Each run set's rating (:func:`~training.evaluation.ladder.run_set_ratings`): its runs, the mean
    of their ratings and its 95% interval."""
    rows = [
        [f"`{name}`", str(len(sets[name])), f"{elo:+.0f}", elo_interval(low, high)]
        for name, (elo, low, high) in rated.items()
    ]
    return markdown_table(["run set", "runs", "Elo, mean of its runs", "95% CI"], rows)


def pairing_row(r: PairingResult) -> dict:
    """A pairing's row of ``pairings.csv``."""
    score, low, high = (round(value, 4) for value in r.share())
    wins, draws, losses = r.counts()
    return {
        "agent": r.candidate,
        "opponent": r.opponent,
        "games": r.games,
        "distinct_games": r.distinct_games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": score,
        "score_ci95_low": low,
        "score_ci95_high": high,
        "sprt": "" if r.sprt is None else r.sprt.decision or "undecided",
    }


def timing_report(ratings: Ratings, agents: dict[str, TimedAgent]) -> str:
    """Each agent's mean time per move over the tournament, with the machine and its load (:data:`TIMING_FILE`)."""
    load = load_average()
    lines = [
        f"Time per move, the mean over the tournament: measured on this machine ({os.cpu_count()} CPUs, load average "
        f"{load} when the ladder ended), so it changes from run to run; compare agents within one ladder only.",
        "",
        markdown_table(
            ["agent", "ms / move"],
            [
                [f"`{ratings.agents[i]}`", f"{agents[ratings.agents[i]].ms_per_move:.2f}"]
                for i in np.argsort(-ratings.elo)
            ],
        ),
    ]
    return "\n".join(lines) + "\n"


def short_label(spec: str) -> str:
    """An agent's name in the pictures: a run folder's path by its last two parts (a run set's
    ``<set>/seed3``), any other spec as it is."""
    path = Path(spec)
    return "/".join(path.parts[-2:]) if len(path.parts) > 2 and path.exists() else spec


def score_matrix(labels: list[str], results: list[PairingResult]) -> np.ndarray:
    """``m[i, j]``: the score (wins + half the draws, per game) of agent ``i`` against ``j``."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = np.full((len(labels), len(labels)), np.nan)
    for r in results:
        score = float(((r.outcomes + 1) / 2).mean())
        matrix[index[r.candidate], index[r.opponent]] = score
        matrix[index[r.opponent], index[r.candidate]] = 1.0 - score
    return matrix


def plot_ladder(out: Path, ratings: Ratings, results: list[PairingResult]) -> None:
    """``heatmap.png`` (each agent's score against each other, :func:`score_matrix`) and ``ratings.png``
    (the ratings with their intervals), the agents in the order of their ratings."""
    import matplotlib  # noqa: PLC0415 (matplotlib takes a second to import; only the figure needs it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 (as matplotlib, and after its backend is chosen)

    order = np.argsort(-ratings.elo)
    labels = [short_label(ratings.agents[i]) for i in order]
    # Room for the labels and the title even with two agents; cells grow with the ladder.
    fig, ax = plt.subplots(figsize=(max(5.5, 2.5 + 0.9 * len(labels)), max(4.5, 2.0 + 0.8 * len(labels))))
    shown = score_matrix(ratings.agents, results)[np.ix_(order, order)]
    image = ax.imshow(shown, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if not np.isnan(shown[i, j]):
                ax.text(j, i, f"{shown[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("opponent")
    ax.set_title("score of the row agent\nagainst the column agent", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(out / "heatmap.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.45 * len(labels)))
    y = np.arange(len(labels))[::-1]
    elo = ratings.elo[order]
    errors = np.vstack([elo - ratings.low[order], ratings.high[order] - elo])
    ax.errorbar(elo, y, xerr=errors, fmt="o", capsize=4)
    ax.set_yticks(y, labels)
    ax.set_xlabel(f"Elo (Bradley–Terry, {ratings.agents[0]} = 0), 95% bootstrap interval")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "ratings.png", dpi=100)
    plt.close(fig)


def how_played(specs: list[str], in_batch: frozenset[str], batch: int) -> str:
    """The report's line on how the games were played: in batch, and which agents' games one at a time."""
    if batch <= 0:
        return "The games were played one at a time (--batch 0)."
    alone = [f"`{spec}`" for spec in specs if spec not in in_batch]
    line = f"The games were played up to {batch} at a time as rows of the batched twin (the same games as alone)"
    if not alone:
        return line + "."
    return line + f", except the pairings of {', '.join(alone)}, which cannot act in batch: one at a time."
