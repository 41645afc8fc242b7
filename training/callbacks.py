"""Saving a run while it trains, so an interrupted run can be resumed."""

from __future__ import annotations

from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback


class SaveRunCallback(BaseCallback):
    """Saves ``model.zip`` (and the reward-scaling statistics) every ``every`` timesteps.

    Each save writes a temporary file and renames it, so a run killed mid-save keeps its
    previous checkpoint intact.
    """

    def __init__(self, run_dir: Path, every: int, reward_normalizer=None, self_play=None):
        super().__init__()
        self.run_dir = run_dir
        self.every = every
        self.reward_normalizer = reward_normalizer
        self.self_play = self_play
        self._last_save = 0

    def _on_step(self) -> bool:
        if self.self_play is not None:
            self.self_play.on_step(self.model, self.num_timesteps, self.logger)
        if self.num_timesteps - self._last_save >= self.every:
            self.save()
        return True

    def save(self) -> None:
        from training.train import MODEL_FILE, REWARD_STATS_FILE

        _atomic(self.run_dir / MODEL_FILE, self.model.save)
        if self.reward_normalizer is not None:
            _atomic(self.run_dir / REWARD_STATS_FILE, self.reward_normalizer.save)
        self._last_save = self.num_timesteps


def _atomic(path: Path, write) -> None:
    tmp = path.with_name(path.stem + ".tmp" + path.suffix)
    write(str(tmp))
    tmp.replace(path)
