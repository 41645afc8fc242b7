"""On-disk cache of solved tables (exact solvers' value tables), checked on every load.

A cache file is a plain ``.npz`` (uncompressed: it reloads at disk speed) holding the
tables and a ``key``: a JSON header naming the format, the game, the rules and the
solver version that produced it. Loading checks that the file reads back without error
(the zip's CRC-32 catches corrupted bytes), that its key is the expected one and that
every table has the expected length, and raises :class:`CacheError` naming the file and
the problem otherwise: a caller decides whether to solve again. Files are written to a
temporary name and renamed, so an interrupted solve never leaves a half-written cache.

The folder is ``$TABLETOP_DICE_RL_CACHE`` if set, else ``~/.cache/tabletop-dice-rl``.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

CACHE_ENV = "TABLETOP_DICE_RL_CACHE"
DEFAULT_CACHE_DIR = Path("~/.cache/tabletop-dice-rl")
FORMAT = "tabletop-dice-rl solved tables"


class CacheError(RuntimeError):
    """A cache file that cannot be used: unreadable, corrupt, or made for other rules."""


def cache_dir(folder: str | os.PathLike | None = None) -> Path:
    """``folder`` if given, else ``$TABLETOP_DICE_RL_CACHE``, else ``~/.cache/tabletop-dice-rl``."""
    return Path(folder or os.environ.get(CACHE_ENV) or DEFAULT_CACHE_DIR).expanduser()


def save(path: str | os.PathLike, key: dict, **tables: np.ndarray) -> None:
    """Write ``tables`` with the header ``key`` to ``path``, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"format": FORMAT, **key}, sort_keys=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as file:
        np.savez(file, key=np.array(header), **tables)
    os.replace(partial, path)


def load(
    path: str | os.PathLike, key: dict, lengths: dict[str, int], resolve_command: str | None = None
) -> dict[str, np.ndarray]:
    """The float64 tables named in ``lengths`` from the cache file at ``path``.

    Raises :class:`CacheError` if the file cannot be read back intact, was written for a
    different ``key``, or lacks a table of the expected length. Its message ends with
    what to do: delete the file, or run ``resolve_command`` (the exact command that
    solves again and replaces it, whatever script met the problem).
    """
    advice = f"solve again with `{resolve_command}`" if resolve_command else "delete it to solve again"
    try:
        with np.load(path, allow_pickle=False) as file:
            stored = json.loads(str(file["key"]))
            expected = {"format": FORMAT, **key}
            if stored != expected:
                differ = sorted(k for k in expected.keys() | stored.keys() if stored.get(k) != expected.get(k))
                changes = ", ".join(f"{k}: file {stored.get(k)!r}, expected {expected.get(k)!r}" for k in differ)
                raise CacheError(
                    f"cache file {path} was made for other rules or another solver version ({changes}); {advice}"
                )
            tables = {name: file[name] for name in lengths}
    except CacheError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        # the library's first sentence only: numpy goes on to suggest allow_pickle, unsafe for a file of unknown origin
        reason = str(error).split(". ")[0]
        raise CacheError(
            f"cache file {path} is corrupt or unreadable ({type(error).__name__}: {reason}); {advice}"
        ) from error
    for name, length in lengths.items():
        table = tables[name]
        if table.dtype != np.float64 or table.shape != (length,):
            raise CacheError(
                f"cache file {path}: table {name!r} is {table.dtype}{list(table.shape)}, "
                f"expected float64[{length}]; {advice}"
            )
    return tables
