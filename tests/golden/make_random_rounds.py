"""Write tests/golden/random-rounds.json.gz: random scenario documents of all four games and the SHA-256
of each one's canonical output, as the engine gave them when this file was made.

`tests/test_golden.py` plays every document again and compares: the engine-seams refactor (issue 10)
must not change a single outcome. Run it only to re-baseline after an intended change of output:

    python tests/golden/make_random_rounds.py [--per-game N] [--seed S]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "random-rounds.json.gz"


def _rules(game: str, r: random.Random) -> dict[str, Any]:
    if game in ("blackjack", "majestic_21"):
        rules: dict[str, Any] = {"decks": r.choice([4, 6, 8])}
        if r.random() < 0.3:
            rules["max_splits"] = r.choice([1, 2, 3])
        if r.random() < 0.3:
            rules["resplit_aces"] = True
        if r.random() < 0.2:
            rules["back_betting"] = False
        return rules
    if game == "punto_y_banca":
        return {"decks": r.choice([6, 8])}
    rules = {"max_exchange": r.choice([3, 3, 2, 1])}
    if r.random() < 0.4:
        rules["payout_limit"] = r.choice([1000, 5000, 20000])
    return rules


def _bets(game: str, r: random.Random) -> list[dict[str, Any]]:
    n = r.choice([1, 1, 2, 3, 5, 7, 7]) if game != "showdown_poker" else r.randint(1, 7)
    seats = sorted(r.sample(range(1, 8), n))
    bets: list[dict[str, Any]] = []
    for s in seats:
        holder = f"p{s}"
        if game in ("blackjack", "majestic_21"):
            bets.append({"seat": s, "player": holder, "spot": "main", "amount": r.randint(1, 50) * 100})
            if game == "majestic_21":
                for spot in ("under_13", "over_13", "exactly_13"):
                    if r.random() < 0.3:
                        bets.append(
                            {"seat": s, "player": holder, "spot": spot, "amount": r.randint(1, 9) * 100}
                        )
        elif game == "punto_y_banca":
            side = r.choice(["punto", "banca"])
            bets.append(
                {
                    "seat": s,
                    "player": holder,
                    "spot": side,
                    "amount": r.randint(1, 50) * 100 + r.randint(0, 99),
                }
            )
            if r.random() < 0.3:
                bets.append({"seat": s, "player": holder, "spot": "empate", "amount": r.randint(1, 9) * 100})
        else:
            bets.append({"seat": s, "player": holder, "spot": "bet", "amount": r.randint(1, 50) * 100})
            bets.append({"seat": s, "player": holder, "spot": "pot", "amount": 100})
            if r.random() < 0.4:
                bets.append({"seat": s, "player": holder, "spot": "bonus", "amount": r.randint(1, 9) * 100})
    if n == 7 and game != "showdown_poker" and r.random() < 0.6:
        for k in range(r.randint(1, 3)):
            s = r.randint(1, 7)
            holder_spots = [b["spot"] for b in bets if b["seat"] == s and b["player"] == f"p{s}"]
            spot = "main" if game != "punto_y_banca" else holder_spots[0]
            bets.append({"seat": s, "player": f"back{k}", "spot": spot, "amount": r.randint(1, 20) * 100 + 1})
    return bets


def _decide(game: str, rnd: Any, r: random.Random) -> tuple[Any, dict[str, Any] | None]:
    """A random legal answer to the pending decision, and its scenario entry (None: a silent decline)."""
    d = rnd.pending
    cls = type(rnd)
    if game == "showdown_poker":
        if d.kind == "exchange":
            mine = rnd._seat(d.seat).cards
            k = r.randint(0, d.max_cards)
            give = r.sample(mine, k)
            if not give or r.random() < 0.2:
                return cls.decline(d), None
            from tapete.cards import NAMES

            entry = {"seat": d.seat, "action": "exchange", "cards": [NAMES[c] for c in give]}
            return cls.parse_action(entry), entry
        if r.random() < 0.5:
            return cls.decline(d), None
        entry = {"seat": d.seat, "action": d.kind}
        return cls.parse_action(entry), entry
    choice = r.choice(d.legal)
    if d.kind == "surrender" and r.random() < 0.8:
        choice = "decline"
    if "split" in d.legal and r.random() < 0.5:
        choice = "split"
    if choice == "decline":
        return cls.decline(d), None
    entry = {"seat": d.seat, "action": choice}
    box = rnd._box(d.seat)
    if d.kind in ("play", "resplit") and len(box.hands) > 1:
        entry["hand"] = d.hand
    if choice in ("double", "insurance") and r.random() < 0.4 and d.max_amount:
        entry["amount"] = r.randint(1, d.max_amount)
    return cls.parse_action(entry), entry


def make_one(game: str, r: random.Random) -> dict[str, Any] | None:
    """One random scenario document the engine plays to an outcome (None when its bets are refused)."""
    from tapete.cards import NAMES, pack
    from tapete.errors import TapeteError
    from tapete.games import round_class
    from tapete.rules import load_rules
    from tapete.shoe import StackedSource
    from tapete.table import RawBet, place_bets

    settings = _rules(game, r)
    rules = load_rules(game, settings)
    bets = _bets(game, r)
    cls = round_class(game)
    try:
        boxes = place_bets(
            [RawBet(b["seat"], b["player"], b["spot"], b["amount"]) for b in bets], cls.bet_spec(rules)
        )
    except TapeteError:
        return None
    cards = pack(rules.decks)
    r.shuffle(cards)
    source = StackedSource(cards, rules.decks)
    rnd = cls(rules, source, boxes)
    actions: list[dict[str, Any]] = []
    while rnd.pending is not None:
        action, entry = _decide(game, rnd, r)
        rnd.apply(action)
        if entry is not None:
            actions.append(entry)
    return {
        "game": game,
        "rules": settings,
        "cards": [NAMES[c] for c in cards[: source.used]],
        "bets": bets,
        "actions": actions,
    }


def output_digest(out: dict[str, Any]) -> str:
    """SHA-256 of a scenario output's canonical JSON (see tests/test_golden.py for what is normalised)."""
    body = json.dumps(out, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def main() -> None:
    """Generate and write the golden file."""
    from tapete.scenario import run

    ap = argparse.ArgumentParser()
    ap.add_argument("--per-game", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    r = random.Random(args.seed)
    docs = []
    for game in ("blackjack", "majestic_21", "punto_y_banca", "showdown_poker"):
        made = 0
        while made < args.per_game:
            doc = make_one(game, r)
            if doc is None:
                continue
            docs.append({"doc": doc, "digest": output_digest(run(doc))})
            made += 1
    with gzip.open(OUT, "wt", encoding="utf-8") as fh:
        json.dump(docs, fh, ensure_ascii=False, separators=(",", ":"))
    print(f"{len(docs)} documents -> {OUT}")


if __name__ == "__main__":
    main()
