"""A clean stop on Ctrl-C (SIGINT) or SIGTERM: the learner finishes its update, the run saves.

Every pipeline runs its learner inside :func:`stop_requested_by_signals`; the learner
looks at :attr:`StopRequest.signum` between updates and returns when it is set, and
the run framework then commits a checkpoint and exits with the shell's code for the
signal (130, 143), printing the command that resumes.
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

    def __init__(self, signum: int, done: int, complete: bool, saved: bool = True, during: str = ""):
        super().__init__(signum, done, complete)
        self.signum, self.done, self.complete = signum, done, complete
        self.saved, self.during = saved, during  #: whether a checkpoint holds the run; what it stopped (when not)


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
