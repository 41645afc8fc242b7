"""The project's one progress reporter: how far a long step that is not learning has come.

Every long step that is not a training loop reports through a :class:`Progress`: a warm
start's teacher games, labels and cloning, a generation's games, and the evaluations'
games (a benchmark's, an evaluation's, a ladder's). It prints a line about every tenth of
the way ("teacher episodes 150/1500, 12 s, about 108 s left") through ``say``, or, made
by :meth:`Progress.on_stderr` for a command's games, draws a bar where stderr is a
terminal and prints the lines on stderr elsewhere (a log keeps them). The time left is
the time so far per step times the steps left, with no smoothing towards the latest
steps: the evaluations mix the games of every agent from the start, so the average holds.

With ``stop_requested`` it honours a stop request at once, at each step, with
:class:`StoppedDuringPreparation`: a preparation stopped half-way is not worth keeping,
so the run saves its checkpoint at 0 units and a resume prepares again.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


class StoppedDuringPreparation(Exception):
    """A stop request (SIGINT / SIGTERM) arrived during a learner's preparation (a warm start)."""

    def __init__(self, during: str):
        super().__init__(during)
        self.during = during


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Progress:
    """``total`` steps of ``what``; ``advance(n)`` after each ``n``; lines through ``say`` (None: silent).

    ``bar`` draws a bar on stderr instead of the lines (tqdm's, counting ``unit``s); a
    Progress used as a context manager closes its bar at the end. ``clock`` gives the time
    in seconds (a test's fake clock).
    """

    def __init__(
        self,
        what: str,
        total: int,
        say: Callable[[str], None] | None = None,
        stop_requested: Callable[[], bool] | None = None,
        lines: int = 10,
        clock: Callable[[], float] = time.perf_counter,
        bar: bool = False,
        unit: str = "step",
    ):
        self.what, self.total, self.say, self.stop_requested = what, max(int(total), 1), say, stop_requested
        self.clock = clock
        self.done, self._started = 0, clock()
        self._step = max(1, self.total // lines)
        self._next = self._step
        self._bar = None
        if bar:
            from tqdm import tqdm  # noqa: PLC0415 (only a bar needs it)

            self._bar = tqdm(total=self.total, desc=what, unit=unit, file=sys.stderr, smoothing=0)

    @classmethod
    def on_stderr(
        cls, what: str, total: int, enabled: bool = True, clock: Callable[[], float] = time.perf_counter
    ) -> Progress:
        """A command's games on stderr: a bar where stderr is a terminal, else a line about every
        tenth of the way; ``enabled`` False: silent (``--no-progress``)."""
        bar = enabled and sys.stderr.isatty()
        return cls(what, total, _to_stderr if enabled and not bar else None, clock=clock, bar=bar, unit="game")

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self.stop_requested is not None and self.stop_requested():
            raise StoppedDuringPreparation(self.what)
        if self._bar is not None:
            self._bar.update(steps)
        elif self.say is not None and (self.done >= self._next or self.done >= self.total):
            self._next = (self.done // self._step + 1) * self._step
            elapsed = self.clock() - self._started
            left = elapsed / self.done * max(self.total - self.done, 0)
            self.say(f"{self.what} {min(self.done, self.total)}/{self.total}, {elapsed:.0f} s, about {left:.0f} s left")

    @property
    def seconds(self) -> float:
        return self.clock() - self._started

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
