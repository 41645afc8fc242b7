"""A run set's folder: the names of its files, and how it is found and read.

A run set is several runs of one recipe, one per seed, in one folder: ``run_set.json``
naming the env, the pipeline, the seeds and the command, a run folder per seed
(``seed<N>/``, an ordinary run folder: :mod:`agents.run_folder`) and each run's output in
``seed<N>.log``. :mod:`training.framework.run_set` trains one; runs trained elsewhere make
one with ``{"env": ..., "seeds": [...]}`` and their folders. A run of the set is scored by
its closing evaluation's games (:func:`closing_games`), and the reports name it by its seed
(:func:`run_label`). The training command, the evaluations and the benchmark find a run set
with :func:`is_run_set` and its runs with :func:`runs_of`.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.run_folder import EVALUATION_DIR

RUN_SET_FILE = "run_set.json"  #: marks a run-set folder: env, pipeline, seeds, command


def is_run_set(path: Path) -> bool:
    return (Path(path) / RUN_SET_FILE).is_file()


def read_run_set(path: Path) -> dict:
    """``run_set.json`` of the run set at ``path``."""
    return json.loads((Path(path) / RUN_SET_FILE).read_text())


def write_run_set(path: Path, info: dict) -> None:
    """``run_set.json`` of a new run set at ``path``: ``info``, its ``env`` and ``seeds`` at least."""
    (Path(path) / RUN_SET_FILE).write_text(json.dumps(info, indent=2) + "\n")


def seed_folder(run_set: Path, seed: int) -> Path:
    """Seed ``seed``'s run folder in the run set (and its report's folder in a report over the set)."""
    return Path(run_set) / f"seed{seed}"


def seed_log(run_set: Path, seed: int) -> Path:
    """What seed ``seed``'s training printed."""
    return Path(run_set) / f"seed{seed}.log"


def run_label(seed: int) -> str:
    """How the reports over a run set name seed ``seed``'s run."""
    return f"seed {seed}"


def runs_of(run_set: Path) -> dict[int, Path]:
    """Every seed of the run set and its run folder, in the seeds' order."""
    return {int(seed): seed_folder(run_set, seed) for seed in read_run_set(run_set)["seeds"]}


def closing_games(run: Path) -> Path:
    """Every game of the run's closing evaluation: what the set's report scores it by, so the
    run is finished once they are written."""
    return Path(run) / EVALUATION_DIR / "games.csv"
