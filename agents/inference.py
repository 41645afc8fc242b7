"""How agents run their networks: on one thread, and row by row the same whatever the batch.

**One thread.** An agent asks a small MLP about one position (or a search frontier of a
few dozen) per move. Torch's intra-op threads cost far more than they save on such tiny
matrices, and on a busy machine a two-thread pool can wait milliseconds for its second
thread, many times the product itself (the measurement is in the docs' experiment log,
*Speed*). So a user's own loop (which keeps torch's default of one thread per core) gets
the same time per move as the project's harness, which sets one thread: :func:`one_thread`
switches to one thread for the call and back (a fraction of a microsecond), and leaves the
caller's setting as it was.

**Row-independent batches.** Torch's CPU matrix products take other kernels for other
numbers of rows, and those kernels add up in other orders: a position's logits computed
alone differ in their last bits from the same position's in a batch of 500, so a near-tie
between two moves could go one way in a game played alone and the other in the same game
played as a row of a batch. :func:`row_blocks` pads every batch with zero rows to a multiple
of :data:`ROW_BLOCK`: then every row goes through the same kernel, and its output is the
same bit for bit alone, in a batch of 7 or of 4096 (``tests/test_inference.py`` checks it
for every shipped network). A move computed alone pays for 16 rows (about twice the time of
one on the shipped networks); a batch pays at most 15 rows more.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

#: Batches are padded to a multiple of this many rows (see the module docstring): the
#: fewest for which every shipped network's rows came out the same in any batch.
ROW_BLOCK = 16


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


def row_blocks(rows: np.ndarray) -> torch.Tensor:
    """``rows`` (``(B, features)``) as a float32 tensor padded with zero rows to a multiple of
    :data:`ROW_BLOCK`: a forward pass over it gives each of the first ``B`` rows the output it
    gets in any other batch (slice the result back to ``[:B]``)."""
    rows = np.asarray(rows, np.float32)
    padding = -len(rows) % ROW_BLOCK
    if padding:
        rows = np.concatenate([rows, np.zeros((padding, *rows.shape[1:]), np.float32)])
    return torch.from_numpy(rows)
