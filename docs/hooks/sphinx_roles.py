"""mkdocs hook: the docstrings' Sphinx roles (``:class:`x```, ``:func:``, ...) read as plain code on the site.

The docstrings are written for Python's ``help()`` and for Sphinx-style readers alike, so
they name other objects with roles. mkdocstrings renders the Markdown that remains, where
a role shows as a stray ``:class:`` before the code: this drops the role and keeps the code.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):(?=<code>)")


def on_page_content(html: str, **kwargs) -> str:
    return ROLE.sub("", html)
