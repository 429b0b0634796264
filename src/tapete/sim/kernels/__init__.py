"""Fast simulation kernels, one per game (Numba), and the plans that carry a table's settings to them.

A PLAN is everything a worker needs to play chunks of rounds of one table: the settings, the stakes, the
strategy as lookup tables (Black Jack's from the analyzer, Showdown's from the exact analysis) — built
once by `make_plan` in the main process and shipped to worker processes or Ray tasks as it is. Its
``play(index, rounds, state)`` plays one chunk from a fresh shoe and returns a `ChunkResult`.

The kernels play the engine's rounds (`tapete.games`), card for card; `tapete.sim.crosscheck` shows it
by replaying recorded kernel rounds through the scenario contract (`tapete.scenario.run`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from tapete.errors import InvalidRules, parse_document, read_text
from tapete.rules import load_rules
from tapete.rules.blackjack import BlackjackRules, Majestic21Rules
from tapete.rules.punto_y_banca import PuntoYBancaRules
from tapete.rules.showdown import ShowdownRules
from tapete.sim.kernels.rng import U64
from tapete.sim.kernels.tally import ChunkResult

#: The stake every box bets in a simulation (as the engine simulation does): even, a multiple of 20, so
#: 3:2, half a bet and 95% of a Banca win are whole; a table whose limits exclude it bets its minimum.
DEFAULT_STAKE = 1000
#: The largest stake the kernels play: they count in 64-bit integers, and a stake up to this keeps a
#: round's results (seven seats, a 100000:1 bonus included) and their sums over a long simulation within
#: them. A table whose minimum is above it is refused, said, instead of overflowing (or a traceback).
MAX_KERNEL_STAKE = 10**9
#: Default seats per game: one box at Black Jack and Majestic 21 (the analysis's player), two at
#: Showdown Póker (so the pot is played: alone, a player's pot bet is returned).
DEFAULT_SEATS = {"blackjack": 1, "majestic_21": 1, "punto_y_banca": 3, "showdown_poker": 2}
STRATEGIES = ("basic", "composition")


class Plan(Protocol):
    """What the runner needs of a game's plan."""

    @property
    def game(self) -> str:
        """The game's machine name."""
        ...

    @property
    def settings(self) -> dict[str, Any]:
        """The table's settings, every default filled in."""
        ...

    @property
    def seats(self) -> int:
        """Seats (boxes, players, or Punto y Banca's three bettors)."""
        ...

    @property
    def bets(self) -> tuple[str, ...]:
        """Bet names, as `tapete analyze` names them."""
        ...

    @property
    def stakes(self) -> tuple[int, ...]:
        """Each bet's stake, money units."""
        ...

    @property
    def outcome_names(self) -> tuple[tuple[str, ...], ...]:
        """Each bet's outcome counters."""
        ...

    @property
    def strategy(self) -> str:
        """The strategy's name."""
        ...

    @property
    def events_names(self) -> tuple[str, ...]:
        """Round-level counters."""
        ...

    def play(self, index: int, rounds: int, state: U64) -> ChunkResult:
        """Play one chunk from a fresh shoe."""
        ...


def table_stake(rules: Any, lo: int | None = None, hi: int | None = None) -> int:
    """`DEFAULT_STAKE` when the table's limits allow it, else the table's minimum (`kernel_amount`)."""
    lo = rules.table_min if lo is None else lo
    hi = rules.table_max if hi is None else hi
    return DEFAULT_STAKE if lo <= DEFAULT_STAKE <= hi else kernel_amount(lo)


def kernel_amount(stake: int) -> int:
    """`stake`, when the kernels can play it (at most `MAX_KERNEL_STAKE`); else invalid_rules."""
    if stake > MAX_KERNEL_STAKE:
        raise InvalidRules(
            f"a stake of {stake}: the simulation plays stakes up to {MAX_KERNEL_STAKE} (its 64-bit sums)",
            key="err.sim.stake",
            stake=stake,
            most=MAX_KERNEL_STAKE,
        )
    return stake


def make_plan(
    game: str,
    settings: dict[str, Any] | None = None,
    *,
    strategy: str = "basic",
    seats: int | None = None,
    full_shoe: bool = False,
) -> Plan:
    """The plan of `game` under `settings` (validated as a table validates them) for `seats` seats
    (default `DEFAULT_SEATS`), playing `strategy`: ``basic`` (the analysis's), ``composition``
    (Black Jack and Majestic 21: composition-dependent) or a chart file (Black Jack and Majestic 21).

    `full_shoe` deals every round from a freshly shuffled full pack (what the exact figures assume)
    instead of the regulation's shoe with its cut card: the difference is the cut-card effect."""
    rules = load_rules(game, settings or {})
    n = DEFAULT_SEATS[game] if seats is None else seats
    if isinstance(rules, PuntoYBancaRules):
        _only_basic(game, strategy)
        if seats is not None:
            raise InvalidRules(
                "Punto y Banca has no seats to choose: one bettor plays each of Punto, Banca and Empate",
                key="err.sim.pyb_seats",
            )
        from tapete.sim.kernels.baccarat import baccarat_plan

        return baccarat_plan(rules, table_stake(rules), full_shoe=full_shoe)
    if isinstance(rules, ShowdownRules):
        _only_basic(game, strategy)
        _check_seats(n, 7)
        from tapete.sim.kernels.showdown import showdown_plan

        return showdown_plan(rules, n)  # Art.7: shuffled before every round anyway
    assert isinstance(rules, BlackjackRules)
    _check_seats(n, 7)
    return _blackjack_plan(game, rules, strategy, n, full_shoe)


def _check_seats(n: int, most: int) -> None:
    if not 1 <= n <= most:
        raise InvalidRules(f"seats={n}: a table seats 1 to {most}", key="err.sim.seats", seats=n, most=most)


def _only_basic(game: str, strategy: str) -> None:
    if strategy != "basic":
        raise InvalidRules(
            f"--strategy {strategy}: {game} plays the analysis's strategy only (basic)",
            key="err.sim.strategy_game",
            strategy=strategy,
            game=game,
        )


def _blackjack_plan(game: str, rules: BlackjackRules, strategy: str, seats: int, full_shoe: bool) -> Plan:
    import numpy as np

    from tapete.math.blackjack import analyze_blackjack, hand_states
    from tapete.math.blackjack_tables import DecisionTables, basic_tables, chart_tables, composition_tables
    from tapete.sim.kernels.blackjack import BlackjackPlan

    tables: DecisionTables
    splits = rules.splits_possible  # what sizes the tables and the kernel's hands (plays as the setting)
    if strategy == "basic":
        analysis = analyze_blackjack(
            decks=rules.decks,
            surrender=rules.surrender,
            max_splits=splits,
            resplit_aces=rules.resplit_aces,
        )
        tables = basic_tables(analysis, splits)
    elif strategy == "composition":
        tables = composition_tables(rules.decks, rules.surrender, splits, rules.resplit_aces)
    else:
        tables = chart_tables(read_chart(Path(strategy)), splits)
    st = hand_states()
    stake = table_stake(rules)
    side = stake
    if isinstance(rules, Majestic21Rules):
        side = table_stake(rules, *rules.side_limits)
    return BlackjackPlan(
        game=game,
        settings=dict(rules.settings()),
        decks=rules.decks,
        depth=rules.cut_depth,
        burn=rules.burn,
        seats=seats,
        stake=stake,
        side_stake=side,
        max_splits=splits,
        resplit_aces=rules.resplit_aces,
        surrender=rules.surrender,
        dealer_completes_hand=rules.dealer_completes_hand,
        tables=tables,
        trans=st.trans.astype(np.int16),
        empty=int(st.index[(0,) * 10]),
        full_shoe=full_shoe,
    )


_CODES = {"H", "S", "D", "Ds", "P", "Rh", "Rs", "Rp"}


def read_chart(path: Path) -> Any:
    """A strategy chart from a JSON or TOML file, as a `tapete.strategy.Chart`.

    Accepted shapes: ``{"hard 12": "H H S S S H H H H H", ..., "A-A": "P ..."}`` (codes against 2..9, T,
    A), the same under a ``"chart"`` key, or `tapete analyze blackjack --json`'s ``strategy.chart`` list of
    ``{"row", "codes"}``. Every pair row (2-2 .. T-T, A-A) and at least one hard row are needed; codes
    are H S D Ds P Rh Rs Rp (InvalidRules otherwise)."""
    from tapete.strategy import Chart

    text = read_text(str(path))
    doc: Any = parse_document(text, InvalidRules, syntax="json_or_toml", path=str(path))
    if isinstance(doc, dict) and isinstance(doc.get("strategy"), dict):
        doc = doc["strategy"]
    if isinstance(doc, dict) and "chart" in doc:
        doc = doc["chart"]
    rows: dict[str, list[str]] = {}
    if isinstance(doc, list):
        for row in doc:
            if not isinstance(row, dict) or "row" not in row or "codes" not in row:
                raise InvalidRules(f"{path}: not a strategy chart", key="err.sim.chart_shape", path=str(path))
            rows[str(row["row"])] = [str(c) for c in row["codes"]]
    elif isinstance(doc, dict):
        for label, codes in doc.items():
            rows[str(label)] = codes.split() if isinstance(codes, str) else [str(c) for c in codes]
    else:
        raise InvalidRules(f"{path}: not a strategy chart", key="err.sim.chart_shape", path=str(path))
    pairs = {"A-A", "T-T", *(f"{v}-{v}" for v in range(2, 10))}
    missing = pairs - set(rows)
    if missing or not any(k.startswith("hard ") for k in rows):
        raise InvalidRules(
            f"{path}: a chart needs every pair row and hard rows (missing: {', '.join(sorted(missing))})",
            key="err.sim.chart_rows",
            path=str(path),
            missing=", ".join(sorted(missing)) or "hard",
        )
    for label, codes in rows.items():
        ok_label = label in pairs or (
            label.split(" ")[0] in ("hard", "soft") and label.split(" ")[-1].isdigit() and " " in label
        )
        if not ok_label or len(codes) != 10 or not set(codes) <= _CODES:
            raise InvalidRules(
                f"{path}: row {label!r} must be 10 codes of {' '.join(sorted(_CODES))} against 2..9, T, A",
                key="err.sim.chart_row",
                path=str(path),
                row=label,
            )
    return Chart.from_rows(rows.items())
