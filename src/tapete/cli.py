"""The `tapete` command: thin faces over the engine (play, scenario, verify, recall, analyze, rng, ...).

Errors are mapped to exit codes here, in one place: a TapeteError exits 2 with its message (JSON for
machine-facing commands), never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from tapete.errors import TapeteError

app = typer.Typer(
    name="tapete",
    help="Casino table games as Peru's regulations write them: play, forced outcomes, audit and math.",
    no_args_is_help=True,
    add_completion=False,
)

GAMES_HELP = "blackjack | majestic_21 | punto_y_banca | showdown_poker"


def _print_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")


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
    log: Annotated[Path, typer.Argument(help="an event log (JSON lines) written by a table")],
    recall_rounds: Annotated[
        bool, typer.Option("--recall/--no-recall", help="also replay every round")
    ] = True,
) -> None:
    """Check a log's SHA-256 chain and name the first bad record; replay each round from its events."""
    from tapete.log import iter_round_events, recall, verify_file

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
    rounds: Annotated[int, typer.Option(help="rounds to play on the engine")] = 100_000,
    seed: Annotated[int, typer.Option(help="seed of the simulation's shoe (never used live)")] = 1,
    workers: Annotated[int, typer.Option(help="worker processes")] = 1,
    rules: Annotated[Path | None, typer.Option(help="JSON or TOML file of settings")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Play many rounds on the engine itself (seeded shoe, auto-players) and measure each bet's edge."""
    from rich.console import Console
    from rich.progress import Progress

    from tapete.errors import InvalidRules
    from tapete.math.analyze import read_settings
    from tapete.rules import load_rules
    from tapete.sim import simulate as run_sim

    try:
        settings = read_settings(rules)
        load_rules(game, settings)  # an unknown game or setting is refused before anything runs
        if rounds < 1:
            raise InvalidRules(
                f"rounds={rounds}: a simulation plays at least one round", key="err.sim.rounds", rounds=rounds
            )
        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"simulating {game}", total=rounds)
            result = run_sim(
                game,
                rounds,
                seed=seed,
                settings=settings,
                workers=workers,
                progress=lambda done, total: bar.update(task, completed=done),
            )
    except TapeteError as exc:
        typer.echo(exc.message, err=True)
        raise typer.Exit(2) from None
    doc = result.to_json()
    if as_json:
        _print_json(doc)
        return
    for name, bet in doc["bets"].items():
        lo, hi = bet["ci99"]
        typer.echo(
            f"{name:14} house edge {bet['house_edge'] * 100:8.4f} %  "
            f"99% CI [{lo * 100:.4f}, {hi * 100:.4f}] %  ({bet['rounds']:,} rounds)"
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
) -> None:
    """Serve the casino's tables: the HTTP + WebSocket API (shared/spec/server.md) and the web page."""
    from tapete.server.config import ConfigError
    from tapete.server.main import serve as run_server

    try:
        run_server(host=host, port=port, database_url=database_url, broker_url=broker_url, workers=workers)
    except ConfigError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


def main() -> None:
    """Console-script entry point."""
    _register_optional()
    app()


def _register_optional() -> None:
    """Attach sub-commands whose modules are optional pieces of the package (rng, analyze)."""
    try:
        from tapete.rngtools import rng_app

        app.add_typer(rng_app, name="rng")
    except ImportError:
        pass
    try:
        from tapete.math.analyze import analyze_command

        app.command(name="analyze")(analyze_command)
    except ImportError:
        pass


if __name__ == "__main__":  # pragma: no cover
    main()
