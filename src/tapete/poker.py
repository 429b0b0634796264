"""Five-card poker hand evaluation (Showdown Póker Art.10-11; rules.md §3 "hands rank as in standard poker").

Two paths share ONE definition of hand strength:

* :func:`evaluate5` — the clear, scalar evaluator the game engine uses: five cards in, an ``int``
  strength out (higher is better, equal strength = tie; suits never rank, A-2-3-4-5 is the lowest
  straight, kickers break ties). :func:`category` and :func:`describe` read a strength back.
* :func:`evaluate_many` / :func:`rank_all_5card_hands` — the bulk path for exact analysis. A hand's
  strength depends only on its multiset of ranks and on whether it is a flush, so the scalar evaluator
  is run once over the 6,175 possible rank multisets to fill two lookup tables indexed by the sorted
  ranks (``key = sum(rank_i * 13**i)``); the bulk path then only sorts five small ints, checks the four
  suits and reads a table. With Numba (the ``fast`` extra) this is a compiled loop: all 2,598,960 hands
  take about 0.03 s after JIT warm-up (compiled code is cached on disk, so warm-up is paid once per
  install, ~1-2 s); without Numba the same tables are read with vectorised NumPy (about 0.4 s for all
  hands, measured on the project's 2-core machine).

Why not phevaluator at run time: it is an excellent, well-kept C evaluator, but (a) it is called once per
hand from Python, which costs ~1.1 µs a call — about 3 s for all hands, too slow for the exact Showdown
analysis, which needs the evaluator *inside* compiled loops; (b) its numbers (1..7462, smaller is better,
its own card encoding with deuce = 0) would need translating to our encoding and to our categories (it
has no royal-flush class, which Art.11 pays separately); (c) a second native dependency for the engine
is not worth it when the tables above are 30 lines built from the readable evaluator. So the evaluator
is ours and phevaluator and pokerkit stay *test* dependencies: the tests check our ordering against
both on every hand class and on a large random sample of pairs of hands.

Strength encoding: ``category << 20`` plus five 4-bit rank nibbles in order of significance
(e.g. a pair: the pair's rank, then the three kickers high to low), ranks counted deuce = 0 … ace = 12;
a straight's nibble is its top card (the wheel's is the five). Categories are an :class:`IntEnum`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from enum import IntEnum
from functools import cache
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from tapete.cards import DECK_SIZE, RANKS
from tapete.errors import BadCards

_numba: Any
try:  # Numba is the optional "fast" extra: everything here also works (slower) without it.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is absent
    _numba = None

HAVE_NUMBA: bool = _numba is not None

_F = TypeVar("_F", bound=Callable[..., Any])


def jit(fn: _F) -> _F:
    """``numba.njit(cache=True)`` when Numba is installed, else the plain Python function (typed for mypy)."""
    if _numba is None:  # pragma: no cover
        return fn
    return cast(_F, _numba.njit(cache=True, nogil=True)(fn))


class Category(IntEnum):
    """Hand categories, weakest first (Art.11 names them; royal flush is paid apart from straight flush)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    #: only with more than one deck (rules.md §0 [A]): above a royal flush, paid as one
    FIVE_OF_A_KIND = 10

    @property
    def key(self) -> str:
        """The machine name used in paytables and JSON (``two_pair``, ``royal_flush`` …)."""
        return self.name.lower()


#: Number of distinct five-card hands of each category in one 52-card deck (no five of a kind there).
CATEGORY_COUNTS: dict[Category, int] = {
    Category.FIVE_OF_A_KIND: 0,
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
N_5CARD_HANDS = 2_598_960
CATEGORY_SHIFT = 20
#: Poker rank (deuce = 0 … ace = 12) of each card int of :mod:`tapete.cards` (where ace = 0, deuce = 1).
POKER_RANK: tuple[int, ...] = tuple((c // 4 + 12) % 13 for c in range(DECK_SIZE))
ACE, FIVE, JACK = 12, 3, 9
_WHEEL = (ACE, 3, 2, 1, 0)

_SYMBOL = "23456789TJQKA"  # poker rank -> symbol as in card notation
_SINGULAR = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_PLURAL = tuple(name + ("es" if name == "six" else "s") for name in _SINGULAR)
assert RANKS[0] == "A" and RANKS[1] == "2"  # the card encoding this module relies on


def _pack(cat: Category, ranks: Sequence[int]) -> int:
    """Category and up to five significant ranks (most significant first) as one int."""
    value = int(cat)
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def strength_of_ranks(ranks: Sequence[int], flush: bool) -> int:
    """The strength of five cards from their poker ranks (deuce = 0 … ace = 12) and whether they are suited.

    This is the single definition of hand order; the bulk tables are filled from it. With more than one
    deck a hand may hold equal cards (rules.md §0 [A]): five of a kind ranks above a royal flush; a flush
    holding a pair is still a flush, its five cards compared from the highest (pair included); a hand is
    always the best category its cards make (with three or more decks a suited full house is a full house).
    """
    counts = Counter(ranks)
    # Ranks by (multiplicity, rank) descending: the order in which they break ties.
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    order = [r for r, _ in groups]
    shape = [n for _, n in groups]
    distinct = sorted(counts, reverse=True)
    straight_top = -1
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif tuple(distinct) == _WHEEL:
            straight_top = FIVE  # A-2-3-4-5: the ace plays low, the hand is five-high
    if shape[0] == 5:
        return _pack(Category.FIVE_OF_A_KIND, order)
    if straight_top >= 0 and flush:
        if straight_top == ACE:
            return _pack(Category.ROYAL_FLUSH, [ACE])
        return _pack(Category.STRAIGHT_FLUSH, [straight_top])
    if shape[0] == 4:
        return _pack(Category.FOUR_OF_A_KIND, order)
    if shape[:2] == [3, 2]:
        return _pack(Category.FULL_HOUSE, order)
    if flush:  # all five cards, high to low: a pair in a flush counts twice (A A K Q J beats A K Q J 9)
        return _pack(Category.FLUSH, sorted(ranks, reverse=True))
    if straight_top >= 0:
        return _pack(Category.STRAIGHT, [straight_top])
    if shape[0] == 3:
        return _pack(Category.THREE_OF_A_KIND, order)
    if shape[:2] == [2, 2]:
        return _pack(Category.TWO_PAIR, order)
    if shape[0] == 2:
        return _pack(Category.PAIR, order)
    return _pack(Category.HIGH_CARD, distinct)


def evaluate5(cards: Sequence[int]) -> int:
    """Strength of a five-card hand (card ints of :mod:`tapete.cards`): higher is better, equal = tie.

    Raises BadCards for anything but five distinct cards of one deck.
    """
    if len(cards) != 5:
        raise BadCards(f"a poker hand has five cards, got {len(cards)}")
    if len(set(cards)) != 5 or any(not (0 <= c < DECK_SIZE) for c in cards):
        raise BadCards(f"a poker hand needs five distinct cards of one deck, got {list(cards)}")
    flush = len({c % 4 for c in cards}) == 1
    return strength_of_ranks([POKER_RANK[c] for c in cards], flush)


def category(strength: int) -> Category:
    """The category of a strength returned by :func:`evaluate5` or :func:`evaluate_many`."""
    return Category(int(strength) >> CATEGORY_SHIFT)


def significant_ranks(strength: int) -> tuple[int, ...]:
    """The five rank nibbles of a strength (poker ranks, most significant first; unused ones are 0)."""
    s = int(strength)
    return tuple((s >> (4 * (4 - i))) & 0xF for i in range(5))


def describe(strength: int) -> str:
    """A plain description of a strength, e.g. ``"pair of queens, kickers 8 5 4"``."""
    cat = category(strength)
    r = significant_ranks(strength)
    sym = [_SYMBOL[x] for x in r]
    if cat is Category.FIVE_OF_A_KIND:
        return f"five {_PLURAL[r[0]]}"
    if cat is Category.ROYAL_FLUSH:
        return "royal flush"
    if cat is Category.STRAIGHT_FLUSH:
        return f"straight flush, {_SINGULAR[r[0]]} high"
    if cat is Category.FOUR_OF_A_KIND:
        return f"four {_PLURAL[r[0]]}, kicker {sym[1]}"
    if cat is Category.FULL_HOUSE:
        return f"full house, {_PLURAL[r[0]]} over {_PLURAL[r[1]]}"
    if cat is Category.FLUSH:
        return f"flush, {_SINGULAR[r[0]]} high: {' '.join(sym)}"
    if cat is Category.STRAIGHT:
        return f"straight, {_SINGULAR[r[0]]} high" + (" (wheel)" if r[0] == FIVE else "")
    if cat is Category.THREE_OF_A_KIND:
        return f"three {_PLURAL[r[0]]}, kickers {sym[1]} {sym[2]}"
    if cat is Category.TWO_PAIR:
        return f"two pair, {_PLURAL[r[0]]} and {_PLURAL[r[1]]}, kicker {sym[2]}"
    if cat is Category.PAIR:
        return f"pair of {_PLURAL[r[0]]}, kickers {' '.join(sym[1:4])}"
    return f"high card {_SINGULAR[r[0]]}, kickers {' '.join(sym[1:])}"


# --------------------------------------------------------------------------------------------------
# Bulk path: tables indexed by the sorted ranks.

TABLE_SIZE = 13**5
I32Array = npt.NDArray[np.int32]


@cache
def strength_tables() -> tuple[I32Array, I32Array]:
    """``(plain, flush)``: strength by rank key ``sum(sorted_ranks[i] * 13**i)`` (ranks ascending).

    Filled from :func:`strength_of_ranks` over every rank multiset (and every five distinct ranks for
    flushes); entries that no hand can reach stay -1. Read-only, built once (~20 ms).
    """
    plain = np.full(TABLE_SIZE, -1, dtype=np.int32)
    flush = np.full(TABLE_SIZE, -1, dtype=np.int32)
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        key = sum(r * 13**i for i, r in enumerate(ranks))
        plain[key] = strength_of_ranks(ranks, False)
        if len(set(ranks)) == 5:
            flush[key] = strength_of_ranks(ranks, True)
    plain.setflags(write=False)
    flush.setflags(write=False)
    return plain, flush


@cache
def _poker_rank_array() -> npt.NDArray[np.int64]:
    arr = np.array(POKER_RANK, dtype=np.int64)
    arr.setflags(write=False)
    return arr


@jit
def table_strength(c0: int, c1: int, c2: int, c3: int, c4: int, plain: I32Array, flush: I32Array) -> int:
    """Compiled strength of five card ints via the tables (sorting network on the five poker ranks)."""
    r0 = (c0 // 4 + 12) % 13
    r1 = (c1 // 4 + 12) % 13
    r2 = (c2 // 4 + 12) % 13
    r3 = (c3 // 4 + 12) % 13
    r4 = (c4 // 4 + 12) % 13
    # 9-comparator sorting network for five values.
    if r0 > r1:
        r0, r1 = r1, r0
    if r3 > r4:
        r3, r4 = r4, r3
    if r2 > r4:
        r2, r4 = r4, r2
    if r2 > r3:
        r2, r3 = r3, r2
    if r0 > r3:
        r0, r3 = r3, r0
    if r0 > r2:
        r0, r2 = r2, r0
    if r1 > r4:
        r1, r4 = r4, r1
    if r1 > r3:
        r1, r3 = r3, r1
    if r1 > r2:
        r1, r2 = r2, r1
    key = r0 + 13 * (r1 + 13 * (r2 + 13 * (r3 + 13 * r4)))
    s = c0 % 4
    if c1 % 4 == s and c2 % 4 == s and c3 % 4 == s and c4 % 4 == s:
        return int(flush[key])
    return int(plain[key])


@jit
def _evaluate_many_jit(hands: npt.NDArray[np.int64], plain: I32Array, flush: I32Array, out: I32Array) -> None:
    for i in range(hands.shape[0]):
        out[i] = table_strength(hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3], hands[i, 4], plain, flush)


@jit
def _rank_all_jit(plain: I32Array, flush: I32Array, out: I32Array) -> None:
    i = 0
    for a in range(48):
        for b in range(a + 1, 49):
            for c in range(b + 1, 50):
                for d in range(c + 1, 51):
                    for e in range(d + 1, 52):
                        out[i] = table_strength(a, b, c, d, e, plain, flush)
                        i += 1


def _evaluate_many_numpy(hands: npt.NDArray[np.int64]) -> I32Array:
    plain, flush = strength_tables()
    ranks = np.sort(_poker_rank_array()[hands], axis=1)
    key = ranks @ (13 ** np.arange(5, dtype=np.int64))
    suits = hands % 4
    is_flush = np.all(suits == suits[:, :1], axis=1)
    out: I32Array = np.where(is_flush, flush[key], plain[key]).astype(np.int32)
    return out


def evaluate_many(hands: npt.ArrayLike, *, use_numba: bool | None = None) -> I32Array:
    """Strengths (as :func:`evaluate5`) of an ``[n, 5]`` array of card ints; no validation of the cards.

    ``use_numba`` None = use Numba when installed; False forces the vectorised NumPy path.
    """
    arr = np.ascontiguousarray(hands, dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise BadCards(f"evaluate_many takes an [n, 5] array of cards, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= DECK_SIZE):
        raise BadCards("evaluate_many: card ints must be 0..51")
    if use_numba is None:
        use_numba = HAVE_NUMBA
    if not use_numba:
        return _evaluate_many_numpy(arr)
    plain, flush = strength_tables()
    out = np.empty(arr.shape[0], dtype=np.int32)
    _evaluate_many_jit(arr, plain, flush, out)
    return out


def all_5card_hands() -> npt.NDArray[np.int8]:
    """All 2,598,960 five-card hands as an ``[n, 5]`` int8 array, lexicographic order of
    ``itertools.combinations(range(52), 5)``."""
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(DECK_SIZE), 5)),
        dtype=np.int8,
        count=N_5CARD_HANDS * 5,
    )
    return combos.reshape(N_5CARD_HANDS, 5)


def rank_all_5card_hands(*, use_numba: bool | None = None) -> I32Array:
    """Strengths of all 2,598,960 hands, in the order of :func:`all_5card_hands`.

    With Numba the hands are generated inside the compiled loop (~0.03 s after warm-up); without it,
    the hands are materialised and evaluated with NumPy (slower: the generation dominates).
    """
    if use_numba is None:
        use_numba = HAVE_NUMBA
    if not use_numba:
        return _evaluate_many_numpy(all_5card_hands().astype(np.int64))
    plain, flush = strength_tables()
    out = np.empty(N_5CARD_HANDS, dtype=np.int32)
    _rank_all_jit(plain, flush, out)
    return out


def category_counts(strengths: npt.NDArray[np.integer[Any]]) -> dict[Category, int]:
    """How many strengths of each category an array holds."""
    counts = np.bincount(np.asarray(strengths, dtype=np.int64) >> CATEGORY_SHIFT, minlength=len(Category))
    return {cat: int(counts[cat]) for cat in Category}
