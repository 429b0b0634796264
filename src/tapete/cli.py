"""The `tapete` command: thin faces over the engine (play, scenario, verify, recall, analyze, rng, ...).

Errors are mapped to exit codes here, in one place: a TapeteError exits 2 with its message (JSON for
machine-facing commands), never a traceback.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tapete.errors import TapeteError

if TYPE_CHECKING:
    from rich.progress import Progress

app = typer.Typer(
    name="tapete",
    help="Casino table games as Peru's regulations write them: play, forced outcomes, audit and math.",
    no_args_is_help=True,
    add_completion=False,
)

GAMES_HELP = "blackjack | majestic_21 | punto_y_banca | showdown_poker"


def _print_json(doc: Any) -> None:
    """Print `doc` as strict JSON (`tapete.errors.json_text`), one document on stdout."""
    from tapete.errors import json_text

    sys.stdout.write(json_text(doc) + "\n")


@app.command()
def scenario(
    file: Annotated[Path, typer.Argument(help="scenario JSON (shared/spec/scenario.md)")],
) -> None:
    """Play one forced-outcome round from FILE and print the outcome as JSON (exit 2 on a refusal)."""
    from tapete.scenario import run_file

    code, doc = run_file(str(file))
    _print_json(doc)
    raise typer.Exit(code)


@app.command()
def verify(
    log: Annotated[Path | None, typer.Argument(help="an event log (JSON lines) written by a table")] = None,
    recall_rounds: Annotated[
        bool, typer.Option("--recall/--no-recall", help="also replay every round")
    ] = True,
    database_url: Annotated[
        str | None,
        typer.Option(
            help="a copy of a casino's database (sqlite:///PATH or postgresql://…), checked offline"
        ),
    ] = None,
    public_key: Annotated[
        list[Path] | None,
        typer.Option(
            help="the casino's public key (PEM, GET /api/integrity), for --database-url; again for each"
            " previous key after a rotation"
        ),
    ] = None,
    table: Annotated[int | None, typer.Option(help="only this table's chain (with --database-url)")] = None,
) -> None:
    """Check a log's SHA-256 chain and name the first bad record; replay each round from its events. With
    --database-url and --public-key: a database's chains and ledger, signatures included, offline."""
    from tapete.log import iter_round_events, recall, verify_file

    if database_url is not None or log is None:
        _verify_database(database_url, public_key, table)
        return

    try:
        report = verify_file(log)
    except TapeteError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None
    if not report.ok:
        typer.echo(f"BROKEN at record {report.first_bad}: {report.message}")
        raise typer.Exit(1)
    typer.echo(f"OK: {report.message}")
    if recall_rounds:
        bad = 0
        n = 0
        for round_id, events in iter_round_events(report.records):
            if not events or events[0].get("type") != "round_started":
                continue
            n += 1
            try:
                _, same = recall(events)
            except TapeteError as exc:
                typer.echo(f"round {round_id}: cannot be replayed: {exc.message}")
                bad += 1
                continue
            if not same:
                typer.echo(f"round {round_id}: replay does not reproduce the logged events")
                bad += 1
        typer.echo(f"recall: {n - bad} of {n} rounds rebuilt exactly from their events")
        if bad:
            raise typer.Exit(1)


def _bar() -> Progress:
    """A progress bar on stderr (what is done, of how much, the time left), gone once the work ends: the
    standard output keeps only the results."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def _verify_database(database_url: str | None, public_key: list[Path] | None, table: int | None) -> None:
    """`tapete verify --database-url URL --public-key FILE [--table ID]`: exit 1 at the first bad record
    of any chain (or entry of the ledger), 2 when it cannot be checked."""
    from tapete.server.offline import verify_database
    from tapete.server.signing import SigningKeyError

    if database_url is None or not public_key:
        typer.echo("give a log file, or --database-url URL and --public-key FILE", err=True)
        raise typer.Exit(2)
    try:
        with _bar() as bar:

            def progress(total: int) -> Callable[[int], None]:
                task = bar.add_task("verifying records and entries", total=total)
                return lambda n: bar.advance(task, n)

            findings = verify_database(database_url, public_key, table, progress)
    except (SigningKeyError, OSError) as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    except Exception as exc:  # the database could not be read: said, not a traceback
        typer.echo(f"cannot read {database_url}: {exc}", err=True)
        raise typer.Exit(2) from None
    if table is not None and not findings:
        typer.echo(f"no table {table}", err=True)
        raise typer.Exit(2)
    bad = 0
    for found in findings:
        if found.ok:
            typer.echo(f"OK: {found.what}: {found.records} records, hashes, links and signatures hold")
        else:
            bad += 1
            typer.echo(f"BROKEN {found.what} at record {found.first_bad}: {found.reason}")
    if bad:
        raise typer.Exit(1)


@app.command()
def recall(
    log: Annotated[Path, typer.Argument(help="an event log (JSON lines)")],
    round_id: Annotated[str, typer.Argument(help="the round to rebuild")],
) -> None:
    """Rebuild one round from its events alone and print the inspector's view of it as JSON."""
    from tapete.log import recall as do_recall
    from tapete.log import verify_file

    try:
        report = verify_file(log)
    except TapeteError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None
    if not report.ok:
        typer.echo(f"BROKEN at record {report.first_bad}: {report.message}", err=True)
        raise typer.Exit(1)
    events = [r["event"] for r in report.records if str(r["round"]) == round_id]
    if not events:
        typer.echo(f"no round {round_id} in {log}", err=True)
        raise typer.Exit(2)
    try:
        rnd, same = do_recall(events)
    except TapeteError as exc:
        _print_json(exc.to_json())
        raise typer.Exit(2) from None
    doc = rnd.result()
    doc["replay_matches_log"] = same
    _print_json(doc)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=GAMES_HELP)] = "blackjack",
    seats: Annotated[int, typer.Option(help="boxes in play, 1-7")] = 1,
    lang: Annotated[str | None, typer.Option(help="es (default) or en; else $TAPETE_LANG")] = None,
    currency: Annotated[str, typer.Option(help="PEN (S/), USD, EUR, CHIPS")] = "PEN",
    rules: Annotated[Path | None, typer.Option(help="JSON or TOML file of table settings")] = None,
    log: Annotated[Path | None, typer.Option(help="append the event log (hash chain) to this file")] = None,
    rounds: Annotated[int, typer.Option(help="stop after this many rounds (0 = until you quit)")] = 0,
) -> None:
    """A terminal table on a virtual shoe, asking the regulation's questions in the regulation's order."""
    from tapete.play import run_play

    try:
        run_play(
            game, seats=seats, lang=lang, currency=currency, rules_file=rules, log_file=log, rounds=rounds
        )
    except TapeteError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None


@app.command()
def simulate(
    game: Annotated[str, typer.Argument(help=GAMES_HELP)],
    rounds: Annotated[int, typer.Option(help="rounds to play")] = 1_000_000,
    rules: Annotated[Path | None, typer.Option(help="JSON or TOML file of settings")] = None,
    strategy: Annotated[
        str, typer.Option(help="basic | composition | FILE (a chart; Black Jack and Majestic 21)")
    ] = "basic",
    seed: Annotated[int, typer.Option(help="seed of the simulation's shoes (never used live)")] = 1,
    workers: Annotated[int, typer.Option(help="worker processes on this machine")] = 1,
    ray: Annotated[
        str | None, typer.Option("--ray", help="auto (join or start a local Ray) or a Ray cluster address")
    ] = None,
    seats: Annotated[
        int | None, typer.Option(help="boxes (BJ, M21: 1) or players (Showdown: 2) at the table")
    ] = None,
    full_shoe: Annotated[
        bool,
        typer.Option(
            "--full-shoe", help="deal every round from a freshly shuffled full pack (the exact figures' shoe)"
        ),
    ] = False,
    engine: Annotated[
        bool, typer.Option("--engine", help="play the engine itself (slow; cross-check)")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Simulate many rounds over real shoes with the fast kernels (or the engine itself with --engine):
    each bet's mean result with its 95% interval, its standard deviation and outcome frequencies."""
    import time

    from tapete.errors import InvalidRules
    from tapete.math.analyze import read_settings
    from tapete.rules import load_rules

    try:
        settings = read_settings(rules)
        load_rules(game, settings)  # an unknown game or setting is refused before anything runs
        if rounds < 1:
            raise InvalidRules(
                f"rounds={rounds}: a simulation plays at least one round", key="err.sim.rounds", rounds=rounds
            )
        if engine and (strategy != "basic" or ray is not None or seats is not None or full_shoe):
            raise InvalidRules(
                "--engine plays today's engine simulation: one seat, the analysis's chart, no Ray",
                key="err.sim.engine_options",
            )
        with _bar() as bar:
            task = bar.add_task(f"simulating {game}", total=rounds)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            if engine:
                from tapete.sim import simulate as run_engine
                from tapete.sim.fast import engine_json

                t0 = time.perf_counter()
                result = run_engine(
                    game, rounds, seed=seed, settings=settings, workers=workers, progress=tick
                )
                doc = engine_json(result, seed, time.perf_counter() - t0, settings)
                setup = 0.0
            else:
                from tapete.sim.fast import simulate_fast

                fast = simulate_fast(
                    game,
                    rounds,
                    seed=seed,
                    settings=settings,
                    strategy=strategy,
                    seats=seats,
                    full_shoe=full_shoe,
                    workers=workers,
                    ray_address=ray,
                    progress=tick,
                )
                doc = fast.to_json()
                setup = fast.setup
    except TapeteError as exc:
        if as_json:
            _print_json(exc.to_json())
        else:
            typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None
    if as_json:
        _print_json(doc)
        return
    _print_simulation(doc, setup)


@app.command()
def report(
    game: Annotated[str, typer.Argument(help=GAMES_HELP)],
    out: Annotated[Path, typer.Option("-o", "--out", help="directory for report.html and its figures")],
    rules: Annotated[Path | None, typer.Option(help="JSON or TOML file of the table's settings")] = None,
    rounds: Annotated[int | None, typer.Option(help="rounds simulated for the cross-check")] = None,
    seed: Annotated[int, typer.Option(help="seed of the simulations")] = 1,
    sessions: Annotated[int, typer.Option(help="sessions simulated for a player's result")] = 10_000,
    session_rounds: Annotated[int, typer.Option(help="rounds in a session")] = 200,
    engine_rounds: Annotated[int, typer.Option(help="kernel rounds replayed on the engine")] = 2_000,
    workers: Annotated[int, typer.Option(help="worker processes (speed only)")] = 1,
) -> None:
    """Write the operator's report for the regulator: an A4-printable HTML page and its PNG figures."""
    from rich.console import Console

    from tapete.errors import InvalidRules
    from tapete.report import ReportOptions, build_report
    from tapete.rules import load_rules

    console = Console(stderr=True)
    try:
        load_rules(game, {})  # an unknown game is refused before anything runs
        for name, value, least in (
            ("rounds", rounds if rounds is not None else 1, 1),
            ("sessions", sessions, 1),
            ("session_rounds", session_rounds, 1),
            ("engine_rounds", engine_rounds, 0),
        ):
            if value < least:
                raise InvalidRules(
                    f"{name}={value}: at least {least}",
                    key="err.report.count",
                    name=name,
                    value=value,
                    least=least,
                )
        options = ReportOptions(
            rounds=rounds,
            seed=seed,
            sessions=sessions,
            session_rounds=session_rounds,
            engine_rounds=engine_rounds,
            workers=workers,
        )
        with console.status(f"report on {game}") as status:
            path = build_report(game, rules, out, options, progress=lambda msg: status.update(msg))
    except TapeteError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None
    typer.echo(str(path))


def _print_simulation(doc: dict[str, Any], setup: float) -> None:
    """The human form of a simulation: one line per bet, then frequencies and speed."""
    head = f"{doc['game']}: {doc['rounds']:,} rounds, seed {doc['seed']}"
    if doc.get("engine") == "kernel":
        head += f", {doc['seats']} seat(s), strategy {doc['strategy']}, {doc['shoe']} shoe"
    typer.echo(head)
    for name, bet in doc["bets"].items():
        edge = bet["house_edge"]
        if edge is None:
            typer.echo(f"  {name:14} no bets settled")
            continue
        lo, hi = bet["ci95"]
        typer.echo(
            f"  {name:14} house edge {edge * 100:8.4f} %  95% CI [{lo * 100:.4f}, {hi * 100:.4f}] %  "
            f"sd {bet['sd']:.4f}  ({bet['n']:,} bets)"
        )
        freq = bet.get("outcomes") or {}
        shown = ", ".join(f"{k} {v * 100:.3f} %" for k, v in freq.items() if v)
        if shown:
            typer.echo(f"  {'':14} {shown}")
    events = doc.get("events") or {}
    if events:
        typer.echo("  per round: " + ", ".join(f"{k} {v * 100:.3f} %" for k, v in events.items()))
    rate = doc.get("rounds_per_second")
    typer.echo(
        f"  {doc['elapsed_s']:.2f} s playing ({rate:,} rounds/s)"
        + (f", {setup:.2f} s setup" if setup else "")
    )


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(help="sqlite:///PATH or postgresql://… (else $TAPETE_DATABASE_URL, else embedded)"),
    ] = None,
    broker_url: Annotated[
        str | None, typer.Option(help="redis://… for several processes (else $TAPETE_BROKER_URL)")
    ] = None,
    workers: Annotated[int, typer.Option(help="server processes on this host (PostgreSQL and a broker)")] = 1,
    require_identity: Annotated[
        bool,
        typer.Option(
            "--require-identity",
            help="a player without his identity (DNI, birth date) may not sit or bet"
            " (else $TAPETE_REQUIRE_IDENTITY)",
        ),
    ] = False,
    signing_key: Annotated[
        str | None,
        typer.Option(
            help="the Ed25519 private key (PEM) every record and entry is signed with"
            " (else $TAPETE_SIGNING_KEY, else signing.key in $TAPETE_HOME, made on the first start)"
        ),
    ] = None,
) -> None:
    """Serve the casino's tables: the HTTP + WebSocket API (shared/spec/server.md) and the web page."""
    from tapete.server.config import ConfigError
    from tapete.server.main import serve as run_server
    from tapete.server.signing import SigningKeyError

    try:
        run_server(
            host=host,
            port=port,
            database_url=database_url,
            broker_url=broker_url,
            workers=workers,
            require_identity=require_identity,
            signing_key=signing_key,
        )
    except (ConfigError, SigningKeyError) as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


def main() -> None:
    """Console-script entry point."""
    _register_optional(sys.argv[1] if len(sys.argv) > 1 else None)
    app()


def _add_rng() -> None:
    from tapete.rngtools import rng_app

    app.add_typer(rng_app, name="rng")


def _add_analyze() -> None:
    from tapete.math.analyze import analyze_command

    app.command(name="analyze")(analyze_command)


#: sub-commands whose modules are heavy (numpy, the analyzers): imported only when asked for or for --help
OPTIONAL: dict[str, Callable[[], None]] = {"rng": _add_rng, "analyze": _add_analyze}


def _name_of(command: Any) -> str:
    """A registered command's name as typed on the command line."""
    return str(command.name or getattr(command.callback, "__name__", "")).replace("_", "-")


def _register_optional(asked: str | None = None) -> None:
    """Attach the optional sub-commands (rng, analyze); only `asked` when it names one of them."""
    core = {_name_of(c) for c in app.registered_commands}
    if asked in OPTIONAL:
        wanted = [asked]
    elif asked in core:
        wanted = []
    else:  # --help, no command, or a mistyped one: every command is listed
        wanted = list(OPTIONAL)
    for name in wanted:
        with contextlib.suppress(ImportError):  # optional pieces of the package
            OPTIONAL[name]()


if __name__ == "__main__":  # pragma: no cover
    main()
