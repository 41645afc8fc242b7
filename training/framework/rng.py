"""The process-wide random generators a learner may draw from, captured and restored with each checkpoint.

Python's ``random``, NumPy's legacy global generator and torch's CPU generator are
global: libraries (SB3's sampling, torch's dropout and initialisation, a shuffle in a
data loader) draw from them without saying so. The framework saves their states with
every checkpoint and puts them back on ``--resume``, so a pipeline that keeps its own
generators in its ``state_dict`` resumes on the same random streams as a run that never
stopped.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch


def capture() -> dict[str, Any]:
    """The states of the global generators now."""
    return {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}


def restore(states: dict[str, Any]) -> None:
    """Put the states :func:`capture` took back in place."""
    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])
