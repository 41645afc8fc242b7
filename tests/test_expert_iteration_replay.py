"""Expert iteration's replay buffer: the latest positions, numbered oldest first, as a deque of the
same length holds them, whatever the sizes of the batches that arrive."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from training.pipelines.expert_iteration.replay import ReplayBuffer


def rows(start: int, count: int) -> tuple[np.ndarray, ...]:
    numbers = np.arange(start, start + count)
    return (
        np.stack([numbers, -numbers], axis=1).astype(np.float32),
        (numbers[:, None] % 2 == 0) & np.ones((1, 3), bool),
        np.stack([numbers] * 3, axis=1).astype(np.float32),
        numbers.astype(np.float64) / 3,
    )


@pytest.mark.parametrize("capacity", [1, 7, 10, 64])
def test_the_buffer_holds_and_samples_what_a_deque_of_its_length_does(capacity):
    buffer, reference = ReplayBuffer(capacity), deque(maxlen=capacity)
    start, draw = 0, np.random.default_rng(0)
    for count in [3, 0, 5, 1, 12, 2, 9, 30, 4]:
        columns = rows(start, count)
        buffer.add(*columns)
        reference.extend(zip(*columns, strict=True))
        start += count
        assert len(buffer) == len(reference)
        expected = [np.stack(column) for column in zip(*reference, strict=True)]
        for got, want in zip(buffer.ordered(), expected, strict=True):
            assert np.array_equal(got, want.astype(got.dtype))
        index = draw.integers(len(buffer), size=16)
        for got, want in zip(buffer.sample(index), expected, strict=True):
            assert np.array_equal(got.numpy(), want[index].astype(got.numpy().dtype))


def test_a_cleared_buffer_starts_afresh():
    buffer = ReplayBuffer(4)
    buffer.add(*rows(0, 6))
    buffer.clear()
    assert len(buffer) == 0 and buffer.ordered() == []
    buffer.add(*rows(10, 2))
    assert buffer.ordered()[3].tolist() == pytest.approx([10 / 3, 11 / 3])
