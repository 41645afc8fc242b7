"""The committed reports under ``results/`` turned into the docs' results pages and the README's tables.

:mod:`~training.reports.reading` parses a report, :mod:`~training.reports.headlines` picks
its shipped agent's result against the strongest bot, :mod:`~training.reports.pages`
writes the pages and the README blocks; ``training/results_pages.py`` is the command.
"""
