"""mkdocs hook: a page whose text still holds a snippet line (``--8<-- "file:section"``) fails the build.

pymdownx.snippets expands a snippet only on a line of its own; one with text after it on the
same line is left as it is and printed on the page, and mkdocs' strict mode does not notice.
Snippet section markers inside HTML comments (``<!-- --8<-- [start:headline] -->``) are not text.
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
SNIPPET = "--8&lt;--"  # as the Markdown's "--8<--" reads once rendered to HTML


def on_page_content(html: str, page, **kwargs) -> str:
    text = COMMENT.sub("", html)
    if SNIPPET in text or "--8<--" in text:
        line = next(line for line in text.splitlines() if SNIPPET in line or "--8<--" in line)
        raise PluginError(
            f"{page.file.src_path}: a snippet was not expanded (it must stand on a line of its own): "
            f"{re.sub('<[^>]+>', '', line).strip().replace('&lt;', '<')}"
        )
    return html
