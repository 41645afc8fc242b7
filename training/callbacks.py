"""Callbacks of a training run: periodic saves (so a run can be resumed) and a progress bar."""

from __future__ import annotations

from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm


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


class ProgressBarCallback(BaseCallback):
    """A tqdm bar of timesteps, advanced once per rollout.

    Stable-Baselines3's own bar redraws on every environment step, which cost about 15%
    of the training time here; one update per rollout (a few thousand steps) costs nothing.
    """

    def __init__(self, total_timesteps: int):
        super().__init__()
        self.total_timesteps = total_timesteps
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total_timesteps, initial=self.num_timesteps, unit="step", unit_scale=True, smoothing=0.1)

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.bar.update(self.num_timesteps - self.bar.n)

    def _on_training_end(self) -> None:
        self.bar.update(self.num_timesteps - self.bar.n)
        self.bar.close()
