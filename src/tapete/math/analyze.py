"""`tapete analyze GAME`: exact house edge and strategy for every bet under a table's settings.

The settings are the scenario keys (`--rules FILE`, JSON or TOML, and `--decks`), validated by the same
rules models the tables use, in analysis mode: a setting the regulation forbids is accepted for a
what-if and the output says the game is not the regulation's (`regulation: false` with the reasons).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tapete.errors import InvalidRules, Msg, TapeteError, json_text, read_settings_file
from tapete.rules import load_rules
from tapete.rules.common import CommonRules

if TYPE_CHECKING:
    from rich.console import Console

ProgressFn = Callable[[int, int], None]


def read_settings(path: Path | None) -> dict[str, Any]:
    """Settings from a JSON or TOML file (a table's `rules`), or {} when none is given."""
    return {} if path is None else read_settings_file(path, InvalidRules)


#: Black Jack settings the analysis takes that a table's rules model may not (yet) know: `peek` is for
#: analysis only (the American game, to compare with published figures; a table refuses it as an
#: unknown setting), `dealer_completes_hand` (rules.md §1) changes no stake, so no figure.
ANALYSIS_SETTINGS: dict[str, bool] = {"peek": False, "dealer_completes_hand": False}


def _analysis_settings(game: str, settings: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool]]:
    """Split off the analysis-only Black Jack settings the game's rules model does not declare."""
    from tapete.rules import RULES

    if game not in ("blackjack", "majestic_21"):
        return settings, {}
    rest = dict(settings)
    model = RULES[game]
    extra: dict[str, bool] = {}
    for name, default in ANALYSIS_SETTINGS.items():
        if name in model.model_fields:
            continue
        value = rest.pop(name, default)
        if not isinstance(value, bool):
            raise InvalidRules(f"{name}: must be true or false", key="err.rules.bool", setting=name)
        extra[name] = value
    return rest, extra


#: N:1 settings: an Empate's pay, a paytable's entries (Showdown's and its bonus's).
RATIO_SETTINGS = ("tie_pays", "paytable", "bonus_paytable")


def _check_ratios(rules: CommonRules) -> None:
    """invalid_rules for an N:1 setting above MAX_PAYOUT_RATIO, the most any table pays (rules.md §3). A
    what-if may pay what the regulation does not; but the analyses count in floats and 64-bit integers,
    which a pay of 10**19:1 leaves (a traceback, or a silently wrong figure), so it is refused here."""
    from tapete.rules.showdown import MAX_PAYOUT_RATIO

    for name in RATIO_SETTINGS:
        value = getattr(rules, name, None)
        entries = value.items() if isinstance(value, dict) else [(name, value)]
        for hand, n in entries:
            setting = name if hand == name else f"{name}.{hand}"
            if isinstance(n, int) and n > MAX_PAYOUT_RATIO:
                raise InvalidRules(
                    f"{setting}={n}: the analysis computes pays up to {MAX_PAYOUT_RATIO} to 1",
                    key="err.analyze.ratio",
                    setting=setting,
                    n=n,
                    most=MAX_PAYOUT_RATIO,
                )


def analyze(
    game: str, settings: dict[str, Any], progress: ProgressFn | None = None, *, strategy: bool = False
) -> dict[str, Any]:
    """The analysis document of `game` under `settings` (the shape of issue 6's `--json`)."""
    settings, extra = _analysis_settings(game, settings)
    rules = load_rules(game, settings, regulation=False)
    _check_ratios(rules)
    doc: dict[str, Any] = {"game": game, "rules": {**rules.settings(), **extra}}
    problems = rules.violations()
    if extra.get("peek"):
        problems.append(
            Msg(
                "peek=true: the regulation's dealer does not peek (Art. 13-14); analysis only",
                "err.rules.peek",
            )
        )
    doc["regulation"] = not problems
    if problems:
        doc["not_regulation_because"] = problems
    if game == "punto_y_banca":
        doc.update(_baccarat(rules))
    elif game == "blackjack":
        doc.update(_blackjack(rules, progress, strategy=strategy, extra=extra))
    elif game == "majestic_21":
        doc.update(_majestic(rules, progress, strategy=strategy, extra=extra))
    elif game == "showdown_poker":
        doc.update(_showdown(rules, progress))
    return doc


def _baccarat(rules: CommonRules) -> dict[str, Any]:
    from tapete.math.baccarat import analyze_baccarat

    result = analyze_baccarat(
        decks=rules.decks,
        commission_percent=getattr(rules, "commission_percent", 5),
        tie_pays=getattr(rules, "tie_pays", 8),
    )
    out = result.to_json()
    return {"bets": out["bets"], "counts": out["counts"]}


def _blackjack_result(
    rules: CommonRules, progress: ProgressFn | None, extra: dict[str, bool] | None = None
) -> Any:
    from tapete.math.blackjack import analyze_blackjack

    extra = extra or {}
    return analyze_blackjack(
        decks=rules.decks,
        surrender=bool(getattr(rules, "surrender", True)),
        max_splits=int(getattr(rules, "splits_possible", 3)),
        resplit_aces=bool(getattr(rules, "resplit_aces", False)),
        progress=progress,
        peek=bool(extra.get("peek", getattr(rules, "peek", False))),
        dealer_completes_hand=bool(
            extra.get("dealer_completes_hand", getattr(rules, "dealer_completes_hand", False))
        ),
    )


def _blackjack(
    rules: CommonRules,
    progress: ProgressFn | None,
    *,
    strategy: bool,
    extra: dict[str, bool] | None = None,
) -> dict[str, Any]:
    result = _blackjack_result(rules, progress, extra)
    full = result.to_json()
    out: dict[str, Any] = {"bets": {"main": full["bets"]["main"]}}
    if strategy:
        out["strategy"] = full.get("strategy")
    out["_analysis"] = result
    return out


def _majestic(
    rules: CommonRules,
    progress: ProgressFn | None,
    *,
    strategy: bool,
    extra: dict[str, bool] | None = None,
) -> dict[str, Any]:
    from tapete.math.majestic21 import majestic_side_bets_json

    out = _blackjack(rules, progress, strategy=strategy, extra=extra)
    side = majestic_side_bets_json(rules.decks)
    out["bets"].update(side["bets"])
    _as_offered(out, rules)
    return out


def _as_offered(out: dict[str, Any], rules: CommonRules) -> None:
    """Each insurance's edge as the table offers it to a basic-strategy player (never to a Black Jack
    box, nor to one that retired), beside the up-card-only figure: what a simulation measures."""
    from tapete.cards import parse_card
    from tapete.math.blackjack_tables import basic_tables, retired_pairs
    from tapete.math.majestic21 import insurance_as_offered

    tables = basic_tables(out["_analysis"], int(getattr(rules, "splits_possible", 3)))
    for name, up, index in (("insurance_ace", "As", 0), ("insurance_ten", "Ks", 9)):
        bet = insurance_as_offered(rules.decks, parse_card(up), retired_pairs(tables, index))
        out["bets"][name]["as_offered"] = {
            "house_edge": round(float(bet["house_edge"]), 7),
            "house_edge_exact": str(bet["house_edge"]),
            "assumes": "offered to every box but a Black Jack or a retired one (basic strategy's retiro)",
        }


def _showdown(rules: CommonRules, progress: ProgressFn | None) -> dict[str, Any]:
    from tapete.math.showdown import analyze_showdown

    if rules.decks != 1:
        raise InvalidRules(
            f"decks={rules.decks}: the exact Showdown analysis covers the one-deck game",
            key="err.analyze.showdown_decks",
            decks=rules.decks,
        )

    result = analyze_showdown(
        max_exchange=int(getattr(rules, "max_exchange", 3)),
        paytable=getattr(rules, "pays", None),  # Art.11's figures or the operator's higher ones (Art.12)
        bonus_paytable=getattr(rules, "bonus_paytable", None),
        pot_commission_percent=int(getattr(rules, "pot_commission_percent", 5)),
        progress=progress,
    )
    full = result.to_json()
    return {"bets": full["bets"], "strategy": full.get("strategy"), "_analysis": result}


def _public(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if not k.startswith("_")}


CHART_STYLE = {
    "H": "white on red",
    "S": "black on yellow",
    "D": "black on green",
    "Ds": "black on green",
    "P": "white on blue",
    "Rh": "white on grey37",
    "Rs": "white on grey37",
    "Rp": "white on grey37",
}


def _print_chart(console: Console, analysis: Any) -> None:
    from rich.table import Table

    ups = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]
    table = Table(title="Estrategia básica / basic strategy", show_lines=False)
    table.add_column("")
    for up in ups:
        table.add_column(up, justify="center")
    for label, codes in analysis.chart():
        table.add_row(label, *(f"[{CHART_STYLE.get(c, '')}] {c:<2}[/]" for c in codes))
    console.print(table)
    console.print(
        "H pedir/hit · S plantarse/stand · D incremento/double · P separación/split · "
        "R retiro/surrender (then h/s/p)"
    )


def _print(console: Console, doc: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"{doc['game']} — house edge per bet", show_lines=False)
    table.add_column("bet")
    table.add_column("house edge", justify="right")
    table.add_column("exact", justify="center")
    for name, bet in doc["bets"].items():
        edge = bet.get("house_edge")
        table.add_row(
            name,
            f"{edge * 100:.4f} %" if isinstance(edge, (int, float)) else str(edge),
            "yes" if bet.get("exact") else "no",
        )
    console.print(table)
    main = doc["bets"].get("main", {})
    if "house_edge_composition_dependent" in main:
        console.print(
            f"main: {main['house_edge'] * 100:.6f} % with the basic strategy (--chart), "
            f"{main['house_edge_composition_dependent'] * 100:.12f} % with composition-dependent play "
            f"({main.get('composition_dependent_strategy', 'CD')}); every split hand exact"
        )
    if not doc.get("regulation", True):
        console.print("[bold red]Not the regulation's game:[/] " + "; ".join(doc["not_regulation_because"]))
    if "counts" in doc:
        console.print("counts: " + ", ".join(f"{k} {v:,}" for k, v in doc["counts"].items()))


def _console() -> Console:
    """The terminal's console (rich is imported only when something is printed for a person)."""
    from rich.console import Console

    return Console()


@contextmanager
def _progress_bar(description: str) -> Iterator[ProgressFn | None]:
    """A transient bar on a terminal's stderr; nothing (and no rich import) when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick


def analyze_command(
    game: Annotated[str, typer.Argument(help="blackjack | majestic_21 | punto_y_banca | showdown_poker")],
    decks: Annotated[int | None, typer.Option(help="decks in the pack (overrides --rules)")] = None,
    rules: Annotated[Path | None, typer.Option(help="JSON or TOML file of settings (scenario keys)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the analysis as JSON")] = False,
    chart: Annotated[
        bool, typer.Option("--chart", help="Black Jack: print the basic strategy chart")
    ] = False,
) -> None:
    """Exact house edge (and strategy) of every bet of GAME under the table's settings."""
    try:
        settings = read_settings(rules)
        if decks is not None:
            settings["decks"] = decks
        with _progress_bar(f"analysing {game}") as tick:
            doc = analyze(game, settings, tick, strategy=as_json)
    except TapeteError as exc:
        if as_json:
            sys.stdout.write(json_text(exc.to_json(), indent=None) + "\n")
        else:
            _console().print(f"[red]{exc.message}[/]")
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(json_text(_public(doc)) + "\n")
        return
    console = _console()
    _print(console, doc)
    if chart and "_analysis" in doc and hasattr(doc["_analysis"], "chart"):
        _print_chart(console, doc["_analysis"])
