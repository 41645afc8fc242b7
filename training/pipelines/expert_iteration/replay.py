"""Expert iteration's replay buffer: the latest positions as four preallocated columns.

A ring of ``capacity`` rows per column (observation, legal mask, policy target, value target),
written in place as units arrive and sampled by index, oldest first, as a ``deque`` of the same
length would be. It replaces a deque of tuples stacked into arrays before every learning step,
which cost the driver time in proportion to the whole buffer each generation (the serial part a
cluster cannot share), where this costs in proportion to what is added and sampled.
"""

from __future__ import annotations

import numpy as np
import torch

#: each column's dtype as the learner reads it (the value target rounded to float32 once, on arrival)
DTYPES = (np.float32, np.bool_, np.float32, np.float32)


class ReplayBuffer:
    """The latest ``capacity`` positions (rows) of four columns."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.columns: list[np.ndarray] | None = None  #: allocated on the first rows, with their widths
        self.size = 0
        self.next = 0  #: the row the next position goes to (the oldest one, once full)

    def __len__(self) -> int:
        return self.size

    def add(self, *columns: np.ndarray) -> None:
        """Append rows (four stacked columns); past ``capacity`` the oldest rows give way."""
        rows = len(columns[0])
        if rows == 0:
            return
        if self.columns is None:
            self.columns = [np.empty((self.capacity, *c.shape[1:]), dtype) for c, dtype in zip(columns, DTYPES)]
        keep = min(rows, self.capacity)
        slots = (self.next + np.arange(keep)) % self.capacity
        for stored, column in zip(self.columns, columns, strict=True):
            stored[slots] = column[rows - keep :]
        self.next = (self.next + keep) % self.capacity
        self.size = min(self.size + keep, self.capacity)

    def clear(self) -> None:
        self.size = self.next = 0

    def rows(self, index: np.ndarray) -> np.ndarray:
        """The storage rows of the positions numbered ``index``, 0 the oldest."""
        return index if self.size < self.capacity else (self.next + index) % self.capacity

    def sample(self, index: np.ndarray) -> tuple[torch.Tensor, ...]:
        """The positions numbered ``index`` (0 the oldest) as tensors: observations, masks, policies, values."""
        rows = self.rows(index)
        return tuple(torch.from_numpy(column[rows]) for column in self.columns)

    def ordered(self) -> list[np.ndarray]:
        """Every column, oldest row first (a checkpoint's copy)."""
        if self.size == 0:
            return []
        rows = self.rows(np.arange(self.size))
        return [column[rows] for column in self.columns]
