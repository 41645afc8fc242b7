"""The README's library recipes run exactly as printed, so they cannot drift from the code.

Every fenced block in the README section "Plugging into RL libraries" whose info string
starts with ``python`` is executed in a fresh namespace, from the repository root. A
block for a library that is not a dependency says so in its info string,
``python requires=ray``, and is skipped cleanly when that module is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Plugging into RL libraries"
FENCE = re.compile(r"^```(python[^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def recipe_blocks() -> list[tuple[str, str | None, str]]:
    """(title, required module or None, code) of every python block of the section."""
    text = (ROOT / "README.md").read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start : end if end != -1 else None]
    blocks = []
    for match in FENCE.finditer(section):
        info, code = match.group(1).split(), match.group(2)
        options = dict(item.split("=", 1) for item in info[1:])
        title = code.splitlines()[0].lstrip("# ").strip()
        blocks.append((title, options.get("requires"), code))
    return blocks


BLOCKS = recipe_blocks()


def test_the_section_has_recipes_for_every_library():
    required = {module for _, module, _ in BLOCKS}
    assert {None, "ray", "tianshou", "torchrl"} <= required


@pytest.mark.parametrize("title, module, code", BLOCKS, ids=[title for title, _, _ in BLOCKS])
def test_recipe_runs_as_printed(title, module, code, monkeypatch):
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    exec(compile(code, f"README.md: {title}", "exec"), {"__name__": "__readme__"})
