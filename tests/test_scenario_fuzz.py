"""`tapete scenario` never answers with a traceback: any document — valid, mutated or junk — gives an
outcome or a typed error (exit 2 with JSON), whatever the game."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapete.errors import TapeteError
from tapete.scenario import run

EXAMPLES = [
    json.loads(p.read_text())
    for p in sorted((Path(__file__).parent / "scenarios" / "examples").glob("*.json"))
    if not p.name.endswith(".expected.json")
]

junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=10,
)
CARDS = st.sampled_from(["As", "Kd", "Td", "10h", "9c", "2s", "Qh", "5c", "7d", "Jk", "Xx", "", "AS"])
KEYS = ("game", "rules", "cards", "bets", "actions")


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    doc = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 4))):
        what = draw(st.integers(0, 6))
        if what == 0:
            doc[draw(st.sampled_from(KEYS))] = draw(junk)
        elif what == 1 and isinstance(doc.get("cards"), list):
            doc["cards"] = draw(st.lists(CARDS, max_size=14))
        elif what == 2 and isinstance(doc.get("bets"), list) and doc["bets"]:
            bet = draw(st.sampled_from(doc["bets"]))
            if isinstance(bet, dict):
                bet[draw(st.sampled_from(["seat", "player", "spot", "amount"]))] = draw(junk)
        elif what == 3 and isinstance(doc.get("actions"), list):
            doc["actions"].append(
                {
                    "seat": draw(st.integers(0, 8)),
                    "action": draw(
                        st.text(max_size=10)
                        | st.sampled_from(
                            [
                                "hit",
                                "stand",
                                "double",
                                "split",
                                "surrender",
                                "insurance",
                                "even_money",
                                "exchange",
                                "increment_1",
                                "increment_2",
                            ]
                        )
                    ),
                    "hand": draw(junk),
                    "amount": draw(junk),
                    "cards": draw(junk),
                }
            )
        elif what == 4 and isinstance(doc.get("rules"), dict):
            doc["rules"][
                draw(
                    st.sampled_from(
                        [
                            "decks",
                            "max_splits",
                            "pot_bet",
                            "payout_limit",
                            "zones",
                            "max_exchange",
                            "cut_card_depth",
                            "burn",
                            "bonus_paytable",
                        ]
                    )
                )
            ] = draw(junk)
        elif what == 5:
            doc["game"] = draw(
                st.sampled_from(["blackjack", "majestic_21", "punto_y_banca", "showdown_poker"])
            )
        else:
            doc.pop(draw(st.sampled_from(KEYS)), None)
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated())
def test_any_document_gives_an_outcome_or_a_typed_error(doc: Any) -> None:
    try:
        out = run(doc)
    except TapeteError as exc:
        body = exc.to_json()["error"]
        assert body["code"] in {"bad_file", "invalid_rules", "bad_cards", "bad_bet", "illegal_action"}
        json.dumps(body)
        return
    json.dumps(out)
    staked = sum(v["staked"] for v in out["players"].values())
    assert staked == sum(v["paid"] for v in out["players"].values()) + out["house"]["net"]


@settings(max_examples=200, deadline=None)
@given(doc=junk)
def test_junk_is_bad_file(doc: Any) -> None:
    try:
        run(doc)
    except TapeteError as exc:
        assert exc.code in {"bad_file", "invalid_rules", "bad_cards", "bad_bet", "illegal_action"}


def test_unreadable_or_binary_files_are_bad_file(tmp_path: Path) -> None:
    from tapete.scenario import run_file

    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00junk")
    for path in (binary, tmp_path / "missing.json", tmp_path):
        code, doc = run_file(str(path))
        assert code == 2 and doc["error"]["code"] == "bad_file"
