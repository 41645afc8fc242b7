"""The batched envs' random streams are numpy's, draw for draw (envs/batched/streams.py)."""

import numpy as np
import pytest

from envs.batched import streams as S

SEEDS = [0, 12345, 2**40 + 7]
RANGES = [(1, 7), (0, 1), (3, 4), (0, 5), (0, 37), (0, 2**32), (0, 2**33), (0, 2**62 + 3), (-4, 9)]


@pytest.fixture
def seeded():
    streams = S.new_streams(len(SEEDS))
    S.seed_rows(streams, np.arange(len(SEEDS)), SEEDS)
    return streams, [np.random.default_rng(seed) for seed in SEEDS]


def test_bounded_integers_match_generator_integers(seeded):
    streams, generators = seeded
    for row, generator in enumerate(generators):
        for low, high in RANGES:
            expected = [int(generator.integers(low, high)) for _ in range(40)]
            assert [S.bounded(streams, row, low, high) for _ in range(40)] == expected, (low, high)
        # a size= draw is the same draws element by element, in C order
        block = generator.integers(1, 7, size=(3, 5))
        assert [S.bounded(streams, row, 1, 7) for _ in range(15)] == block.ravel().tolist()
        assert S.seed_draw(streams, row) == generator.integers(2**63)
        assert S.to_generator(streams, row).bit_generator.state == generator.bit_generator.state


def test_shuffle_and_choice_match_generator(seeded):
    streams, generators = seeded
    chooser = np.random.default_rng(99)
    for row, generator in enumerate(generators):
        for size in (1, 2, 40, 300):
            values = np.arange(size)
            expected = generator.permutation(values)
            S.shuffle(streams, row, values)
            assert values.tolist() == expected.tolist()
        for legal in (1, 2, 3, 17, 30):
            mask = np.zeros(30, np.int8)
            mask[chooser.choice(30, legal, replace=False)] = 1
            assert S.choose_legal(streams, row, mask) == generator.choice(np.flatnonzero(mask))
        assert S.choose_legal(streams, row, np.zeros(5, np.int8)) == -1


@pytest.mark.parametrize("seed", [0, 1, 7, 2**32 - 1, 2**32, 2**62 + 12345, 2**63 - 1])
def test_seed_row_is_default_rng(seed):
    streams = S.new_streams(2)
    S.seed_row(streams, 1, seed)
    generator = np.random.default_rng(seed)
    assert S.to_generator(streams, 1).bit_generator.state == generator.bit_generator.state
    assert [S.bounded(streams, 1, 0, 1000) for _ in range(10)] == generator.integers(0, 1000, size=10).tolist()


def test_load_generator_refuses_other_bit_generators():
    with pytest.raises(TypeError, match="PCG64"):
        S.load_generator(S.new_streams(1), 0, np.random.MT19937(0))
