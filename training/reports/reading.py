"""The committed reports read back: every Markdown file git tracks under ``results/`` as a
:class:`Report` with its env, its table size and its tables, parsed from the text the commands wrote.

Only the tracked files are read (:func:`committed_reports`): ``results/`` is git-ignored, so
the reports a user's own ``evaluate.py`` or ``ladder.py`` writes there (a new dated folder
each time) never reach the docs' pages or the README; a new committed report is added
with ``git add -f``.

Paths are shown from the ``checkpoints/`` folder on: a report made in another checkout
names its run by an absolute path, which means nothing to a reader.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from envs.registry import ENVS
from training.evaluation.machine import TIMING_FILE

NUMBER = re.compile(r"[-+−]?\d+(?:\.\d+)?")


class ReportError(ValueError):
    """A report the pages cannot be made from; the message names the file and what is wrong."""


@dataclass
class Table:
    header: list[str]
    rows: list[dict[str, str]]

    def column(self, *names: str) -> str | None:
        """The first header among ``names`` (a header matches by its start), or None."""
        for name in names:
            for head in self.header:
                if head == name or head.startswith(name):
                    return head
        return None


@dataclass
class Report:
    source: Path  #: the file under results/
    env: str  #: the game the report's title names
    text: str
    tables: list[Table] = field(default_factory=list)

    @property
    def page_name(self) -> str:
        parts = self.source.parent.parts[1:] or (self.source.stem,)
        if self.source.parent.parts[1:] and self.source.stem not in ("report", "ladder"):
            parts = (*parts, self.source.stem)
        return "-".join(parts) + ".md"

    @property
    def players(self) -> int | None:
        """The table size of a report of one game at one table; None for a report of several
        (a benchmark's tasks), which would otherwise take its first row's."""
        found = set(re.findall(r"num_players=(\d+)", self.text))
        return int(found.pop()) if self.env and len(found) == 1 else None


def read_report(path: Path, root: Path) -> Report:
    text = path.read_text()
    title = re.match(r"#\s+(\w+)", text)
    env = title[1] if title and title[1] in ENVS else ""
    return Report(source=Path(root.name) / path.relative_to(root), env=env, text=text, tables=parse_tables(text))


def parse_tables(text: str) -> list[Table]:
    """Every Markdown table of ``text``: its header and its rows as {header: cell}."""
    tables, lines = [], text.splitlines()
    k = 0
    while k < len(lines):
        if (
            lines[k].startswith("|")
            and k + 1 < len(lines)
            and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[k + 1].strip())
        ):
            header = cells(lines[k])
            rows = []
            k += 2
            while k < len(lines) and lines[k].startswith("|"):
                rows.append(dict(zip(header, cells(lines[k]))))
                k += 1
            tables.append(Table(header, rows))
        else:
            k += 1
    return tables


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def spec_of(cell: str) -> str:
    return cell.strip().strip("`")


def numbers(cell: str) -> list[float]:
    return [float(n.replace("−", "-")) for n in NUMBER.findall(cell)]


def committed_reports(results: Path) -> list[Path]:
    """The Markdown files under ``results`` that git tracks and the working tree holds, sorted:
    the committed reports, as the commands that made them last wrote them."""
    if not results.is_dir():
        raise ReportError(f"no results folder {results}")
    try:
        listed = subprocess.run(
            ["git", "-C", str(results), "ls-files", "-z", "--", "."], capture_output=True, text=True, check=True
        ).stdout
    except FileNotFoundError:
        raise ReportError("git is not installed: the pages are made from the reports git tracks") from None
    except subprocess.CalledProcessError:
        raise ReportError(
            f"{results} is not in a git checkout: the pages are made from the reports git tracks"
        ) from None
    paths = (results / name for name in listed.split("\0") if name.endswith(".md"))
    return sorted(path for path in paths if path.is_file())


def find_reports(results: Path) -> list[Report]:
    """The committed reports under ``results`` (:func:`committed_reports`), read."""
    # a report's timing file is the machine's and changes every run: no page (training.evaluation.machine)
    return [read_report(path, results) for path in committed_reports(results) if path.name != TIMING_FILE]
