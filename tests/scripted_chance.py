"""A stand-in for ``numpy.random.Generator`` that deals chosen values, to build exact positions.

Rules cores draw their chance with ``rng.integers(low, high, size=...)``; handing them a
:class:`ScriptedRng` instead makes the dice (or cards) whatever a test needs, through
the public constructor and without test-only code in the cores.
"""

from __future__ import annotations

import numpy as np


class ScriptedRng:
    """Answers each ``integers(low, high, size)`` call with the next scripted array."""

    def __init__(self, *draws):
        self._draws = [np.asarray(d) for d in draws]

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if not self._draws:
            raise AssertionError("ScriptedRng: no scripted draw left")
        draw = self._draws.pop(0)
        if size is not None and draw.shape != tuple(np.atleast_1d(size)):
            draw = np.broadcast_to(draw, size)  # a scripted scalar or row fills the whole draw
        top = high if high is not None else low
        bottom = low if high is not None else 0
        if np.any(draw < bottom) or np.any(draw >= top + bool(endpoint)):
            raise AssertionError(f"ScriptedRng: {draw} outside [{bottom}, {top})")
        return np.array(draw, dtype=dtype)
