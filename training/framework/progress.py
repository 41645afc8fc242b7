"""Progress of a long step that is not learning (a warm start's teacher games, its labelling, its cloning).

A :class:`Progress` prints a line about every tenth of the way ("teacher episodes
150/1500, 12 s, about 108 s left") and, at each step, honours a stop request at once
with :class:`StoppedDuringPreparation`: a preparation stopped half-way is not worth
keeping, so the run saves its checkpoint at 0 units and a resume prepares again.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class StoppedDuringPreparation(Exception):
    """A stop request (SIGINT / SIGTERM) arrived during a learner's preparation (a warm start)."""

    def __init__(self, during: str):
        super().__init__(during)
        self.during = during


class Progress:
    """``total`` steps of ``what``; ``advance(n)`` after each; lines through ``say`` (None: silent)."""

    def __init__(
        self,
        what: str,
        total: int,
        say: Callable[[str], None] | None = None,
        stop_requested: Callable[[], bool] | None = None,
        lines: int = 10,
    ):
        self.what, self.total, self.say, self.stop_requested = what, max(int(total), 1), say, stop_requested
        self.done, self._started = 0, time.perf_counter()
        self._step = max(1, self.total // lines)
        self._next = self._step

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self.stop_requested is not None and self.stop_requested():
            raise StoppedDuringPreparation(self.what)
        if self.say is not None and (self.done >= self._next or self.done >= self.total):
            self._next = (self.done // self._step + 1) * self._step
            elapsed = time.perf_counter() - self._started
            left = elapsed / self.done * max(self.total - self.done, 0)
            self.say(f"{self.what} {min(self.done, self.total)}/{self.total}, {elapsed:.0f} s, about {left:.0f} s left")

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._started
