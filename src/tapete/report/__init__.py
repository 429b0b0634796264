"""`tapete report GAME -o DIR`: the document an operator hands the regulator, as HTML with PNG figures.

One page per table's settings, printable on A4 as it is: the rules as the table runs them (article by
article, every [A] choice), the exact house edge and return of every bet with its outcome probabilities
and standard deviation, the strategy, the distribution of a player's result over a session, the
simulation's cross-check of every exact figure (and the kernel's round-by-round check against the
engine), the software's version and the command that reproduces the report. The same command gives the
same numbers (seeded simulation); only the date changes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import platform
import shlex
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import tapete
from tapete.report import page as html
from tapete.report.content import (
    BET_LABELS,
    GAME_NAMES,
    REGULATIONS,
    exact_figures,
    rules_of,
    settings_table,
)

ProgressFn = Callable[[str], None]
#: Rounds simulated for the cross-check by default (a few seconds of one core each).
DEFAULT_ROUNDS = {
    "punto_y_banca": 20_000_000,
    "blackjack": 10_000_000,
    "majestic_21": 10_000_000,
    "showdown_poker": 2_000_000,
}
#: Bets shown in the session plot (an insurance is not a bet placed every round).
SESSION_BETS = {
    "blackjack": ("main",),
    "majestic_21": ("main", "under_13", "over_13", "exactly_13"),
    "punto_y_banca": ("punto", "banca", "empate"),
    "showdown_poker": ("bet", "bonus", "pot"),
}
REPORT_FILE = "report.html"


@dataclasses.dataclass(frozen=True)
class ReportOptions:
    """How much to simulate: `rounds` for the cross-check (None = `DEFAULT_ROUNDS`), `sessions` sessions
    of `session_rounds` rounds for the distribution of a player's result, `engine_rounds` rounds replayed
    on the engine, all from `seed`; `workers` processes."""

    rounds: int | None = None
    seed: int = 1
    sessions: int = 10_000
    session_rounds: int = 200
    engine_rounds: int = 2_000
    workers: int = 1

    def arguments(self, game: str) -> list[str]:
        """The options as command-line arguments (every one explicit, so the command reproduces)."""
        return [
            "--rounds",
            str(self.rounds or DEFAULT_ROUNDS[game]),
            "--seed",
            str(self.seed),
            "--sessions",
            str(self.sessions),
            "--session-rounds",
            str(self.session_rounds),
            "--engine-rounds",
            str(self.engine_rounds),
        ]


def command_line(game: str, rules_file: Path | None, out_dir: Path, options: ReportOptions) -> str:
    """The exact command that reproduces a report (workers change the speed, not the numbers)."""
    args = ["tapete", "report", game]
    if rules_file is not None:
        args += ["--rules", str(rules_file)]
    args += ["-o", str(out_dir), *options.arguments(game)]
    return shlex.join(args)


def session_results(plan: Any, sessions: int, length: int, seed: int) -> npt.NDArray[np.float64]:
    """A player's (seat 1's) net result per bet after each of `sessions` sessions of `length` rounds over
    the regulation's shoe, in units of the bet. Played in batches from their own streams (chunk numbers
    from 1,000,000 up, apart from the cross-check's)."""
    from tapete.sim.kernels.rng import seed_state

    batch = max(1, 200_000 // length) * length
    total = sessions * length
    stakes = np.array(plan.stakes, dtype=np.float64)
    out = []
    for i, start in enumerate(range(0, total, batch)):
        n = min(batch, total - start)
        record = plan.new_record(n, nets_only=True)
        plan.play(i, n, seed_state(seed, 1_000_000 + i), record)
        nets = plan.round_nets(record)[:, :, 0].astype(np.float64)
        out.append(nets.reshape(n // length, length, nets.shape[1]).sum(axis=1) / stakes)
    return np.concatenate(out)


def _software() -> str:
    """The version, and the source's git commit when the package runs from a checkout."""
    here = Path(tapete.__file__).resolve().parent
    version = f"tapete {tapete.__version__}"
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        version += f" (commit {commit}{', with local changes' if dirty else ''})"
    except (OSError, subprocess.SubprocessError):
        pass
    import matplotlib
    import numba

    return (
        f"{version}; Python {platform.python_version()}, NumPy {np.__version__}, Numba {numba.__version__}, "
        f"matplotlib {matplotlib.__version__}"
    )


def _showdown_summary(analysis: Any) -> list[tuple[str, float, list[tuple[str, float]]]]:
    """The optimal exchange by kind of starting hand: (kind, share of hands, [(play, share in kind)])."""
    from collections import defaultdict

    def prank(c: int) -> int:
        return (c // 4 + 12) % 13

    def kind(cards: tuple[int, ...]) -> str:
        ranks = sorted(prank(c) for c in cards)
        suited = len({c % 4 for c in cards}) == 1
        if ranks[0] == ranks[2]:
            return "Three of a kind"
        if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
            return "Pair of jacks or better" if ranks[1] >= 9 else "Pair of 2s to 10s"
        lows = sorted(-1 if r == 12 else r for r in ranks)
        straightish = ranks[2] - ranks[0] <= 4 or lows[2] - lows[0] <= 4
        if suited and straightish:
            return "Three to a straight flush"
        if suited:
            return "Three to a flush"
        if straightish:
            return "Three to a straight"
        return "No draw, a jack or better" if ranks[2] >= 9 else "No draw, no jack or better"

    def play(kept: tuple[int, ...]) -> str:
        if len(kept) == 3:
            return "keep all three"
        if not kept:
            return "exchange all three"
        if len(kept) == 2:
            if prank(kept[0]) == prank(kept[1]):
                return "keep the pair"
            return "keep two suited cards" if kept[0] % 4 == kept[1] % 4 else "keep two cards"
        r = prank(kept[0])
        return "keep the ace" if r == 12 else "keep one J, Q or K" if r >= 9 else "keep one card below J"

    order = [
        "Three of a kind",
        "Pair of jacks or better",
        "Pair of 2s to 10s",
        "Three to a straight flush",
        "Three to a flush",
        "Three to a straight",
        "No draw, a jack or better",
        "No draw, no jack or better",
    ]
    weight: dict[str, float] = defaultdict(float)
    plays: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for hand in analysis.strategy:
        k = kind(hand.cards)
        weight[k] += hand.combos
        plays[k][play(hand.keep)] += hand.combos
    total = sum(weight.values())
    return [
        (k, weight[k] / total, sorted(((p, w / weight[k]) for p, w in plays[k].items()), key=lambda x: -x[1]))
        for k in order
        if weight.get(k)
    ]


def build_report(
    game: str,
    rules_file: Path | None,
    out_dir: Path,
    options: ReportOptions | None = None,
    progress: ProgressFn | None = None,
) -> Path:
    """Write `out_dir`/report.html and its figures for `game` under the settings of `rules_file`."""
    from tapete.math.analyze import analyze, read_settings
    from tapete.report import plots
    from tapete.rules import load_rules
    from tapete.sim.crosscheck import cross_check
    from tapete.sim.fast import run_plan
    from tapete.sim.kernels import make_plan

    opts = options or ReportOptions()
    say = progress or (lambda _msg: None)
    settings = read_settings(rules_file)
    rules = load_rules(game, settings)  # a report is for a table the regulation allows
    out_dir.mkdir(parents=True, exist_ok=True)
    rounds = opts.rounds or DEFAULT_ROUNDS[game]
    command = command_line(game, rules_file, out_dir, opts)

    say("exact analysis")
    doc = analyze(game, settings, strategy=True)
    figures = exact_figures(game, rules, doc)

    say("simulation plan (strategy tables)")
    plan = make_plan(game, settings)
    say(f"simulating {rounds:,} rounds over the regulation's shoe")
    shoe = run_plan(plan, rounds, opts.seed, workers=opts.workers).to_json()
    full: dict[str, Any] | None = None
    if game != "showdown_poker":  # Showdown shuffles before every round anyway (Art.7)
        say(f"simulating {rounds:,} rounds from a full shoe")
        full_plan = dataclasses.replace(plan, full_shoe=True)  # type: ignore[type-var]
        full = run_plan(full_plan, rounds, opts.seed, workers=opts.workers).to_json()
    say(f"playing {opts.engine_rounds:,} kernel rounds again on the engine")
    check = cross_check(plan, opts.engine_rounds, opts.seed)
    say(f"{opts.sessions:,} sessions of {opts.session_rounds} rounds")
    sessions = session_results(plan, opts.sessions, opts.session_rounds, opts.seed)

    say("figures")
    names = list(plan.bets)
    shown = [n for n in SESSION_BETS[game] if n in names]
    idx = [names.index(n) for n in shown]
    session_stats = plots.session_plot(
        out_dir / "session.png",
        sessions[:, idx],
        shown,
        [BET_LABELS[n] for n in shown],
        opts.session_rounds,
    )
    cross_rows = []
    for f in figures:
        s = shoe["bets"][f.name]
        cross_rows.append(
            {
                "name": f.name,
                "label": f.label,
                "exact": f.edge,
                "full": full["bets"][f.name] if full else None,
                "shoe": s,
                "n": s["n"],
            }
        )
    plots.crosscheck_plot(out_dir / "crosscheck.png", cross_rows)
    sections = [
        html.rules_section(rules_of(game, rules), settings_table(rules)),
        html.figures_section(figures, {name: bet["sd"] for name, bet in (full or shoe)["bets"].items()}),
        _strategy_section(game, doc, shoe, out_dir),
        _session_section(shown, session_stats, opts),
        html.crosscheck_section(cross_rows, _engine_line(check, plan), rounds, full is None)
        + f'<figure><img src="crosscheck.png" alt="house edges: exact and simulated" '
        f'style="width: {min(100, 34 * len(cross_rows))}%"><figcaption>Exact house edge (line) and simulated '
        "edges with their 95 % intervals: full shoe (dark), regulation shoe (light).</figcaption></figure>",
        _about_section(command, opts, plan, rounds),
    ]
    facts = [
        ("Game", f"{html._e(GAME_NAMES[game])} — {html._e(REGULATIONS[game])}"),
        ("Regulation's game", '<span class="ok">yes</span>: every setting within the regulation\'s bounds'),
        ("Settings", _settings_source(rules_file)),
        ("Software", html._e(_software())),
        ("Generated", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("Reproduce", html.command_html(command)),
    ]
    text = html.page(
        f"{GAME_NAMES[game]}: the table's rules and mathematics",
        "Operator's report for the regulator (MINCETUR), produced by tapete from the engine that runs the "
        "table.",
        facts,
        sections,
        f"{html._e(_software())} · {html.command_html(command)}",
    )
    path = out_dir / REPORT_FILE
    path.write_text(text, encoding="utf-8")
    return path


def _settings_source(rules_file: Path | None) -> str:
    if rules_file is None:
        return "the defaults of the regulation digest (no settings file)"
    data = rules_file.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    return f"<code>{html._e(rules_file)}</code>, SHA-256 <code>{digest[:16]}…</code>"


def _engine_line(check: Any, plan: Any) -> str:
    status = (
        '<span class="ok">every round agreed</span>'
        if check.ok
        else f'<span class="bad">{len(check.mismatches)} disagreements</span>'
    )
    return (
        f"The simulation kernel plays the engine's round. {check.rounds:,} of its rounds at this table "
        f"({plan.seats} {'seat' if plan.seats == 1 else 'seats'}) were replayed on the engine as "
        f"forced-outcome scenarios (the same cards and decisions): {status} ({check.compared:,} results "
        "compared)."
    )


def _strategy_section(game: str, doc: dict[str, Any], shoe: dict[str, Any], out_dir: Path) -> str:
    from tapete.report import plots

    analysis = doc.get("_analysis")
    if game == "punto_y_banca":
        return html.baccarat_chart()
    assert analysis is not None
    if game == "showdown_poker":
        from tapete.math.showdown import OUTCOMES

        ex = ", ".join(f"{k}: {float(v) * 100:.2f} %" for k, v in analysis.exchanges.items())
        inc = ", ".join(f"{k}: {float(v) * 100:.2f} %" for k, v in analysis.increments.items())
        sim = shoe["bets"]["bet"]["outcomes"]
        exact = [float(analysis.final_hands[o]) for o in OUTCOMES]
        plots.hands_plot(out_dir / "hands.png", OUTCOMES, exact, [sim[o] for o in OUTCOMES])
        freqs = (
            f"<p>Cards exchanged (0, 1, 2, 3): {ex}. Increments made (none, Nº1 only, both): {inc} — exact; "
            "the simulation's: "
            + ", ".join(f"{sim[f'exchanged_{k}'] * 100:.2f} %" for k in range(4))
            + " and "
            + ", ".join(f"{sim[f'increments_{k}'] * 100:.2f} %" for k in range(3))
            + '.</p><figure><img src="hands.png" alt="final hands"><figcaption>The final hand\'s '
            "distribution under the optimal play: exact and simulated.</figcaption></figure>"
        )
        return html.showdown_chart(_showdown_summary(analysis), freqs)
    return html.blackjack_chart(analysis.chart(), analysis.multi_card_exceptions(), game == "majestic_21")


def _session_section(names: list[str], stats: list[dict[str, float]], opts: ReportOptions) -> str:
    rows = [
        [
            html._e(BET_LABELS[n]),
            f"{s['mean']:+.2f}",
            f"{s['sd']:.2f}",
            html.signed(s["q05"]),
            html.signed(s["q25"]),
            html.signed(s["median"]),
            html.signed(s["q75"]),
            html.signed(s["q95"]),
            f"{s['ahead'] * 100:.1f} %",
        ]
        for n, s in zip(names, stats, strict=True)
    ]
    return (
        "<h2>4. A player's result over a session</h2>"
        f"<p>A player bets one unit on each bet every round for a session of {opts.session_rounds} rounds "
        f"over the regulation's shoe; {opts.sessions:,} sessions simulated. His net result in units "
        "(negative: he lost):</p>"
        + html.table(
            ["Bet", "Mean", "Std. dev.", "5 %", "25 %", "Median", "75 %", "95 %", "Ahead"],
            rows,
            num=(1, 2, 3, 4, 5, 6, 7, 8),
        )
        + '<figure><img src="session.png" alt="distribution of a session\'s result"><figcaption>Distribution '
        "of the session's net result (dashed: the 5 % and 95 % points; red: the mean; the most extreme "
        "1 % of sessions counted in the end bins).</figcaption></figure>"
    )


def _about_section(command: str, opts: ReportOptions, plan: Any, rounds: int) -> str:
    return (
        "<h2>6. How this report was made</h2>"
        "<p>The exact figures come from <code>tapete analyze</code> (integer enumeration and exact fractions "
        "for Punto y Banca, the Majestic 21 side bets and insurances and Showdown Póker; a finite-shoe "
        "combinatorial analysis for the Black Jack main bet). The simulations are tapete's compiled kernels "
        "(Numba), which play the engine's rounds card for card over the table's own shoe (shuffle, cut, cut "
        "card, burn, the last round when the cut card comes out), each seat betting "
        f"{plan.stakes[0]:,} units; generator xoshiro256** seeded through NumPy's SeedSequence (seed "
        f"{opts.seed}), in chunks of one million rounds, so the same command gives the same numbers on any "
        "number of cores or machines.</p>"
        f"<p>To reproduce it: {html.command_html(command)}</p>"
    )
