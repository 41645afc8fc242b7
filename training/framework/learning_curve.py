"""A learning curve that means something: the learner against a reference bot on fixed games.

``ep_rew_mean`` mixes exploration noise, reward scaling and whatever dice the last
episodes happened to get. Every ``learning_curve.every`` timesteps this callback plays
the current policy (greedy, as evaluation does) on the *same* ``games`` seeds:

* one player: the same dice every time, and the reference bot's scores on those dice
  once at the start, so the logged paired difference is comparable across the run;
* several players: the learner against the reference bot, seats swapped, win rate.

Figures go to TensorBoard (``curve/...``) and ``learning_curve.csv`` in the run folder
(appended, so a resumed run continues its curve), and :func:`draw` turns the CSV into
``learning_curve.png`` when training ends.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.registry import make_agent
from agents.trained import PolicyAgent
from envs.core import Game
from training.evaluation.harness import evaluate_pairing, evaluate_solitaire, mean_ci

CURVE_FILE = "learning_curve.csv"
PICTURE_FILE = "learning_curve.png"


class LearningCurveCallback(BaseCallback):
    def __init__(self, run_dir: Path, env_name: str, game: Game, settings, on_evaluation=None):
        super().__init__()
        self.on_evaluation = on_evaluation  #: called with every evaluation's row (e.g. by the tuner)
        self.path = run_dir / CURVE_FILE
        self.game = game
        self.settings = settings
        self.reference = make_agent(env_name, settings.reference, game, seed=settings.seed)
        self.seeds = range(settings.seed, settings.seed + settings.games)
        self._reference_scores: np.ndarray | None = None
        self._next = None

    def _on_training_start(self) -> None:
        every = self.settings.every
        self._next = (self.num_timesteps // every + 1) * every
        if self.game.num_players == 1:
            [result] = evaluate_solitaire(self.game, {"reference": self.reference}, self.seeds)
            self._reference_scores = result.scores
        if self.num_timesteps == 0:
            self.evaluate()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.settings.every
            self.evaluate()
        return True

    def evaluate(self) -> dict[str, float]:
        learner = PolicyAgent(self.game, self.model.policy, deterministic=True)
        if self.game.num_players == 1:
            [result] = evaluate_solitaire(self.game, {"learner": learner}, self.seeds)
            mean, half = mean_ci(result.scores)
            diff, diff_half = mean_ci(result.scores - self._reference_scores)
            row = {"timesteps": self.num_timesteps, "mean_score": mean, "ci95_half_width": half,
                   "reference_mean": float(self._reference_scores.mean()), "diff_vs_reference": diff,
                   "diff_ci95_half_width": diff_half}
        else:
            result = evaluate_pairing(self.game, ("learner", learner), ("reference", self.reference),
                                      self.settings.games, self.settings.seed, random_opening_plies=2)
            win, low, high = result.rate(1)
            row = {"timesteps": self.num_timesteps, "win_rate": win, "win_ci95_low": low, "win_ci95_high": high,
                   "mean_outcome": float(result.outcomes.mean())}
        for key, value in row.items():
            if key != "timesteps":
                self.logger.record(f"curve/{key}", value)
        self.logger.dump(self.num_timesteps)
        new = not self.path.exists()
        with self.path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
        if self.on_evaluation is not None:
            self.on_evaluation(row)
        return row


def draw(run_dir: Path, reference: str) -> Path | None:
    """``learning_curve.png`` from the run's ``learning_curve.csv`` (None without one)."""
    path = run_dir / CURVE_FILE
    if not path.is_file():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    unit = "games" if "games" in rows[0] else "timesteps"  # train_td.py counts games, PPO timesteps
    steps = np.array([float(r[unit]) for r in rows]) / (1e3 if unit == "games" else 1e6)
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
        ax.fill_between(steps, [float(r["win_ci95_low"]) for r in rows], [float(r["win_ci95_high"]) for r in rows], alpha=0.2)
        ax.axhline(0.5, color="grey", linestyle="--")
        ax.set_ylabel("win rate")
    ax.set_xlabel("training games (thousands)" if unit == "games" else "timesteps (millions)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    picture = run_dir / PICTURE_FILE
    fig.savefig(picture, dpi=100)
    plt.close(fig)
    return picture
