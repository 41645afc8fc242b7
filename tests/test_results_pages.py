"""The docs' results pages and the README's results table are what the reports under results/ give.

``training/results_pages.py`` turns every report under ``results/`` into a page of
``docs/reports/`` and each shipped agent's report into a headline of the README; these
tests hold the committed pages and table to the committed reports (so neither can be
typed by hand or go stale), and check the rules that pick a headline on small reports
written here (in a git repository of their own: only the reports git tracks are read).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from training import results_pages
from training.evaluation.machine import TIMING_FILE, MachineRecord, measurement_page
from training.reports.headlines import headline
from training.reports.pages import (
    CEILINGS_END,
    CEILINGS_START,
    DEFAULT_RUNS_END,
    DEFAULT_RUNS_START,
    END,
    START,
    pages,
    report_page,
)
from training.reports.reading import committed_reports, read_report

ROOT = Path(__file__).resolve().parent.parent


def test_the_committed_pages_and_readme_table_are_what_the_reports_give(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert results_pages.main(["--check"]) == 0, capsys.readouterr().err


#: The README's evaluate.py and ladder.py commands, at a few games each: their reports land
#: in results/<env>/ beside the committed ones, as a new user's do.
README_COMMANDS = (
    ["training/evaluate.py", "--env", "inverted_dice", "--agents", "heuristic", "random", "--games", "2"],
    ["training/evaluate.py", "--env", "invers", "--agents", "search:depth=1", "random", "--games", "2"],
    ["training/ladder.py", "--env", "invers", "--agents", "search:depth=2", "ppo", "ppo+search", "--games", "2"],
)


def test_the_readmes_commands_in_a_clean_clone_leave_the_page_checks_green(tmp_path):
    """A fresh clone, the README's evaluate.py and ladder.py commands run in it, then this
    file's checks of the committed pages there: the user's reports are not read, and
    nothing git tracks has changed."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {**os.environ, "PYTHONPATH": str(clone)}  # the clone's code, not that of an installed copy
    for command in README_COMMANDS:
        done = subprocess.run(
            [sys.executable, *command], cwd=clone, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr
    assert len(list((clone / "results" / "invers").glob("ladder-*/ladder.md"))) == 1  # the user's, beside ours
    assert len(list((clone / "results" / "inverted_dice").glob("*-*/report.md"))) == 1
    checks = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_results_pages.py", "-k"]
        + ["committed_pages or every_report"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checks.returncode == 0 and "2 passed" in checks.stdout, checks.stdout + checks.stderr
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert changed.stdout == ""  # nothing tracked was touched, and the reports are ignored


def test_every_report_has_a_page_and_the_readme_a_headline_per_shipped_agent_and_table():
    made, block = pages(ROOT / "results")
    # every report, but the timing files beside them (the machine's figures: git ignores them, no page shows them)
    reports = [read_report(p, ROOT / "results") for p in committed_reports(ROOT / "results") if p.name != TIMING_FILE]
    assert len(made) == len(reports) + 1  # and the index
    headlines = [h for r in reports if (h := headline(r)) is not None]
    assert block.count("\n| ") == 1 + len({(h.report.env, h.report.players, h.agent) for h in headlines})
    for item in headlines:
        assert f"**Headline:** `{item.agent}` against `{item.bot}`" in made[item.report.page_name]
    # the results index heads with the README's very rows (the docs gave a 20-game ladder row the README left out)
    headlines_part = made["index.md"].split("## Every report")[0]
    index_rows = [
        line.replace("](", "](docs/reports/") for line in headlines_part.splitlines() if line.startswith("| ")
    ]
    assert index_rows == [line for line in block.splitlines() if line.startswith("| ")]


def test_a_report_of_several_tables_gives_no_player_count():
    benchmark = read_report(ROOT / "results" / "leaderboard" / "ppo" / "report.md", ROOT / "results")
    assert "num_players=1" in benchmark.text and "num_players=4" in benchmark.text
    assert benchmark.players is None  # it gave 1, its first task's
    four = read_report(ROOT / "results" / "roll_five" / "four_players" / "report.md", ROOT / "results")
    assert four.players == 4


#: Small reports, one of each kind: a solitaire evaluation, a four-player evaluation, a ladder.
FIXTURES = Path(__file__).parent / "fixtures" / "results_pages"
SOLITAIRE = (FIXTURES / "solitaire.md").read_text()
PAIRINGS = (FIXTURES / "pairings.md").read_text()
LADDER = (FIXTURES / "ladder.md").read_text()
NOT_SHIPPED = SOLITAIRE.replace("Run: /somewhere/else/checkpoints/inverted_dice/shipped (--checkpoint); ", "")


def tracked(results: Path) -> Path:
    """``results`` with every file in it tracked by git, as the committed reports are (``git add -f``)."""
    subprocess.run(["git", "init", "-q", str(results.parent)], check=True)
    subprocess.run(["git", "-C", str(results.parent), "add", "-f", "--", results.name], check=True)
    return results


def results_tree(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    for name, text in {
        "inverted_dice/report.md": SOLITAIRE,
        "roll_five/four_players/report.md": PAIRINGS,
        "invers/ladder/ladder.md": LADDER,
        "keldice/report.md": NOT_SHIPPED.replace("inverted_dice", "keldice"),
        "leaderboard.md": "# Leaderboard\n\nAny other table a command writes here.\n",
        "invers/short/ladder.md": LADDER.replace("| 20 | 20 | 2 | 2 | 16 |", "| 4 | 4 | 0 | 0 | 4 |"),
        "invers/short/timing.md": "Time per move: the machine's, different on every run (no page of its own)\n",
    }.items():
        (results / name).parent.mkdir(parents=True, exist_ok=True)
        (results / name).write_text(text)
    return tracked(results)


def test_a_headline_is_the_shipped_agent_against_the_strongest_bot(tmp_path):
    made, block = pages(results_tree(tmp_path))
    assert sorted(made) == [
        "index.md",
        "invers-ladder.md",
        "invers-short.md",
        "inverted_dice.md",
        "keldice.md",
        "leaderboard.md",
        "roll_five-four_players.md",
    ]
    # the short match's headline heads its page; the index and README give the ladder's, of more games
    assert "score 1.000 in 4 games" in made["invers-short.md"] and "score 1.000 in 4 games" not in made["index.md"]
    rows = [line for line in block.splitlines() if line.startswith("| [")]
    # One player: the highest mean score among the bots (not the heuristic, which is weaker here).
    assert (
        "| [Inverted Dice, 1 player](docs/reports/inverted_dice.md): `ppo` against `optimal` | mean score 200.0 "
        "[190.0, 210.0] against 226.0 [220.0, 232.0] (optimal − agent, paired: +26.0 ± 2.0)" in rows[0]
    )
    # A ladder: its best-rated shipped spec against its best-rated bot, from the shipped agent's side.
    assert (
        "| [Invers, 2 players](docs/reports/invers-ladder.md): `ppo+search:depth=3` against `search:depth=4` "
        "| score 0.850 in 20 games (win / draw / loss 16 / 2 / 2)" in rows[1]
    )
    # Four players: search beats heuristic above an equal share (0.330 > 0.25), so it is the strongest bot.
    assert (
        "| [Roll Five, 4 players](docs/reports/roll_five-four_players.md): `ppo` against `3 × search` "
        "| score 0.200 [0.120, 0.280] in 100 games, an equal share 0.250" in rows[2]
    )
    assert len(rows) == 3, (
        "no headline for a report without a shipped agent (keldice), one per agent and table (the longer ladder)"
    )


def test_a_headline_gives_the_table_s_measured_level_where_the_report_has_it(tmp_path):
    measured = PAIRINGS.replace("| mean outcome |", "| mean outcome | opponent's own score, 95% CI |").replace(
        "|---|---|---|---|---|---|---|---|---|---|---|", "|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    measured = measured.replace("| -0.6 ± 0.1 |", "| -0.6 ± 0.1 | 0.262 [0.240, 0.285] |").replace(
        "| -0.4 ± 0.1 |", "| -0.4 ± 0.1 | 0.255 [0.233, 0.278] |"
    )
    measured = measured.replace("| -0.3 ± 0.1 |", "| -0.3 ± 0.1 | 0.255 [0.233, 0.278] |")
    (tmp_path / "results" / "roll_five").mkdir(parents=True)
    (tmp_path / "results" / "roll_five" / "report.md").write_text(measured)
    _, block = pages(tracked(tmp_path / "results"))
    assert (
        "score 0.200 [0.120, 0.280] in 100 games, search's own score at this table 0.262 [0.240, 0.285] (win" in block
    )


def test_a_users_own_reports_beside_the_committed_ones_are_left_out(tmp_path, capsys):
    """``evaluate.py`` and ``ladder.py`` write a user's reports into the git-ignored ``results/``:
    neither the pages nor the check reads them, so the check passes and writing changes nothing."""
    results = results_tree(tmp_path)
    made, block = pages(results)
    (results / "invers" / "20261206-024853").mkdir(parents=True)
    (results / "invers" / "20261206-024853" / "report.md").write_text(LADDER.replace("| 20 | 20 |", "| 9 | 9 |"))
    assert pages(results) == (made, block)
    readme = tmp_path / "README.md"
    readme.write_text(f"{START}\n{END}\n")
    args = ["--results", str(results), "--docs", str(tmp_path / "docs"), "--readme", str(readme)]
    assert results_pages.main(args) == 0 and results_pages.main([*args, "--check"]) == 0
    assert not (tmp_path / "docs" / "invers-20261206-024853.md").exists()


def test_reports_outside_a_git_checkout_are_one_line_and_exit_code_2(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    (tmp_path / "README.md").write_text(f"{START}\n{END}\n")
    args = [
        "--results",
        str(tmp_path / "results"),
        "--docs",
        str(tmp_path / "docs"),
        "--readme",
        str(tmp_path / "README.md"),
    ]
    code = results_pages.main(args)
    err = capsys.readouterr().err
    assert code == 2 and "is not in a git checkout" in err and len(err.splitlines()) == 1


def test_pages_show_the_report_without_paths_of_another_machine(tmp_path):
    made, _ = pages(results_tree(tmp_path))
    page = made["inverted_dice.md"]
    assert "/somewhere/else" not in page and "Run: checkpoints/inverted_dice/shipped" in page
    # titled in words: the report's own heading, its game named as a game, not repeated under it
    assert page.startswith("---\nhide: [toc]\n---\n\n# Inverted Dice evaluation\n")
    assert "inverted_dice evaluation" not in page
    assert "| `results/leaderboard.md` | [" in made["index.md"] and "](leaderboard.md) |" in made["index.md"]


def test_check_finds_a_stale_page_and_writing_makes_it_current(tmp_path, capsys):
    results = results_tree(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{START}\nold table\n{END}\nend\n")
    docs = tmp_path / "docs"
    args = ["--results", str(results), "--docs", str(docs), "--readme", str(readme)]
    assert results_pages.main([*args, "--check"]) == 1
    assert results_pages.main(args) == 0
    assert results_pages.main([*args, "--check"]) == 0
    assert readme.read_text().startswith("intro\n<!-- results:start -->\n| table: ") and readme.read_text().endswith(
        "<!-- results:end -->\nend\n"
    )
    (docs / "keldice.md").write_text("typed by hand\n")
    (docs / "gone.md").write_text("a page whose report is gone\n")
    assert results_pages.main([*args, "--check"]) == 1
    assert "keldice.md" in capsys.readouterr().err
    assert results_pages.main(args) == 0 and not (docs / "gone.md").exists()


@pytest.mark.parametrize(
    "readme, message",
    [("no markers\n", "must hold one <!-- results:start --> ... <!-- results:end --> block"), (None, "no README")],
)
def test_a_readme_without_its_block_is_one_line_and_exit_code_2(tmp_path, capsys, readme, message):
    path = tmp_path / "README.md"
    if readme is not None:
        path.write_text(readme)
    code = results_pages.main(
        ["--results", str(results_tree(tmp_path)), "--docs", str(tmp_path / "docs"), "--readme", str(path)]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and message in err and len(err.splitlines()) == 1


def test_a_report_whose_headline_cannot_be_read_names_its_file(tmp_path, capsys):
    results = results_tree(tmp_path)
    broken = SOLITAIRE.replace("| trained | 10 | 200.0 |", "| trained | 10 | n/a |").replace(
        "226.0 | [220.0", "n/a | [220.0"
    )
    (results / "inverted_dice" / "report.md").write_text(broken)
    (tmp_path / "README.md").write_text(f"{START}\n{END}\n")
    code = results_pages.main(
        ["--results", str(results), "--docs", str(tmp_path / "docs"), "--readme", str(tmp_path / "README.md")]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: results/inverted_dice/report.md: cannot read its headline")


def test_a_measurement_page_records_the_machine_its_load_and_the_date():
    page = measurement_page(
        "Env speed",
        "python benchmarks/env_speed.py --page x.md",
        MachineRecord(),
        ["env", "steps/s"],
        [["`a`", "1,000"]],
        "What it means.",
    )
    assert page.startswith("# Env speed\n\n<!-- Generated by `python benchmarks/env_speed.py --page x.md`")
    assert " cores; load average " in page and " at the start and " in page and " UTC; Python " in page
    assert "| env | steps/s |\n|---|---|\n| `a` | 1,000 |\n\nWhat it means.\n" in page


def test_env_speed_writes_its_table_as_a_page(tmp_path):
    page = tmp_path / "speed.md"
    command = [
        sys.executable,
        "benchmarks/env_speed.py",
        "--env",
        "invers",
        "--steps",
        "300",
        "--repeats",
        "1",
        "--no-reference",
        "--page",
        str(page),
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert text.startswith("# Env speed\n") and f"--page {page}" in text and "load average" in text
    assert "| `invers_v0` | " in text


def test_the_batched_speed_page_measures_pgx_beside_the_envs_in_the_same_run(tmp_path):
    """pgx is measured, not quoted: with the pgx extra installed (the test extra has it), the
    batched table gains pgx's connect_four row at the same batch sizes, every figure a number."""
    pytest.importorskip("pgx", reason="the pgx extra (part of the test extra) is not installed")
    page = tmp_path / "batched.md"
    command = [sys.executable, "benchmarks/env_speed.py", "--batched", "--env", "invers", "--num-envs", "1", "64"]
    command += ["--seconds", "0.05", "--repeats", "1", "--steps", "200", "--page", str(page)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    [row] = [line for line in page.read_text().splitlines() if line.startswith("| pgx `connect_four`")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == 6 and all(float(cell.replace(",", "")) > 0 for cell in cells[2:4]), row
    assert "not quoted" not in page.read_text() and "364,000" not in page.read_text()


DEFAULT_RUNS = """# Default training runs

How they were run.

| run | command | wall time (training) | within 30 min | result, 95% CI (games) | bar met | machine |
|---|---|---|---|---|---|---|
| invers | `python training/train.py --env invers` | 20.0 min | yes | share: **+0.6** [+0.55, +0.65] (400) | yes | x |

How each shipped agent's recipe differs.
"""


def test_a_report_s_reference_to_a_docs_page_becomes_a_link():
    report = read_report(ROOT / "results" / "leaderboard" / "ppo" / "report.md", ROOT / "results")
    assert "(see docs/benchmark.md)" in report.text
    page = report_page(report, None, "Benchmark of `ppo`")
    assert "(see [docs/benchmark.md](../benchmark.md))" in page
    assert (ROOT / "docs" / "benchmark.md").is_file()  # the link's target, from docs/reports/


CEILINGS = """# Ceilings of the shipped agents

How they were measured.

| game | players | agent | against | measure | result, 95% CI | bar | met | games |
|---|---|---|---|---|---|---|---|---|
| invers | 2 | `ppo` | `search:depth=3` | share | **0.6000** [0.55, 0.65] | above 0.5 | yes | 1,000 |
"""


@pytest.mark.parametrize(
    "folder, markers, text, made_by, row, intro",
    [
        (
            "default_runs",
            (DEFAULT_RUNS_START, DEFAULT_RUNS_END),
            DEFAULT_RUNS,
            "make default-runs",
            "| invers | `python training/train.py --env invers` | 20.0 min |",
            "How they were run",
        ),
        (
            "ceilings",
            (CEILINGS_START, CEILINGS_END),
            CEILINGS,
            "make results",
            "| invers | 2 | `ppo` | `search:depth=3` |",
            "How they were measured",
        ),
    ],
)
def test_the_readme_shows_a_reports_table_where_it_holds_its_markers(
    tmp_path, capsys, folder, markers, text, made_by, row, intro
):
    """The default runs' and the ceilings' tables, each between its own markers (and only the table)."""
    results = results_tree(tmp_path)
    readme = tmp_path / "README.md"
    start, end = markers
    readme.write_text(f"{START}\n{END}\n{start}\nold\n{end}\n")
    args = ["--results", str(results), "--docs", str(tmp_path / "docs"), "--readme", str(readme)]
    assert results_pages.main(args) == 2
    assert f"{folder}/report.md: make it with {made_by}" in capsys.readouterr().err
    (results / folder).mkdir()
    (results / folder / "report.md").write_text(text)
    tracked(results)
    assert results_pages.main(args) == 0
    written = readme.read_text()
    block = written[written.index(start) : written.index(end)]
    assert row in block and "old" not in block
    assert intro not in block and f"[docs/reports/{folder}.md]" in block
    assert (tmp_path / "docs" / f"{folder}.md").is_file()
