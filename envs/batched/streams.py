"""One numpy ``PCG64`` random stream per game, drawn from inside compiled code, bit for bit.

The batched envs must play the very games the single envs play from the same seeds
(``tests/test_batched.py`` compares them step for step). A single env draws its chance
from ``numpy.random.Generator(PCG64(seed))``; here the ``N`` streams of ``N`` games are
the rows of one ``(N, 6)`` ``uint64`` array (:data:`STATE_HI` ... :data:`BUFFER`), and the
functions below are numpy's own algorithms (``numpy/random/src``) written in Numba: the
PCG64 step and XSL-RR output, the buffered 32-bit draw, Lemire's bounded integers, the
interval draw of ``shuffle``, and ``SeedSequence`` for streams seeded inside a game (an
opponent's ``default_rng(seed)``). ``tests/test_batched_streams.py`` checks every one
against numpy.

Every function takes the stream array and a row; row ``i`` is game ``i``'s stream.
"""

from __future__ import annotations

import numba
import numpy as np

#: Columns of a stream array: the 128-bit state and increment as 64-bit halves, then
#: numpy's one-word buffer of a half-used 64-bit output (``has_uint32``, ``uinteger``).
STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_BUFFER, BUFFER = range(6)
STREAM_WIDTH = 6

_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
_U32 = np.uint64(0xFFFFFFFF)
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_32 = np.uint64(32)


def new_streams(num_games: int) -> np.ndarray:
    """An uninitialised stream array for ``num_games`` games (fill it with :func:`seed_rows`)."""
    return np.zeros((num_games, STREAM_WIDTH), np.uint64)


def load_generator(streams: np.ndarray, row: int, bit_generator: np.random.PCG64) -> None:
    """Copy a numpy ``PCG64``'s exact state into ``streams[row]``."""
    state = bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise TypeError(f"streams follow numpy's PCG64, got a {state['bit_generator']}")
    value, increment = state["state"]["state"], state["state"]["inc"]
    streams[row] = (
        value >> 64,
        value & 0xFFFFFFFFFFFFFFFF,
        increment >> 64,
        increment & 0xFFFFFFFFFFFFFFFF,
        state["has_uint32"],
        state["uinteger"],
    )


def to_generator(streams: np.ndarray, row: int) -> np.random.Generator:
    """A numpy ``Generator`` in the exact state of ``streams[row]`` (for tests and single-game views)."""
    bit_generator = np.random.PCG64()
    hi, lo, inc_hi, inc_lo, has_buffer, buffer = (int(v) for v in streams[row])
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (hi << 64) | lo, "inc": (inc_hi << 64) | inc_lo},
        "has_uint32": has_buffer,
        "uinteger": buffer,
    }
    return np.random.Generator(bit_generator)


@numba.njit(cache=True, inline="always")
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of two ``uint64``."""
    a_lo = a & _U32
    a_hi = a >> _32
    b_lo = b & _U32
    b_hi = b >> _32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _32) + (hi_lo & _U32) + lo_hi
    return hi_hi + (hi_lo >> _32) + (cross >> _32)


@numba.njit(cache=True, inline="always")
def _step(streams, row):
    """state = state * multiplier + increment (mod 2**128)."""
    hi = streams[row, STATE_HI]
    lo = streams[row, STATE_LO]
    product_lo = lo * _MULT_LO
    product_hi = _mulhi(lo, _MULT_LO) + hi * _MULT_LO + lo * _MULT_HI
    new_lo = product_lo + streams[row, INC_LO]
    carry = _ONE if new_lo < product_lo else _ZERO
    streams[row, STATE_LO] = new_lo
    streams[row, STATE_HI] = product_hi + streams[row, INC_HI] + carry


@numba.njit(cache=True)
def next_uint64(streams, row):
    """numpy ``PCG64``'s next 64-bit output: step, then XSL-RR of the new state."""
    _step(streams, row)
    hi = streams[row, STATE_HI]
    xored = hi ^ streams[row, STATE_LO]
    rotation = hi >> np.uint64(58)
    return (xored >> rotation) | (xored << ((np.uint64(64) - rotation) & np.uint64(63)))


@numba.njit(cache=True)
def next_uint32(streams, row):
    """numpy's ``next_uint32``: the buffered upper half of the last output, else a new one's lower half."""
    if streams[row, HAS_BUFFER]:
        streams[row, HAS_BUFFER] = _ZERO
        return streams[row, BUFFER]
    value = next_uint64(streams, row)
    streams[row, HAS_BUFFER] = _ONE
    streams[row, BUFFER] = value >> _32
    return value & _U32


@numba.njit(cache=True)
def bounded(streams, row, low, high):
    """``Generator.integers(low, high)`` (``int64``, ``high`` excluded): one draw, or one
    element of a ``size=`` draw, which numpy fills element by element alike."""
    span = np.uint64(high - low - 1)
    if span == _ZERO:
        return low  # numpy draws nothing for a range of one value
    if span <= _U32:
        if span == _U32:
            return low + np.int64(next_uint32(streams, row))
        excl = span + _ONE
        product = next_uint32(streams, row) * excl
        leftover = product & _U32
        if leftover < excl:
            threshold = (_U32 - span) % excl
            while leftover < threshold:
                product = next_uint32(streams, row) * excl
                leftover = product & _U32
        return low + np.int64(product >> _32)
    if span == _U64_MAX:
        return low + np.int64(next_uint64(streams, row))
    excl = span + _ONE
    value = next_uint64(streams, row)
    leftover = value * excl
    if leftover < excl:
        threshold = (_U64_MAX - span) % excl
        while leftover < threshold:
            value = next_uint64(streams, row)
            leftover = value * excl
    return low + np.int64(_mulhi(value, excl))


@numba.njit(cache=True)
def seed_draw(streams, row):
    """``Generator.integers(2**63)``: the seed a single env draws for its opponents' stream
    (``high`` does not fit an ``int64`` argument; Lemire's method for ``2**63`` is a shift)."""
    return np.int64(next_uint64(streams, row) >> _ONE)


@numba.njit(cache=True)
def interval(streams, row, largest):
    """numpy's ``random_interval``: uniform in ``0..largest`` by masked rejection (``shuffle``'s draw)."""
    if largest == 0:
        return 0
    bound = np.uint64(largest)
    mask = bound
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    if bound <= _U32:
        value = next_uint32(streams, row) & mask
        while value > bound:
            value = next_uint32(streams, row) & mask
    else:
        value = next_uint64(streams, row) & mask
        while value > bound:
            value = next_uint64(streams, row) & mask
    return np.int64(value)


@numba.njit(cache=True)
def shuffle(streams, row, values):
    """``Generator.shuffle`` of a 1-d array in place (``permutation`` is a shuffled copy)."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = interval(streams, row, i)
        values[i], values[j] = values[j], values[i]


@numba.njit(cache=True)
def choose_legal(streams, row, mask):
    """``Generator.choice(np.flatnonzero(mask))``: a uniform legal action, as the single
    env's random opponent draws it (-1 where nothing is legal)."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
    if count == 0:
        return -1
    pick = bounded(streams, row, 0, count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


# SeedSequence (numpy/random/bit_generator.pyx), 32-bit words.
_INIT_A = np.uint32(0x43B0D7E5)
_MULT_A = np.uint32(0x931E8875)
_INIT_B = np.uint32(0x8B51F9DD)
_MULT_B = np.uint32(0x58F38DED)
_MIX_MULT_L = np.uint32(0xCA01F9DD)
_MIX_MULT_R = np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)


@numba.njit(cache=True)
def _seed_sequence_words(seed):
    """``SeedSequence(seed).generate_state(4, np.uint64)`` for ``0 <= seed < 2**64``."""
    words = np.zeros(2, np.uint32)
    count = 1
    words[0] = np.uint32(seed & _U32)
    if (seed >> _32) != _ZERO:
        words[1] = np.uint32(seed >> _32)
        count = 2
    pool = np.zeros(4, np.uint32)
    hash_const = _INIT_A
    for i in range(4):
        value = words[i] if i < count else np.uint32(0)
        value ^= hash_const
        hash_const = np.uint32(hash_const * _MULT_A)
        value = np.uint32(value * hash_const)
        value ^= value >> _XSHIFT
        pool[i] = value
    for src in range(4):
        for dst in range(4):
            if src != dst:
                value = pool[src] ^ hash_const
                hash_const = np.uint32(hash_const * _MULT_A)
                value = np.uint32(value * hash_const)
                value ^= value >> _XSHIFT
                mixed = np.uint32(np.uint32(_MIX_MULT_L * pool[dst]) - np.uint32(_MIX_MULT_R * value))
                mixed ^= mixed >> _XSHIFT
                pool[dst] = mixed
    out = np.zeros(4, np.uint64)
    hash_const = _INIT_B
    for k in range(8):
        value = pool[k % 4] ^ hash_const
        hash_const = np.uint32(hash_const * _MULT_B)
        value = np.uint32(value * hash_const)
        value ^= value >> _XSHIFT
        if k % 2 == 0:
            out[k // 2] = np.uint64(value)
        else:
            out[k // 2] |= np.uint64(value) << _32
    return out


@numba.njit(cache=True)
def seed_row(streams, row, seed):
    """``streams[row]`` becomes ``numpy.random.default_rng(seed)``'s stream (``0 <= seed < 2**64``)."""
    words = _seed_sequence_words(np.uint64(seed))
    # pcg_setseq_128_srandom_r: state = 0, inc = seq << 1 | 1, step, state += initstate, step
    streams[row, INC_HI] = (words[2] << _ONE) | (words[3] >> np.uint64(63))
    streams[row, INC_LO] = (words[3] << _ONE) | _ONE
    streams[row, STATE_HI] = _ZERO
    streams[row, STATE_LO] = _ZERO
    _step(streams, row)
    lo = streams[row, STATE_LO] + words[1]
    carry = _ONE if lo < words[1] else _ZERO
    streams[row, STATE_HI] = streams[row, STATE_HI] + words[0] + carry
    streams[row, STATE_LO] = lo
    _step(streams, row)
    streams[row, HAS_BUFFER] = _ZERO
    streams[row, BUFFER] = _ZERO


def seed_rows(streams: np.ndarray, rows: np.ndarray, seeds) -> None:
    """Seed ``streams[rows]`` as Gymnasium seeds an env's ``np_random`` (``PCG64(SeedSequence(seed))``).

    ``seeds``: one non-negative integer per row, or ``None`` entries for fresh OS entropy.
    Not a hot path (it runs at a seeded ``reset``), so any seed numpy takes is taken.
    """
    for row, seed in zip(rows, seeds):
        load_generator(streams, int(row), np.random.PCG64(np.random.SeedSequence(seed)))
