"""Checkpoints of a training run: the files ``--resume`` needs, committed as one set.

A pipeline names the files of its checkpoint and how to write each (for PPO: the model,
the reward statistics and the training state; for TD: the value network and its
training state; ...). Saving:

1. every file is written to ``<name>.partial`` and flushed to disk;
2. ``metadata.json`` is replaced (atomically) with a record of the progress (how many
   units of the budget were learned) and each file's SHA-256: this is the commit;
3. each ``.partial`` file is renamed into place.

A run killed before step 2 keeps its previous checkpoint whole; killed after it, the
new checkpoint's files are either in place or still under their ``.partial`` name, and
:func:`read_checkpoint` finds each one by its checksum. A file that matches neither is
damaged, and resuming stops with an error naming it. Reading changes no file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.run_folder import METADATA_FILE, CheckpointError
from training.framework import run_files


def commit_checkpoint(
    run_dir: Path, writers: dict[str, Callable[[str], None]], metadata: dict[str, Any], unit: str, done: int
) -> None:
    """Write every file of ``writers`` (name -> ``write(filename)``) and commit them with ``metadata``.

    ``metadata[unit]`` and ``metadata["checkpoint"]`` record the ``done`` units learned.
    """
    partials = {name: run_files.write_partial(run_dir / name, write) for name, write in writers.items()}
    metadata[unit] = int(done)
    metadata["checkpoint"] = {
        unit: int(done),
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
    done: int  #: units of the budget learned

    def unusable(self, name: str, error: Exception) -> CheckpointError:
        """The error for a checkpoint file that passed its checksum but cannot be loaded."""
        return CheckpointError(f"cannot resume: {self.files[name]} is unusable: {type(error).__name__}: {error}")


def read_checkpoint(run_dir: Path, unit: str, required: tuple[str, ...]) -> Checkpoint:
    """The last checkpoint of ``run_dir``, every file checked against its recorded SHA-256."""
    metadata_path = run_dir / METADATA_FILE
    if not metadata_path.is_file():
        raise CheckpointError(f"cannot resume: {run_dir} holds no checkpoint ({metadata_path} does not exist)")
    try:
        metadata = json.loads(metadata_path.read_text())
        record = metadata["checkpoint"]
        recorded = dict(record["files"])
        done = int(record[unit])
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(
            f"cannot resume: {metadata_path} is not a checkpoint record of {unit} ({type(error).__name__}: {error})"
        ) from None
    files = {}
    for name, digest in recorded.items():
        candidates = [run_dir / name, run_files.partial_path(run_dir / name)]
        found = next((path for path in candidates if path.is_file() and run_files.sha256(path) == digest), None)
        if found is None:
            raise CheckpointError(
                f"cannot resume: {run_dir / name} is damaged or missing (its SHA-256 does not match the checkpoint "
                f"of {done} {unit} recorded in {METADATA_FILE})"
            )
        files[name] = found
    missing = [name for name in required if name not in files]
    if missing:
        raise CheckpointError(f"cannot resume: {metadata_path} records no {' and '.join(missing)}")
    return Checkpoint(run_dir, metadata, files, done)
