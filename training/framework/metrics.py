"""The run's one metrics sink: every number a run logs over time, as TensorBoard scalars.

The framework writes the learner's per-update metrics (``train/<name>``) and the
learning curve's points (``curve/<name>``) here, whatever the pipeline; a pipeline whose
library logs on its own (SB3's logger) is pointed at the same sink
(:class:`training.pipelines.ppo.callbacks.SinkOutput`). The curve's rows also go to
``learning_curve.csv`` (:mod:`training.framework.curve`).
"""

from __future__ import annotations

from pathlib import Path

from agents.run_folder import TENSORBOARD_DIR


class MetricsSink:
    """TensorBoard scalars under ``<run>/tensorboard/``, written at the learner's progress (``done`` units)."""

    def __init__(self, run_dir: Path):
        self.folder = run_dir / TENSORBOARD_DIR
        self._writer = None

    def write(self, metrics: dict[str, float], done: int, section: str = "train") -> None:
        """``metrics`` (name -> number) at ``done``; names with a ``/`` keep their own section."""
        if not metrics:
            return
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter  # noqa: PLC0415 (tensorboard takes a second to import)

            self._writer = SummaryWriter(str(self.folder))
        for name, value in metrics.items():
            self._writer.add_scalar(name if "/" in name else f"{section}/{name}", float(value), done)

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
