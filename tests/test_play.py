"""The Black Jack terminal table driven by a scripted person on stacked shoes: the regulation's questions in
its order, the regulation's words in Spanish and English, the right amounts, and no hidden card shown."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from tapete.cards import parse_cards
from tapete.cli import app
from tapete.log import recall, verify_file
from tapete.play import PlayRefused, load_settings_file, run_play
from tapete.play.common import Script, card_plain
from tapete.session import TableSession
from tapete.shoe import SeededRandom, StackedSource
from tests.play_helpers import flat, play_game


def play(cards: str, answers: list[str], **kwargs: Any) -> tuple[str, Script]:
    """Play Black Jack rounds on a dealer-entered 6-deck stacked shoe; return transcript and script."""
    return play_game("blackjack", cards, answers, decks=6, **kwargs)


def before(text: str, marker: str) -> str:
    """The transcript before `marker` (which must be there)."""
    assert marker in text, marker
    return text[: text.index(marker)]


# ---------------------------------------------------------------------------------------------- a whole game
# Seat 1: T 9 = 19 stands; seat 2: T 6 hits K and busts. Dealer 9 up, 7 in the hole = 16, draws 2 = 18.
STAND_AND_BUST = "Ts Th 9c 9h 6d 7s Kc 2d"


def test_stand_and_hit_to_bust_in_spanish() -> None:
    text, script = play(STAND_AND_BUST, ["10", "20", "n", "n", "p", "c"], seats=2)
    # Art.9 first: surrender to every box in seat order, then the drawing stage (Art.14), box by box.
    assert "¿Retiro?" in script.prompts[2] and "¿Retiro?" in script.prompts[3]
    assert "Asiento 1 (P1)" in script.prompts[2] and "Asiento 2 (P2)" in script.prompts[3]
    assert "pedir carta" in script.prompts[4] and "Asiento 1 (P1)" in script.prompts[4]
    assert "Black Jack paga tres por dos" in text  # the layout's own words
    assert "Asiento 2 (P2) recibe K♣ → 26" in text
    assert "Asiento 2 (P2) vuela con 26: pierde al momento." in text
    assert "El dealer voltea su carta tapada: 7♠ → 16" in text
    assert "El dealer pide carta: 2♦ → 18" in text
    assert "19 contra 18 del dealer: paga 1 a 1" in text
    assert "voló con 26: pierde" in text
    assert "Asiento 1 (P1): +S/ 10.00 · Asiento 2 (P2): -S/ 20.00" in text


def test_hole_card_never_shown_before_it_is_turned() -> None:
    text, _ = play(STAND_AND_BUST, ["10", "20", "n", "n", "p", "c"], seats=2)
    turned = "El dealer voltea su carta tapada"
    early = before(text, turned)
    assert card_plain("7s") == "7♠"
    assert "7♠" not in early and "7s" not in early
    assert "9♣ ??" in early  # the up-card and the face-down card as the players see them
    assert "7♠" in text[text.index(turned) :]


def test_split_and_double_for_less_in_english() -> None:
    # 8 8 against a 6 (Ts in the hole): split; hand 1 gets 3, doubles for the full bet, gets K = 21;
    # hand 2 gets 2, doubles for less (S/ 5.00), gets 9 = 19. The dealer draws 7 to 23 and busts.
    text, script = play("8s 6c 8h Ts 3d Kd 2c 9h 7c", ["10", "n", "p", "d", "", "d", "5"], lang="en")
    assert "split (separación)" in script.prompts[2] and "double (incremento)" in script.prompts[2]
    assert "Seat 1 (P1): split (separación) into two hands." in text
    assert "Seat 1 (P1), hand 1 gets 3♦ → 11" in text and "Seat 1 (P1), hand 1 gets K♦ → 21" in text
    assert "Double (incremento) amount (up to S/ 10.00) [Enter = S/ 10.00]" in text
    assert "Seat 1 (P1), hand 2 gets 9♥ → 19" in text
    assert "The dealer busts (volar) with 23." in text
    assert "the dealer busted (volar) with 23: pays 1 to 1" in text
    # main 10 + double 10 + split 10 + double-for-less 5, all paid 1:1 -> +35.00
    assert "Seat 1 (P1): +S/ 35.00" in text
    assert "split (separación), hand 2" in text


def test_surrender_returns_half_in_spanish() -> None:
    text, script = play("Ts Tc 6h 9d", ["10", "s"])
    assert "¿Retiro? (se devuelve la mitad: S/ 5.00)" in script.prompts[1]
    assert "Asiento 1 (P1): retiro." in text
    assert "retiro: se devuelve la mitad" in text
    assert "Asiento 1 (P1): -S/ 5.00" in text
    assert len(script.prompts) == 2  # nothing more is asked of a box that retired


def test_surrender_in_english_uses_the_regulation_word() -> None:
    text, _ = play("Ts Tc 6h 9d", ["10", "y"], lang="en")
    assert "Surrender (retiro)?" in text
    assert "surrender (retiro): half the bet is returned" in text
    assert "Seat 1 (P1): -S/ 5.00" in text


def test_insurance_refused_over_half_then_paid_two_to_one() -> None:
    # 19 against an Ace (K in the hole): no retiro against an Ace; insurance up to half (S/ 5.00).
    text, script = play("Ts Ac 9h Kd", ["10", "s", "6", "", "p"])
    assert "Monto del seguro (hasta S/ 5.00) [Enter = S/ 5.00]" in script.prompts[2]
    assert "Monto del seguro" in script.prompts[3]  # only the amount is asked again
    assert not any("Retiro" in p for p in script.prompts)
    assert "¿seguro? (paga 2 a 1, hasta la mitad de la apuesta: S/ 5.00)" in script.prompts[1]
    refused = "Decisión no permitida: el seguro de S/ 6.00 supera la mitad de la apuesta original (S/ 5.00)."
    assert refused in text
    assert "Asiento 1 (P1): seguro por S/ 5.00." in text
    assert "el dealer tiene Black Jack: seguro paga 2 a 1" in text
    assert "el dealer tiene Black Jack: solo pierde la apuesta original" in text
    assert "El dealer tiene Black Jack." in text
    assert "Asiento 1 (P1): S/ 0.00" in text  # -10 on the bet, +10 on the insurance


def test_insurance_lost_in_english() -> None:
    text, _ = play("Ts Ac 9h 5d 4c", ["10", "y", "2.50", "s"], lang="en")
    assert "insurance (seguro)? (pays 2 to 1, up to half the bet: S/ 5.00)" in text
    assert "the dealer has no Black Jack: the insurance (seguro) is lost" in text
    # dealer A5 = 16 draws 4 = 20 beats 19: -10 on the bet, -2.50 on the insurance
    assert "Seat 1 (P1): -S/ 12.50" in text


def test_even_money_against_an_ace() -> None:
    text, script = play("As Ad Kh 5c", ["10", "y"], lang="en")
    assert (
        "Black Jack against an Ace: even money (pago simple)? (paid 1 to 1 now: S/ 10.00)"
        in script.prompts[1]
    )
    assert "even money (pago simple): the Black Jack is paid 1 to 1" in text
    assert "Seat 1 (P1): +S/ 10.00" in text
    text_es, _ = play("As Ad Kh 5c", ["10", "s"])
    assert "pago simple: el Black Jack cobra 1 a 1" in text_es


def test_blackjack_paid_at_once_three_to_two_rounding_down() -> None:
    # Up-card 9: the Black Jack is paid 3:2 at once (Art.13); S/ 10.01 -> 15.015 rounds down to 15.01.
    text, script = play("As 9c Kd 7s", ["10.01"])
    assert len(script.prompts) == 1  # a Black Jack is asked nothing
    assert "Asiento 1 (P1): ¡Black Jack!" in text
    assert "Black Jack paga 3 a 2 (redondeado hacia abajo; fracción de 1/2 registrada)" in text
    assert "S/ 25.02" in text and "Asiento 1 (P1): +S/ 15.01" in text


def test_dealer_blackjack_returns_the_double() -> None:
    # 5 6 against a ten: no retiro taken, double, 9 = 20; the hole card is an Ace (Art.13).
    text, _ = play("5s Td 6h Ac 9c", ["10", "n", "i", ""])
    assert "el dealer tiene Black Jack: solo pierde la apuesta original" in text
    assert "el dealer tiene Black Jack: se devuelve el incremento" in text
    assert "Asiento 1 (P1): -S/ 10.00" in text


def test_refused_bets_are_asked_again_and_change_nothing() -> None:
    answers = ["0.50", "abc", "12.505", "-3", "12,50", "2000", "12.50", "p"]
    text, script = play("Ts 9c 9h 7s 2d", answers)
    assert "Apuesta rechazada: P1 (apuesta): S/ 0.50 está por debajo del mínimo de la mesa (S/ 1.00)." in text
    assert "«abc» no es un monto" in text
    assert "«12.505» tiene más de 2 decimales" in text
    assert "«-3» es negativo" in text
    assert "escriba los decimales con punto" in text
    assert "Apuesta rechazada: P1 (apuesta): S/ 2,000.00 supera el máximo de la mesa (S/ 1,000.00)." in text
    assert sum("apuesta (S/ 1.00 a S/ 1,000.00)" in p for p in script.prompts) == 7
    assert "S/ 12.50" in text and "19 contra 18" in text


def test_refused_bets_in_english() -> None:
    text, _ = play("Ts 9c 9h 7s 2d", ["0.5", "10", "s"], lang="en")
    assert "Bet refused: P1 (bet): S/ 0.50 is below the table minimum (S/ 1.00)." in text


def test_enter_repeats_the_last_bet_zero_sits_out_and_q_quits() -> None:
    cards = "Ts 9c 9h 7s 2d " + "Ts 9c 9h 7s 2d"
    text, script = play(cards, ["10", "0", "n", "p", "", "", "n", "p", "q"], seats=2, rounds=0)
    assert text.count("Asiento 2 (P2) no juega esta partida.") == 2
    assert "[Enter = S/ 10.00 · 0 = no juega · q = salir]" in script.prompts[4]
    assert "[Enter = no juega · 0 = no juega · q = salir]" in script.prompts[5]
    assert "Partida 2" in text and "Partida 3" not in text
    assert "Fin de la sesión: 2 partida(s)" in text
    # Seat 1 bet 10 twice and won twice (19 against 18); seat 2 never played.
    assert "Asiento 1 (P1): +S/ 20.00 · Asiento 2 (P2): S/ 0.00" in text


def test_input_ending_mid_round_finishes_the_round_standing_and_logs_it(tmp_path: Path) -> None:
    log = tmp_path / "table.jsonl"
    text, _ = play("Ts 9c 6h 7s 2d", ["10", "n"], log_file=log)
    assert "se declinan las ofertas y cada mano se planta" in text
    assert "16 contra 18 del dealer: pierde" in text
    report = verify_file(log)
    assert report.ok
    events = [r["event"] for r in report.records if r["round"] == 1]
    assert events[-1]["type"] == "round_settled"
    assert recall(events)[1]


def test_played_rounds_are_logged_and_recalled(tmp_path: Path) -> None:
    log = tmp_path / "table.jsonl"
    play(STAND_AND_BUST, ["10", "20", "n", "n", "p", "c"], seats=2, log_file=log)
    report = verify_file(log)
    assert report.ok
    events = [r["event"] for r in report.records if r["round"] == 1]
    rnd, same = recall(events)
    assert same and rnd.finished


def robot(prompt: str) -> str:
    """A person who bets S/ 10.00, declines every offer and stands (answers read from the prompt)."""
    p = Text.from_markup(prompt).plain
    if "apuesta (" in p:
        return "10"
    if "[s/n" in p:
        return "n"
    if "[Enter =" in p:
        return ""
    return "p"


def test_cut_card_announces_last_round_and_reshuffle() -> None:
    out = StringIO()
    console = Console(file=out, width=100)
    session = TableSession("blackjack", {"decks": 4, "cut_card_depth": 104}, live=False, rng=SeededRandom(7))
    run_play("blackjack", seats=7, rounds=9, console=console, input_fn=robot, session=session)
    text = flat(out.getvalue())
    assert "Paquete nuevo de 4 barajas" in text
    cut = text.index("Salió el cortador: esta es la última partida de este zapato.")
    assert "Antes de la próxima partida se barajará de nuevo." in text[cut:]
    assert text.count("Se baraja el paquete, se corta y se carga el zapato.") == 2
    assert text.index("Se baraja el paquete", cut) > cut
    assert "Fin de la sesión: 9 partida(s)" in text


def test_seven_seats_running_balances_match_the_log() -> None:
    out = StringIO()
    console = Console(file=out, width=200)
    session = TableSession("blackjack", None, live=False, rng=SeededRandom(3))
    run_play("blackjack", seats=7, rounds=6, console=console, input_fn=robot, session=session)
    rounds = [r for r in session.log.rounds() if isinstance(r, int)]
    assert rounds == [1, 2, 3, 4, 5, 6]
    net = dict.fromkeys((f"P{i}" for i in range(1, 8)), 0)
    for round_id in rounds:
        closing = session.log.events_of(round_id)[-1]
        assert closing["type"] == "round_settled"
        for player, totals in closing["players"].items():
            net[player] += totals["net"]
    last = out.getvalue().rsplit("Saldos", 1)[1]
    for i in range(1, 8):
        shown = re.search(rf"Asiento {i} \(P{i}\): ([+-]?S/ [\d,]+\.\d\d)", last)
        assert shown is not None
        value = shown.group(1).replace("S/ ", "").replace(",", "").replace("+", "")
        assert round(float(value) * 100) == net[f"P{i}"]


# ---------------------------------------------------------------------------------------------- refusals
def test_refusals_before_the_table_opens_are_said_in_the_persons_language(tmp_path: Path) -> None:
    with pytest.raises(PlayRefused) as exc:
        run_play("blackjack", seats=8, console=Console(file=StringIO()))
    assert exc.value.message.startswith("Opción no válida: los asientos van de 1 a 7, no 8")
    bad = tmp_path / "rules.json"
    bad.write_text('{"decks": 2}')
    with pytest.raises(PlayRefused) as exc:
        run_play("blackjack", rules_file=bad, lang="en", console=Console(file=StringIO()))
    assert exc.value.code == "invalid_rules"
    assert exc.value.message.startswith(
        "Invalid table settings: decks=2: the regulation's pack is 4 to 8 decks"
    )
    with pytest.raises(PlayRefused) as exc:
        run_play("blackjack", lang="fr", console=Console(file=StringIO()))
    assert exc.value.code == "bad_setting"
    with pytest.raises(PlayRefused):
        run_play("blackjack", currency="XYZ", console=Console(file=StringIO()))


def test_settings_file_json_or_toml(tmp_path: Path) -> None:
    j = tmp_path / "t.json"
    j.write_text('{"decks": 8, "table_min": 500}')
    t = tmp_path / "t.toml"
    t.write_text("decks = 4\nmax_splits = 1\n")
    assert load_settings_file(j) == {"decks": 8, "table_min": 500}
    assert load_settings_file(t) == {"decks": 4, "max_splits": 1}
    broken = tmp_path / "b.json"
    broken.write_text("{")
    with pytest.raises(PlayRefused) as exc:
        run_play("blackjack", rules_file=broken, console=Console(file=StringIO()))
    assert exc.value.message.startswith("Archivo no válido: ")
    assert "no es JSON válido (línea 1, columna 2)" in exc.value.message


def test_currency_setting_shows_amounts_in_that_currency() -> None:
    out = StringIO()
    console = Console(file=out, width=100)
    source = StackedSource(parse_cards(["Ts", "9c", "9h", "7s", "2d"]), 6, dealer_entered=True)
    run_play(
        "blackjack",
        currency="USD",
        rounds=1,
        console=console,
        input_fn=Script(console, ["10", "p"]),
        source=source,
    )
    text = flat(out.getvalue())
    assert "US$ 1.00" in text and "Asiento 1 (P1): +US$ 10.00" in text


# ---------------------------------------------------------------------------------------------- the command
def _tapete(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    """The installed command, as the README runs it."""
    env = {k: v for k, v in os.environ.items() if k != "TAPETE_LANG"}
    return subprocess.run(
        [sys.executable, "-c", "from tapete.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "100"},
        timeout=60,
    )


def test_command_plays_a_round_on_the_virtual_shoe() -> None:
    # Enter everywhere: the table minimum is bet, offers are declined, and a play decision (which has no
    # default) is asked until the input ends, when the hand stands.
    done = _tapete(["play", "blackjack", "--rounds", "1"], "\n" * 30)
    assert done.returncode == 0, done.stderr
    assert "Mesa de Black Jack" in done.stdout and "Pagos de la partida 1" in done.stdout
    assert "Fin de la sesión: 1 partida(s)" in done.stdout


def test_command_english_by_env_and_refusal_exit_code() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["play", "blackjack"], input="q\n", env={"TAPETE_LANG": "en"})
    assert done.exit_code == 0, done.output
    assert "Black Jack table" in done.output and "End of the session: 0 round(s)" in done.output
    spanish = runner.invoke(
        app, ["play", "blackjack", "--lang", "es"], input="q\n", env={"TAPETE_LANG": "en"}
    )
    assert "Mesa de Black Jack" in spanish.output  # --lang wins over the environment
    bad = runner.invoke(app, ["play", "blackjack", "--seats", "9"], env={"TAPETE_LANG": ""})
    assert bad.exit_code == 2
    assert "Opción no válida: los asientos van de 1 a 7, no 9" in bad.output


def test_a_person_answering_at_random_never_breaks_the_table() -> None:
    # Garbage, valid answers and amounts in any order, on a seeded shoe across a reshuffle: every round
    # completes, is logged settled, and money is conserved in each.
    import random

    pool = [
        "",
        "s",
        "n",
        "y",
        "c",
        "p",
        "i",
        "h",
        "d",
        "1",
        "2",
        "3",
        "4",
        "x",
        "5",
        "0.5",
        "2.50",
        "-1",
        "abc",
    ]
    rng = random.Random(11)

    def person(prompt: str) -> str:
        plain = Text.from_markup(prompt).plain
        if "apuesta (" in plain:
            return rng.choice(["", "5", "0", "12.50", "abc", "0.10"])
        return rng.choice(pool)

    out = StringIO()
    session = TableSession("blackjack", {"decks": 4, "cut_card_depth": 104}, live=False, rng=SeededRandom(5))
    run_play(
        "blackjack",
        seats=4,
        rounds=25,
        console=Console(file=out, width=100),
        input_fn=person,
        session=session,
    )
    rounds = [r for r in session.log.rounds() if isinstance(r, int)]
    assert len(rounds) == 25
    for round_id in rounds:
        events = session.log.events_of(round_id)
        closing = events[-1]
        assert closing["type"] == "round_settled"
        staked = sum(p["staked"] for p in closing["players"].values())
        paid = sum(p["paid"] for p in closing["players"].values())
        assert staked == paid + closing["house"]["net"]
        assert recall(events)[1]
    assert "Salió el cortador" in out.getvalue()


def test_a_dealer_entered_shoe_running_out_stops_the_table_with_a_spanish_message() -> None:
    with pytest.raises(PlayRefused) as exc:
        play("Ts 9c 6h 7s", ["10", "n", "c"])  # a hit needs a fifth card
    assert exc.value.code == "bad_cards"
    assert exc.value.message.startswith("Problema con las cartas: se acabaron las cartas")
