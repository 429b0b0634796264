"""Every refusal the engine, the rules models and the table can raise is said fully in Spanish (the
default) and fully in English, amounts as money and the regulation's words, from one catalog entry per
message: each raise site names its message id next to its (unchanged, machine-facing) English text."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tapete.cards import parse_card
from tapete.errors import BadCards, IllegalAction, InvalidRules, LiveTableRefused, TapeteError
from tapete.games.base import Dealt
from tapete.games.blackjack import Action, BlackjackRound
from tapete.games.majestic21 import Majestic21Round
from tapete.games.punto_y_banca import PuntoYBancaRound
from tapete.games.showdown import Action as SdAction
from tapete.i18n import Money, Translator, catalog, describe_error
from tapete.rules import BlackjackRules, load_rules
from tapete.scenario import run, run_text
from tapete.shoe import SeededRandom, Shoe, StackedSource, check_live_source
from tapete.table import RawBet, place_bets
from tests.engine_helpers import start
from tests.play_helpers import play_game
from tests.test_showdown import make_round

SRC = Path(__file__).resolve().parents[1] / "src" / "tapete"
#: the refusals a person may be told (BadAmount carries its own message ids in tapete.i18n)
ERRORS = {"BadBet", "IllegalAction", "InvalidRules", "BadCards", "BadFile", "LiveTableRefused", "BadSetting"}
#: library argument checks of the analysis modules: a programmer calls them, the tables never do (the
#: `tapete analyze` command's own refusals are in math/analyze.py, which is checked).
EXEMPT = {"poker.py", "math/baccarat.py", "math/blackjack.py", "math/majestic21.py", "math/showdown.py"}


def fields(template: str) -> set[tuple[str, str]]:
    """The (placeholder, format spec) pairs of a template: ``{amount:money}`` -> ("amount", "money")."""
    return {(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name}


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel not in EXEMPT:
            yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _call_name(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else ""


def _forwarded(key: ast.expr, call: ast.Call) -> bool:
    """``key=exc.key, **exc.params``: a message passed on unchanged from the error it re-raises."""
    return (
        isinstance(key, ast.Attribute)
        and key.attr == "key"
        and any(
            kw.arg is None and isinstance(kw.value, ast.Attribute) and kw.value.attr == "params"
            for kw in call.keywords
        )
    )


def _check_literal(where: str, key: str, call: ast.Call, problems: list[str]) -> None:
    es, en = catalog("es"), catalog("en")
    if key not in es or key not in en:
        problems.append(f"{where}: {key} is missing from a catalog")
        return
    if fields(es[key]) != fields(en[key]):
        problems.append(f"{where}: {key} has different placeholders in es and en")
    if any(kw.arg is None for kw in call.keywords):
        return  # **params: checked by rendering (file_problem, a Msg's params)
    given = {kw.arg for kw in call.keywords} - {"at", "key"}
    missing = {name for name, _ in fields(es[key])} - given
    if missing:
        problems.append(f"{where}: {key} needs {sorted(missing)}")


def test_every_raise_site_names_a_message_of_both_catalogs() -> None:
    problems: list[str] = []
    raises = msgs = 0
    for rel, tree in _sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Raise)
                and isinstance(node.exc, ast.Call)
                and _call_name(node.exc) in ERRORS
            ):
                raises += 1
                call, where = node.exc, f"{rel}:{node.lineno}"
                key = next((kw.value for kw in call.keywords if kw.arg == "key"), None)
                if key is None:
                    problems.append(f"{where}: raise {_call_name(call)} without a message id")
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    _check_literal(where, key.value, call, problems)
                elif not _forwarded(key, call):
                    problems.append(f"{where}: the message id is neither a literal nor forwarded")
            elif isinstance(node, ast.Call) and _call_name(node) == "Msg":
                msgs += 1
                key_arg = node.args[1] if len(node.args) > 1 else None
                if isinstance(key_arg, ast.Constant) and isinstance(key_arg.value, str):
                    _check_literal(f"{rel}:{node.lineno}", key_arg.value, node, problems)
    # a floor that shows the scan found the raise sites (shared helpers such as errors.read_text replaced
    # several copies of the same raise)
    assert raises > 75 and msgs > 25, (raises, msgs)
    assert not problems, "\n".join(problems)


def test_every_message_id_named_in_the_code_exists_with_the_same_placeholders() -> None:
    """Ids held in tables (the pydantic error types of rules/common.py) count too."""
    es, en = catalog("es"), catalog("en")
    named: set[str] = set()
    for _, tree in _sources():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"err\.[a-z0-9_]+\.[a-z0-9_]+", node.value)
            ):
                named.add(node.value)
    assert len(named) > 100
    assert not named - set(es) and not named - set(en), sorted((named - set(es)) | (named - set(en)))
    for key in [k for k in es if k.startswith(("err.", "act.", "oserror.", "source."))]:
        assert fields(es[key]) == fields(en[key]), key


# ---------------------------------------------------------------------------------------------- samples
def _refusal(fn: Callable[[], Any]) -> TapeteError:
    with pytest.raises(TapeteError) as exc:
        fn()
    return exc.value


def _bj(cards: str, rules: dict[str, Any] | None = None) -> BlackjackRound:
    r = BlackjackRules.load(rules or {})
    boxes = place_bets([RawBet(1, "ana", "main", 1000)], BlackjackRound.bet_spec(r))
    return start(BlackjackRound, r, StackedSource([parse_card(c) for c in cards.split()], 6), boxes)


def _bets(game: str, cls: Any, bets: list[RawBet]) -> Callable[[], Any]:
    return lambda: place_bets(bets, cls.bet_spec(load_rules(game, {})))


def _showdown_foreign_card() -> None:
    rnd = make_round(["As Kd 2c", "Ah 9h 3d"], "Ac 7s")
    rnd.apply(SdAction(seat=1, action="exchange", cards=(parse_card("3d"),)))


def _showdown_wrong_increment() -> None:
    rnd = make_round(["As Kd 2c"], "Ac 7s")
    rnd.apply(SdAction(seat=1, action="exchange", cards=()))
    rnd.apply(SdAction(seat=1, action="increment_1", amount=500))


def _bj_split_not_a_pair() -> None:
    rnd = _bj("5s 9c 6h 7s 9d")
    rnd.apply(Action(1, "decline"))  # no retiro
    rnd.apply(Action(1, "split", hand=0))


def _bj_decision_before_the_hole_card() -> None:
    """A live round (cards posted one by one) asked a decision while the dealer's hole card is due."""
    r = BlackjackRules.load({})
    rnd = BlackjackRound(r, place_bets([RawBet(1, "ana", "main", 1000)], BlackjackRound.bet_spec(r)))
    for card in ("Ts", "9h", "7c"):
        rnd.apply(Dealt(parse_card(card)))
    rnd.apply(Action(1, "stand"))


FULL_SCENARIO = {"game": "blackjack", "rules": {}, "cards": ["Ts", "9c", "9h", "7s", "2d"], "bets": []}

#: (what, how to get the refusal, code, words the Spanish must hold, words the English must hold)
SAMPLES: list[tuple[str, Callable[[], Any], str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "bet below the minimum",
        _bets("blackjack", BlackjackRound, [RawBet(1, "ana", "main", 50)]),
        "bad_bet",
        ("S/ 0.50", "S/ 1.00", "mínimo"),
        ("S/ 0.50", "minimum"),
    ),
    (
        "a back-bettor when a box is free",
        _bets("blackjack", BlackjackRound, [RawBet(1, "ana", "main", 1000), RawBet(1, "bob", "main", 500)]),
        "bad_bet",
        ("adhesión", "7 casillas"),
        ("back-betting (adhesión)", "all 7 boxes"),
    ),
    (
        "Punto and Banca together",
        _bets(
            "punto_y_banca",
            PuntoYBancaRound,
            [RawBet(1, "ana", "punto", 1000), RawBet(1, "ana", "banca", 500)],
        ),
        "bad_bet",
        ("no puede apostar a Punto y a Banca",),
        ("Punto (player)", "Banca (banker)"),
    ),
    (
        "a Majestic 21 side bet without the main bet",
        _bets("majestic_21", Majestic21Round, [RawBet(1, "ana", "under_13", 500)]),
        "bad_bet",
        ("requiere una apuesta",),
        ("needs a bet",),
    ),
    (
        "an unknown seat",
        _bets("blackjack", BlackjackRound, [RawBet(9, "ana", "main", 1000)]),
        "bad_bet",
        ("«9» no existe", "del 1 al 7"),
        ("seats are 1 to 7",),
    ),
    ("no bets at all", lambda: run(FULL_SCENARIO), "bad_bet", ("no hay apuestas",), ("no bets",)),
    (
        "an illegal decision (split without a pair)",
        _bj_split_not_a_pair,
        "illegal_action",
        ("no puede elegir separación", "pedir carta, plantarse, incremento"),
        ("cannot choose split (separación)", "hit, stand, double (incremento)"),
    ),
    (
        "surrender against an Ace",
        lambda: _bj("Ts Ac 9h Kd").apply(Action(1, "surrender")),
        "illegal_action",
        ("no puede elegir retiro", "seguro, no"),
        ("cannot choose surrender (retiro)", "insurance (seguro), no"),
    ),
    (
        "insurance over half the bet",
        lambda: _bj("Ts Ac 9h Kd").apply(Action(1, "insurance", amount=501)),
        "illegal_action",
        ("seguro de S/ 5.01", "S/ 5.00"),
        ("insurance (seguro) of S/ 5.01",),
    ),
    (
        "a decision out of turn",
        lambda: _bj("Ts Ac 9h Kd").apply(Action(2, "decline")),
        "illegal_action",
        ("el asiento 2 no puede decidir ahora", "asiento 1 (seguro)"),
        ("seat 2 cannot decide now",),
    ),
    (
        "a decision while the dealer's hole card is due",
        _bj_decision_before_the_hole_card,
        "conflict",
        ("la carta tapada del dealer", "el plantarse del asiento 1"),
        ("the dealer's hole card", "seat 1's stand"),
    ),
    ("a bad card", lambda: parse_card("Xx"), "bad_cards", ("«Xx» no es una carta",), ("'Xx' is not a card",)),
    (
        "a card the pack cannot hold",
        lambda: StackedSource([parse_card("As")] * 2, 1),
        "bad_cards",
        ("As aparece 2 veces",),
        ("As appears 2 times",),
    ),
    (
        "an unknown setting",
        lambda: load_rules("blackjack", {"colour": "green"}),
        "invalid_rules",
        ("«colour» no es una configuración de Black Jack",),
        ("'colour' is not a Black Jack setting",),
    ),
    (
        "a setting of the wrong type and one out of range",
        lambda: load_rules("punto_y_banca", {"decks": "8", "zones": 20, "shoe_passes": "never"}),
        "invalid_rules",
        (
            "decks: debe ser un número entero",
            "zones: debe ser menor o igual que 7",
            "banca_loses, every_round",
        ),
        ("decks: must be a whole number", "zones: must be 7 or less"),
    ),
    (
        "a cut card outside its window",
        lambda: load_rules("blackjack", {"cut_card_depth": 20}),
        "invalid_rules",
        ("el cortador debe dejar detrás entre 40 y 156 cartas",),
        ("between 40 and 156 cards",),
    ),
    (
        "settings the regulation forbids",
        lambda: load_rules("blackjack", {"decks": 2, "surrender": False, "table_min": 500, "table_max": 100}),
        "invalid_rules",
        ("de 4 a 8 barajas", "S/ 5.00", "concede el retiro"),
        ("4 to 8 decks", "surrender (retiro)", "S/ 5.00"),
    ),
    (
        "a pot bet outside the table's limits",
        lambda: load_rules("showdown_poker", {"pot_bet": 50}),
        "invalid_rules",
        ("pot_bet=S/ 0.50", "S/ 1.00 a S/ 1,000.00"),
        ("S/ 1.00 to S/ 1,000.00",),
    ),
    (
        "Showdown: exchange of a card the player does not hold",
        _showdown_foreign_card,
        "illegal_action",
        ("no tiene 3d", "sus propias cartas"),
        ("does not hold 3d",),
    ),
    (
        "Showdown: an increment that is not the bet",
        _showdown_wrong_increment,
        "illegal_action",
        ("incremento Nº1 de S/ 5.00", "(S/ 10.00)"),
        ("raise Nº1 (incremento Nº1) of S/ 5.00",),
    ),
    (
        "a live table given a seeded shoe",
        lambda: Shoe(6, SeededRandom(1), cut_card_depth=78, live=True),
        "live_table_refused",
        ("generador criptográfico", "generador con semilla"),
        ("cryptographic generator",),
    ),
    (
        "a stacked source on a live table",
        lambda: check_live_source(StackedSource([], 6), live=True),
        "live_table_refused",
        ("no acepta una fuente de cartas apilada",),
        ("refuses a",),
    ),
    ("broken JSON", lambda: run_text("{"), "bad_file", ("no es JSON válido (línea 1",), ("not valid JSON",)),
    (
        "a decision left over",
        lambda: run(
            {
                **FULL_SCENARIO,
                "bets": [{"seat": 1, "player": "a", "spot": "main", "amount": 1000}],
                "cards": ["Ts", "9c", "9h", "7s", "2d"],
                "actions": [{"seat": 1, "action": "stand"}] * 2,
            }
        ),
        "illegal_action",
        ("sobra la decisión 1",),
        ("decision 1 is left over",),
    ),
]

#: English words that must not be left in a Spanish message (and Spanish ones in an English message)
ENGLISH = {
    "the",
    "is",
    "are",
    "not",
    "cannot",
    "must",
    "only",
    "has",
    "with",
    "more",
    "than",
    "above",
    "below",
}
SPANISH = {"el", "la", "del", "debe", "puede", "está", "supera", "asiento", "apuesta", "mesa", "cartas"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-záéíóúñ]+", text.lower()))


@pytest.mark.parametrize(
    ("what", "make", "code", "es_words", "en_words"), SAMPLES, ids=[s[0] for s in SAMPLES]
)
def test_real_refusals_are_said_fully_in_spanish_and_in_english(
    what: str, make: Callable[[], Any], code: str, es_words: tuple[str, ...], en_words: tuple[str, ...]
) -> None:
    err = _refusal(make)
    assert err.code == code, (what, err.message)
    assert err.key, f"{what}: raised without a message id: {err.message}"
    es = describe_error(err, Translator("es"), Money())
    en = describe_error(err, Translator("en"), Money())
    assert err.message not in es  # rendered from the catalog, not the engine's English
    assert not _words(es) & ENGLISH, (es, _words(es) & ENGLISH)
    assert not _words(en) & SPANISH, (en, _words(en) & SPANISH)
    for word in es_words:
        assert word in es, (word, es)
    for word in en_words:
        assert word in en, (word, en)


def test_the_engine_message_and_code_are_unchanged_for_tools() -> None:
    """The key rides along; `message`, `code` and `at` are what they always were (scenario JSON), and the
    JSON carries the message id and its params beside them, for a client that renders its own language."""
    err = _refusal(
        _bets("blackjack", BlackjackRound, [RawBet(1, "ana", "main", 1000), RawBet(9, "b", "main", 5)])
    )
    assert err.to_json() == {
        "error": {
            "code": "bad_bet",
            "message": "unknown seat 9: seats are 1 to 7",
            "at": 1,
            "key": "err.bet.seat",
            "params": {"seat": 9, "seats": 7},
        }
    }
    err = _refusal(lambda: load_rules("blackjack", {"surrender": False, "burn": 0}))
    assert isinstance(err, InvalidRules)
    assert err.message == (
        "burn=0: Art.5g burns one or more cards before the first round; "
        "surrender=false: Art.9 grants the retiro to every player"
    )
    err = _refusal(lambda: parse_card("Xx"))
    assert isinstance(err, BadCards) and err.message.startswith("unknown card 'Xx'")
    assert isinstance(
        _refusal(lambda: Shoe(6, SeededRandom(1), cut_card_depth=78, live=True)), LiveTableRefused
    )
    assert isinstance(_refusal(lambda: _bj("Ts Ac 9h Kd").apply(Action(1, "split"))), IllegalAction)


def test_an_amount_in_chips_is_shown_in_chips() -> None:
    err = _refusal(_bets("blackjack", BlackjackRound, [RawBet(1, "ana", "main", 50)]))
    assert describe_error(err, Translator("es"), Money("CHIPS")) == (
        "Apuesta rechazada: ana (apuesta): 50 está por debajo del mínimo de la mesa (100)."
    )


def test_the_terminal_table_says_a_refused_decision_in_spanish() -> None:
    # 19 against an Ace: the person asks for S/ 6.00 of insurance, more than half of S/ 10.00.
    text, _ = play_game("blackjack", "Ts Ac 9h Kd", ["10", "s", "6", "", "p"], decks=6)
    assert (
        "Decisión no permitida: el seguro de S/ 6.00 supera la mitad de la apuesta original (S/ 5.00)."
        in text
    )
    text, _ = play_game("blackjack", "Ts Ac 9h Kd", ["10", "y", "6", "", "s"], decks=6, lang="en")
    assert (
        "Decision not allowed: insurance (seguro) of S/ 6.00 is more than half the original bet (S/ 5.00)."
        in text
    )
