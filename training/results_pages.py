"""The docs' results pages and the README's headline results, made from the committed reports.

    python training/results_pages.py            # ./results -> ./docs/reports/ and the block of ./README.md
    python training/results_pages.py --check    # exit 1 if a page or the README block is not what the reports give

Every Markdown file git tracks under ``results/`` (at any depth: ``report.md`` of
``training/evaluate.py``, ``ladder.md`` of ``training/ladder.py``, or any other table a
command writes there) but a ``timing.md`` (the machine's, changing every run) becomes one
page of ``docs/reports/``, named after its folder (``results/roll_five/two_players/report.md``
-> ``docs/reports/roll_five-two_players.md``), and ``docs/reports/index.md`` lists them.
``make results`` runs this last, so the pages are the reports it has just written, never
a copy typed by hand. ``results/`` is git-ignored: the reports of a user's own
``evaluate.py`` and ``ladder.py`` runs land there untracked and are never read, so neither
the check nor this command mixes them into the pages or the README. A new committed
report is added with ``git add -f``.

A report whose subject is a **shipped** agent (a report of a ``checkpoints/<env>/shipped*``
run, or a ladder's ``ppo``, ``ppo+search`` or ``td`` without ``path=``) also gives one
**headline**: that agent against the strongest bot the report holds. The strongest bot is
decided by the report itself: the highest mean score (one player), the best average
score above an equal share over its pairings with the other bots (several players), the
highest rating (a ladder). Every headline heads its page and the results index; the
README, between ``<!-- results:start -->`` and ``<!-- results:end -->``, shows one per
shipped agent and table size (the one of most games, where a match and a ladder both
have it). Between ``<!-- default-runs:start -->`` and ``<!-- default-runs:end -->`` it
shows the table of ``results/default_runs/report.md`` (``make default-runs``): what each
env's default training run costs and reaches, beside the shipped agents.

Paths are shown from the ``checkpoints/`` folder on: a report made in another checkout
names its run by an absolute path, which means nothing to a reader."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from training.reports.pages import pages, readme_with_blocks, stale_files, write_pages
from training.reports.reading import ReportError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--results", type=Path, default=Path("results"), help="the reports, those git tracks (default ./results)"
    )
    parser.add_argument(
        "--docs", type=Path, default=Path("docs/reports"), help="where the pages go (default ./docs/reports)"
    )
    parser.add_argument(
        "--readme",
        type=Path,
        default=Path("README.md"),
        help="the README whose results block to fill (default ./README.md)",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a page or the README block differs"
    )
    args = parser.parse_args(argv)
    try:
        made, block = pages(args.results)
        readme = readme_with_blocks(args.readme, args.results, block)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        stale = stale_files(made, args.docs, args.readme, readme)
        if stale:
            print(
                f"not what the committed reports under {args.results} give (python training/results_pages.py "
                f"remakes them from those reports): {', '.join(stale)}",
                file=sys.stderr,
            )
        return 1 if stale else 0
    write_pages(made, args.docs)
    args.readme.write_text(readme)
    print(f"wrote {len(made)} pages in {args.docs} and the results block of {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
