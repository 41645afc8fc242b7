"""The action space both adapters hand out: ``Discrete(n)`` that samples legal moves."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` draws uniformly from the env's legal actions.

    With an explicit ``mask`` or ``probability`` it is Gymnasium's ``Discrete.sample``.
    Without, it asks the env for the current legal mask, so the idiomatic random loops
    ``env.step(env.action_space.sample())`` (Gymnasium) and
    ``env.step(env.action_space(agent).sample())`` (PettingZoo) play legal moves, and the
    libraries' own checkers exercise real transitions. When nothing is legal (before
    ``reset``, once the game is over, not this agent's turn) it returns ``0``, as
    ``Discrete.sample`` does for an all-zero mask: there is no move to draw, and a random
    id would only look like one. No step takes an action then (a step before ``reset``
    or after the end raises; a done PettingZoo agent steps ``None``).

    The link to the env is not pickled, so a space saved with a model is a plain
    ``Discrete``; an env re-links its spaces when it is unpickled or deep-copied (see
    :meth:`link`), so copies of an env keep sampling legal moves.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None] | None = None):
        super().__init__(n)
        self._legal_mask = legal_mask

    def link(self, legal_mask: Callable[[], np.ndarray | None]) -> None:
        """Sample from the legal actions that ``legal_mask()`` gives from now on."""
        self._legal_mask = legal_mask

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._legal_mask is not None:
            mask = self._legal_mask()
            if mask is None:  # nothing is legal now: Gymnasium's answer to an all-zero mask
                mask = np.zeros(self.n, np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state
