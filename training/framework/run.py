"""The run framework: everything a training pipeline needs except learning.

A pipeline (PPO, turn-value TD, expert iteration, RLlib; ``training/pipelines/``) is a
subclass of :class:`Pipeline`: its config schema, the unit its budget counts, the files
of its checkpoint, and :meth:`Pipeline.learn`. :func:`run_training` does the rest, the
same way for all of them:

* the run folder: ``config.yaml`` (the resolved config) and ``metadata.json`` (seed,
  progress, wall time, package versions, git commit, one record per session), written
  atomically;
* checkpoints every ``checkpoint_every`` units and at the end, committed as one set
  (:mod:`training.framework.checkpoint`), from which ``--resume`` continues;
* a clean stop on SIGINT / SIGTERM (:mod:`training.framework.stop`): the learner
  returns after its current update, the run saves and says how to resume;
* the learning curve (:mod:`training.framework.curve`) and progress lines.

The closing evaluation and the command line are in :mod:`training.framework.command`.
Adding an algorithm is one module (a :class:`Pipeline`) plus its config schema.
"""

from __future__ import annotations

import abc
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import yaml

from envs.registry import make_game
from training.framework import metadata as run_metadata
from training.framework.checkpoint import Checkpoint, commit_checkpoint, read_checkpoint
from training.framework.config import RunConfig
from training.framework.curve import LearningCurve, draw
from training.framework.progress import StoppedBeforeCheckpoint
from training.framework.run_files import CONFIG_FILE, DEMONSTRATIONS_FILE, METADATA_FILE, write_text_atomic
from training.framework.stop import StopRequest, TrainingInterrupted, stop_requested_by_signals


@dataclass(frozen=True)
class Override:
    """A command-line option that overrides one config key: ``--<flag> VALUE`` sets ``key``."""

    flag: str
    key: str
    type: type
    help: str
    positive: bool = True  #: the value must be > 0


class Session:
    """One session of a run (a new run, or a ``--resume``), as its learner sees it.

    The learner calls :meth:`saved_if_due` after every update (it commits a checkpoint
    every ``checkpoint_every`` units) and returns from :meth:`Pipeline.learn` as soon as
    :attr:`stop_requested` is true.
    """

    def __init__(self, pipeline: Pipeline, run_dir: Path, metadata: dict[str, Any], stop: StopRequest, progress: bool):
        self.pipeline, self.run_dir, self.metadata, self.stop, self.progress = (
            pipeline,
            run_dir,
            metadata,
            stop,
            progress,
        )
        self._earlier_wall = metadata["wall_time_s"]
        self._started = time.perf_counter()
        self._record = {
            "started": run_metadata.now(),
            "resumed_from": pipeline.done if metadata["sessions"] else None,
            "config": pipeline.config.to_dict(),
        }
        metadata["sessions"].append(self._record)
        self._last_save = pipeline.done

    @property
    def stop_requested(self) -> bool:
        return self.stop.signum is not None

    @property
    def wall_s(self) -> float:
        """Seconds this session has run."""
        return time.perf_counter() - self._started

    def save(self, ended: str = "running") -> None:
        """Commit a checkpoint of the pipeline as it is now."""
        done = self.pipeline.done
        self._record.update(
            {
                "saved": run_metadata.now(),
                self.pipeline.unit: done,
                "wall_time_s": round(self.wall_s, 1),
                "ended": ended,
            }
        )
        self.metadata["wall_time_s"] = round(self._earlier_wall + self.wall_s, 1)
        self.metadata.update(self.pipeline.metadata())
        commit_checkpoint(self.run_dir, self.pipeline.checkpoint_files(), self.metadata, self.pipeline.unit, done)
        self._last_save = done

    def saved_if_due(self) -> bool:
        """Save when ``checkpoint_every`` units have passed since the last save; whether it saved."""
        if self.pipeline.done - self._last_save < self.pipeline.checkpoint_every:
            return False
        self.save()
        return True

    def say(self, message: str) -> None:
        """A progress line (unless progress is off)."""
        if self.progress:
            print(message, flush=True)


class Pipeline(abc.ABC):
    """A training algorithm: its learner and the facts the framework needs about it."""

    name: ClassVar[str]  #: the algorithm's name in run folders and metadata ("ppo", "td", ...)
    schema: ClassVar[type[RunConfig]]  #: its config schema (with ``checkpoint_every`` in its unit)
    unit: ClassVar[str]  #: what the budget counts ("timesteps", "games", "generations", "iterations")
    budget_key: ClassVar[str]  #: the config key of the budget (e.g. "total_timesteps")
    default_config: ClassVar[str]  #: its default config's name in configs/ (without .yaml), with {env}
    checkpoint_required: ClassVar[tuple[str, ...]]  #: files every checkpoint of it holds
    evaluable: ClassVar[bool] = (
        True  #: whether the evaluation can load its trained agent (a closing evaluation follows)
    )
    overrides: ClassVar[tuple[Override, ...]] = ()  #: command-line options that override config keys (its budget first)

    @classmethod
    def check_env(cls, env: str) -> None:
        """Raise a ConfigError if the pipeline cannot train ``env`` at all (before its config is looked for)."""

    @classmethod
    def check_installed(cls) -> None:
        """Raise a ConfigError naming what to install if a library the pipeline needs is missing
        (checked first, before any config is read or any agent is built)."""

    def __init__(self, config: RunConfig, run_dir: Path, checkpoint: Checkpoint | None):
        """Build the learner (from ``checkpoint`` when resuming). Writes nothing."""
        self.config, self.run_dir = config, run_dir

    @classmethod
    def fit_to_budget(cls, config: RunConfig, planned: int, overridden: set[str]) -> str | None:
        """Scale what precedes learning (a warm start) to a budget set on the command line instead of
        the config's ``planned`` one, unless ``overridden`` names it too; a line saying what changed."""
        return None

    @classmethod
    def read_checkpoint(cls, run_dir: Path) -> Checkpoint:
        """The last checkpoint of a run of this pipeline, every file verified."""
        return read_checkpoint(run_dir, cls.unit, cls.checkpoint_required)

    @property
    def checkpoint_every(self) -> int:
        """Units of the budget between checkpoints."""
        return int(self.config.checkpoint_every)

    @property
    def budget(self) -> int:
        return int(getattr(self.config, self.budget_key))

    @property
    @abc.abstractmethod
    def done(self) -> int:
        """Units of the budget learned so far."""

    @abc.abstractmethod
    def learn(self, session: Session) -> str | None:
        """Learn until :attr:`done` reaches the budget, or until ``session.stop_requested``.

        A learner that stops early for a reason of its own (a time limit) returns it in words.
        """

    @abc.abstractmethod
    def checkpoint_files(self) -> dict[str, Callable[[str], None]]:
        """The files of a checkpoint: name -> ``write(filename)``."""

    def timing(self, wall_s: float) -> str:
        """Where a session's ``wall_s`` seconds went, when the pipeline knows more than the total (e.g. a warm start)."""
        return ""

    def metadata(self) -> dict[str, Any]:
        """Facts of the pipeline's own to record in ``metadata.json`` at each save."""
        return {}

    def agent_spec(self) -> str:
        """How the evaluation names the trained agent (an agent spec)."""
        return str(self.run_dir)

    def learning_curve(self, record=None, on_point=None) -> LearningCurve | None:
        """The run's learning curve, or None when the config turns it off."""
        settings = getattr(self.config, "learning_curve", None)
        if settings is None or not settings.every:
            return None
        game = make_game(self.config.env, **self.config.env_kwargs)
        return LearningCurve(self.run_dir, self.config.env, game, settings, self.unit, record, on_point)

    def close(self) -> None:
        """Release what the learner holds (worker processes, envs)."""


def run_training(pipeline: Pipeline, checkpoint: Checkpoint | None = None, progress: bool = True) -> dict[str, Any]:
    """Learn a new run, or continue ``checkpoint``'s; returns the run's metadata.

    Raises :class:`TrainingInterrupted` after saving when SIGINT / SIGTERM stopped it.
    """
    config, run_dir = pipeline.config, pipeline.run_dir
    if checkpoint is not None:
        metadata = checkpoint.metadata
        for earlier in metadata["sessions"]:
            if earlier.get("ended") == "running":  # it never saved again: killed (or crashed) after this checkpoint
                earlier["ended"] = "killed after its last checkpoint"
    else:
        metadata = {
            "algorithm": pipeline.name,
            "env": config.env,
            "env_kwargs": config.env_kwargs,
            "seed": config.seed,
            "wall_time_s": 0.0,
            "sessions": [],
        }
    created = not run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run_dir / CONFIG_FILE, yaml.safe_dump(config.to_dict(), sort_keys=False))
    metadata.update({f"total_{pipeline.unit}": pipeline.budget, **run_metadata.environment()})
    with stop_requested_by_signals() as stop:
        session = Session(pipeline, run_dir, metadata, stop, progress)
        try:
            try:
                stopped_early = pipeline.learn(session)
            except StoppedBeforeCheckpoint as stopped:
                if checkpoint is None:  # nothing to resume from: leave the folder free for a new start
                    for name in (CONFIG_FILE, DEMONSTRATIONS_FILE):
                        (run_dir / name).unlink(missing_ok=True)
                raise TrainingInterrupted(
                    stop.signum, pipeline.done, False, saved=False, during=stopped.during
                ) from None
            complete = pipeline.done >= pipeline.budget
            if complete:
                session.save("completed")
            else:
                session.save(f"interrupted ({stop.name})" if stop.signum is not None else f"stopped: {stopped_early}")
        finally:
            pipeline.close()
            if created and not (run_dir / METADATA_FILE).exists():
                # stopped or failed before its first checkpoint: a folder this session made holds nothing
                # to resume (only TensorBoard's first events), so it goes rather than linger as a run
                shutil.rmtree(run_dir, ignore_errors=True)
    curve = getattr(config, "learning_curve", None)
    if curve is not None:
        draw(run_dir, curve.reference)
    if stop.signum is not None:
        raise TrainingInterrupted(stop.signum, pipeline.done, complete)
    return metadata


def print_interrupted(
    stop: TrainingInterrupted,
    command: str,
    run_dir: Path,
    unit: str,
    evaluate_command: str = "python training/evaluate.py",
) -> None:
    """What a user needs after a signal stopped training: what was saved, how to go on."""
    import signal

    name = signal.Signals(stop.signum).name
    if not stop.saved:
        print(
            f"{name}: stopped during {stop.during}, before the run's first checkpoint: nothing to resume; start it again",
            file=sys.stderr,
        )
    elif stop.complete:
        print(
            f"{name}: training complete ({stop.done} {unit}), closing evaluation skipped; "
            f"evaluate with: {evaluate_command} --checkpoint {run_dir}",
            file=sys.stderr,
        )
    else:
        print(
            f"{name}: checkpoint saved at {stop.done} {unit}; resume with: {command} --resume {run_dir}",
            file=sys.stderr,
        )
