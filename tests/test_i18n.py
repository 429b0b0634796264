"""Language and money as people read them: complete catalogs in both languages, the regulation's words,
the games' layout phrases and house rules, engine refusals said in Spanish, and amounts typed and shown in
soles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tapete.errors import BadBet, BadCards, IllegalAction, TapeteError
from tapete.games import GAMES
from tapete.games.blackjack import Action, BlackjackRound
from tapete.i18n import (
    LANGUAGES,
    BadAmount,
    BadSetting,
    Money,
    Translator,
    _catalog_files,
    catalog,
    describe_error,
    house_rules_lines,
    house_rules_text,
    layout_lines,
    layout_phrases,
    placeholders,
    resolve_lang,
)
from tapete.poker import Category
from tapete.rules import BlackjackRules, load_rules
from tapete.shoe import StackedSource
from tapete.table import RawBet, place_bets
from tests.engine_helpers import start

SRC = Path(__file__).resolve().parents[1] / "src" / "tapete"


# ---------------------------------------------------------------------------------------------- catalogs
def test_both_catalogs_have_the_same_ids_and_placeholders() -> None:
    es, en = catalog("es"), catalog("en")
    assert set(es) == set(en), sorted(set(es) ^ set(en))
    for key in es:
        assert placeholders(es[key]) == placeholders(en[key]), key


def test_every_catalog_file_has_its_twin_in_the_other_language() -> None:
    names = {lang: {n.removesuffix(f"{lang}.json") for n, _ in _catalog_files(lang)} for lang in LANGUAGES}
    assert names["es"] == names["en"]


def test_every_message_id_used_by_the_code_exists() -> None:
    used: set[str] = set()
    pattern = re.compile(
        r"""(?:\btr|\.tr|\.say|\.text|markup)\(\s*(?:tr,\s*)?["']([a-z0-9_]+\.[a-z0-9_.]+)["']"""
    )
    for path in [SRC / "i18n.py", *sorted((SRC / "play").glob("*.py"))]:
        used.update(pattern.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 40
    missing = {key for key in used if key not in catalog("es")}
    assert not missing, sorted(missing)


def test_english_keeps_the_regulations_words() -> None:
    en = catalog("en")
    for word in ("retiro", "seguro", "separación", "incremento", "pago simple", "volar"):
        assert any(word in text for text in en.values()), word
    assert en["bj.action.split"] == "split (separación)"
    assert en["bj.action.double"] == "double (incremento)"
    assert "surrender (retiro)" in en["why.surrender"]
    assert "bust (volar)" in en["why.bust"]
    assert "even money (pago simple)" in en["why.even_money"]
    assert "insurance (seguro)" in en["why.insurance_win"]


def test_spanish_says_the_payout_reasons_as_the_regulation_does() -> None:
    es = Translator("es")
    assert es("why.blackjack") == "Black Jack paga 3 a 2"
    assert es("why.dealer_bust", dealer=23) == "el dealer voló con 23: paga 1 a 1"
    assert es("why.surrender") == "retiro: se devuelve la mitad"
    assert es("why.insurance_win").endswith("seguro paga 2 a 1")
    assert es("why.dealer_bj_original") == "el dealer tiene Black Jack: solo pierde la apuesta original"


def test_translator_formats_and_survives_a_missing_id() -> None:
    tr = Translator("en")
    assert tr("seat.label", seat=3) == "Seat 3"
    assert tr("no.such.id") == "no.such.id"
    assert tr("seat.label") == "Seat {seat}"  # a missing placeholder shows the template, never crashes


def test_language_from_option_then_environment_then_spanish() -> None:
    assert resolve_lang(None, env={}) == "es"
    assert resolve_lang(None, env={"TAPETE_LANG": "en"}) == "en"
    assert resolve_lang(None, env={"TAPETE_LANG": "en_US.UTF-8"}) == "en"
    assert resolve_lang("es", env={"TAPETE_LANG": "en"}) == "es"
    with pytest.raises(BadSetting):
        resolve_lang("fr", env={})


# ---------------------------------------------------------------------------------------- the games' words
def test_every_game_says_its_layout_in_both_languages_one_line_or_phrase_by_phrase() -> None:
    counts = {game: {lang: len(layout_lines(game, lang)) for lang in LANGUAGES} for game in GAMES}
    assert counts == {
        "blackjack": {"es": 3, "en": 3},
        "majestic_21": {"es": 3, "en": 3},
        "punto_y_banca": {"es": 3, "en": 3},
        "showdown_poker": {"es": 0, "en": 0},  # its layout carries no phrase
    }
    for game in GAMES:
        for lang in LANGUAGES:
            assert layout_phrases(game, lang) == " · ".join(layout_lines(game, lang))
    assert layout_lines("showdown_poker", "es") == () and layout_phrases("showdown_poker", "en") == ""
    assert layout_lines("blackjack", "fr") == layout_lines("blackjack", "es")  # as a Translator falls back
    with pytest.raises(KeyError):
        layout_lines("craps", "es")


def test_layout_phrases_are_the_words_the_tables_always_printed() -> None:
    assert layout_phrases("blackjack", "es") == (
        "Black Jack paga tres por dos · El dealer debe pedir hasta con 16 y no debe pedir desde 17 · "
        "Seguro paga dos por uno"
    )
    assert layout_phrases("blackjack", "en") == (
        "Black Jack pays three to two · The dealer must draw to 16 and stand on 17 · "
        "Insurance pays two to one"
    )
    assert layout_phrases("punto_y_banca", "es") == (
        "Punto paga uno a uno · Banca paga uno a uno menos el cinco por ciento · Empate paga ocho a uno"
    )
    assert layout_phrases("punto_y_banca", "en") == (
        "Punto pays one to one · Banca pays one to one less five per cent · Tie pays eight to one"
    )


def test_every_poker_hand_category_has_its_name_in_both_languages() -> None:
    for lang in LANGUAGES:
        names = {cat.key: Translator(lang)(f"sd.category.{cat.key}") for cat in Category}
        assert len(names) == 11 and not [n for n in names.values() if n.startswith("sd.")], names
    assert Translator("es")("sd.category.four_of_a_kind") == "póker"  # Art.11's word
    assert Translator("en")("sd.category.straight") == "straight"


#: What `games.showdown.house_rules_text` said before the words moved to the catalogs (default settings).
HOUSE_RULES_ES = (
    "Reglas de la casa · Showdown Póker",
    "Apuesta: de 100 a 100000. Incrementos Nº1 y Nº2 iguales a la apuesta; el Nº2 solo si hizo el Nº1 "
    "(Art.9).",
    "Cambio de cartas: de 0 a 3 de sus tres cartas, una sola vez (Art.9.2; cuántas: regla de la casa [A]).",
    "Mano final: sus tres cartas y las dos comunitarias. Menos de un par de J pierde; par de J, Q, K o A "
    "empata; paga sobre la apuesta y cada incremento (Art.11): escalera real 250 a 1, escalera de color 100 "
    "a 1, póker 25 a 1, full 9 a 1, color 7 a 1, escalera simple 5 a 1, trío 3 a 1, dos pares 2 a 1.",
    "Esta mesa no tiene pago máximo (Art.12).",
    "Pot bet (regla de la casa [A]): cada jugador coloca 100 en un pozo común. Lo gana la mejor mano final "
    "de la mesa; si hay empate se reparte por igual y la unidad indivisible va al primer asiento a la "
    "izquierda del dealer. La casa cobra 5% del pozo completo (lo que se paga se redondea hacia abajo). Con "
    "un solo jugador en la mesa, el pot bet se devuelve.",
    "Bono (regla de la casa [A], opcional, de 100 a 100000): paga según la mano final: escalera real 1000 a "
    "1, escalera de color 200 a 1, póker 50 a 1, full 11 a 1, color 8 a 1, escalera simple 5 a 1; manos "
    "menores pierden. No entra en el pago máximo.",
)
HOUSE_RULES_EN_IN_SOLES = (
    "House rules · Showdown Poker",
    "Bet: S/ 1.00 to S/ 1,000.00. Raises Nº1 and Nº2 equal the bet; Nº2 only after Nº1 (Art.9).",
    "Exchange: 0 to 3 of your three cards, once (Art.9.2; how many: house rule [A]).",
    "Final hand: your three cards and the two community cards. Below a pair of jacks loses; a pair of J, Q, "
    "K or A pushes; paid on the bet and on each raise (Art.11): royal flush 250 to 1, straight flush 100 to "
    "1, four of a kind 25 to 1, full house 9 to 1, flush 7 to 1, straight 5 to 1, three of a kind 3 to 1, "
    "two pair 2 to 1.",
    "This table has no payout limit (Art.12).",
    "Pot bet (house rule [A]): every player puts S/ 1.00 into a common pot. The best final hand at the table "
    "wins it; a tie splits it equally and the indivisible unit goes to the first seat on the dealer's left. "
    "The house keeps 5% of the whole pot (what is paid is rounded down). With one player at the table the "
    "pot bet is returned.",
    "Bonus (house rule [A], optional, S/ 1.00 to S/ 1,000.00): pays on the final hand: royal flush 1000 to "
    "1, straight flush 200 to 1, four of a kind 50 to 1, full house 11 to 1, flush 8 to 1, straight 5 to 1; "
    "lower hands lose. Not subject to the payout limit.",
)


def test_house_rules_of_showdown_are_the_text_the_table_always_showed() -> None:
    """The same text, with every [A] marked as a house rule (issue 31)."""
    rules = load_rules("showdown_poker", {})
    assert house_rules_lines(rules, "es") == HOUSE_RULES_ES
    assert house_rules_text(rules, "en", currency="PEN") == "\n".join(HOUSE_RULES_EN_IN_SOLES)


def test_house_rules_say_a_bonus_that_pays_nothing_and_games_without_house_rules_have_none() -> None:
    rules = load_rules("showdown_poker", {"bonus_paytable": {}})
    assert house_rules_lines(rules, "es")[-1].startswith(
        "Bono (regla de la casa [A], opcional, de 100 a 100000): "
        "paga según la mano final: nada; manos menores pierden."
    )
    assert "pays on the final hand: nothing; lower hands lose" in house_rules_text(rules, "en")
    for game in ("blackjack", "majestic_21", "punto_y_banca"):
        assert house_rules_lines(load_rules(game, {}), "es") == ()
        assert house_rules_text(load_rules(game, {}), "en") == ""


# ---------------------------------------------------------------------------------------------- errors
def _engine_refusal(bets: list[RawBet]) -> TapeteError:
    rules = BlackjackRules.load({})
    with pytest.raises(TapeteError) as exc:
        place_bets(bets, BlackjackRound.bet_spec(rules))
    return exc.value


def test_bet_refusals_from_the_engine_are_said_fully_in_spanish_with_money() -> None:
    es, en = Translator("es"), Translator("en")
    low = _engine_refusal([RawBet(1, "ana", "main", 50)])
    assert (
        describe_error(low, es)
        == "Apuesta rechazada: ana (apuesta): S/ 0.50 está por debajo del mínimo de la mesa (S/ 1.00)."
    )
    assert describe_error(low, en) == "Bet refused: ana (bet): S/ 0.50 is below the table minimum (S/ 1.00)."
    high = _engine_refusal([RawBet(1, "ana", "main", 100001)])
    assert (
        describe_error(high, es)
        == "Apuesta rechazada: ana (apuesta): S/ 1,000.01 supera el máximo de la mesa (S/ 1,000.00)."
    )
    assert describe_error(high, en, Money("USD")).startswith("Bet refused: ana (bet): US$ 1,000.01")


def _round(cards: str) -> BlackjackRound:
    rules = BlackjackRules.load({})
    from tapete.cards import parse_cards

    boxes = place_bets([RawBet(1, "ana", "main", 1000)], BlackjackRound.bet_spec(rules))
    return start(BlackjackRound, rules, StackedSource(parse_cards(cards.split()), 6), boxes)


def test_decision_refusals_from_the_engine_are_said_fully() -> None:
    es = Translator("es")
    rnd = _round("Ts Ac 9h Kd")  # Ace up: insurance is offered
    with pytest.raises(IllegalAction) as exc:
        rnd.apply(Action(1, "insurance", amount=501))
    assert describe_error(exc.value, es) == (
        "Decisión no permitida: el seguro de S/ 5.01 supera la mitad de la apuesta original (S/ 5.00)."
    )
    rnd = _round("5s 9c 6h 7s 9d")
    rnd.apply(Action(1, "decline"))  # no retiro
    with pytest.raises(IllegalAction) as exc:
        rnd.apply(Action(1, "double", hand=0, amount=1001))
    assert describe_error(exc.value, Translator("en")) == (
        "Decision not allowed: double (incremento) of S/ 10.01 is more than the original bet (S/ 10.00)."
    )


def test_other_errors_get_a_spanish_lead_in_per_code() -> None:
    es = Translator("es")
    assert describe_error(BadCards("unknown card 'Xx'"), es) == "Problema con las cartas: unknown card 'Xx'"
    assert describe_error(IllegalAction("seat 2 cannot act now"), es).startswith("Decisión no permitida: ")
    assert describe_error(BadBet("unknown seat 9"), es).startswith("Apuesta rechazada: unknown seat 9")
    assert describe_error(ValueError("boom"), es) == "Error: boom"
    for code in ("bad_bet", "illegal_action", "bad_cards", "invalid_rules", "bad_file", "live_table_refused"):
        assert Translator("es").has(f"error.{code}") and Translator("en").has(f"error.{code}")


# ---------------------------------------------------------------------------------------------- money
@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("12.50", 1250),
        ("12.5", 1250),
        ("12", 1200),
        ("0", 0),
        ("0.01", 1),
        ("S/ 12.50", 1250),
        ("s/12.50", 1250),
        ("1,000.50", 100050),
        ("1,000", 100000),
        ("  7.", 700),
    ],
)
def test_amounts_typed_in_soles_become_centimos(text: str, units: int) -> None:
    assert Money().parse(text) == units


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("12.505", "money.too_many_decimals"),
        ("-5", "money.negative"),
        ("S/ -5", "money.negative"),
        ("abc", "money.not_number"),
        ("1e3", "money.not_number"),
        ("12,50", "money.comma"),
        ("", "money.empty"),
        ("12.50.1", "money.not_number"),
    ],
)
def test_bad_amounts_are_refused_with_a_clear_message(text: str, key: str) -> None:
    with pytest.raises(BadAmount) as exc:
        Money().parse(text)
    assert exc.value.key == key
    said = describe_error(exc.value, Translator("es"))
    assert said and "{" not in said


def test_money_shown_in_soles_and_other_currencies() -> None:
    assert Money().show(1250) == "S/ 12.50"
    assert Money().show(-5) == "-S/ 0.05"
    assert Money("CHIPS").parse("12") == 12
    with pytest.raises(BadAmount):
        Money("CHIPS").parse("12.5")
    assert Money("USD").parse("US$ 3.10") == 310
    with pytest.raises(BadSetting):
        Money("XYZ")


def test_shown_amounts_read_back_to_the_same_units() -> None:
    money = Money()
    for units in (0, 1, 99, 100, 1250, 100000, 123456789):
        assert money.parse(money.show(units)) == units
