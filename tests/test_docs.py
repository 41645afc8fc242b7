"""The documentation runs as printed and stands alone.

The documents are the README, the changelog, each registered env's card (its module
docstring, found through ``envs.registry.ENVS`` and ``LEGACY_ENVS`` so a new game or
version is covered as soon as it is registered) and every page of the documentation
site (``docs/``, the site's ``docs_dir``; the site's navigation is ``mkdocs.yml``).

* Every ```python block of every document is executed in a fresh namespace from the
  repository root, exactly as a reader would paste it. A block for a library that is not
  a dependency says so after the language, ```python {requires=ray} (the braces keep the
  site's Markdown reading it as a code block), and is skipped when that module is not
  installed (the same holds for ```bash blocks).
* Every command of a ```bash block of every document names something that exists: a
  ``make`` target of the Makefile, a script / module of the repository (or a
  ``tabletop`` subcommand, :mod:`training.tabletop`) whose ``--help`` succeeds and lists
  every ``--flag`` the line mentions (its comment included), or an installed program.
  The help is run in-process, so the check costs no interpreter start.
* No document points outside the repository (the rule texts and rulings it was built
  from are not part of what a user clones), and every relative link resolves.
* The site's navigation lists every page of ``docs/`` but the generated results pages
  (``docs/reports/``, reached from their index, which lists them by rule), and every page
  it lists exists. ``make docs`` builds the site with warnings as errors, which checks
  the links between pages, their anchors and the API reference once more.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import runpy
import shlex
import shutil
import sys
import warnings
from pathlib import Path

import pytest
import yaml

from envs.registry import ENVS, LEGACY_ENVS
from training import tabletop

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CHANGELOG = ROOT / "CHANGELOG.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
REGISTERED = (*ENVS.values(), *LEGACY_ENVS)  #: every env module a user can make

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>\w*)(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
REQUIRES = re.compile(r"\brequires=(?P<module>[\w.]+)")


class Block(str):
    """A fenced block's dedented body; ``requires`` names the module it needs, if any."""

    requires: str | None = None


def code_blocks(text: str, lang: str) -> list[Block]:
    """The bodies of the fenced blocks of ``text`` in language ``lang``, dedented."""
    blocks = []
    for match in FENCE.finditer(text):
        if match["lang"] == lang:
            indent = len(match["indent"])
            block = Block("".join(line[indent:] for line in match["body"].splitlines(keepends=True)))
            required = REQUIRES.search(match["info"])
            block.requires = required["module"] if required else None
            blocks.append(block)
    return blocks


def skip_unless_installed(block: Block) -> None:
    if block.requires and importlib.util.find_spec(block.requires) is None:
        pytest.skip(f"the block needs {block.requires}, which is not installed")


def documents() -> list[tuple[str, str]]:
    """(name, text) of every document a user reads: README, changelog, env cards, docs/."""
    docs = [("README.md", README.read_text()), ("CHANGELOG.md", CHANGELOG.read_text())]
    for entry in REGISTERED:
        docs.append((f"{entry.module} (env card)", entry.load_module().__doc__ or ""))
    docs += [(str(path.relative_to(ROOT)), path.read_text()) for path in DOCS]
    return docs


PYTHON_SNIPPETS = [
    pytest.param(source, id=f"{name}#{k + 1}")
    for name, text in documents()
    for k, source in enumerate(code_blocks(text, "python"))
]


def test_every_env_card_has_a_python_snippet():
    for entry in REGISTERED:
        assert code_blocks(entry.load_module().__doc__ or "", "python"), f"{entry.module}: the env card shows no usage"


@pytest.mark.parametrize("source", PYTHON_SNIPPETS)
def test_python_snippet_runs_as_printed(source, monkeypatch):
    skip_unless_installed(source)
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a snippet's job is to run; library warnings are not its failures
        exec(compile(source, "<snippet>", "exec", dont_inherit=True), {"__name__": "__snippet__"})


# -- shell blocks ----------------------------------------------------------------------
def shell_commands() -> list[pytest.param]:
    commands = []
    for name, text in documents():
        for block in code_blocks(text, "bash"):
            lines = [line.strip() for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            commands += [pytest.param(line, block, id=f"{name}: {line.partition('#')[0].strip()}") for line in lines]
    return commands


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w.-]+)\s*:(?!=)", (ROOT / "Makefile").read_text(), re.M))


def run_help(argv0: str, module: str | None, arguments: list[str] = ()) -> str:
    """``--help`` of a repository script (path) or module, run in this process after the
    command's own ``arguments``: ``train.py``'s options are those of the pipeline its
    ``--config`` or ``--env`` names."""
    out = io.StringIO()
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [argv0, *arguments, "--help"]
    try:
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info, warnings.catch_warnings():
            # runpy warns that the module is already imported (by other tests): harmless here.
            warnings.filterwarnings("ignore", message=".*found in sys.modules", category=RuntimeWarning)
            if module:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(str(ROOT / argv0), run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    assert exit_info.value.code in (0, None), f"{argv0} --help exited with {exit_info.value.code}"
    return out.getvalue()


def tabletop_help(command: str) -> str:
    """``tabletop --help``, or ``tabletop <command> --help``, run in this process."""
    out = io.StringIO()
    if command.startswith("-"):
        with contextlib.redirect_stdout(out):
            assert tabletop.main(["--help"]) == 0
        return out.getvalue()
    assert command in tabletop.COMMANDS, f"tabletop has no command {command!r}: {sorted(tabletop.COMMANDS)}"
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        tabletop.main([command, "--help"])
    assert exit_info.value.code in (0, None), f"tabletop {command} --help exited with {exit_info.value.code}"
    return out.getvalue()


@pytest.mark.parametrize("command, block", shell_commands())
def test_shell_command_names_what_exists(command, block, monkeypatch):
    skip_unless_installed(block)
    monkeypatch.chdir(ROOT)
    code, _, comment = command.partition("#")
    words = shlex.split(code)
    flags = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", command))
    if words[0] == "make":
        targets = [w for w in words[1:] if "=" not in w]
        assert set(targets) <= make_targets(), (
            f"{command!r}: the Makefile has no target {set(targets) - make_targets()}"
        )
        return
    if words[0] == "tabletop":  # the installed command: its table in training/tabletop.py
        help_text = tabletop_help(words[1])
    elif words[0] != "python":
        # On the PATH, or a console script of this interpreter's environment (make test runs
        # .venv/bin/python without activating the venv).
        beside_python = (Path(sys.executable).parent / words[0]).is_file()
        assert shutil.which(words[0]) or beside_python, f"{command!r}: {words[0]} is not installed"
        return
    elif words[1] == "-m":
        module = words[2]
        if not (ROOT / module.replace(".", "/")).with_suffix(".py").exists():
            pytest.importorskip(module)  # a tool such as pytest: installed is all the README promises
            return
        help_text = run_help(module, module)
    else:
        assert (ROOT / words[1]).is_file(), f"{command!r}: no file {words[1]}"
        help_text = run_help(words[1], None, words[2:])
    missing = sorted(flag for flag in flags if flag not in help_text)
    assert not missing, f"{command!r} mentions {missing}, which its --help does not list"


# -- standing alone ----------------------------------------------------------------------
#: Paths of the spec the project was built from, outside the repository (bracketed so
#: that this line does not match itself in a ``git grep``).
OUTSIDE = re.compile(r"RULES\.md|share[d]/|seed[s]/")


@pytest.mark.parametrize("name, text", documents(), ids=[name for name, _ in documents()])
def test_no_pointer_outside_the_repository(name, text):
    hits = [line.strip() for line in text.splitlines() if OUTSIDE.search(line)]
    assert not hits, f"{name} points outside the repository: {hits}"


@pytest.mark.parametrize("path", [README, CHANGELOG, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    for target in re.findall(r"\]\((?!https?://|mailto:|#)([^)#\s]+)", path.read_text()):
        resolved = (path.parent / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{path.relative_to(ROOT)} links outside the repository: {target}"
        assert resolved.exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_rules_index_lists_every_rules_page():
    index = (ROOT / "docs" / "rules" / "README.md").read_text()
    for page in sorted((ROOT / "docs" / "rules").glob("*.md")):
        if page.name != "README.md":
            assert f"({page.name})" in index, f"docs/rules/README.md does not list {page.name}"


@pytest.mark.parametrize("name", list(ENVS))
def test_every_registered_game_has_its_rules_page(name):
    page = ROOT / "docs" / "rules" / f"{name}.md"
    assert page.is_file(), f"{name}: no rules page {page.relative_to(ROOT)}"
    card = ENVS[name].load_module().__doc__ or ""
    assert f"docs/rules/{name}.md" in card, f"{ENVS[name].module}: the env card does not point to its rules page"


# -- the site ----------------------------------------------------------------------------
def nav_pages(entries) -> list[str]:
    """Every page path of ``mkdocs.yml``'s ``nav`` (a list of pages, titled pages and sections)."""
    pages = []
    for entry in entries:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_the_site_lists_every_page_and_every_listed_page_exists():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    docs_dir = ROOT / config["docs_dir"]
    listed = nav_pages(config["nav"])
    missing = [page for page in listed if not (docs_dir / page).is_file()]
    assert not missing, f"mkdocs.yml lists pages that do not exist: {missing}"
    unlisted = [
        str(path.relative_to(docs_dir))
        for path in sorted(docs_dir.rglob("*.md"))
        if str(path.relative_to(docs_dir)) not in listed and path.parent != docs_dir / "reports"
    ]
    assert not unlisted, f"pages of {config['docs_dir']}/ that mkdocs.yml's nav does not list: {unlisted}"


def test_the_results_pages_are_listed_on_their_index():
    index = (ROOT / "docs" / "reports" / "index.md").read_text()
    for page in sorted((ROOT / "docs" / "reports").glob("*.md")):
        if page.name != "index.md":
            assert f"]({page.name})" in index, f"docs/reports/index.md does not list {page.name}"


SNIPPET = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::(?P<section>\w+))?"$', re.M)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_included_snippet_exists(path):
    """A page's ``--8<-- "file:section"`` (an env page showing its generated headline) names a file
    and section that exist."""
    for match in SNIPPET.finditer(path.read_text()):
        included = ROOT / match["path"]
        assert included.is_file(), f"{path.relative_to(ROOT)} includes missing {match['path']}"
        if match["section"]:
            assert f"--8<-- [start:{match['section']}]" in included.read_text(), (
                f"{path.relative_to(ROOT)} includes section {match['section']!r}, which {match['path']} does not hold"
            )


def test_no_table_row_continues_the_row_before():
    """A Markdown table has no continuation rows: a row with an empty first cell renders as a
    row of its own, a description cut in pieces. What needs more room goes under the table."""
    continued = [
        f"{name}: {line.strip()}"
        for name, text in documents()
        for line in text.splitlines()
        if re.match(r"\s*\|\s+\|", line)
    ]
    assert not continued, continued


def test_the_docs_build_fails_on_a_snippet_left_unexpanded():
    """``--8<-- "file:section"`` with text after it on its line was printed on the Invers page as it is."""
    import importlib.util  # noqa: PLC0415 (the hook is a file of docs/, not a package)

    from mkdocs.exceptions import PluginError  # noqa: PLC0415 (mkdocs: the dev extra, as the build)

    spec = importlib.util.spec_from_file_location("unexpanded_snippets", ROOT / "docs/hooks/unexpanded_snippets.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)

    class Page:
        class file:  # noqa: N801 (mkdocs' page.file)
            src_path = "envs/invers.md"

    kept = "<!-- --8&lt;-- [start:headline] --><p>The network alone</p><!-- --8&lt;-- [end:headline] -->"
    assert hook.on_page_content(kept, page=Page) == kept
    with pytest.raises(PluginError, match='envs/invers.md: a snippet was not expanded .*: --8<-- "docs/reports/x.md'):
        hook.on_page_content('<p>--8&lt;-- "docs/reports/x.md:headline" The default run</p>', page=Page)
