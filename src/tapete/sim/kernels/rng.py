"""The simulation kernels' generator: xoshiro256** (Blackman and Vigna) with Lemire's unbiased bounded
integers, an unbiased Fisher-Yates shuffle and the regulation's cut, all compiled by Numba.

Why our own generator and not NumPy's inside the kernels: its state is four plain ``uint64`` that a
chunk gets from ``numpy.random.SeedSequence`` (so a seed and a chunk number fix every card of the chunk,
on any machine and any Numba version), and the calls inline into the kernels' loops (about 1 ns a
draw). Simulation only: a live table shuffles with the OS CSPRNG (`tapete.shoe.SecureRandom`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I8 = npt.NDArray[np.int8]

_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


def seed_state(seed: int, chunk: int) -> U64:
    """The generator state of chunk `chunk` of a run seeded `seed`: ``SeedSequence(seed).spawn(...)[chunk]``
    (the same child, built directly), four 64-bit words. Independent streams for every chunk."""
    seq = np.random.SeedSequence(seed, spawn_key=(chunk,))
    state: U64 = np.asarray(seq.generate_state(4, np.uint64), dtype=np.uint64)
    if not state.any():  # pragma: no cover - probability 2**-256; xoshiro's one forbidden state
        state[0] = np.uint64(1)
    return state


@njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def next_u64(s: U64) -> np.uint64:
    """The next 64-bit output of xoshiro256** (state `s`, four words, updated in place)."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return result


@njit(cache=True, inline="always")
def below(s: U64, n: int) -> np.int64:
    """A uniform integer in [0, n) for 1 <= n < 2**32: Lemire's multiply-and-shift on the top 32 bits of
    an output, rejecting the few values that would bias it (exactly uniform)."""
    un = np.uint64(n)
    m = (next_u64(s) >> np.uint64(32)) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(s) >> np.uint64(32)) * un
            low = m & _MASK32
    return np.int64(m >> np.uint64(32))


@njit(cache=True)
def shuffle(cards: I8, s: U64) -> None:
    """Fisher-Yates in place (as `tapete.shoe.fisher_yates`): from the last position down, swap with a
    uniform position at or below it. Each 64-bit output gives two 32-bit draws (xoshiro256**'s low bits
    are as good as its high ones), bounded by Lemire's method with rejection (exactly uniform); the state
    stays in registers for the whole pack."""
    s0 = s[0]
    s1 = s[1]
    s2 = s[2]
    s3 = s[3]
    spare = np.uint64(0)
    have = False
    for i in range(cards.shape[0] - 1, 0, -1):
        un = np.uint64(i + 1)
        threshold = np.uint64(0)
        first = True
        while True:
            if have:
                x = spare
                have = False
            else:
                out = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
                t = s1 << np.uint64(17)
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = _rotl(s3, 45)
                x = out >> np.uint64(32)
                spare = out & _MASK32
                have = True
            m = x * un
            low = m & _MASK32
            if low >= un:
                break
            if first:
                threshold = (_TWO32 - un) % un
                first = False
            if low >= threshold:
                break
        j = np.int64(m >> np.uint64(32))
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3


@njit(cache=True)
def cut_point(size: int, margin: int, s: U64) -> int:
    """Where the cutter goes (as `tapete.shoe.cut_point`): uniform in [margin, size - margin]; anywhere
    when the pack is too small for the margin."""
    if size <= 2 * margin:
        return int(below(s, size)) if size > 0 else 0
    return margin + int(below(s, size - 2 * margin + 1))


@njit(cache=True)
def fill_u64(s: U64, out: U64) -> None:
    """Fill `out` with successive outputs (for the tests that check the generator against its
    reference definition)."""
    for i in range(out.shape[0]):
        out[i] = next_u64(s)


@njit(cache=True)
def fill_below(s: U64, n: int, out: npt.NDArray[np.int64]) -> None:
    """Fill `out` with uniform integers in [0, n) (tests)."""
    for i in range(out.shape[0]):
        out[i] = below(s, n)


@njit(cache=True, inline="always")
def deal(pack: I8, base: int, pos: int, s: U64, lazy: bool) -> int:
    """The card at shoe position `pos`. A shuffled and cut shoe reads ``pack[(base + pos) % size]``; a
    LAZY shoe (a freshly shuffled full pack every round, the exact analysis's assumption) draws it the
    way Fisher-Yates would, swapping position `pos` with a uniform position at or after it, so a round
    costs a draw per card it uses rather than a whole shuffle."""
    size = pack.shape[0]
    if lazy:
        j = pos + below(s, size - pos)
        tmp = pack[pos]
        pack[pos] = pack[j]
        pack[j] = tmp
        return int(pack[pos])
    i = base + pos
    if i >= size:
        i -= size
    return int(pack[i])
