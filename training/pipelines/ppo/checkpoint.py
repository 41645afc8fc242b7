"""What a PPO checkpoint holds, and how a resumed run gets it back.

The files (committed as one set by :mod:`training.framework.checkpoint`): the model
(``model.zip``, SB3's format), the reward statistics (``vecnormalize.pkl``, when
rewards are normalized) and the training state (``training_state.pkl``: the step count,
the torch / numpy / Python RNG states, every env's generator and the self-play pool's
snapshots). Checkpoints are taken between PPO updates, so a resumed run continues the
same learning: same weights, optimizer state, step count, schedules, reward statistics,
self-play pool and random streams. What SB3 cannot carry over is the episodes in
progress: the resumed run starts new ones (from the saved env generators).
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.trained import CheckpointError
from training.framework.checkpoint import Checkpoint
from training.framework.run_files import MODEL_FILE, REWARD_STATS_FILE, TRAINING_STATE_FILE


def checkpoint_files(model, reward_normalizer, self_play) -> dict[str, Callable[[str], None]]:
    """The writers of a checkpoint of ``model`` (at ``model.num_timesteps``)."""
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
    return writers


def load_model(checkpoint: Checkpoint, venv, algorithm):
    """The checkpoint's model (``algorithm``, a MaskablePPO class), attached to ``venv``."""
    try:
        return algorithm.load(str(checkpoint.files[MODEL_FILE]), env=venv, device="cpu")
    except Exception as error:  # zip, pickle, torch and space-mismatch errors all mean an unusable file
        raise checkpoint.unusable(MODEL_FILE, error) from None


def load_reward_normalizer(checkpoint: Checkpoint, venv):
    """The saved VecNormalize statistics around ``venv``."""
    from stable_baselines3.common.vec_env import VecNormalize

    if REWARD_STATS_FILE not in checkpoint.files:
        raise CheckpointError(
            f"cannot resume: the checkpoint of {checkpoint.run_dir} has no {REWARD_STATS_FILE} (normalize_reward changed?)"
        )
    try:
        return VecNormalize.load(str(checkpoint.files[REWARD_STATS_FILE]), venv)
    except Exception as error:
        raise checkpoint.unusable(REWARD_STATS_FILE, error) from None


def training_state(checkpoint: Checkpoint) -> dict[str, Any]:
    try:
        return pickle.loads(checkpoint.files[TRAINING_STATE_FILE].read_bytes())
    except Exception as error:
        raise checkpoint.unusable(TRAINING_STATE_FILE, error) from None


def restore_training_state(state: dict[str, Any], model, self_play) -> None:
    """Put the saved RNG states, env generators and self-play pool back in place."""
    random.setstate(state["python_rng"])
    np.random.set_state(state["numpy_rng"])
    torch.set_rng_state(state["torch_rng"])
    venv = model.get_env()
    if len(state["env_rngs"]) != venv.num_envs:
        raise CheckpointError(
            f"cannot resume: the checkpoint has {len(state['env_rngs'])} envs, the config {venv.num_envs}"
        )
    for index, generator in enumerate(state["env_rngs"]):
        venv.set_attr("np_random", generator, indices=[index])
    if self_play is not None:
        self_play.restore(state["self_play"], model.policy)
