"""The run framework: everything a training pipeline needs except learning.

A pipeline (PPO, turn-value TD, expert iteration, RLlib; ``training/pipelines/``) is a
subclass of :class:`Pipeline`: its config schema, the unit its budget counts, and a
*learner*: :meth:`Pipeline.step` (one update, its metrics),
:meth:`Pipeline.state_dict` / :meth:`Pipeline.load_state_dict` (what a resume needs
besides the trained agent's files), :meth:`Pipeline.checkpoint_files` (those files) and
:meth:`Pipeline.current_agent` (the policy as it is, for the learning curve).
:func:`run_training` does the rest, the same way for all of them:

* the loop (:meth:`Pipeline.train`): steps until the budget or a stop request, and after
  each step the metrics to the run's one sink (:mod:`training.framework.metrics`), a
  learning-curve point when one is due (:mod:`training.framework.curve`) and a checkpoint
  every ``checkpoint_every`` units. A library that runs its own loop (SB3's ``learn``)
  overrides :meth:`Pipeline.train` and calls :meth:`Session.after_step` from its callback;
* the run folder: ``config.yaml`` (the resolved config) and ``metadata.json`` (seed,
  progress, wall time, package versions, git commit, one record per session), written
  atomically;
* checkpoints committed as one set (:mod:`training.framework.checkpoint`): the learner's
  files plus ``training_state.pkl`` (its ``state_dict``, whether its preparation (a warm
  start) is done, and the global random generators' states, :mod:`training.framework.rng`),
  from which ``--resume`` continues;
* a clean stop on SIGINT / SIGTERM (:mod:`training.framework.stop`) at any moment after
  the command starts: the learner returns after its current update (or its preparation
  stops at once), the run saves a checkpoint (at 0 units if need be) and says how to
  resume.

The closing evaluation and the command line are in :mod:`training.framework.command`.
Adding an algorithm is one package (a :class:`Pipeline` and its config schema) and a
default config.
"""

from __future__ import annotations

import abc
import json
import pickle
import shutil
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch
import yaml

from agents.base import Agent
from agents.run_folder import CONFIG_FILE, METADATA_FILE, TRAINING_STATE_FILE
from envs.registry import make_game
from training.framework import metadata as run_metadata
from training.framework import rng
from training.framework.checkpoint import Checkpoint, commit_checkpoint, read_checkpoint
from training.framework.config import RunConfig
from training.framework.curve import LearningCurve, draw, summary
from training.framework.metrics import MetricsSink
from training.framework.progress import StoppedDuringPreparation
from training.framework.run_files import write_text_atomic
from training.framework.stop import StopRequest, TrainingInterrupted, stop_requested_by_signals

#: seconds between routine progress lines in a log (stdout not a terminal; :meth:`Session.routine`)
LOG_EVERY_S = 60.0


@dataclass(frozen=True)
class Override:
    """A command-line option that overrides one config key: ``--<flag> VALUE`` sets ``key``
    (a ``bool`` key: the switch ``--<flag>`` sets it true)."""

    flag: str
    key: str
    type: type
    help: str
    positive: bool = True  #: the value must be > 0


class Session:
    """One session of a run (a new run, or a ``--resume``): the loop's bookkeeping around the learner.

    :meth:`after_step` is called after every update: metrics to the sink, a progress line,
    a curve point when due, a checkpoint every ``checkpoint_every`` units.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        metadata: dict[str, Any],
        stop: StopRequest,
        progress: bool,
        prepared: bool,
        on_curve_point: Callable[[dict], None] | None = None,
    ):
        self.pipeline, self.run_dir, self.metadata = pipeline, pipeline.run_dir, metadata
        self.stop, self.progress, self.prepared = stop, progress, prepared
        self.metrics = MetricsSink(self.run_dir)
        self.curve = pipeline.learning_curve(on_curve_point)
        if self.curve is not None:
            self.curve.record = lambda row, done: self.metrics.write(row, done, section="curve")
        self._earlier_wall = metadata["wall_time_s"]
        self._started = time.perf_counter()
        self._record = {
            "started": run_metadata.now(),
            "resumed_from": pipeline.done if metadata["sessions"] else None,
            "config": pipeline.config.to_dict(),
        }
        metadata["sessions"].append(self._record)
        self._last_save = pipeline.done
        self._terminal = sys.stdout.isatty()
        self._last_routine: float | None = None

    @property
    def stop_requested(self) -> bool:
        return self.stop.signum is not None

    @property
    def wall_s(self) -> float:
        """Seconds this session has run."""
        return time.perf_counter() - self._started

    def save(self, ended: str = "running") -> None:
        """Commit a checkpoint of the pipeline as it is now: its files and the training state."""
        pipeline, done = self.pipeline, self.pipeline.done
        self._record.update(
            {"saved": run_metadata.now(), pipeline.unit: done, "wall_time_s": round(self.wall_s, 1), "ended": ended}
        )
        self.metadata["wall_time_s"] = round(self._earlier_wall + self.wall_s, 1)
        self.metadata.update(pipeline.metadata())
        state = {"prepared": self.prepared, "rng": rng.capture(), "learner": pipeline.state_dict()}
        files = {
            **pipeline.checkpoint_files(),
            TRAINING_STATE_FILE: lambda name: Path(name).write_bytes(pickle.dumps(state)),
        }
        commit_checkpoint(self.run_dir, files, self.metadata, pipeline.unit, done)
        self.metrics.flush()
        self._last_save = done

    def record_end(self, ended: str) -> None:
        """Record how this session ended without a new checkpoint (the last one stands)."""
        self._record.update({"wall_time_s": round(self.wall_s, 1), "ended": ended})
        self.metadata["wall_time_s"] = round(self._earlier_wall + self.wall_s, 1)
        write_text_atomic(self.run_dir / METADATA_FILE, json.dumps(self.metadata, indent=2))

    def start(self) -> None:
        """Before the first step of this session: the curve's reference scores, and its point at 0."""
        if self.curve is None:
            return
        self.curve.start(self.pipeline.done)
        if self.pipeline.done == 0:
            self.curve_point()

    def after_step(self, metrics: dict[str, float]) -> None:
        """The framework's work after one update of the learner (see the class docstring)."""
        pipeline, done = self.pipeline, self.pipeline.done
        self.metrics.write(metrics, done)
        if metrics:
            shown = ", ".join(f"{name} {value:.4g}" for name, value in metrics.items())
            self.routine(f"{pipeline.unit} {done}/{pipeline.budget}: {shown}, {self.wall_s:.0f} s")
        if self.curve is not None and self.curve.due(done):
            self.curve_point()
        if done < pipeline.budget and done - self._last_save >= pipeline.checkpoint_every:
            self.save()

    def curve_point(self) -> None:
        done = self.pipeline.done
        row = self.curve.point(self.pipeline.current_agent(), done)
        self.say(f"curve at {done} {self.pipeline.unit}: {summary(row)}")

    def say(self, message: str) -> None:
        """A line of news (unless progress is off): a hand-over, a curve point, a stop."""
        if self.progress:
            print(message, flush=True)

    def routine(self, message: str) -> None:
        """A routine progress line (a step's metrics, a step's progress): every one on a terminal;
        in a log (stdout not a terminal) the first, then one every :data:`LOG_EVERY_S` seconds,
        so that a long run's log reads a line or so a minute, not thousands."""
        if not self.progress:
            return
        now = time.monotonic()
        if self._terminal or self._last_routine is None or now - self._last_routine >= LOG_EVERY_S:
            self._last_routine = now
            print(message, flush=True)

    def close(self) -> None:
        self.metrics.close()


class Pipeline(abc.ABC):
    """A training algorithm: its learner (the methods the loop calls) and the facts the framework needs about it."""

    name: ClassVar[str]  #: the algorithm's name in run folders and metadata ("ppo", "td", ...)
    schema: ClassVar[type[RunConfig]]  #: its config schema (with ``checkpoint_every`` in its unit)
    unit: ClassVar[str]  #: what the budget counts ("timesteps", "games", "generations", "iterations")
    budget_key: ClassVar[str]  #: the config key of the budget (e.g. "total_timesteps")
    default_config: ClassVar[str]  #: its default config's name in configs/ (without .yaml), with {env}
    checkpoint_required: ClassVar[tuple[str, ...]]  #: the files of the trained agent every checkpoint of it holds
    overrides: ClassVar[tuple[Override, ...]] = ()  #: command-line options that override config keys (its budget first)

    @classmethod
    def check_env(cls, env: str) -> None:
        """Raise a ConfigError if the pipeline cannot train ``env`` at all (before its config is looked for)."""

    @classmethod
    def check_installed(cls) -> None:
        """Raise a ConfigError naming what to install if a library the pipeline needs is missing
        (checked first, before any config is read or any agent is built)."""

    def __init__(self, config: RunConfig, run_dir: Path, checkpoint: Checkpoint | None):
        """Build the learner; with ``checkpoint``, load its files (the framework then calls
        :meth:`load_state_dict` with the rest). Writes nothing.

        A subclass calls this first: it sets torch's threads and seed (the network's initial
        weights come from it) and makes the configured game, ``self.game``.
        """
        self.config, self.run_dir = config, run_dir
        torch.set_num_threads(config.torch_threads)
        torch.manual_seed(config.seed)
        self.game = make_game(config.env, **config.env_kwargs)

    @classmethod
    def fit_to_budget(cls, config: RunConfig, planned: int, overridden: set[str]) -> str | None:
        """Scale what precedes learning (a warm start) to a budget set on the command line instead of
        the config's ``planned`` one, unless ``overridden`` names it too; a line saying what changed."""
        return None

    @classmethod
    def read_checkpoint(cls, run_dir: Path) -> Checkpoint:
        """The last checkpoint of a run of this pipeline, every file verified."""
        return read_checkpoint(run_dir, cls.unit, (*cls.checkpoint_required, TRAINING_STATE_FILE))

    @property
    def checkpoint_every(self) -> int:
        """Units of the budget between checkpoints."""
        return int(self.config.checkpoint_every)

    @property
    def budget(self) -> int:
        return int(getattr(self.config, self.budget_key))

    # -- the learner ------------------------------------------------------------------------------

    @property
    @abc.abstractmethod
    def done(self) -> int:
        """Units of the budget learned so far."""

    def prepare(self, session: Session) -> None:
        """Work a new run does once before its first step (a warm start). It may raise
        :class:`~training.framework.progress.StoppedDuringPreparation` on ``session.stop_requested``;
        the run then saves a checkpoint at 0 units and a resume prepares again."""

    def step(self) -> dict[str, float]:
        """One update (games played, then learning on them); its metrics, name -> number.

        Every learner implements it, except one whose library runs the loop itself: that one
        overrides :meth:`train` instead (PPO: SB3's ``learn``, with a callback).
        """
        raise NotImplementedError(f"{type(self).__name__} implements neither step() nor train()")

    def train(self, session: Session) -> str | None:
        """The loop: :meth:`step` until the budget or a stop request, :meth:`Session.after_step` after each.

        A learner that stops early for a reason of its own (:meth:`stop_reason`) returns it in words.
        """
        while self.done < self.budget and not session.stop_requested:
            session.after_step(self.step())
            reason = self.stop_reason(session.wall_s)
            if reason is not None:
                return reason
        return None

    def stop_reason(self, wall_s: float) -> str | None:
        """Why to stop before the budget after this session's ``wall_s`` seconds (a time limit); None: go on."""
        return None

    def state_dict(self) -> dict[str, Any]:
        """What a resume needs besides :meth:`checkpoint_files`: the learner's own generators, optimizer,
        buffers (picklable). The framework adds the global generators' states."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`'s result (after ``__init__`` loaded the checkpoint's files)."""

    @abc.abstractmethod
    def checkpoint_files(self) -> dict[str, Callable[[str], None]]:
        """The trained agent's files of a checkpoint: name -> ``write(filename)``."""

    def current_agent(self) -> Agent:
        """The policy as it is now, as an agent (played greedily by the learning curve).

        Every pipeline whose config has a ``learning_curve`` section implements it.
        """
        raise NotImplementedError(f"{type(self).__name__} has no learning curve (its config has no learning_curve)")

    # -- facts for the run's records --------------------------------------------------------------

    def timing(self, wall_s: float) -> str:
        """Where a session's ``wall_s`` seconds went, when the pipeline knows more than the total
        (e.g. a warm start)."""
        return ""

    def metadata(self) -> dict[str, Any]:
        """Facts of the pipeline's own to record in ``metadata.json`` at each save."""
        return {}

    def agent_spec(self) -> str:
        """How the evaluation names the trained agent (an agent spec)."""
        return str(self.run_dir)

    def learning_curve(self, on_point: Callable[[dict], None] | None = None) -> LearningCurve | None:
        """The run's learning curve, or None when the config turns it off."""
        settings = getattr(self.config, "learning_curve", None)
        if settings is None or not settings.every:
            return None
        game = make_game(self.config.env, **self.config.env_kwargs)
        return LearningCurve(self.run_dir, self.config.env, game, settings, self.unit, on_point=on_point)

    def close(self) -> None:
        """Release what the learner holds (worker processes, envs)."""


def read_training_state(checkpoint: Checkpoint) -> dict[str, Any]:
    """The framework's training state of ``checkpoint`` (:meth:`Session.save`)."""
    try:
        state = pickle.loads(checkpoint.files[TRAINING_STATE_FILE].read_bytes())  # the run's own file
        if not isinstance(state, dict) or not {"prepared", "rng", "learner"} <= set(state):
            raise ValueError("not a training state of this version of the run framework")
    except Exception as error:  # pickle raises many types for a foreign or damaged file
        raise checkpoint.unusable(TRAINING_STATE_FILE, error) from None
    return state


def run_training(
    pipeline: Pipeline,
    checkpoint: Checkpoint | None = None,
    progress: bool = True,
    stop: StopRequest | None = None,
    on_curve_point: Callable[[dict], None] | None = None,
) -> dict[str, Any]:
    """Learn a new run, or continue ``checkpoint``'s; returns the run's metadata.

    ``stop`` is the command's stop request (installed before the pipeline was built, so
    that a signal at any moment counts); without one, signals are not caught.
    ``on_curve_point(row)`` is told of every learning-curve point (the tuner prunes on it).
    Raises :class:`TrainingInterrupted` after saving when SIGINT / SIGTERM stopped it.
    """
    if stop is None:
        with stop_requested_by_signals() as stop:
            return run_training(pipeline, checkpoint, progress, stop, on_curve_point)
    config, run_dir = pipeline.config, pipeline.run_dir
    prepared = False
    if checkpoint is not None:
        state = read_training_state(checkpoint)
        pipeline.load_state_dict(state["learner"])
        rng.restore(state["rng"])
        prepared = state["prepared"]
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
    session = Session(pipeline, metadata, stop, progress, prepared, on_curve_point)
    complete = False
    try:
        if checkpoint is None:  # a checkpoint from the first moment: a stop at any point leaves a run to resume
            session.save()
        stopped_early = None
        if not session.prepared and not session.stop_requested:
            try:
                pipeline.prepare(session)
                session.prepared = True
            except StoppedDuringPreparation as stopped:
                session.say(f"{stop.name}: stopped during {stopped.during}; a resume starts it again")
        if session.prepared and not session.stop_requested:
            session.start()
            stopped_early = pipeline.train(session)
        complete = pipeline.done >= pipeline.budget
        if not session.prepared:  # the checkpoint taken before the preparation stands: a resume prepares again
            session.record_end(f"interrupted ({stop.name}) before its first step")
        elif complete:
            session.save("completed")
        else:
            session.save(f"interrupted ({stop.name})" if session.stop_requested else f"stopped: {stopped_early}")
    finally:
        pipeline.close()
        session.close()
        if created and not (run_dir / METADATA_FILE).exists():
            # failed before its first checkpoint: a folder this session made holds nothing
            # to resume (only TensorBoard's first events), so it goes rather than linger as a run
            shutil.rmtree(run_dir, ignore_errors=True)
    curve = getattr(config, "learning_curve", None)
    if curve is not None:
        draw(run_dir, curve.reference)
    if session.stop_requested:
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
    name = signal.Signals(stop.signum).name
    if stop.complete:
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
