"""The report's HTML page: one self-contained file (its style inline, its figures beside it as PNG),
laid out for an A4 page so that the browser's print gives the document the regulator receives."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from html import escape
from typing import Any

from tapete.report.content import BetFigures, Rule, Setting

CSS = """
@page { size: A4; margin: 14mm 15mm 16mm 15mm;
        @bottom-right { content: "page " counter(page) " of " counter(pages); font-size: 8pt; color: #4a5568;
                        font-family: "DejaVu Sans", Arial, sans-serif; }
        @bottom-left { content: "tapete — operator's report"; font-size: 8pt; color: #4a5568;
                       font-family: "DejaVu Sans", Arial, sans-serif; } }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 9.5pt; line-height: 1.35;
       color: #1b2a41; margin: 0 auto; max-width: 180mm; background: #fff; }
h1 { font-size: 17pt; margin: 0 0 2mm 0; }
h2 { font-size: 12.5pt; margin: 7mm 0 2mm 0; padding-bottom: 1mm; border-bottom: 0.6mm solid #1b2a41;
     break-after: avoid; }
h3 { font-size: 10.5pt; margin: 4mm 0 1.5mm 0; break-after: avoid; }
p { margin: 1.5mm 0; }
.sub { color: #4a5568; margin: 0 0 3mm 0; }
table { border-collapse: collapse; width: 100%; margin: 1.5mm 0 3mm 0; break-inside: auto; }
tr { break-inside: avoid; }
th, td { border: 0.2mm solid #c8cdd5; padding: 0.8mm 1.6mm; vertical-align: top; text-align: left; }
th { background: #eef1f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code.code { font-family: "DejaVu Sans Mono", monospace; font-size: 8pt; }
code.code .arg { white-space: nowrap; }
.facts td:first-child { width: 38mm; color: #4a5568; }
table.settings td:nth-child(1) { width: 24%; } table.settings td:nth-child(2) { width: 22%; }
table.settings td:nth-child(3) { width: 16%; }
.tag { display: inline-block; font-size: 7.5pt; padding: 0 1.2mm; border-radius: 0.8mm; background: #f4e3c1;
       color: #6b4a00; font-weight: 600; }
.ok { color: #1e7b3a; font-weight: 600; }
.bad { color: #b5473a; font-weight: 600; }
.note { color: #4a5568; font-size: 8.5pt; }
figure { margin: 2mm 0 4mm 0; break-inside: avoid; }
figure img { width: 100%; height: auto; display: block; }
figcaption { font-size: 8.5pt; color: #4a5568; margin-top: 1mm; }
.chart { width: auto; margin: 1mm 0 2mm 0; }
.chart th, .chart td { padding: 0.3mm 0.9mm; text-align: center; font-size: 8pt; white-space: nowrap; }
.chart td.H { background: #f3b6ad; } .chart td.S { background: #f7e08a; }
.chart td.D, .chart td.Ds { background: #a9d8a6; } .chart td.P { background: #a9c6e8; }
.chart td.Rh, .chart td.Rs, .chart td.Rp { background: #c9c9c9; }
.legend span { display: inline-block; padding: 0 1.5mm; margin-right: 1.5mm; font-size: 8pt; }
.two { display: flex; gap: 3mm; align-items: flex-start; justify-content: space-between; }
.section { break-inside: auto; }
.keep { break-inside: avoid; }
footer { margin-top: 8mm; font-size: 8pt; color: #4a5568; border-top: 0.2mm solid #c8cdd5; padding-top: 2mm; }
"""


def _e(x: object) -> str:
    return escape(str(x))


def command_html(command: str) -> str:
    """A command line that wraps only between its arguments (never after an option's "--")."""
    parts = (f'<span class="arg">{_e(a)}</span>' for a in command.split(" "))
    return f'<code class="code">{" ".join(parts)}</code>'


def signed(x: float) -> str:
    """A whole number with its sign, zero without one (no "-0")."""
    r = round(x)
    return "0" if r == 0 else f"{r:+d}"


def pct(x: float | None, digits: int = 4) -> str:
    """A fraction as a percentage, e.g. 0.0105791 -> '1.0579 %'."""
    return "—" if x is None else f"{x * 100:.{digits}f} %"


def _frac(f: Fraction | None) -> str:
    return "—" if f is None else f"{f.numerator:,}/{f.denominator:,}".replace(",", "\u2009")


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "", num: Sequence[int] = ()) -> str:
    """An HTML table; `rows` hold ready HTML; columns in `num` are right-aligned numbers."""
    out = [f'<table class="{cls}">' if cls else "<table>", "<thead><tr>"]
    out += [f'<th class="num">{h}</th>' if i in num else f"<th>{h}</th>" for i, h in enumerate(head)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append(
            "<tr>"
            + "".join(f'<td class="num">{c}</td>' if i in num else f"<td>{c}</td>" for i, c in enumerate(row))
            + "</tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def tag(rule: Rule | Setting) -> str:
    """The [A] marker of an assumption."""
    return ' <span class="tag">[A]</span>' if rule.assumed else ""


def rules_section(rules: Sequence[Rule], settings: Sequence[Setting]) -> str:
    """The rules as the table runs them, then every operator setting."""
    body = [
        "<h2>1. The rules as this table runs them</h2>",
        '<p class="note">Each rule with its article of the regulation. <span class="tag">[A]</span> marks '
        "an assumption where the recovered gazette pages are silent: an operator setting, or the standard "
        "practice, with the default given by tapete's rules digest (<i>shared/spec/rules.md</i>).</p>",
        table(["Article", "Rule"], ([_e(r.article), _e(r.text) + tag(r)] for r in rules)),
        "<h3>Operator settings</h3>",
        table(
            ["Setting", "This table", "Default", "Source"],
            (
                [
                    f"<code>{_e(s.key)}</code>",
                    (_e(s.in_force) if s.in_force else _value(s.value))
                    + ("" if s.is_default else ' <span class="bad">(changed)</span>'),
                    _value(s.default),
                    _e(s.description) + tag(s),
                ]
                for s in settings
            ),
            cls="settings",
        ),
    ]
    return "\n".join(body)


def _value(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, dict):
        return ", ".join(f"{_e(k)} {_e(x)}" for k, x in v.items())
    if isinstance(v, bool):
        return "yes" if v else "no"
    return _e(v)


def figures_section(figs: Sequence[BetFigures], simulated_sd: dict[str, float]) -> str:
    """Exact house edge and return of every bet, with its outcome probabilities and deviation."""
    rows = []
    for f in figs:
        sd = f.sd if f.sd is not None else simulated_sd.get(f.name)
        sd_text = "—" if sd is None else f"{sd:.4f}" + ("" if f.sd_exact else " (sim.)")
        rows.append(
            [
                _e(f.label),
                pct(f.edge),
                (
                    f"<small>{_frac(f.edge_exact) if f.edge_exact is not None else 'exact (float)'}</small>"
                    if f.exact
                    else "not exact"
                ),
                pct(f.rtp, 3),
                sd_text,
                _e(f.per),
            ]
        )
    out = [
        "<h2>2. House edge, return and outcome probabilities</h2>",
        '<p class="note">House edge: the expected loss per unit of the bet, positive when the house gains; '
        "return to player = 1 − house edge. Standard deviation: of one round's result, per unit of the bet; "
        "exact unless marked (sim.), in which case it is the simulation's (section 5).</p>",
        table(["Bet", "House edge", "Exact", "Return", "Std. dev.", "Per"], rows, num=(1, 3, 4)),
    ]
    for f in figs:
        if not f.outcomes and not f.note:
            continue
        out.append(f'<div class="keep"><h3>{_e(f.label)}</h3>')
        if f.outcomes:
            out.append(
                table(
                    ["Outcome", "Probability", "Pays"],
                    ([_e(o), f"{p * 100:.4f} %", _e(pays)] for o, p, pays in f.outcomes),
                    num=(1,),
                )
            )
        if f.note:
            out.append(f'<p class="note">{_e(f.note)}</p>')
        out.append("</div>")
    return "\n".join(out)


UPS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
LEGEND = {
    "H": "hit (pedir)",
    "S": "stand (plantarse)",
    "D": "double, else hit",
    "Ds": "double, else stand",
    "P": "split (separación)",
    "Rh": "retiro, else hit",
    "Rs": "retiro, else stand",
    "Rp": "retiro, else split",
}


def blackjack_chart(
    rows: Sequence[tuple[str, Sequence[str]]], exceptions: Sequence[str], majestic: bool
) -> str:
    """The basic strategy chart (the analyzer's, for this table), colour-coded, with its legend."""
    hard = [r for r in rows if r[0].startswith("hard")]
    soft = [r for r in rows if r[0].startswith("soft")]
    pairs = [r for r in rows if "-" in r[0]]

    def block(title: str, part: Sequence[tuple[str, Sequence[str]]]) -> str:
        head = "".join(f"<th>{u}</th>" for u in UPS)
        body = "".join(
            f"<tr><th>{_e(label.split(' ')[-1])}</th>"
            + "".join(f'<td class="{_e(c)}">{_e(c)}</td>' for c in codes)
            + "</tr>"
            for label, codes in part
        )
        return (
            f'<div><h3>{title}</h3><table class="chart"><thead><tr><th></th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>"
        )

    legend = " ".join(
        f'<span class="{k}" style="background:{_bg(k)}">{k} {v}</span>' for k, v in LEGEND.items()
    )
    out = [
        "<h2>3. Strategy</h2>",
        "<p>The total-dependent basic strategy the exact house edge assumes, computed for this table's "
        "settings (columns: the dealer's up-card). "
        + (
            "It is the main game's; the side bets and insurances are separate bets and change no decision. "
            if majestic
            else ""
        )
        + "</p>",
        f'<div class="legend">{legend}</div>',
        '<div class="two">'
        + block("Hard totals", hard)
        + block("Soft totals", soft)
        + block("Pairs", pairs)
        + "</div>",
    ]
    if exceptions:
        out.append(
            '<p class="note">Hands of three or more cards where the analysis stands or hits otherwise than '
            "the chart's row: " + _e("; ".join(exceptions)) + ".</p>"
        )
    return "\n".join(out)


def _bg(code: str) -> str:
    return {"H": "#f3b6ad", "S": "#f7e08a", "D": "#a9d8a6", "Ds": "#a9d8a6", "P": "#a9c6e8"}.get(
        code, "#c9c9c9"
    )


def baccarat_chart() -> str:
    """Art.11's drawing table for Banca, as `tapete.math.baccarat.banca_draws` plays it."""
    from tapete.math.baccarat import banca_draws

    def cell(draws: bool) -> str:
        return f'<td class="{"H" if draws else "S"}">{"D" if draws else "S"}</td>'

    rows = []
    for b in range(8):
        cells = cell(banca_draws(b, None)) + "".join(cell(banca_draws(b, x)) for x in range(10))
        rows.append(f"<tr><th>{b}</th>{cells}</tr>")
    head = "<th>stood</th>" + "".join(f"<th>{x}</th>" for x in range(10))
    return (
        "<h2>3. The drawing rules (Art.11)</h2>"
        "<p>Nobody decides anything in Punto y Banca. A natural 8 or 9 on either side: nobody draws; Punto "
        "draws on 0-5 and stands on 6-7; Banca then draws (D) or stands (S) by its two-card total (rows) "
        "and Punto's third card (columns: Punto stood, or the value of his third card):</p>"
        '<table class="chart"><thead><tr><th rowspan="2">Banca</th><th>Punto</th>'
        '<th colspan="10">Punto\'s third card</th></tr>'
        f"<tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def showdown_chart(summary: Sequence[tuple[str, float, list[tuple[str, float]]]], freqs: str) -> str:
    """The optimal exchange summarised by starting hand, and the increments."""
    rows = []
    for start, share, plays in summary:
        shown = "; ".join(f"{_e(p)} {s * 100:.1f} %" for p, s in plays if s >= 0.0005)
        rows.append([_e(start), f"{share * 100:.2f} %", shown])
    return (
        "<h2>3. Strategy</h2>"
        "<p>The exact optimal play (the exchange of every one of the 22,100 starting hands, then the "
        "increments), summarised by the kind of starting hand: what the optimal exchange keeps, and how "
        "often. The full table is <code>tapete analyze showdown_poker --json</code>. Increment Nº1 is made "
        "when, knowing his three final cards and his discards, the player's expected gain is positive; "
        "Nº2 likewise once community card 1 is shown.</p>"
        + table(["Starting hand", "Share", "Optimal exchange (share within the kind)"], rows, num=(1,))
        + freqs
    )


#: The verdict's threshold: 99.9 % two-sided, in standard errors.
Z_VERDICT = 3.2905267314919255


def crosscheck_section(
    rows: Sequence[dict[str, Any]], engine_line: str, rounds: int, fresh_every_round: bool
) -> str:
    """Each exact figure against the simulation, full shoe and regulation shoe."""

    def sim(s: dict[str, Any] | None, exact: float, judge: bool) -> tuple[str, str]:
        if not s or s["house_edge"] is None:
            return "—", "—"
        lo, hi = s["ci95"]
        z = (s["house_edge"] - exact) / s["se"] if s["se"] else 0.0
        cell = f"{pct(s['house_edge'])}<br><small>[{pct(lo)}, {pct(hi)}]<br>z = {z:+.2f}</small>"
        if judge:
            verdict = (
                '<span class="ok">agrees</span>'
                if abs(z) <= Z_VERDICT
                else '<span class="bad">differs</span>'
            )
        else:
            diff = (s["house_edge"] - exact) * 100
            verdict = f"{diff:+.4f} points" + (" (cut-card effect)" if abs(z) > Z_VERDICT else "")
        return cell, verdict

    body = []
    for r in rows:
        a, ai = sim(r.get("full"), r["exact"], True)
        b, bi = sim(r.get("shoe"), r["exact"], False)
        if fresh_every_round:
            a, ai = b, sim(r.get("shoe"), r["exact"], True)[1]
            b, bi = "the same", "—"
        body.append([_e(r["label"]), pct(r["exact"]), a, ai, b, bi, f"{r['n']:,}"])
    shoe_text = (
        "Showdown Póker shuffles the deck before every round (Art.7), so the table's own deck IS a fresh "
        "full deck every round: one simulation serves both columns."
        if fresh_every_round
        else "<b>Regulation shoe</b>: the table's own shoe, dealt to the cut card, as players meet it; its "
        "difference from the exact figure, when it is larger than chance, is the cut-card effect (more "
        "rounds are dealt from shoes whose remaining cards are rich in small cards)."
    )
    return (
        "<h2>5. The simulation's cross-check of each exact figure</h2>"
        f"<p>{engine_line}</p>"
        f"<p>Simulated house edge, its 95 % confidence interval, and z, its distance from the exact figure "
        f"in standard errors ({rounds:,} rounds each). <b>Full shoe</b>: every round from a freshly "
        "shuffled full pack, as the exact figures assume; it <i>agrees</i> when |z| ≤ 3.29 (a 99.9 % "
        "interval: with many figures on a page, one in twenty falls outside its 95 % interval by chance). "
        f"{shoe_text}</p>"
        + table(
            ["Bet", "Exact", "Full shoe", "", "Regulation shoe", "Difference", "Bets"],
            body,
            num=(1, 2, 4, 6),
        )
    )


def page(title: str, sub: str, facts: Sequence[tuple[str, str]], sections: Sequence[str], footer: str) -> str:
    """The whole document."""
    fact_rows = "".join(f"<tr><td>{_e(k)}</td><td>{v}</td></tr>" for k, v in facts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
        f'<h1>{_e(title)}</h1><p class="sub">{sub}</p>'
        f'<table class="facts"><tbody>{fact_rows}</tbody></table>'
        + "\n".join(f'<section class="section">{s}</section>' for s in sections)
        + f"<footer>{footer}</footer></body></html>\n"
    )
