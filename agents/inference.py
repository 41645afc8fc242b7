"""How agents run their networks: every forward pass on one thread, whatever the caller set.

An agent asks a small MLP about one position (or a search frontier of a few dozen) per
move. Torch's intra-op threads cost far more than they save on such tiny matrices, and
on a busy machine a two-thread pool can wait milliseconds for its second thread, many
times the product itself (the measurement is in the docs' experiment log, *Speed*).
So a user's own loop (which keeps torch's default
of one thread per core) gets the same time per move as the project's harness, which
sets one thread: :func:`one_thread` switches to one thread for the call and back
(a fraction of a microsecond), and leaves the caller's setting as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block's torch operations on one intra-op thread, then restore the caller's setting."""
    previous = torch.get_num_threads()
    if previous != 1:
        torch.set_num_threads(1)
    try:
        with torch.no_grad():
            yield
    finally:
        if previous != 1:
            torch.set_num_threads(previous)
