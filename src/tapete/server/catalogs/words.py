"""What the web page reads beside server.md's API, so that it says what the terminal tables say: the
language catalogs (the regulation's words and the page's own, one source for every face), each game's
settings with their defaults and bounds (the administrator's form), a table's layout phrases and house
rules, and every payout of a round with its reason.

The reasons are the terminal tables' own (`tapete.play`): a payout is explained by the same code and the
same catalog entries in the browser as at a terminal, in both languages at once, so that a WebSocket push
needs no language and the page's language switch needs no new request.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any, cast

from rich.console import Console

from tapete.games import round_class
from tapete.games.base import CARD, Round
from tapete.i18n import LANGUAGES, Money, Translator, house_rules_lines, layout_lines
from tapete.rules import load_rules
from tapete.rules.common import CommonRules
from tapete.server.models import CasinoTable
from tapete.server.play.tables import SERVER_KEYS

#: the page shows amounts in soles, as the terminal tables do
CURRENCY = "PEN"
#: the server's own settings of a table (server.md), with what the page's form needs to know of them
SERVER_FIELDS: dict[str, dict[str, Any]] = {
    "turn_seconds": {"type": "number", "nullable": True, "exclusiveMinimum": 0},
    "betting_seconds": {"type": "number", "nullable": True, "exclusiveMinimum": 0},
}


def game_json(game: str) -> dict[str, Any]:
    """A game as the administrator's form needs it: its seats and spots, its settings' defaults (the
    regulation's and rules.md's [A] defaults) and each setting's type and bounds (from the rules model)."""
    rules = load_rules(game, {})
    spec = round_class(game).bet_spec(rules)
    schema = type(rules).model_json_schema()
    fields: dict[str, dict[str, Any]] = {}
    for key, prop in schema.get("properties", {}).items():
        options = prop.get("anyOf", [prop])
        types = [o.get("type") for o in options if o.get("type") != "null"]
        field: dict[str, Any] = {
            "type": types[0] if len(types) == 1 else types,
            "nullable": any(o.get("type") == "null" for o in options),
            "description": prop.get("description", ""),
        }
        for bound in ("minimum", "maximum", "exclusiveMinimum", "enum"):
            for o in options:
                if bound in o:
                    field[bound] = o[bound]
        consts = [o["const"] for o in options if "const" in o]
        if consts:
            field["const"] = consts
        fields[key] = field
    fields.update(SERVER_FIELDS)
    return {
        "game": game,
        "seats": spec.seats,
        "spots": list(spec.spots),
        "side_spots": list(spec.side_spots),
        "required_spots": list(spec.required_spots),
        "back_spots": list(spec.back_spots),
        "one_box_per_player": spec.one_box_per_player,
        "settings": dict(rules.settings()),
        "server_settings": {"virtual": {"turn_seconds": 30, "betting_seconds": None}, "live": {}},
        "fields": fields,
    }


def table_rules(table: CasinoTable) -> CommonRules:
    """A table's rules model (its settings without the server's own)."""
    return load_rules(table.game, {k: v for k, v in table.rules.items() if k not in SERVER_KEYS})


def house_words(table: CasinoTable) -> dict[str, Any]:
    """A table's layout phrases and the house's rules shown to its players, in every language."""
    rules = table_rules(table)
    return {
        "table": table.id,
        "game": table.game,
        "layout": {lang: list(layout_lines(table.game, lang)) for lang in LANGUAGES},
        "house_rules": {lang: list(house_rules_lines(rules, lang, currency=CURRENCY)) for lang in LANGUAGES},
    }


# ------------------------------------------------------------------------------------------- payouts
#: (table, round, events so far, id of the round) → (the round, its payout lines). The round itself is kept
#: and compared: an id is only unique among live objects, and a process that serves several casinos (the
#: tests do) would otherwise be given another casino's table 1, round 1 at the same address.
_CACHE: OrderedDict[tuple[int, int | str, int, int], tuple[Round, list[dict[str, Any]]]] = OrderedDict()
_CACHE_SIZE = 256


_FACES: OrderedDict[tuple[str, int, str], tuple[CommonRules, Any]] = OrderedDict()


def _face(game: str, rules: CommonRules, lang: str, players: list[str]) -> Any:
    """A terminal table of `game` that never prints nor asks: only its words and its reasons are used.
    Kept per game, rules and language (building one cost more than the words it gives)."""
    key = (game, id(rules), lang)
    kept = _FACES.get(key)
    if kept is not None and kept[0] is rules and not players:
        _FACES.move_to_end(key)
        return kept[1]
    face = _new_face(game, rules, lang, players)
    if not players:
        _FACES[key] = (rules, face)  # the rules kept with it: their id is not reused meanwhile
        while len(_FACES) > _CACHE_SIZE:
            _FACES.popitem(last=False)
    return face


def _new_face(game: str, rules: CommonRules, lang: str, players: list[str]) -> Any:
    from tapete.play.blackjack import BlackjackFace
    from tapete.play.common import PlayContext
    from tapete.play.majestic_21 import Majestic21Face
    from tapete.play.punto_y_banca import PuntoYBancaFace
    from tapete.play.showdown_poker import ShowdownFace

    face_class: type[Any] = {
        "blackjack": BlackjackFace,
        "majestic_21": Majestic21Face,
        "punto_y_banca": PuntoYBancaFace,
        "showdown_poker": ShowdownFace,
    }[game]
    session = SimpleNamespace(rules=rules, game=game, round_class=round_class(game), source=None)
    ctx = PlayContext(
        console=Console(file=io.StringIO()),
        tr=Translator(lang),
        money=Money(CURRENCY),
        session=cast(Any, session),
        input=lambda _prompt: "",
        seats=max(1, len(players)),
        players=players or ["?"],
    )
    return face_class(ctx)


def _first_two(rnd: Round) -> dict[int, list[str]]:
    """Each box's first two cards (Majestic 21's side bets are judged on them, Art.1a)."""
    out: dict[int, list[str]] = {}
    for ev in rnd.events:
        if ev.get("type") == CARD and ev.get("to") == "seat" and ev.get("hand", 0) == 0:
            cards = out.setdefault(ev["seat"], [])
            if len(cards) < 2:
                cards.append(ev["card"])
    return out


def _reasons(game: str, rules: CommonRules, rnd: Round, lang: str) -> list[tuple[str, str]]:
    """(what, why) of every settle event of `rnd`, in order, worded by the terminal table of `game`."""
    settles = [ev for ev in rnd.events if ev.get("type") == "settle"]
    face = _face(game, rules, lang, [])
    tr = face.tr
    if game == "showdown_poker":
        rows = face.payout_rows(rnd)
        return [(row.what, row.why) for row in rows]
    if game == "punto_y_banca":
        return [(tr("spot." + ev["spot"]), face.explain(rnd, ev)) for ev in settles]
    view = rnd.view("dealer")
    if game == "majestic_21":
        face.first_two = _first_two(rnd)
    return [(tr("spot." + ev["spot"]), face._explain(view, ev)) for ev in settles]


def payouts(table_id: int, game: str, rules: CommonRules, rnd: Round | None) -> list[dict[str, Any]]:
    """Every payout of `rnd` so far (Majestic 21's side bets and Black Jacks are paid before the round
    ends): who, on what, the stake, what was paid and why, the last two in every language. Payouts are
    public at a table (the settle events are in every viewer's censored log); reasons are built from the
    table as dealt (the dealer's view: no hole card before it is turned)."""
    if rnd is None:
        return []
    settles = [ev for ev in rnd.events if ev.get("type") == "settle"]
    if not settles:
        return []
    key = (table_id, rnd.round_id, len(settles), id(rnd))  # a settle once worded keeps its words
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is rnd:
        _CACHE.move_to_end(key)
        return cached[1]
    words: dict[str, list[tuple[str, str]]] = {}
    for lang in LANGUAGES:
        try:
            words[lang] = _reasons(game, rules, rnd, lang)
        except (KeyError, IndexError, ValueError, TypeError):  # a round we cannot explain: say the outcome
            tr = Translator(lang)
            words[lang] = [(tr("spot." + ev["spot"]), tr("outcome." + ev["outcome"])) for ev in settles]
    out = []
    for i, ev in enumerate(settles):
        line: dict[str, Any] = {
            k: ev[k] for k in ("seat", "player", "spot", "hand", "stake", "paid", "outcome") if k in ev
        }
        line["net"] = ev["paid"] - ev["stake"]
        line["what"] = {lang: words[lang][i][0] for lang in LANGUAGES if i < len(words[lang])}
        line["why"] = {lang: words[lang][i][1] for lang in LANGUAGES if i < len(words[lang])}
        out.append(line)
    _CACHE[key] = (rnd, out)
    _CACHE.move_to_end(key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out
