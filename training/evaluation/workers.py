"""Jobs of games spread over worker processes, their results back in the jobs' order.

The benchmark deals each task's games out in jobs (:mod:`training.evaluation.benchmark`) and
the ladder each pairing's (:mod:`training.evaluation.ladder`): every game is seeded by its
number, so how the games are split and which process plays them changes no result, and
the results come back in the jobs' order, so the games stay in order too. The processes
are spawned, not forked (a forked copy of torch's and Numba's threads can deadlock), and
every process that plays games, this one included, plays on one torch thread.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

#: ``imap(play, jobs)``: ``play(job)`` of every job, in the jobs' order.
Imap = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]


def one_torch_thread() -> None:
    """This process's agents with networks play on one torch thread: their calls are too small
    (one observation, or one batch of a table) for threads to do more than add overhead."""
    import torch  # noqa: PLC0415 (torch takes seconds to import; --help and bad input need not wait)

    torch.set_num_threads(1)


def _start(initializer: Callable[..., None], initargs: tuple) -> None:
    one_torch_thread()
    initializer(*initargs)


@contextmanager
def worker_pool(workers: int, initializer: Callable[..., None], initargs: tuple = ()) -> Iterator[Imap]:
    """An ``imap`` over ``workers`` spawned processes, each set up with ``initializer(*initargs)``
    on one torch thread; with one worker, the plain ``map`` in this process, which the caller
    has set up itself (it checks the agents there before any game)."""
    if workers == 1:
        yield map
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_start, initargs=(initializer, initargs)) as pool:
        yield pool.imap
