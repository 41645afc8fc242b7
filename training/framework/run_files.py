"""The layout of a run folder, ``checkpoints/<env>/<run>/``, and how its files are written.

Every file is written to ``<name>.partial`` and then renamed into place, so a reader (or
a run killed at any moment, ``SIGKILL`` included) never sees half a file. A checkpoint
is several files (model, reward statistics, training state) that must belong together;
:mod:`training.pipelines.ppo.checkpoint` commits them as a set with ``metadata.json``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

CONFIG_FILE = "config.yaml"  #: the resolved config the run trains with
METADATA_FILE = "metadata.json"  #: seed, steps, wall time, versions, and the last checkpoint's record
MODEL_FILE = "model.zip"  #: the MaskablePPO model (SB3's format), latest checkpoint
REWARD_STATS_FILE = "vecnormalize.pkl"  #: VecNormalize reward statistics, when ``normalize_reward``
TRAINING_STATE_FILE = "training_state.pkl"  #: RNG states, env generators, self-play pool
DEMONSTRATIONS_FILE = "demonstrations.pt"  #: a warm start's teacher demonstrations, for the guide loss after a resume
TENSORBOARD_DIR = "tensorboard"
EVALUATION_DIR = "evaluation"  #: the closing evaluation's report
PARTIAL_SUFFIX = ".partial"


def partial_path(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place."""
    return path.with_name(path.name + PARTIAL_SUFFIX)


def write_partial(path: Path, write: Callable[[str], None]) -> Path:
    """Write ``path``'s next version with ``write(filename)`` to its partial name, flushed to disk."""
    partial = partial_path(path)
    write(str(partial))
    with open(partial, "rb") as handle:
        os.fsync(handle.fileno())
    return partial


def write_atomic(path: Path, write: Callable[[str], None]) -> None:
    """Replace ``path`` with what ``write(filename)`` writes; never leaves half a file."""
    os.replace(write_partial(path, write), path)


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda name: Path(name).write_text(text))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def new_report_dir(parent: Path, prefix: str = "") -> Path:
    """A dated folder name ``<parent>/<prefix><YYYYmmdd-HHMMSS>`` not yet taken (``-2``, ``-3`` ... if it is).

    The folder is created when the report is written, so a failed evaluation leaves none.
    """
    stamp = prefix + datetime.now().strftime("%Y%m%d-%H%M%S")
    folder, attempt = parent / stamp, 1
    while folder.exists():
        attempt += 1
        folder = parent / f"{stamp}-{attempt}"
    return folder
