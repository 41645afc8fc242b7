"""Layers only point down: envs below agents below training, no import cycles, and every
import inside a function says why it is there.

The check itself is ``tests/import_graph.py`` (``python -m tests.import_graph`` prints the
whole report); these tests run it on the repository, check that it sees what it must on
small made-up trees, and check at run time that importing envs loads no agent.
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


def test_every_import_inside_a_function_says_why():
    bare = import_graph.without_reason(import_graph.function_imports())
    if bare:
        pytest.fail(
            "imports inside functions without a reason (move each to the top of its module, or say why on its "
            "line: # noqa: PLC0415 (why)):\n" + "\n".join(map(str, bare)),
            pytrace=False,
        )


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
    assert lines[-1].startswith("FAIL: ")
    assert "2 upward, 2 cycles, 2 inside functions, 2 imports in functions without a reason" in lines[-1]


def test_the_checker_wants_a_reason_on_every_import_in_a_function_of_any_module(tmp_path):
    _tree(
        tmp_path,
        {
            "envs/__init__.py": "",
            "envs/core.py": """
                import json


                def bare():
                    import csv


                def justified():
                    import torch  # noqa: PLC0415 (torch takes seconds to import; only training needs it)


                def reason_after_the_code():
                    import numba  # noqa: PLC0415 Numba is slow to import


                def among_other_codes():
                    import ray  # noqa: F401, PLC0415 (optional: Ray RLlib)


                def empty_parentheses():
                    import yaml  # noqa: PLC0415 ()


                def code_alone():
                    from envs import rules  # noqa: PLC0415


                def another_code():
                    import pickle  # noqa: F401 (not the import's code)


                def a_comment_that_is_no_noqa():
                    import shutil  # only here
            """,
            "envs/rules.py": "",
            "agents/__init__.py": "",
            "agents/bot.py": """
                class Bot:
                    def act(self):
                        def inner():
                            from envs.core import json  # noqa: PLC0415 (an inner function's)
                        from envs import core
                        return core
            """,
            "training/__init__.py": "",
            "training/loop.py": """
                def run():
                    from agents.bot import (  # noqa: PLC0415 (on the first line, where ruff reads it)
                        Bot,
                    )
                    from agents.bot import (
                        Bot,
                    )  # noqa: PLC0415 (on the last line, where ruff does not read it)
            """,
            "tests/test_outside.py": "def test():\n    import json\n",
        },
    )
    found = import_graph.function_imports(tmp_path)
    assert len(found) == 12  # every one in a function, none at module level, none outside the layers
    assert [str(f) for f in import_graph.without_reason(found)] == [
        "envs/core.py:6 in bare(): import csv",
        "envs/core.py:22 in empty_parentheses(): import yaml",
        "envs/core.py:26 in code_alone(): from envs import rules",
        "envs/core.py:30 in another_code(): import pickle",
        "envs/core.py:34 in a_comment_that_is_no_noqa(): import shutil",
        "agents/bot.py:6 in act(): from envs import core",
        "training/loop.py:6 in run(): from agents.bot import (",
    ]
    assert [f.reason() for f in found if f.path == "envs/core.py"][1:4] == [
        "torch takes seconds to import; only training needs it",
        "Numba is slow to import",
        "optional: Ray RLlib",
    ]
    lines, ok = import_graph.report(tmp_path)
    assert not ok and "  envs/core.py:6 in bare(): import csv" in lines
    assert lines[-1].endswith("; 0 upward, 0 cycles, 5 inside functions, 7 imports in functions without a reason")


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
