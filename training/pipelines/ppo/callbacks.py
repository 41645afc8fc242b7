"""What runs alongside ``model.learn``: checkpoints, self-play snapshots and a clean stop on Ctrl-C."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from stable_baselines3.common.callbacks import BaseCallback

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Set by the first SIGINT / SIGTERM; training stops at the next env step and saves."""

    def __init__(self):
        self.signum: int | None = None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextmanager
def stop_requested_by_signals() -> Iterator[StopRequest]:
    """While active, SIGINT and SIGTERM ask training to stop cleanly instead of killing it.

    A second signal gives up on saving (``KeyboardInterrupt``); the last checkpoint on
    disk stays whole either way.
    """
    request = StopRequest()

    def handler(signum, frame):
        if request.signum is not None:
            raise KeyboardInterrupt
        request.signum = signum
        print(f"\n{signal.Signals(signum).name}: stopping after the current update to save a checkpoint "
              "(send it again to stop at once)", file=sys.stderr)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield request
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class RunCallback(BaseCallback):
    """Checkpoints every ``every`` timesteps, feeds the self-play pool and honours a stop request.

    Checkpoints and snapshots are taken at the start of a rollout, right after a PPO
    update, when the model is exactly what the steps counted so far have trained.
    ``learned_timesteps`` is that count at all times (a stop mid-rollout discards the
    rollout's partial steps).
    """

    def __init__(self, save: Callable[[], None], every: int, stop: StopRequest, self_play=None):
        super().__init__()
        self.save = save
        self.every = every
        self.stop = stop
        self.self_play = self_play
        self.learned_timesteps = 0
        self._last_save = 0

    def _on_training_start(self) -> None:
        self.learned_timesteps = self._last_save = self.num_timesteps

    def _on_rollout_start(self) -> None:
        self.learned_timesteps = self.num_timesteps
        if self.self_play is not None:
            self.self_play.on_rollout_start(self.model, self.num_timesteps, self.logger)
        if self.num_timesteps - self._last_save >= self.every:
            self.save()
            self._last_save = self.num_timesteps

    def _on_step(self) -> bool:
        return self.stop.signum is None
