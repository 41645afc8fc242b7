"""How a run folder's files are written: atomically, and checked by their SHA-256.

Every file is written to ``<name>.partial`` and then renamed into place, so a reader (or
a run killed at any moment, ``SIGKILL`` included) never sees half a file. A checkpoint
is several files (model, reward statistics, training state) that must belong together;
:mod:`training.framework.checkpoint` commits them as a set with ``metadata.json``. The
files' names, and how a run folder is read, are :mod:`agents.run_folder`'s.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

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
