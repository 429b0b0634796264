"""The kernels checked against the ENGINE, round by round, through the scenario contract only.

A kernel plays some rounds with a record: each round's cards in the order they left its shoe, the
decisions its strategy took, and each seat's result on each bet. Every recorded round becomes a scenario
document (`shared/spec/scenario.md`: ``{"game", "rules", "cards", "bets", "actions"}``) that
`tapete.scenario.run` plays on the engine; the engine's outcome must give every seat the same result on
every bet, and must have used exactly the cards the kernel dealt (no more: the engine would refuse the
scenario; no fewer: counted from the hands in its outcome). A decision the engine finds illegal, missing
or left over is a refusal, hence a mismatch too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tapete.cards import NAMES
from tapete.errors import TapeteError
from tapete.scenario import run
from tapete.sim.kernels import Plan
from tapete.sim.kernels.rng import seed_state


@dataclass
class CrossCheck:
    """What a cross-check compared: rounds, per-bet results compared, and the rounds that differ."""

    game: str
    rounds: int = 0
    compared: int = 0
    mismatches: list[str] = field(default_factory=list)
    actions: dict[str, int] = field(default_factory=dict)  # decisions replayed, by name
    features: dict[str, int] = field(default_factory=dict)  # rare situations met (see `features`)

    @property
    def ok(self) -> bool:
        """True when every round agreed."""
        return not self.mismatches


def record_rounds(plan: Plan, rounds: int, seed: int) -> Any:
    """Play `rounds` rounds of `plan` (one chunk, seed's chunk 0) keeping the record."""
    record = plan.new_record(rounds)  # type: ignore[attr-defined]
    plan.play(0, rounds, seed_state(seed, 0), record)  # type: ignore[call-arg]
    return record


def cross_check(plan: Plan, rounds: int, seed: int = 1) -> CrossCheck:
    """Play `rounds` recorded kernel rounds and replay each on the engine (see the module docstring)."""
    return compare(plan, record_rounds(plan, rounds, seed), rounds)


def compare(plan: Plan, record: Any, rounds: int) -> CrossCheck:
    """Replay the first `rounds` rounds of a kernel `record` on the engine and compare each."""
    check = CrossCheck(plan.game)
    for r, doc, expected, ncards in scenarios(plan, record, rounds):
        check.rounds += 1
        for entry in doc["actions"]:
            check.actions[entry["action"]] = check.actions.get(entry["action"], 0) + 1
        try:
            out = run(doc)
        except TapeteError as exc:
            check.mismatches.append(f"round {r}: the engine refused it: {exc.code} {exc.message}")
            continue
        for name in features(plan.game, out):
            check.features[name] = check.features.get(name, 0) + 1
        got, used = engine_results(plan, out)
        if used != ncards:
            check.mismatches.append(f"round {r}: the engine used {used} cards, the kernel dealt {ncards}")
        for key in sorted(set(expected) | set(got)):
            check.compared += 1
            if got.get(key) != expected.get(key):
                check.mismatches.append(
                    f"round {r}: {key}: kernel {expected.get(key)}, engine {got.get(key)}"
                )
    return check


def scenarios(
    plan: Plan, record: Any, rounds: int
) -> Iterator[tuple[int, dict[str, Any], dict[str, int], int]]:
    """(round, scenario document, the kernel's results by "seat/bet", cards dealt) of recorded rounds."""
    game = plan.game
    for r in range(rounds):
        if game == "punto_y_banca":
            yield _baccarat(plan, record, r)
        elif game == "showdown_poker":
            yield _showdown(plan, record, r)
        else:
            yield _blackjack(plan, record, r)


def _doc(
    plan: Plan, cards: list[str], bets: list[dict[str, Any]], actions: list[dict[str, Any]]
) -> dict[str, Any]:
    return {"game": plan.game, "rules": dict(plan.settings), "cards": cards, "bets": bets, "actions": actions}


def _blackjack(plan: Any, record: Any, r: int) -> tuple[int, dict[str, Any], dict[str, int], int]:
    from tapete.sim.kernels.blackjack import ACTIONS, BETS

    n = int(record.ncards[r])
    cards = [NAMES[int(c)] for c in record.cards[r, :n]]
    bets: list[dict[str, Any]] = []
    for s in range(plan.seats):
        bets.append({"seat": s + 1, "player": f"p{s + 1}", "spot": "main", "amount": plan.stake})
        if plan.majestic:
            for spot in ("under_13", "over_13", "exactly_13"):
                bets.append({"seat": s + 1, "player": f"p{s + 1}", "spot": spot, "amount": plan.side_stake})
    actions: list[dict[str, Any]] = []
    for a in range(int(record.nactions[r])):
        seat, code, hand = (int(x) for x in record.actions[r, a])
        entry: dict[str, Any] = {"seat": seat, "action": ACTIONS[code]}
        if hand >= 0:
            entry["hand"] = hand
        actions.append(entry)
    expected: dict[str, int] = {}
    for s in range(plan.seats):
        for b, name in enumerate(BETS[: len(plan.bets)]):
            if b >= 4 and not record.nets[r, b, s]:
                continue  # an insurance not taken (a taken one never nets 0)
            expected[f"{s + 1}/{name}"] = int(record.nets[r, b, s])
    return r, _doc(plan, cards, bets, actions), expected, n


def _baccarat(plan: Any, record: Any, r: int) -> tuple[int, dict[str, Any], dict[str, int], int]:
    from tapete.sim.kernels.baccarat import BETS

    row = [int(c) for c in record.cards[r] if c >= 0]
    winner = int(record.info[r, 7])
    bets = [
        {"seat": k + 1, "player": f"p{k + 1}", "spot": spot, "amount": plan.stake}
        for k, spot in enumerate(BETS)
    ]
    expected = {f"{k + 1}/{spot}": plan.nets[k][winner] for k, spot in enumerate(BETS)}
    expected["punto_total"] = int(record.info[r, 3])
    expected["banca_total"] = int(record.info[r, 4])
    return r, _doc(plan, [NAMES[c] for c in row], bets, []), expected, len(row)


def _showdown(plan: Any, record: Any, r: int) -> tuple[int, dict[str, Any], dict[str, int], int]:
    from tapete.sim.kernels.showdown import ACTIONS, BETS

    n = int(record.ncards[r])
    cards = [NAMES[int(c)] for c in record.cards[r, :n]]
    bets: list[dict[str, Any]] = []
    for s in range(plan.seats):
        p = f"p{s + 1}"
        bets += [
            {"seat": s + 1, "player": p, "spot": "bet", "amount": plan.stake},
            {"seat": s + 1, "player": p, "spot": "pot", "amount": plan.pot},
            {"seat": s + 1, "player": p, "spot": "bonus", "amount": plan.bonus},
        ]
    actions: list[dict[str, Any]] = []
    for a in range(int(record.nactions[r])):
        seat, code, c1, c2, c3 = (int(x) for x in record.actions[r, a])
        entry: dict[str, Any] = {"seat": seat, "action": ACTIONS[code]}
        if code == 0:
            entry["cards"] = [NAMES[c] for c in (c1, c2, c3) if c >= 0]
        actions.append(entry)
    expected = {
        f"{s + 1}/{name}": int(record.nets[r, b, s]) for s in range(plan.seats) for b, name in enumerate(BETS)
    }
    return r, _doc(plan, cards, bets, actions), expected, n


def engine_results(plan: Plan, out: dict[str, Any]) -> tuple[dict[str, int], int]:
    """Each seat's result on each bet ("seat/bet") read from the engine's outcome, and the cards it used."""
    got: dict[str, int] = {}
    game = plan.game
    if game == "punto_y_banca":
        for zone in out["seats"]:
            for bet in zone["bets"]:
                got[f"{zone['seat']}/{bet['spot']}"] = bet["net"]
        got["punto_total"] = out["punto"]["total"]
        got["banca_total"] = out["banca"]["total"]
        return got, len(out["punto"]["cards"]) + len(out["banca"]["cards"])
    if game == "showdown_poker":
        used = len(out["community"])
        for seat in out["seats"]:
            s = seat["seat"]
            got[f"{s}/bet"] = seat["paid"] - seat["stake"]
            got[f"{s}/pot"] = seat["pot"]["paid"] - seat["pot"]["stake"]
            got[f"{s}/bonus"] = seat["bonus"]["net"]
            used += len(seat["cards"]) + len(seat["exchanged"])
        return got, used
    used = len(out["dealer"]["cards"])
    for seat in out["seats"]:
        s = seat["seat"]
        got[f"{s}/main"] = sum(h["net"] for h in seat["hands"])
        used += sum(len(h["cards"]) for h in seat["hands"])
        for spot, bet in (seat.get("side_bets") or {}).items():
            got[f"{s}/{spot}"] = bet["net"]
        if "insurance" in seat:
            up = out["dealer"]["cards"][0][0]
            name = "insurance_ace" if up == "A" else "insurance_ten"
            got[f"{s}/{name}"] = seat["insurance"]["net"]
    return got, used


def features(game: str, out: dict[str, Any]) -> list[str]:
    """The rarer situations an engine outcome shows, so a test can see that a cross-check met them."""
    found: list[str] = []
    events = out.get("events", [])
    if game == "punto_y_banca":
        if out["punto"]["natural"] or out["banca"]["natural"]:
            found.append("natural")
        if len(out["banca"]["cards"]) == 3:
            found.append("banca_third_card")
        if out["winner"] == "empate":
            found.append("tie")
        return found
    if game == "showdown_poker":
        if out.get("payout_limit"):
            found.append("payout_limit")
        if len(out["pot"].get("winners", [])) > 1:
            found.append("pot_split")
        if any(seat["bonus"]["net"] > 0 for seat in out["seats"]):
            found.append("bonus_win")
        if any(seat["increments"] and len(seat["increments"]) == 2 for seat in out["seats"]):
            found.append("increment_2")
        return found
    dealer = out["dealer"]["cards"]
    if len(dealer) == 2 and {dealer[0][0], dealer[1][0]} & {"A"} and any(c[0] in "TJQK" for c in dealer):
        found.append("dealer_blackjack")
    for seat in out["seats"]:
        hands = seat["hands"]
        outcomes = {h["outcome"] for h in hands}
        if len(hands) >= 3:
            found.append("resplit")
        if len(hands) >= 3 and hands[0]["cards"][0][0] == "A":
            found.append("resplit_aces")
        if "returned" in outcomes:
            found.append("split_returned_on_dealer_blackjack")
        if any(h.get("double") for h in hands) and len(hands) > 1:
            found.append("double_after_split")
        if any(h.get("bust") for h in hands) and len(hands) > 1:
            found.append("split_hand_bust")
        if "surrender" in outcomes:
            found.append("surrender")
        if "insurance" in seat and seat["insurance"]["net"] > 0:
            found.append("insurance_won")
        if hands[0].get("blackjack"):
            found.append("blackjack")
    if any(e.get("type") == "offer" and e.get("offer") == "resplit" for e in events):
        found.append("resplit_offer")
    return found
