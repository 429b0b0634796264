"""The shuffle and the generator under the lab's statistical tests, on the production code paths.

The real shuffle (`fisher_yates` with `SecureRandom`), the scaled integers (`SecureRandom.randbelow`), the
cut (`cut_point`, `Shoe`) and the dealt order (`Shoe` → `rngtools.shuffled_pack`) must pass; deliberately
biased versions must fail the same test functions at the same sample sizes, which proves they can fail.

Levels (docs/rng.md): the lab run uses 99% for the family with Bonferroni's correction (`tapete rng
battery`: each of the 11 tests at 0.01/11). Here the real generator faces K_CI = 17 tests and the family
level is 1e-6, each test at 1e-6/17 = 5.9e-8; the command-line test of `battery` is a second family at
1e-6. So a correct generator fails this file with probability at most 2e-6 per run. Every biased control
must be rejected even at that strict level; the chance that one of them is not (noncentral chi-square,
docs/rng.md) is below 1e-10.
"""

from __future__ import annotations

import inspect
import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tapete.cards import NAMES, parse_card, parse_cards
from tapete.rngtools import (
    CUT_TEST_PACK,
    INTEGER_RANGES,
    LAB_ALPHA,
    IntArray,
    StatResult,
    bonferroni,
    card_at,
    card_by_position,
    chi2_sf,
    collect_shuffles,
    cut_window,
    normal_two_sided,
    raw_chunks,
    run_battery,
    serial_correlation,
    shuffled_pack,
    uniform_integers,
)
from tapete.shoe import MIN_CUT_FROM_END, RandomSource, SecureRandom, Shoe, fisher_yates

#: Sample sizes CI affords: 16 000 one-deck shuffles, 30 000 draws per integer test, 3 000 dealt shoes.
SHUFFLES = 16_000
DRAWS = 30_000
SHOES = 3_000
#: Tests of the real generator in this file: the 11 of the battery, 4 on the dealt order, the one-handed
#: cut and the raw bytes of `tapete rng raw`.
K_CI = 17
CI_FAMILY_ALPHA = 1e-6
CI_LEVEL = bonferroni(CI_FAMILY_ALPHA, K_CI)
BATTERY = (
    "card by position",
    "first card",
    "last card",
    *(f"randbelow({n})" for n in INTEGER_RANGES),
    "serial randbelow(52)",
    f"cut window ({CUT_TEST_PACK} cards)",
)

SECURE = SecureRandom()


# ---------------------------------------------------------------------------------------------------
# Biased controls (test-only). They take their entropy from the same SecureRandom, so a failure can only
# come from the algorithm. Vectorised with numpy so that the controls run at the real tests' sizes.


def secure_below(n: int, size: int) -> IntArray:
    """`size` unbiased integers in [0, n), n <= 256, from SecureRandom's raw bytes by rejection."""
    limit = 256 - 256 % n
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        nbytes = 2 * need + 64
        raw = np.frombuffer(SECURE.raw_bits(8 * nbytes).to_bytes(nbytes, "big"), dtype=np.uint8)
        ok = raw[raw < limit][:need].astype(np.int64) % n
        out[filled : filled + ok.size] = ok
        filled += ok.size
    return out


def naive_shuffles(count: int, n: int = 52) -> IntArray:
    """The naive swap-with-any shuffle: for every i, swap with j uniform in [0, n). n^n equally likely
    paths onto n! orders, which n^n is not a multiple of: biased."""
    perms = np.tile(np.arange(n, dtype=np.int64), (count, 1))
    rows = np.arange(count)
    for i in range(n):
        j = secure_below(n, count)
        held = perms[rows, i].copy()
        perms[rows, i] = perms[rows, j]
        perms[rows, j] = held
    return perms


def sattolo_shuffles(count: int, n: int = 52) -> IntArray:
    """The off-by-one Fisher-Yates (j uniform in [0, i), Sattolo's algorithm): only cyclic orders, so no
    card ever stays where it was."""
    perms = np.tile(np.arange(n, dtype=np.int64), (count, 1))
    rows = np.arange(count)
    for i in range(n - 1, 0, -1):
        j = secure_below(i, count)
        held = perms[rows, i].copy()
        perms[rows, i] = perms[rows, j]
        perms[rows, j] = held
    return perms


def naive_shuffle(cards: list[int], rng: RandomSource) -> None:
    """The naive shuffle with the production shuffle's signature, to inject into `collect_shuffles`."""
    n = len(cards)
    for i in range(n):
        j = rng.randbelow(n)
        cards[i], cards[j] = cards[j], cards[i]


def modulo_integers(n: int, count: int) -> IntArray:
    """The scaling bug rejection avoids: n.bit_length() random bits reduced mod n."""
    bits = n.bit_length()
    raw = np.frombuffer(SECURE.raw_bits(16 * count).to_bytes(2 * count, "big"), dtype=">u2")
    return (raw.astype(np.int64) & ((1 << bits) - 1)) % n


def sticky_integers(n: int, count: int, repeat: int = 10) -> IntArray:
    """Unbiased values that repeat the previous one with probability 1/`repeat`: serial correlation 0.1."""
    values = secure_below(n, count)
    again = secure_below(repeat, count) == 0
    for i in np.flatnonzero(again):
        if i:
            values[i] = values[i - 1]
    return values


def human_cuts(count: int, size: int = CUT_TEST_PACK, margin: int = MIN_CUT_FROM_END) -> IntArray:
    """A cutter that favours the middle (sum of two uniform halves: triangular on the window)."""
    half = (size - 2 * margin) // 2 + 1
    return margin + secure_below(half, count) + secure_below(half, count)


# ---------------------------------------------------------------------------------------------------
# The real generator: the battery (`tapete rng battery`'s very code) at CI sizes.


@pytest.fixture(scope="module")
def battery() -> dict[str, StatResult]:
    results = run_battery(SHUFFLES, DRAWS)
    assert [r.name for r in results] == list(BATTERY)
    return {r.name: r for r in results}


@pytest.mark.parametrize("name", BATTERY)
def test_production_shuffle_and_generator_pass(battery: dict[str, StatResult], name: str) -> None:
    result = battery[name]
    assert result.passed(CI_LEVEL), f"{result} rejected at p < {CI_LEVEL:.3g}"


def test_battery_counts_every_sample(battery: dict[str, StatResult]) -> None:
    assert {r.samples for name, r in battery.items() if name in BATTERY[:3]} == {SHUFFLES}
    assert {r.samples for name, r in battery.items() if name not in BATTERY[:3]} == {DRAWS}
    assert battery["card by position"].df == 51 * 51
    assert battery["randbelow(416)"].df == 415


def test_battery_runs_the_production_functions() -> None:
    """The lab must test the production paths: the default shuffle is shoe.fisher_yates itself and the
    default generator the SecureRandom the live shoe uses."""
    assert inspect.signature(collect_shuffles).parameters["shuffle"].default is fisher_yates
    assert inspect.signature(run_battery).parameters["shuffle"].default is fisher_yates
    seen: list[str] = []
    run_battery(52, 1000, progress=seen.append, ranges=(52,))
    assert seen == ["shuffles", "randbelow(52)", "serial correlation", "cut window"]


def test_collected_shuffles_are_permutations() -> None:
    perms = collect_shuffles(200)
    assert (np.sort(perms, axis=1) == np.arange(52)).all()
    assert len({tuple(p) for p in perms}) == 200  # 200 distinct orders out of 52!: no repeats


# ---------------------------------------------------------------------------------------------------
# The same tests must fail on biased inputs of the same size.


def test_naive_shuffle_fails_card_by_position() -> None:
    result = card_by_position(naive_shuffles(SHUFFLES))
    assert not result.passed(CI_LEVEL), result


def test_naive_shuffle_fails_first_card() -> None:
    result = card_at(naive_shuffles(SHUFFLES), 0, "first card")
    assert not result.passed(CI_LEVEL), result


def test_naive_shuffle_leaves_the_last_position_exactly_uniform() -> None:
    """Why the battery also needs Sattolo's bias: the naive shuffle's step i makes position i uniform
    and nothing touches position n-1 after its step, so the last-card test cannot see it (exact)."""
    n = 52
    p = np.eye(n)  # p[c, q] = P(card c at position q), propagated exactly step by step
    for i in range(n):
        at_i = p[:, i].copy()
        p = p * (n - 1) / n + at_i[:, None] / n
        p[:, i] = 1 / n
    assert np.allclose(p[:, -1], 1 / n, rtol=0, atol=1e-15)
    assert np.abs(p[:, 0] * n - 1).max() > 0.3  # while some card is >30% off its share of the first position


def test_naive_shuffle_through_the_collection_path_fails() -> None:
    """Injected where the production shuffle goes: collect_shuffles(shuffle=...) catches it."""
    result = card_by_position(collect_shuffles(2_000, shuffle=naive_shuffle))
    assert not result.passed(CI_LEVEL), result


@pytest.mark.parametrize("test", ["card by position", "first card", "last card"])
def test_off_by_one_shuffle_fails(test: str) -> None:
    perms = sattolo_shuffles(SHUFFLES)
    assert (perms != np.arange(52)).all()  # a cyclic order: no card stays put
    result = {
        "card by position": card_by_position,
        "first card": lambda p: card_at(p, 0, "first card"),
        "last card": lambda p: card_at(p, -1, "last card"),
    }[test](perms)
    assert not result.passed(CI_LEVEL), result


@pytest.mark.parametrize("n", [n for n in INTEGER_RANGES if n & (n - 1)])
def test_modulo_scaling_fails_the_integer_test(n: int) -> None:
    result = uniform_integers(modulo_integers(n, DRAWS), n)
    assert not result.passed(CI_LEVEL), result


def test_modulo_scaling_is_unbiased_only_for_powers_of_two() -> None:
    """Why randbelow(2) has no modulo control: n.bit_length() bits reduced mod a power of two are exact."""
    for n in INTEGER_RANGES:
        k = n.bit_length()
        counts = Counter(v % n for v in range(1 << k))
        assert (len(set(counts.values())) == 1) == (n & (n - 1) == 0)


def test_correlated_generator_fails_serial_correlation() -> None:
    result = serial_correlation(sticky_integers(52, DRAWS))
    assert not result.passed(CI_LEVEL), result
    assert result.statistic > 0  # positively correlated, as built


def test_middle_favouring_cut_fails_the_cut_window() -> None:
    result = cut_window(human_cuts(DRAWS))
    assert not result.passed(CI_LEVEL), result


def test_cut_outside_the_window_fails() -> None:
    cuts = np.full(100, MIN_CUT_FROM_END - 1, dtype=np.int64)
    assert cut_window(cuts).p_value == 0.0


# ---------------------------------------------------------------------------------------------------
# The dealt order: what `tapete rng shuffles` writes, through Shoe (shuffle, cut, draw).


@pytest.fixture(scope="module")
def dealt() -> tuple[IntArray, IntArray]:
    """SHOES one-deck shoes as a live table loads them: the dealt order and each logged cut position."""
    perms = np.empty((SHOES, 52), dtype=np.int64)
    cuts = np.empty(SHOES, dtype=np.int64)
    for s in range(SHOES):
        shoe = Shoe(1, SECURE, cut_card_depth=None, burn=0, live=True)
        perms[s] = [shoe.draw() for _ in range(52)]
        (cut_event,) = [e for e in shoe.events if e.get("step") == "cut"]
        cuts[s] = cut_event["at"]
    return perms, cuts


def test_dealt_order_card_by_position(dealt: tuple[IntArray, IntArray]) -> None:
    result = card_by_position(dealt[0])
    assert result.passed(CI_LEVEL), result


def test_dealt_order_first_card(dealt: tuple[IntArray, IntArray]) -> None:
    result = card_at(dealt[0], 0, "first card dealt")
    assert result.passed(CI_LEVEL), result


def test_dealt_order_last_card(dealt: tuple[IntArray, IntArray]) -> None:
    result = card_at(dealt[0], -1, "last card dealt")
    assert result.passed(CI_LEVEL), result


def test_one_deck_cut_uniform_over_the_whole_pack(dealt: tuple[IntArray, IntArray]) -> None:
    """A 52-card pack has no 40-from-either-end window (52 < 80): cut_point uses the whole pack."""
    result = uniform_integers(dealt[1], 52, "one-deck cut")
    assert result.passed(CI_LEVEL), result


def test_sp_art7_one_handed_cut_uniform() -> None:
    """SP Art.7 one-handed cut: 1 to 51 cards go under, each equally likely."""
    cuts = []
    for _ in range(2_000):
        shoe = Shoe(1, SECURE, cut_card_depth=None, burn=0, live=True, one_handed_cut=True)
        cuts.append(next(e["at"] for e in shoe.events if e.get("step") == "cut"))
    values = np.array(cuts, dtype=np.int64)
    assert values.min() >= 1 and values.max() <= 51
    result = uniform_integers(values - 1, 51, "one-handed cut")
    assert result.passed(CI_LEVEL), result


def test_shuffled_pack_is_the_shoe_order_burn_included() -> None:
    """The collection tool's line is the whole pack in the order it leaves the shoe; a real table's shoe
    (burn 1) deals the same order after its burned card."""
    line = shuffled_pack(2, SECURE)
    assert len(line) == 104
    assert Counter(line) == Counter({name: 2 for name in NAMES})


def test_art5e_cut_at_least_40_from_either_end_on_8_decks() -> None:
    """Eight decks: the cut event lies in [40, 376] (rules.md §0 [A]) and the pack stays whole."""
    for _ in range(20):
        shoe = Shoe(8, SECURE, cut_card_depth=104, burn=1, live=True)
        at = next(e["at"] for e in shoe.events if e.get("step") == "cut")
        assert MIN_CUT_FROM_END <= at <= 416 - MIN_CUT_FROM_END
        burn = next(e["cards"] for e in shoe.events if e.get("step") == "burn")
        rest = [shoe.draw() for _ in range(415)]
        assert Counter(parse_cards(burn) + rest) == Counter({c: 8 for c in range(52)})


# ---------------------------------------------------------------------------------------------------
# The statistics themselves.


@pytest.mark.parametrize("df", [1, 2, 6, 51, 336, 415, 999, 2601])
def test_chi2_sf_matches_scipy(df: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    for q in (1e-12, 1e-7, 1e-3, 0.01, 0.5, 0.99, 1 - 1e-6):
        x = float(stats.chi2.isf(q, df))
        assert chi2_sf(x, df) == pytest.approx(q, rel=1e-9)
    assert chi2_sf(0.0, df) == 1.0


def test_chi2_sf_known_values() -> None:
    """Without scipy: chi2(2) is exponential, P(X >= x) = exp(-x/2); chi2(1) tail is erfc(sqrt(x/2))."""
    for x in (0.1, 1.0, 5.99146, 20.0, 60.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-12)
    assert normal_two_sided(1.959963984540054) == pytest.approx(0.05, rel=1e-12)


def test_bonferroni_levels() -> None:
    assert bonferroni(LAB_ALPHA, 11) == pytest.approx(0.01 / 11)
    assert math.isclose(CI_LEVEL, 1e-6 / 17)


def test_pearson_on_a_known_table() -> None:
    perms = np.array([[0, 1], [0, 1], [1, 0], [0, 1]], dtype=np.int64)
    # card x position counts [[3, 1], [1, 3]], expected 2 each: chi-square 4 * 1/2 = 2 on 1 df
    result = card_by_position(perms)
    assert (result.statistic, result.df) == (2.0, 1)
    assert result.p_value == pytest.approx(chi2_sf(2.0, 1))


# ---------------------------------------------------------------------------------------------------
# The lab's collection tools on the command line.


def _cli() -> Callable[..., object]:
    from tapete.cli import _register_optional, app

    _register_optional()
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_rng_raw_writes_exact_byte_count(tmp_path: Path) -> None:
    out = tmp_path / "raw.bin"
    result = _cli()("rng", "raw", "--bytes", "100003", "--out", str(out))
    assert getattr(result, "exit_code", None) == 0
    data = out.read_bytes()
    assert len(data) == 100_003
    counts = np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256)
    stat = float(((counts - data.__len__() / 256) ** 2).sum() / (len(data) / 256))
    assert chi2_sf(stat, 255) >= CI_LEVEL  # raw bytes uniform (the real test of them is dieharder)


def test_raw_chunks_are_the_generator_bits() -> None:
    class Counting(SecureRandom):
        def __init__(self) -> None:
            super().__init__()
            self.bits: list[int] = []

        def raw_bits(self, k: int) -> int:
            self.bits.append(k)
            return super().raw_bits(k)

    rng = Counting()
    chunks = list(raw_chunks(150_000, rng, chunk=65_536))
    assert [len(c) for c in chunks] == [65_536, 65_536, 18_928]
    assert rng.bits == [8 * 65_536, 8 * 65_536, 8 * 18_928]


def test_rng_shuffles_one_pack_per_line(tmp_path: Path) -> None:
    out = tmp_path / "packs.txt"
    result = _cli()("rng", "shuffles", "--decks", "6", "--count", "5", "--out", str(out))
    assert getattr(result, "exit_code", None) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 5
    for line in lines:
        cards = [parse_card(c) for c in line.split(" ")]
        assert Counter(cards) == Counter({c: 6 for c in range(52)})
    assert len(set(lines)) == 5


def test_rng_shuffles_one_handed_and_bad_cut(tmp_path: Path) -> None:
    cli = _cli()
    ok = cli("rng", "shuffles", "--count", "2", "--cut", "one-handed")
    assert getattr(ok, "exit_code", None) == 0
    assert [len(line.split()) for line in str(getattr(ok, "stdout", "")).splitlines()] == [52, 52]
    bad = cli("rng", "shuffles", "--cut", "riffle")
    assert getattr(bad, "exit_code", None) == 2


def test_rng_battery_command_prints_every_test_and_passes() -> None:
    cli = _cli()
    result = cli("rng", "battery", "--shuffles", "600", "--draws", "10000", "--alpha", str(CI_FAMILY_ALPHA))
    out = str(getattr(result, "stdout", ""))
    assert getattr(result, "exit_code", None) == 0, out
    assert "11 passed, 0 failed" in out
    for name in BATTERY:
        assert name in out
    too_small = cli("rng", "battery", "--draws", "100")  # under 5 expected per cell of randbelow(1000)
    assert getattr(too_small, "exit_code", None) == 2


# ---------------------------------------------------------------------------------------------------
# The documented lab run: 99% for the family, larger samples. Opt-in (-m slow); by design it fails 1% of
# runs on a perfect generator.


@pytest.mark.slow
def test_lab_battery_at_99_percent() -> None:
    results = run_battery(200_000, 400_000)
    level = bonferroni(LAB_ALPHA, len(results))
    failed = [r for r in results if not r.passed(level)]
    assert not failed, json.dumps([r.name for r in failed])
