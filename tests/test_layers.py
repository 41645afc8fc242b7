"""Layers only point down: envs below agents below training, and no import cycles.

The check itself is ``tests/import_graph.py`` (``python -m tests.import_graph`` prints the
whole report); these tests run it on the repository, check that it sees what it must on
a small made-up tree, and check at run time that importing envs loads no agent.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import import_graph

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_imports_from_a_layer_above_it():
    upward = import_graph.upward(import_graph.arrows())
    if upward:
        pytest.fail(
            "imports from a layer above (envs < agents < training):\n" + "\n".join(map(str, upward)), pytrace=False
        )


def test_no_import_cycles():
    cycles = import_graph.cycles(import_graph.arrows())
    if cycles:
        pytest.fail("import cycles:\n" + "\n".join(map(import_graph.format_cycle, cycles)), pytrace=False)


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_checker_sees_imports_in_functions_relative_imports_and_cycles(tmp_path):
    _tree(
        tmp_path,
        {
            "envs/__init__.py": "",
            "envs/core.py": "from . import rules\n",
            "envs/rules.py": "def f():\n    from envs.core import X  # dodges the cycle\n",
            "envs/card.py": "def g():\n    from agents import bot\n",
            "agents/__init__.py": "",
            "agents/bot.py": "import envs.core\nfrom training.loop import run\n",
            "training/__init__.py": "",
            "training/loop.py": "from agents.bot import Bot\nimport numpy\n",
        },
    )
    arrows = import_graph.arrows(tmp_path)
    assert sorted(map(str, import_graph.upward(arrows))) == [
        "agents.bot -> training.loop (agents/bot.py:2)",
        "envs.card -> agents.bot (envs/card.py:2)",
    ]
    assert sorted(map(import_graph.format_cycle, import_graph.cycles(arrows))) == [
        "agents.bot -> training.loop (agents/bot.py:2) -> agents.bot (training/loop.py:1)",
        "envs.core -> envs.rules (envs/core.py:1) -> envs.core (envs/rules.py:2)",
    ]
    lines, ok = import_graph.report(tmp_path)
    assert not ok
    assert "  envs.rules -> envs.core (envs/rules.py:2) in f()  # dodges the cycle" in lines
    assert "  envs.card -> agents.bot (envs/card.py:2) in g()  (no comment says why)" in lines
    assert lines[-1].startswith("FAIL: ") and "2 upward, 2 cycles, 2 inside functions" in lines[-1]


def test_importing_envs_loads_no_agent_and_a_bot_name_loads_the_bots_on_first_use():
    """At run time too (imports written as strings are invisible to the checker): every env
    module (but envs.integrations, which needs Ray) loads without agents or training, and a
    bot name works in a fresh interpreter all the same, the declared resolver (an entry
    point) loading the agents layer only then and never training."""
    script = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import gymnasium, envs, envs.games
        for package in (envs, envs.games):
            for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
                if not module.ispkg:
                    importlib.import_module(module.name)
        env = gymnasium.make("InvertedDice-v1", num_players=2)
        env.reset(seed=0)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "training"))
        assert not loaded, loaded
        env = gymnasium.make("LostDice-v0", opponents="heuristic")
        env.reset(seed=0)
        print(type(env.unwrapped.opponents[0]).__name__)
        print(sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("agents", "training")}))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["LostDiceHeuristic", "['agents']"]
