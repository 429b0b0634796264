"""`tapete rng`: the certification lab's tools, run through the production code paths.

``raw`` writes the live generator's bits before any scaling (the lab's raw-output collection tool);
``shuffles`` writes packs shuffled and cut by the production `Shoe` exactly as a live table loads them
(the final-outcome collection tool); ``battery`` runs the statistical tests of docs/rng.md at the lab's
confidence level. Nothing here reimplements the generator or the shuffle: they call `SecureRandom`,
`fisher_yates`, `cut_point` and `Shoe`. The statistics (chi-square, serial correlation) live here too so
that the suite (tests/test_rng.py) and the lab run the very same code.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, BinaryIO, TextIO

import numpy as np
import numpy.typing as npt
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tapete.cards import NAMES
from tapete.shoe import MIN_CUT_FROM_END, RandomSource, SecureRandom, Shoe, cut_point, fisher_yates

rng_app = typer.Typer(
    name="rng",
    help="Lab tools for the RNG and the shuffle: raw generator output and shuffled packs (docs/rng.md).",
    no_args_is_help=True,
    add_completion=False,
)

#: Bytes per call to the generator when streaming raw output (64 KiB: one os.urandom call each).
RAW_CHUNK = 1 << 16
#: Cut styles of the production shoe: the regulation's cutter in the window (BJ/PyB/M21) or Showdown's.
CUTS = ("window", "one-handed")
#: The n of the scaled-integer tests: a power of two, small odd n, a deck, an 8-deck pack, a round 1000.
INTEGER_RANGES = (2, 3, 7, 52, 416, 1000)
#: The pack whose cut window is tested: 8 decks, the largest shoe (cut uniform in [40, 376]).
CUT_TEST_PACK = 8 * 52
#: The lab's confidence: 99%, shared by every test of the battery with Bonferroni's correction.
LAB_ALPHA = 0.01

Shuffle = Callable[[list[int], RandomSource], None]
IntArray = npt.NDArray[np.int64]


def raw_chunks(total: int, rng: SecureRandom | None = None, chunk: int = RAW_CHUNK) -> Iterator[bytes]:
    """`total` bytes of the live generator's raw output in chunks (endless when `total` is 0).

    The bytes are ``SecureRandom.raw_bits`` (``SystemRandom.getrandbits``: os.urandom's bytes read as
    one big-endian integer), written back big-endian, so they are exactly the OS CSPRNG's bytes that
    ``randbelow`` scales by rejection, with nothing between.
    """
    source = rng or SecureRandom()
    left = total
    while total == 0 or left > 0:
        n = chunk if total == 0 else min(chunk, left)
        yield source.raw_bits(8 * n).to_bytes(n, "big")
        left -= n


def shuffled_pack(decks: int, rng: SecureRandom, *, one_handed_cut: bool = False) -> list[str]:
    """One pack as a live table's shoe holds it after the shuffle and the cut: the order the cards leave
    the shoe, the burned card(s) first.

    Built by the production `Shoe` (live, CSPRNG: Fisher-Yates, then the cut) with no burn and no cut
    card, then drawn out card by card through `Shoe.draw`: the burn only takes the first cards of this
    same order, so the whole permutation is what the lab must see.
    """
    shoe = Shoe(decks, rng, cut_card_depth=None, burn=0, live=True, one_handed_cut=one_handed_cut)
    return [NAMES[shoe.draw()] for _ in range(shoe.size)]


@contextmanager
def _binary_out(out: Path | None) -> Iterator[BinaryIO]:
    if out is None:
        yield sys.stdout.buffer
        return
    with out.open("wb") as fh:
        yield fh


@contextmanager
def _text_out(out: Path | None) -> Iterator[TextIO]:
    if out is None:
        yield sys.stdout
        return
    with out.open("w", encoding="ascii", newline="\n") as fh:
        yield fh


@rng_app.command()
def raw(
    nbytes: Annotated[
        int, typer.Option("--bytes", min=0, help="how many bytes (0 = until the reader stops reading)")
    ],
    out: Annotated[Path | None, typer.Option("--out", help="write to this file instead of stdout")] = None,
) -> None:
    """Raw output of the live generator (OS CSPRNG bits before any scaling), as binary bytes."""
    try:
        with _binary_out(out) as fh:
            for block in raw_chunks(nbytes):
                fh.write(block)
            fh.flush()
    except BrokenPipeError:
        # The reader (dieharder, head) stopped reading: that is the normal end of an endless stream.
        _silence_stdout()


@rng_app.command()
def shuffles(
    decks: Annotated[int, typer.Option("--decks", min=1, max=8, help="decks in the pack (1-8)")] = 1,
    count: Annotated[int, typer.Option("--count", min=1, help="how many packs")] = 1,
    cut: Annotated[
        str, typer.Option("--cut", help="window (BJ/PyB/M21: 40 from either end) or one-handed (Showdown)")
    ] = "window",
    out: Annotated[Path | None, typer.Option("--out", help="write to this file instead of stdout")] = None,
) -> None:
    """Packs shuffled and cut by the production shoe, one per line, cards in dealing order (burn first)."""
    if cut not in CUTS:
        typer.echo(f"--cut must be one of {', '.join(CUTS)}, got {cut!r}", err=True)
        raise typer.Exit(2)
    rng = SecureRandom()
    one_handed = cut == "one-handed"
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("shuffling"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=count < 1000 or not console.is_terminal,
    )
    try:
        with _text_out(out) as fh, progress:
            task = progress.add_task("packs", total=count)
            for i in range(count):
                fh.write(" ".join(shuffled_pack(decks, rng, one_handed_cut=one_handed)) + "\n")
                if i % 100 == 99:
                    progress.advance(task, 100)
            progress.update(task, completed=count)
            fh.flush()
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


# ---------------------------------------------------------------------------------------------------
# Statistics: the lab's tests, written once for the suite and for `tapete rng battery`.


@dataclass(frozen=True, slots=True)
class StatResult:
    """One statistical test's outcome: `statistic` is chi-square (with `df`) or a z score (df None)."""

    name: str
    statistic: float
    df: int | None
    p_value: float
    samples: int

    def passed(self, threshold: float) -> bool:
        """True when the p-value is not below the per-test threshold (the null is not rejected)."""
        return self.p_value >= threshold


def bonferroni(alpha: float, k: int) -> float:
    """Per-test level that keeps the chance of any false rejection among `k` tests at most `alpha`."""
    return alpha / k


def chi2_sf(x: float, df: int) -> float:
    """Chi-square survival function P(X >= x), X ~ chi2(df): the regularized upper incomplete gamma
    Q(df/2, x/2) by its series (x < a + 1) or Lentz's continued fraction (Numerical Recipes 6.2)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    a, z = df / 2.0, x / 2.0
    if z <= 0.0:
        return 1.0
    log_front = -z + a * math.log(z) - math.lgamma(a)
    tiny, eps = 1e-300, 1e-16
    if z < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1.0
            term *= z / ap
            total += term
            if term < total * eps:
                return max(0.0, 1.0 - math.exp(log_front + math.log(total)))
        raise ArithmeticError(f"chi2_sf series did not converge for x={x}, df={df}")
    b = z + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return math.exp(log_front) * h
    raise ArithmeticError(f"chi2_sf continued fraction did not converge for x={x}, df={df}")


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def pearson(counts: npt.ArrayLike, expected: float, df: int, name: str, samples: int) -> StatResult:
    """Pearson's chi-square of `counts` against a constant expected count per cell."""
    obs = np.asarray(counts, dtype=np.float64)
    stat = float(((obs - expected) ** 2).sum() / expected)
    return StatResult(name, stat, df, chi2_sf(stat, df), samples)


def collect_shuffles(
    count: int, size: int = 52, *, shuffle: Shuffle = fisher_yates, rng: RandomSource | None = None
) -> IntArray:
    """`count` shuffles of a factory-order pack of `size` distinct cards by `shuffle` (the production
    `fisher_yates` unless a test injects another): row s, column p = the card at position p."""
    source = rng or SecureRandom()
    out = np.empty((count, size), dtype=np.int64)
    for s in range(count):
        cards = list(range(size))
        shuffle(cards, source)
        out[s] = cards
    return out


def card_by_position(perms: IntArray) -> StatResult:
    """Chi-square of the card x position table over many shuffles: every card equally likely at every
    position. Rows and columns each sum to the number of shuffles, so df = (n - 1)^2."""
    count, n = perms.shape
    cells = perms * n + np.arange(n)[None, :]
    table = np.bincount(cells.ravel(), minlength=n * n)
    return pearson(table, count / n, (n - 1) ** 2, "card by position", count)


def card_at(perms: IntArray, position: int, name: str) -> StatResult:
    """Chi-square of which card lies at `position` (0 = first dealt, -1 = last): uniform, df = n - 1."""
    count, n = perms.shape
    table = np.bincount(perms[:, position], minlength=n)
    return pearson(table, count / n, n - 1, name, count)


def draw_integers(n: int, count: int, rng: RandomSource | None = None) -> IntArray:
    """`count` scaled integers in [0, n) from the production ``randbelow``."""
    source = rng or SecureRandom()
    randbelow = source.randbelow
    return np.fromiter((randbelow(n) for _ in range(count)), dtype=np.int64, count=count)


def uniform_integers(values: IntArray, n: int, name: str | None = None) -> StatResult:
    """Chi-square of integers that should be uniform on [0, n): df = n - 1."""
    table = np.bincount(values, minlength=n)
    if table.size != n:
        raise ValueError(f"values outside [0, {n})")
    return pearson(table, values.size / n, n - 1, name or f"randbelow({n})", int(values.size))


def serial_correlation(values: IntArray, name: str = "serial correlation") -> StatResult:
    """Lag-1 serial correlation r of consecutive outputs; for independent draws sqrt(m) * r is close to
    a standard normal (its mean -1/m is subtracted), so the statistic is that z, tested two-sided."""
    x = values.astype(np.float64)
    m = x.size
    c = x - x.mean()
    r = float((c[:-1] * c[1:]).sum() / (c * c).sum())
    z = (r + 1.0 / m) * math.sqrt(m)
    return StatResult(name, z, None, normal_two_sided(z), m)


def cut_window(cuts: IntArray, size: int = CUT_TEST_PACK, margin: int = MIN_CUT_FROM_END) -> StatResult:
    """Chi-square of cut positions over the window [margin, size - margin] (rules.md §0 [A])."""
    width = size - 2 * margin + 1
    shifted = cuts - margin
    if shifted.min(initial=0) < 0 or shifted.max(initial=0) >= width:
        return StatResult(f"cut window ({size} cards)", math.inf, width - 1, 0.0, int(cuts.size))
    return uniform_integers(shifted, width, f"cut window ({size} cards)")


def draw_cuts(count: int, rng: RandomSource | None = None, size: int = CUT_TEST_PACK) -> IntArray:
    """`count` cut positions from the production `cut_point` for a pack of `size` cards."""
    source = rng or SecureRandom()
    return np.fromiter((cut_point(size, source) for _ in range(count)), dtype=np.int64, count=count)


def run_battery(
    shuffles: int,
    draws: int,
    *,
    rng: RandomSource | None = None,
    shuffle: Shuffle = fisher_yates,
    ranges: Sequence[int] = INTEGER_RANGES,
    progress: Callable[[str], None] | None = None,
) -> list[StatResult]:
    """The lab battery on the production paths: card by position, first and last card over `shuffles`
    one-deck shuffles; randbelow(n) uniformity for each n in `ranges`, the serial correlation of
    randbelow(52) and the 8-deck cut window over `draws` draws each. Test it at `bonferroni(alpha, k)`."""
    source = rng or SecureRandom()
    note = progress or (lambda _step: None)
    note("shuffles")
    perms = collect_shuffles(shuffles, shuffle=shuffle, rng=source)
    results = [card_by_position(perms), card_at(perms, 0, "first card"), card_at(perms, -1, "last card")]
    for n in ranges:
        note(f"randbelow({n})")
        results.append(uniform_integers(draw_integers(n, draws, source), n))
    note("serial correlation")
    results.append(serial_correlation(draw_integers(52, draws, source), "serial randbelow(52)"))
    note("cut window")
    results.append(cut_window(draw_cuts(draws, source)))
    return results


@rng_app.command()
def battery(
    shuffles: Annotated[
        int, typer.Option("--shuffles", min=260, help="one-deck shuffles (>= 5 expected per cell)")
    ] = 20_000,
    draws: Annotated[
        int, typer.Option("--draws", min=5000, help="draws per integer test (>= 5 expected per cell)")
    ] = 40_000,
    alpha: Annotated[
        float, typer.Option("--alpha", min=1e-12, max=0.5, help="family-wise level (0.01 = 99%)")
    ] = LAB_ALPHA,
) -> None:
    """The statistical battery of docs/rng.md on the production shuffle and generator (exit 1 on a
    failure): each of the k tests at alpha / k (Bonferroni), so all pass together at 1 - alpha."""
    console = Console(stderr=True)
    with console.status("running the battery ...") as status:
        results = run_battery(shuffles, draws, progress=lambda step: status.update(f"battery: {step}"))
    k = len(results)
    level = bonferroni(alpha, k)
    table = Table(title=f"{k} tests, each at p >= {alpha:g}/{k} = {level:.3g} (Bonferroni, family {alpha:g})")
    for col in ("test", "samples", "statistic", "df", "p-value", "result"):
        table.add_column(col, justify="left" if col == "test" else "right")
    failed = 0
    for r in results:
        ok = r.passed(level)
        failed += not ok
        df = "z" if r.df is None else str(r.df)
        table.add_row(
            r.name, str(r.samples), f"{r.statistic:.3f}", df, f"{r.p_value:.4f}", "PASS" if ok else "FAIL"
        )
    Console().print(table)
    typer.echo(f"{k - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)
