"""What runs alongside ``model.learn``: checkpoints, self-play snapshots, the learning curve and a clean stop."""

from __future__ import annotations

from stable_baselines3.common.callbacks import BaseCallback

from agents.trained import PolicyAgent
from training.framework.curve import LearningCurve
from training.framework.run import Session


class RunCallback(BaseCallback):
    """Checkpoints every ``checkpoint_every`` timesteps, feeds the self-play pool and honours a stop request.

    Checkpoints and snapshots are taken at the start of a rollout, right after a PPO
    update, when the model is exactly what the steps counted so far have trained.
    ``learned_timesteps`` is that count at all times (a stop mid-rollout discards the
    rollout's partial steps).
    """

    def __init__(self, session: Session, self_play=None):
        super().__init__()
        self.session = session
        self.self_play = self_play
        self.learned_timesteps = 0

    def _on_training_start(self) -> None:
        self.learned_timesteps = self.num_timesteps

    def _on_rollout_start(self) -> None:
        self.learned_timesteps = self.num_timesteps
        if self.self_play is not None:
            self.self_play.on_rollout_start(self.model, self.num_timesteps, self.logger)
        self.session.saved_if_due()

    def _on_step(self) -> bool:
        return not self.session.stop_requested


class LearningCurveCallback(BaseCallback):
    """The run's :class:`~training.framework.curve.LearningCurve` every ``every`` timesteps, the policy played greedily."""

    def __init__(self, curve: LearningCurve):
        super().__init__()
        self.curve = curve

    def _on_training_start(self) -> None:
        self.curve.record = self._record
        self.curve.start(self.num_timesteps)
        if self.num_timesteps == 0:
            self._point()

    def _on_step(self) -> bool:
        if self.curve.due(self.num_timesteps):
            self._point()
        return True

    def _point(self) -> None:
        self.curve.point(PolicyAgent(self.curve.game, self.model.policy, deterministic=True), self.num_timesteps)

    def _record(self, row: dict, timesteps: int) -> None:
        for key, value in row.items():
            if key != "timesteps":
                self.logger.record(f"curve/{key}", value)
        self.logger.dump(timesteps)
