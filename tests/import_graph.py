"""The project's import graph, checked: layers only point down, and no module cycles.

    python -m tests.import_graph

The layers, bottom to top: ``envs`` (rules cores and env adapters), ``agents`` (bots and
trained agents, built on envs), ``training`` (training, evaluation and the command-line
tools, built on both). A module may import from its own layer and the layers below it,
never from one above (an *upward arrow*), and no set of modules may import one another
in a circle (a *cycle*): a cycle is either a layering mistake or an import that only
works in one order.

Every ``import`` statement of every ``.py`` file under ``envs/``, ``agents/`` and
``training/`` is an arrow, found with :mod:`ast`, wherever it stands: at module level,
under ``if TYPE_CHECKING:`` or inside a function. An import moved into a function to
dodge a cycle still counts, so the cycle is still reported. Imports written as strings
(``importlib.import_module``, Gymnasium entry points) are not seen.

Every import inside a function (of any module, the project's or a library's) must say
why on its first line, where ruff reads it: ``# noqa: PLC0415 (why)``, the reason in the
parentheses (or plain text after the code), not empty. One is fine when it defers a
heavy library or an optional part for start-up time, not when it hides a cycle; the
function-level imports of project modules are also listed on their own, for review.

Prints every upward arrow as ``module -> module (file:line)``, every cycle, the
function-level imports of project modules (each with the comment that says why, if
any) and the imports inside functions that give no reason, then a one-line summary.
Exits 1 when there is an upward arrow, a cycle or an import without a reason, else 0.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The checked packages, bottom layer first.
LAYERS = ("envs", "agents", "training")
#: Project packages above every layer: nothing in a layer may import them.
ABOVE = ("tests", "benchmarks")
#: ruff's suppression of an import inside a function, alone or among other codes, and what follows it.
NOQA_PLC0415 = re.compile(r"noqa:\s*(?:[A-Z]+\d+\s*,\s*)*PLC0415\b(?:\s*,\s*[A-Z]+\d+)*(?P<reason>.*)")


@dataclass(frozen=True)
class Arrow:
    source: str  #: the importing module, e.g. ``envs.single_agent``
    target: str  #: the imported project module, e.g. ``agents.registry``
    path: str  #: the importing file, relative to the root
    line: int
    function: str | None  #: the enclosing function's name, None at module level
    comment: str = ""  #: the comment on the import's line or above its block of imports (why it is there)

    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({self.where()})"


@dataclass(frozen=True)
class FunctionImport:
    """An import statement inside a function, of any module."""

    path: str  #: the file, relative to the root
    line: int  #: the statement's first line, where ruff reads its ``noqa``
    function: str  #: the enclosing function's name
    statement: str  #: the statement's first line of code
    comment: str  #: the comment on that line, "" when none

    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def reason(self) -> str:
        """Why it is not at the top of the module: the text of its ``noqa: PLC0415``, "" when none."""
        match = NOQA_PLC0415.search(self.comment)
        if match is None:
            return ""
        reason = match["reason"].strip()
        if reason.startswith("(") and reason.endswith(")"):
            reason = reason[1:-1].strip()
        return reason

    def __str__(self) -> str:
        return f"{self.where()} in {self.function}(): {self.statement}"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the checked layers: dotted name -> file."""
    modules = {}
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            modules[module_name(path, root)] = path
    return modules


def layer_of(module: str) -> int | None:
    top = module.split(".", 1)[0]
    if top in LAYERS:
        return LAYERS.index(top)
    if top in ABOVE:
        return len(LAYERS)
    return None


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a (possibly relative) ``from ... import`` names."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` is, or lies in (an attribute of a module); None outside."""
    if layer_of(name) is None:
        return None
    while name and name not in modules:
        if layer_of(name) == len(LAYERS):  # tests/benchmarks are not scanned: keep the name
            return name
        name = name.rpartition(".")[0]
    return name or None


def _comments(path: Path) -> dict[int, str]:
    """Line number -> the comment on that line."""
    with path.open("rb") as source:
        return {t.start[0]: t.string for t in tokenize.tokenize(source.readline) if t.type == tokenize.COMMENT}


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, path: Path, modules: dict[str, Path], root: Path):
        self.module, self.path, self.modules = module, path, modules
        self.relative = str(path.relative_to(root))
        self.functions: list[str] = []
        self.arrows: list[Arrow] = []
        self.in_functions: list[FunctionImport] = []
        self.seen: set[tuple[str, int]] = set()  # one arrow per target and statement
        self.comments = _comments(path)
        self.lines = path.read_text(encoding="utf-8").splitlines()

    def _function(self, node):
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _add(self, name: str, node: ast.stmt) -> None:
        target = _resolve(name, self.modules)
        seen = (target, node.lineno)
        if target is not None and target != self.module and seen not in self.seen:
            self.seen.add(seen)
            function = self.functions[-1] if self.functions else None
            comment = self._comment(node.lineno)
            self.arrows.append(Arrow(self.module, target, self.relative, node.lineno, function, comment))

    def _comment(self, line: int) -> str:
        """The comment on ``line``, or on the line above its block of import statements."""
        if line in self.comments:
            return self.comments[line]
        above = line - 1
        while above > 0 and self.lines[above - 1].lstrip().startswith(("import ", "from ")):
            above -= 1
        return self.comments.get(above, "") if above > 0 and self.lines[above - 1].lstrip().startswith("#") else ""

    def _note_if_in_function(self, node: ast.stmt) -> None:
        if self.functions:
            statement = self.lines[node.lineno - 1].strip()
            comment = self.comments.get(node.lineno, "")
            if comment:
                statement = statement[: statement.rindex(comment)].rstrip()
            self.in_functions.append(FunctionImport(self.relative, node.lineno, self.functions[-1], statement, comment))

    def visit_Import(self, node: ast.Import) -> None:
        self._note_if_in_function(node)
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._note_if_in_function(node)
        base = _absolute(node, self.module, _is_package(self.path))
        for alias in node.names:
            # ``from envs import inverted_dice_v1`` imports the submodule; ``from envs.core
            # import Game`` imports a name of envs.core.
            full = f"{base}.{alias.name}"
            self._add(full if full in self.modules else base, node)


def _scan(root: Path) -> list[_Imports]:
    """Every module of the layers, its imports found."""
    modules = project_modules(root)
    visitors = []
    for module, path in modules.items():
        visitor = _Imports(module, path, modules, root)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        visitors.append(visitor)
    return visitors


def arrows(root: Path = ROOT) -> list[Arrow]:
    """Every import arrow between project modules, in file and line order: one per statement and target."""
    return [arrow for visitor in _scan(root) for arrow in visitor.arrows]


def function_imports(root: Path = ROOT) -> list[FunctionImport]:
    """Every import statement inside a function of the layers' modules, in file and line order."""
    return [found for visitor in _scan(root) for found in visitor.in_functions]


def without_reason(imports: list[FunctionImport]) -> list[FunctionImport]:
    """The imports among ``imports`` whose line does not say why they stand in a function."""
    return [found for found in imports if not found.reason()]


def upward(all_arrows: list[Arrow]) -> list[Arrow]:
    return [a for a in all_arrows if layer_of(a.target) > layer_of(a.source)]


def cycles(all_arrows: list[Arrow]) -> list[list[Arrow]]:
    """One shortest cycle per strongly connected group of modules (Tarjan, then a BFS)."""
    graph: dict[str, dict[str, Arrow]] = defaultdict(dict)
    for arrow in all_arrows:
        graph[arrow.source].setdefault(arrow.target, arrow)
    found = []
    for group in _strongly_connected(graph):
        if len(group) > 1:
            found.append(_shortest_cycle(min(group), graph, group))
    return sorted(found, key=lambda cycle: cycle[0].source)


def _strongly_connected(graph: dict[str, dict[str, Arrow]]) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(start: str) -> None:  # iterative Tarjan: no recursion limit on long chains
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, {})))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _shortest_cycle(start: str, graph: dict[str, dict[str, Arrow]], group: set[str]) -> list[Arrow]:
    came_from: dict[str, Arrow] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor, arrow in sorted(graph[node].items()):
                if successor not in group:
                    continue
                if successor == start:
                    path = [arrow]
                    while path[0].source != start:
                        path.insert(0, came_from[path[0].source])
                    return path
                if successor not in came_from:
                    came_from[successor] = arrow
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{start} is in a strongly connected group but on no cycle")


def format_cycle(cycle: list[Arrow]) -> str:
    steps = " -> ".join(f"{a.target} ({a.where()})" for a in cycle)
    return f"{cycle[0].source} -> {steps}"


def report(root: Path = ROOT) -> tuple[list[str], bool]:
    """The printed report's lines, and whether the imports are in order (no upward arrow, no cycle,
    no import inside a function without a reason)."""
    visitors = _scan(root)
    all_arrows = [arrow for visitor in visitors for arrow in visitor.arrows]
    up = upward(all_arrows)
    found_cycles = cycles(all_arrows)
    in_functions = [a for a in all_arrows if a.function is not None]
    unexplained = without_reason([found for visitor in visitors for found in visitor.in_functions])
    lines = [f"upward arrows ({len(up)}):"]
    lines += [f"  {a}" for a in up]
    lines.append(f"cycles ({len(found_cycles)}):")
    lines += [f"  {format_cycle(c)}" for c in found_cycles]
    lines.append(f"function-level imports of project modules ({len(in_functions)}):")
    lines += [
        f"  {a} in {a.function}(){'  ' + a.comment if a.comment else '  (no comment says why)'}" for a in in_functions
    ]
    lines.append(f"imports inside functions without a reason (# noqa: PLC0415 (why)) ({len(unexplained)}):")
    lines += [f"  {found}" for found in unexplained]
    modules = len({a.source for a in all_arrows} | {a.target for a in all_arrows if layer_of(a.target) < len(LAYERS)})
    ok = not up and not found_cycles and not unexplained
    lines.append(
        f"{'OK' if ok else 'FAIL'}: {len(all_arrows)} imports among {modules} modules of {', '.join(LAYERS)}; "
        f"{len(up)} upward, {len(found_cycles)} cycles, {len(in_functions)} inside functions, "
        f"{len(unexplained)} imports in functions without a reason"
    )
    return lines, ok


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    lines, ok = report()
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
