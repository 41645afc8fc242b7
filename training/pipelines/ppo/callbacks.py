"""PPO's adapters to the run framework: SB3 runs the loop, the framework does the rest.

:class:`RunCallback` hands every PPO update to :meth:`training.framework.run.Session.after_step`
(metrics sink, learning curve, checkpoints) and feeds the self-play pool;
:class:`SinkOutput` points SB3's logger at the run's one metrics sink.
"""

from __future__ import annotations

from numbers import Real

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter

from training.framework.metrics import MetricsSink
from training.framework.run import Session


class RunCallback(BaseCallback):
    """After every PPO update: the self-play pool's snapshot, then the framework's work; stops on a request.

    The update's work is done at the start of the next rollout, right after the update,
    when the model is exactly what the steps counted so far have trained.
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
        self.session.after_step({})  # SB3's logger sends the update's metrics to the sink itself

    def _on_step(self) -> bool:
        return not self.session.stop_requested


class SinkOutput(KVWriter):
    """SB3's logger output that writes its numbers (``train/loss``, ``rollout/ep_rew_mean`` ...) to the run's sink."""

    def __init__(self, sink: MetricsSink):
        self.sink = sink

    def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
        numbers = {key: value for key, value in key_values.items() if isinstance(value, Real)}
        self.sink.write(numbers, step)

    def close(self) -> None:
        """The sink belongs to the run, which closes it."""
