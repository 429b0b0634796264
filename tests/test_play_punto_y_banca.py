"""The Punto y Banca terminal table driven by a scripted person on stacked shoes: bets zone by zone, the
deal in Art.10's order, each Art.11 step with its reason, payouts with the Banca commission and its
rounding, the shoe's holder (Art.9), in Spanish by default and in English on request."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from tapete.cli import app
from tapete.log import iter_round_events, recall, verify_file
from tapete.play import run_play
from tapete.play.common import Script
from tapete.session import TableSession
from tapete.shoe import SeededRandom
from tests.play_helpers import flat, play_game

# Punto Kc Qd = 0 draws 6s -> 6; Banca 2d 3h = 5 draws on a 6: 3d -> 8. Banca wins 8 to 6.
BANCA_DRAWS_ON_SIX = "Kc 2d Qd 3h 6s 3d"
# Punto 4c 4h = natural 8; Banca Kd 2s = 2: nobody draws. Punto wins.
PUNTO_NATURAL = "4c Kd 4h 2s"
# Punto 7c Kc = 7 stands; Banca Kd 7h = 7 stands: tie.
TIE = "7c Kd Kc 7h"


def play(cards: str, answers: list[str], **kwargs: Any) -> tuple[str, Script]:
    """Play Punto y Banca rounds on a dealer-entered 8-deck stacked shoe (two zones by default)."""
    return play_game("punto_y_banca", cards, answers, decks=8, **{"seats": 2, **kwargs})


def test_art10_art11_round_in_spanish_with_reason_and_commission_rounding() -> None:
    text, script = play(BANCA_DRAWS_ON_SIX, ["b", "10.10", "0", "p", "20", "5"])
    assert "¿Punto [p], Banca [b] o solo Empate [e]?" in script.prompts[0]
    assert "Zona 1 (P1)" in script.prompts[0] and "Zona 2 (P2)" in script.prompts[3]
    assert "Zona 1 (P1) tiene el zapato y saca las cartas." in text
    assert "Reparto: Punto K♣ · Banca 2♦ · Punto Q♦ · Banca 3♥" in text
    assert "Punto 0 pide carta: con 0 a 5 siempre pide." in text
    assert "Punto recibe 6♠ → 6" in text
    assert "Banca 5 pide carta: la tercera carta del Punto fue un 6." in text
    assert "Banca recibe 3♦ → 8" in text
    assert "Gana Banca: 8 a 6." in text
    # Art.8b: 10.10 wins 9.595 -> 9.59 paid; the house keeps 0.51, the fraction is said
    assert (
        "Zona 1 (P1) · Banca S/ 10.10 → pagado S/ 19.69: Banca 8 contra Punto 6: paga 1 a 1 menos el 5% "
        "de comisión (S/ 0.51) (redondeado hacia abajo; fracción de 1/2 registrada)"
    ) in text
    assert "Zona 2 (P2) · Empate S/ 5.00 → pagado S/ 0.00: gana Banca 8 a 6: pierde" in text
    assert "Zona 1 (P1): +S/ 9.59 · Zona 2 (P2): -S/ 25.00" in text
    assert "La Banca no perdió: el zapato sigue en Zona 1 (P1)." in text


def test_art11_round_in_english_says_the_engines_reason() -> None:
    text, script = play(BANCA_DRAWS_ON_SIX, ["b", "10", "", "p", "20", "0"], lang="en")
    assert "Punto [p], Banca [b] or Empate only [e]?" in script.prompts[0]
    assert "Banca 5 draws: Punto's third card was a 6." in text
    assert "Banca wins, 8 to 6." in text
    assert "pays 1 to 1 less 5% commission (S/ 0.50)" in text
    assert "Zone 1 (P1): +S/ 9.50 · Zone 2 (P2): -S/ 20.00" in text


def test_art11a_natural_and_art9_shoe_passes_when_banca_loses() -> None:
    text, _ = play(PUNTO_NATURAL, ["p", "10", "0", "e", "5"])
    assert "Punto tiene un natural 8: nadie pide tercera carta." in text
    assert "pide carta" not in text
    assert "Gana Punto: 8 a 2." in text
    assert "Punto 8 contra Banca 2: paga 1 a 1" in text
    assert "Zona 2 (P2) · Empate S/ 5.00 → pagado S/ 0.00" in text  # Empate alone is a bet
    assert "La Banca perdió: el zapato pasa a la siguiente zona." in text


def test_art8c_tie_returns_punto_and_banca_and_pays_empate() -> None:
    text, _ = play(TIE, ["p", "10", "2", "b", "10", "0"])
    assert "Punto 7 se planta: con 6 o 7 no pide." in text
    assert "Banca 7 se planta: el Punto se plantó." in text
    assert "Empate a 7." in text
    assert "Zona 1 (P1) · Punto S/ 10.00 → pagado S/ 10.00: empate a 7: se devuelve la apuesta" in text
    assert "Zona 1 (P1) · Empate S/ 2.00 → pagado S/ 18.00: empate a 7: el Empate paga 8 a 1" in text
    assert "Zona 1 (P1): +S/ 16.00 · Zona 2 (P2): S/ 0.00" in text


def test_refused_amounts_and_unknown_sides_are_asked_again() -> None:
    text, script = play(PUNTO_NATURAL, ["x", "p", "0.50", "2000", "10", "0", "0"])
    assert "Responda p (Punto), b (Banca), e (solo Empate), 0 (no juega) o q (salir)." in text
    assert "está por debajo del mínimo de la mesa" in text
    assert "supera el máximo de la mesa" in text
    assert "Zona 2 (P2) no juega esta partida." in text
    assert "Zona 1 (P1): +S/ 10.00" in text
    assert sum("monto a Punto" in p for p in script.prompts) == 3


def test_art9_shoe_rotates_across_rounds_and_the_log_records_it(tmp_path: Path) -> None:
    log = tmp_path / "pyb.jsonl"
    # round 1 Punto natural (Banca loses: the shoe passes), round 2 tie (it stays), round 3 Punto again
    cards = f"{PUNTO_NATURAL} {TIE} {PUNTO_NATURAL}"
    answers = ["p", "10", "0", "b", "10", "0"] + [""] * 6 + [""] * 6
    text, _ = play(cards, answers, rounds=3, log_file=log)
    holders = re.findall(r"(Zona \d \(P\d\)) tiene el zapato", text)
    assert holders == ["Zona 1 (P1)", "Zona 2 (P2)", "Zona 2 (P2)"]
    report = verify_file(log)
    assert report.ok
    rounds = [(rid, ev) for rid, ev in iter_round_events(report.records) if isinstance(rid, int)]
    assert [ev[0]["shoe_holder"]["seat"] for _, ev in rounds] == [1, 2, 2]
    assert all(recall(ev)[1] for _, ev in rounds)


def test_every_round_setting_moves_the_shoe_after_a_banca_win() -> None:
    out = StringIO()
    console = Console(file=out, width=100)
    session = TableSession("punto_y_banca", {"shoe_passes": "every_round"}, live=False, rng=SeededRandom(5))
    run_play(
        "punto_y_banca",
        seats=3,
        rounds=4,
        console=console,
        input_fn=Script(console, [""] * 40),
        session=session,
    )
    text = flat(out.getvalue())
    holders = re.findall(r"(Zona \d) \(P\d\) tiene el zapato", text)
    assert holders == ["Zona 1", "Zona 2", "Zona 3", "Zona 1"]
    assert text.count("El zapato pasa a la siguiente zona (rota en cada partida).") == 4


def test_command_plays_punto_y_banca_in_english() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["play", "punto_y_banca", "--lang", "en", "--rounds", "1"], input="\n" * 10)
    assert done.exit_code == 0, done.output
    out = flat(done.output)
    assert "Punto y Banca table" in out and "Deal: Punto" in out
    assert "Payouts of round 1" in out and "End of the session: 1 round(s)" in out
