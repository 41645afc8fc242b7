"""What a PPO checkpoint holds, and how a resumed run gets it back.

The files (committed as one set by :mod:`training.framework.checkpoint`): the model
(``model.zip``, SB3's format: weights, optimizer state, step count) and the reward
statistics (``vecnormalize.pkl``, when rewards are normalized); the framework adds the
training state (``training_state.pkl``: the global RNG states and the learner's
``state_dict``, every env's generator and the self-play pool's snapshots). Checkpoints
are taken between PPO updates, so a resumed run continues the same learning: same
weights, optimizer state, step count, schedules, reward statistics, self-play pool and
random streams. What SB3 cannot carry over is the episodes in progress: the resumed run
starts new ones (from the saved env generators), so its weights differ from a run that
never stopped (``docs/guides/reproducibility.md``).
"""

from __future__ import annotations

from collections.abc import Callable

from stable_baselines3.common.vec_env import VecNormalize

from agents.run_folder import MODEL_FILE, REWARD_STATS_FILE, CheckpointError
from training.framework.checkpoint import Checkpoint


def checkpoint_files(model, reward_normalizer) -> dict[str, Callable[[str], None]]:
    """The writers of a checkpoint of ``model`` (at ``model.num_timesteps``) and its reward statistics."""
    writers = {MODEL_FILE: model.save}
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
    if REWARD_STATS_FILE not in checkpoint.files:
        raise CheckpointError(
            f"cannot resume: the checkpoint of {checkpoint.run_dir} has no {REWARD_STATS_FILE} "
            "(normalize_reward changed?)"
        )
    try:
        return VecNormalize.load(str(checkpoint.files[REWARD_STATS_FILE]), venv)
    except Exception as error:
        raise checkpoint.unusable(REWARD_STATS_FILE, error) from None
