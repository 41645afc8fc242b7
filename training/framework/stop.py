"""A clean stop on Ctrl-C (SIGINT) or SIGTERM: the learner finishes its update, the run saves.

A training command enters :func:`stop_requested_by_signals` before it builds anything, so
a signal counts from the command's first moment; the run framework's loop looks at
:attr:`StopRequest.signum` between updates (a warm start between its own steps), then
commits a checkpoint (at 0 units when the first update never came) and the command exits
with the shell's code for the signal (130, 143), printing the command that resumes.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Set by the first SIGINT / SIGTERM; training stops after the current update and saves."""

    def __init__(self):
        self.signum: int | None = None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class TrainingInterrupted(Exception):
    """Training stopped by SIGINT / SIGTERM after saving a checkpoint."""

    def __init__(self, signum: int, done: int, complete: bool):
        super().__init__(signum, done, complete)
        self.signum, self.done, self.complete = signum, done, complete


@contextmanager
def stop_requested_by_signals() -> Iterator[StopRequest]:
    """While active, SIGINT and SIGTERM ask training to stop cleanly instead of killing it.

    A second signal gives up on saving (``KeyboardInterrupt``); the last checkpoint on
    disk stays whole either way.
    """
    request = StopRequest()

    def handler(signum, frame):
        if request.signum is not None:
            raise KeyboardInterrupt
        request.signum = signum
        print(
            f"\n{signal.Signals(signum).name}: stopping after the current update to save a checkpoint "
            "(send it again to stop at once)",
            file=sys.stderr,
        )

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield request
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
