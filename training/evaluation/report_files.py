"""An evaluation report's files: where its folder goes, written whole or not at all, and its
tables in one Markdown and one CSV format.

:func:`output_dir` picks the folder (``--out``, never over an earlier report unless told,
else a new dated folder beside the run or under ``results/``); :func:`report_folder` writes
into a hidden folder beside it and moves the files in only once every one is written, so a
failed evaluation leaves no half report; the benchmark's report folder is written the same
way. :func:`markdown_table`, :func:`interval_cell` (a figure with its interval) and
:func:`write_csv` are how every evaluation writes its tables: an evaluation's
(:mod:`training.evaluation.report_tables`), the aggregates over runs'
(:mod:`training.evaluation.run_aggregate_report`), the benchmark's and the leaderboard's
(:mod:`training.evaluation.benchmark_report`) and the ladder's.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agents.run_folder import CONFIG_FILE, EVALUATION_DIR, folder_of
from agents.shipped import is_shipped
from training.framework.paths import results_root
from training.framework.run_files import new_report_dir
from training.framework.schema import ConfigError


def output_dir(out: str | None, overwrite: bool, checkpoint: Path | None, env: str) -> Path:
    """Where the report goes: ``--out`` (never over a report unless ``--overwrite``), else a new
    dated folder: in the run folder of ``checkpoint`` when it is one (it holds the run's
    config) and not a shipped network's, else under ``results/<env>/`` (neither a shipped
    folder nor a bare model file's folder is the user's to write in)."""
    if out is not None:
        out_dir = Path(out)
        if out_dir.is_dir() and any(out_dir.iterdir()) and not overwrite:
            raise ConfigError(
                f"{out_dir} already holds files (an earlier report?); choose another --out or pass --overwrite"
            )
        return out_dir
    folder = None if checkpoint is None else folder_of(checkpoint)
    if folder is not None and (folder / CONFIG_FILE).is_file() and not is_shipped(folder):
        return new_report_dir(folder, f"{EVALUATION_DIR}-")
    return new_report_dir(results_root() / env)


@contextmanager
def report_folder(out_dir: Path) -> Iterator[Path]:
    """A fresh hidden folder beside ``out_dir`` to write a report into.

    Its files move into ``out_dir`` (created then) when the block ends without an error,
    and the folder is removed either way: an evaluation that fails while writing its
    report leaves no half report, and nothing in ``out_dir`` that blocks a rerun.
    """
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.partial-", dir=out_dir.parent))
    try:
        yield staging
        out_dir.mkdir(parents=True, exist_ok=True)
        for path in sorted(staging.iterdir()):
            os.replace(path, out_dir / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def interval_cell(value: float, low: float, high: float, digits: int = 3) -> str:
    """A figure with its interval as the tables write it: ``value [low, high]``, ``digits`` decimals each."""
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table of ``header`` and ``rows`` (cells already written as text)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict]) -> None:
    """``rows`` as a CSV file with a header, the columns in the first row's order."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
