"""A learning curve that means something: the learner against a reference bot on fixed games.

An episode's reward mixes exploration noise, reward scaling and whatever dice the last
episodes happened to get. Every ``learning_curve.every`` units of its budget (steps,
games, ...) a pipeline hands :class:`LearningCurve` its current agent, which plays the
*same* ``games`` seeds every time:

* one player: the same dice every time, and the reference bot's scores on those dice
  once at the start, so the logged paired difference is comparable across the run;
* several players: the learner against the reference bot, in seat-paired openings, win rate.

The games are played in batch, as rows of the batched twin (the same games as one at a
time: :func:`training.evaluation.harness.played_in_batches`).

Rows go to ``learning_curve.csv`` in the run folder (appended, so a resumed run
continues its curve; the first column names the unit) and to the pipeline's logger
(TensorBoard, ``curve/...``); :meth:`LearningCurve.draw` turns the CSV into
``learning_curve.png`` when training ends.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.registry import make_agent
from agents.run_folder import CURVE_FILE, CURVE_PICTURE_FILE
from envs.core import Game
from training.evaluation.harness import DEFAULT_BATCH, evaluate_pairing, evaluate_solitaire, mean_ci
from training.framework.config import LearningCurveConfig

#: Random plies opening each curve game of several players (independent games between deterministic agents).
OPENING_PLIES = 2


class LearningCurve:
    """The curve of one run. ``record(row, done)`` sends a row to the pipeline's logger;
    ``on_point(row)`` is told of every point (the tuner prunes on it)."""

    def __init__(
        self,
        run_dir: Path,
        env_name: str,
        game: Game,
        settings: LearningCurveConfig,
        unit: str,
        record: Callable[[dict, int], None] | None = None,
        on_point: Callable[[dict], None] | None = None,
    ):
        self.path = run_dir / CURVE_FILE
        self.game, self.settings, self.unit = game, settings, unit
        self.record, self.on_point = record, on_point
        self.reference = make_agent(env_name, settings.reference, game, seed=settings.seed)
        self.seeds = range(settings.seed, settings.seed + settings.games)
        self._reference_scores: np.ndarray | None = None
        self._next: int | None = None

    @property
    def enabled(self) -> bool:
        return self.settings.every > 0

    def start(self, done: int) -> None:
        """Before learning, at ``done`` units: the next point's place, and the reference's scores."""
        every = self.settings.every
        self._next = (done // every + 1) * every
        if self.game.num_players == 1:
            [result] = evaluate_solitaire(self.game, {"reference": self.reference}, self.seeds, batch=DEFAULT_BATCH)
            self._reference_scores = result.scores

    def due(self, done: int) -> bool:
        """Whether a point is due at ``done`` units (then the next one is moved on)."""
        if done < self._next:
            return False
        self._next += self.settings.every
        return True

    def point(self, learner: Agent, done: int) -> dict[str, float]:
        """Evaluate ``learner`` at ``done`` units; the row written."""
        if self.game.num_players == 1:
            [result] = evaluate_solitaire(self.game, {"learner": learner}, self.seeds, batch=DEFAULT_BATCH)
            mean, half = mean_ci(result.scores)
            diff, diff_half = mean_ci(result.scores - self._reference_scores)
            row = {
                self.unit: done,
                "mean_score": mean,
                "ci95_half_width": half,
                "reference_mean": float(self._reference_scores.mean()),
                "diff_vs_reference": diff,
                "diff_ci95_half_width": diff_half,
            }
        else:
            result = evaluate_pairing(
                self.game,
                ("learner", learner),
                ("reference", self.reference),
                self.settings.games,
                self.settings.seed,
                random_opening_plies=OPENING_PLIES,
                batch=DEFAULT_BATCH,
            )
            win, low, high = result.rate(1)
            row = {
                self.unit: done,
                "win_rate": win,
                "win_ci95_low": low,
                "win_ci95_high": high,
                "mean_outcome": float(result.outcomes.mean()),
            }
        if self.record is not None:
            self.record(row, done)
        new = not self.path.exists()
        with self.path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
        if self.on_point is not None:
            self.on_point(row)
        return row

    def draw(self) -> Path | None:
        return draw(self.path.parent, self.settings.reference)


def summary(row: dict) -> str:
    """A curve row in a few words, for the progress lines."""
    if "mean_score" in row:
        return (
            f"{row['mean_score']:.1f} vs {row['reference_mean']:.1f} "
            f"({row['diff_vs_reference']:+.1f} ± {row['diff_ci95_half_width']:.1f})"
        )
    return f"win rate {row['win_rate']:.3f} [{row['win_ci95_low']:.3f}, {row['win_ci95_high']:.3f}]"


def read_curve(run_dir: Path) -> tuple[str, list[dict]] | None:
    """The run's ``learning_curve.csv``: its unit (the first column) and its rows; None without one."""
    path = run_dir / CURVE_FILE
    if not path.is_file():
        return None
    with path.open() as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames[0], list(reader)


def draw(run_dir: Path, reference: str) -> Path | None:
    """``learning_curve.png`` from the run's ``learning_curve.csv`` (None without one)."""
    curve = read_curve(run_dir)
    if curve is None or not curve[1]:
        return None
    unit, rows = curve
    import matplotlib  # noqa: PLC0415 (matplotlib takes a second to import; only the closing figure needs it)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415 (as matplotlib, and after its backend is chosen)

    scale = 1e6 if unit == "timesteps" else 1e3
    steps = np.array([float(r[unit]) for r in rows]) / scale
    fig, ax = plt.subplots(figsize=(7, 4))
    if "mean_score" in rows[0]:
        mean = np.array([float(r["mean_score"]) for r in rows])
        half = np.array([float(r["ci95_half_width"]) for r in rows])
        ax.plot(steps, mean, marker="o", label="learner (greedy)")
        ax.fill_between(steps, mean - half, mean + half, alpha=0.2)
        ax.axhline(float(rows[0]["reference_mean"]), color="grey", linestyle="--", label=f"{reference} (same dice)")
        ax.set_ylabel("mean score on the fixed evaluation games")
    else:
        win = np.array([float(r["win_rate"]) for r in rows])
        ax.plot(steps, win, marker="o", label=f"learner vs {reference}")
        ax.fill_between(
            steps, [float(r["win_ci95_low"]) for r in rows], [float(r["win_ci95_high"]) for r in rows], alpha=0.2
        )
        ax.axhline(0.5, color="grey", linestyle="--")
        ax.set_ylabel("win rate")
    ax.set_xlabel(f"{unit} ({'millions' if scale == 1e6 else 'thousands'})")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    picture = run_dir / CURVE_PICTURE_FILE
    fig.savefig(picture, dpi=100)
    plt.close(fig)
    return picture
