"""Checkpoints of a training run: everything ``--resume`` needs, committed as one set.

A checkpoint is the model (``model.zip``), the reward statistics (``vecnormalize.pkl``,
when rewards are normalized) and the training state (``training_state.pkl``: the step
count, the torch / numpy / Python RNG states, every env's generator and the self-play
pool's snapshots), plus its record in ``metadata.json``. Saving:

1. every file is written to ``<name>.partial`` and flushed to disk;
2. ``metadata.json`` is replaced (atomically) with a record of the step count and each
   file's SHA-256: this is the commit;
3. each ``.partial`` file is renamed into place.

A run killed before step 2 keeps its previous checkpoint whole; killed after it, the
new checkpoint's files are either in place or still under their ``.partial`` name, and
:func:`read_checkpoint` finds each one by its checksum. A file that matches neither is
damaged, and resuming stops with an error naming it. Reading changes no file.

Checkpoints are taken between PPO updates, so a resumed run continues the same
learning: same weights, optimizer state, step count, schedules, reward statistics,
self-play pool and random streams. What SB3 cannot carry over is the episodes in
progress: the resumed run starts new ones (from the saved env generators).
"""

from __future__ import annotations

import json
import os
import pickle
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.trained import CheckpointError
from training.framework import run_files
from training.framework.run_files import METADATA_FILE, MODEL_FILE, REWARD_STATS_FILE, TRAINING_STATE_FILE


def save_checkpoint(run_dir: Path, model, reward_normalizer, self_play, metadata: dict[str, Any]) -> None:
    """Commit a checkpoint of ``model`` (at ``model.num_timesteps``) with ``metadata``."""
    state = {
        "num_timesteps": int(model.num_timesteps),
        "python_rng": random.getstate(),
        "numpy_rng": np.random.get_state(),
        "torch_rng": torch.get_rng_state(),
        "env_rngs": model.get_env().get_attr("np_random"),
        "self_play": self_play.state() if self_play is not None else None,
    }
    writers = {MODEL_FILE: model.save, TRAINING_STATE_FILE: lambda name: Path(name).write_bytes(pickle.dumps(state))}
    if reward_normalizer is not None:
        writers[REWARD_STATS_FILE] = reward_normalizer.save
    partials = {name: run_files.write_partial(run_dir / name, write) for name, write in writers.items()}
    metadata["timesteps"] = int(model.num_timesteps)
    metadata["checkpoint"] = {
        "timesteps": int(model.num_timesteps),
        "files": {name: run_files.sha256(path) for name, path in partials.items()},
    }
    run_files.write_text_atomic(run_dir / METADATA_FILE, json.dumps(metadata, indent=2))
    for name, path in partials.items():
        os.replace(path, run_dir / name)


@dataclass
class Checkpoint:
    """A run's last committed checkpoint, its files verified (see :func:`read_checkpoint`)."""

    run_dir: Path
    metadata: dict[str, Any]
    files: dict[str, Path]  #: file name -> the verified file (in place, or its .partial twin)

    @property
    def timesteps(self) -> int:
        return int(self.metadata["checkpoint"]["timesteps"])

    def load_model(self, venv, algorithm=None):
        """The model (a MaskablePPO, or ``algorithm``'s subclass of it), attached to ``venv``."""
        from sb3_contrib import MaskablePPO

        try:
            return (algorithm or MaskablePPO).load(str(self.files[MODEL_FILE]), env=venv, device="cpu")
        except Exception as error:  # zip, pickle, torch and space-mismatch errors all mean an unusable file
            raise CheckpointError(f"cannot resume: {self.files[MODEL_FILE]} is unusable: {type(error).__name__}: {error}") from None

    def load_reward_normalizer(self, venv):
        """The saved VecNormalize statistics around ``venv``."""
        from stable_baselines3.common.vec_env import VecNormalize

        path = self.files.get(REWARD_STATS_FILE)
        if path is None:
            raise CheckpointError(f"cannot resume: the checkpoint of {self.run_dir} has no {REWARD_STATS_FILE} (normalize_reward changed?)")
        try:
            return VecNormalize.load(str(path), venv)
        except Exception as error:
            raise CheckpointError(f"cannot resume: {path} is unusable: {type(error).__name__}: {error}") from None

    def training_state(self) -> dict[str, Any]:
        path = self.files[TRAINING_STATE_FILE]
        try:
            return pickle.loads(path.read_bytes())
        except Exception as error:
            raise CheckpointError(f"cannot resume: {path} is unusable: {type(error).__name__}: {error}") from None


def read_checkpoint(run_dir: Path) -> Checkpoint:
    """The last checkpoint of ``run_dir``, every file checked against its recorded SHA-256."""
    metadata_path = run_dir / METADATA_FILE
    if not metadata_path.is_file():
        if (run_dir / MODEL_FILE).is_file():
            raise CheckpointError(
                f"cannot resume: {run_dir} has a model but no {METADATA_FILE} (written with every checkpoint "
                "since the run folder layout of training/pipelines/ppo/checkpoint.py); train it again"
            )
        raise CheckpointError(f"cannot resume: {run_dir} holds no checkpoint ({metadata_path} does not exist)")
    try:
        metadata = json.loads(metadata_path.read_text())
        record = metadata["checkpoint"]
        recorded = dict(record["files"])
        int(record["timesteps"])
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"cannot resume: {metadata_path} is not a checkpoint record ({type(error).__name__}: {error})") from None
    files = {}
    for name, digest in recorded.items():
        candidates = [run_dir / name, run_files.partial_path(run_dir / name)]
        found = next((path for path in candidates if path.is_file() and run_files.sha256(path) == digest), None)
        if found is None:
            raise CheckpointError(
                f"cannot resume: {run_dir / name} is damaged or missing (its SHA-256 does not match the checkpoint "
                f"of step {record['timesteps']} recorded in {METADATA_FILE})"
            )
        files[name] = found
    if MODEL_FILE not in files or TRAINING_STATE_FILE not in files:
        raise CheckpointError(f"cannot resume: {metadata_path} records no {MODEL_FILE} and {TRAINING_STATE_FILE}")
    return Checkpoint(run_dir, metadata, files)


def restore_training_state(state: dict[str, Any], model, self_play) -> None:
    """Put the saved RNG states, env generators and self-play pool back in place."""
    random.setstate(state["python_rng"])
    np.random.set_state(state["numpy_rng"])
    torch.set_rng_state(state["torch_rng"])
    venv = model.get_env()
    if len(state["env_rngs"]) != venv.num_envs:
        raise CheckpointError(f"cannot resume: the checkpoint has {len(state['env_rngs'])} envs, the config {venv.num_envs}")
    for index, generator in enumerate(state["env_rngs"]):
        venv.set_attr("np_random", generator, indices=[index])
    if self_play is not None:
        self_play.restore(state["self_play"], model.policy)
