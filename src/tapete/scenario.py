"""Forced-outcome rounds: `tapete scenario FILE.json` exactly as shared/spec/scenario.md says.

The same engine as a live table plays the round; only the card source differs (a stacked shoe). Errors
are checked in the contract's order: shape (bad_file), rules (invalid_rules), cards (bad_cards), bets
(bad_bet), then play (illegal_action, or bad_cards when the shoe runs out).
"""

from __future__ import annotations

from typing import Any

from tapete.cards import parse_shoe
from tapete.dealer import DealerEntered, deal
from tapete.errors import BadBet, BadFile, IllegalAction, TapeteError, parse_document, read_text
from tapete.games import GAMES, round_class
from tapete.games.base import Action, CardStep, Decision, Round
from tapete.rules import load_rules
from tapete.shoe import StackedSource
from tapete.table import RawBet, place_bets

TOP_KEYS = {"game", "rules", "cards", "bets", "actions"}


def _shape(data: Any) -> None:
    """bad_file unless the document has the contract's shape."""
    if not isinstance(data, dict):
        raise BadFile(
            "a scenario is a JSON object with game, rules, cards, bets and actions", key="err.file.scenario"
        )
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise BadFile(
            f"unknown top-level key(s): {', '.join(sorted(unknown))}",
            key="err.file.top_keys",
            keys=sorted(unknown),
        )
    game = data.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise BadFile(
            f"unknown game {game!r}; games: {', '.join(GAMES)}",
            key="err.file.game",
            game=game,
            games=list(GAMES),
        )
    if "rules" in data and not isinstance(data["rules"], dict):
        raise BadFile("rules must be an object of settings", key="err.file.rules_object")
    for key in ("cards", "bets"):
        if not isinstance(data.get(key), list):
            raise BadFile(f"{key} must be a list", key="err.file.list", name=key)
    if not isinstance(data.get("actions", []), list):
        raise BadFile("actions must be a list", key="err.file.list", name="actions")
    for i, bet in enumerate(data["bets"]):
        if not isinstance(bet, dict) or not {"seat", "player", "spot", "amount"} <= set(bet):
            raise BadFile(
                f"bet {i} must be an object with seat, player, spot and amount",
                at=i,
                key="err.file.bet",
                index=i,
            )
    for i, entry in enumerate(data.get("actions", [])):
        if not isinstance(entry, dict) or "seat" not in entry or "action" not in entry:
            raise BadFile(
                f"action {i} must be an object with seat and action", at=i, key="err.file.action", index=i
            )
        if isinstance(entry["seat"], bool) or not isinstance(entry["seat"], int):
            raise BadFile(
                f"action {i}: seat must be a whole number", at=i, key="err.file.action_seat", index=i
            )
        if not isinstance(entry["action"], str):
            raise BadFile(f"action {i}: action must be a string", at=i, key="err.file.action_name", index=i)


def run(data: Any, *, dealer_entered: bool = False) -> dict[str, Any]:
    """Play one scenario document and return the outcome (raises a TapeteError on any refusal).

    Decisions are read as the round reaches them, so the error names the first entry that is wrong at
    its point, and a shoe that runs out before an entry is reached is reported first (bad_cards).
    ``dealer_entered=True`` posts the cards one by one as a live table's dealer does (each checked
    against the pack as it arrives, `tapete.dealer.DealerEntered`) instead of dealing them from a
    stacked shoe: the outcome must be the same."""
    _shape(data)
    game = data["game"]
    rules = load_rules(game, data.get("rules"))
    cards = parse_shoe(data["cards"], rules.decks)
    cls = round_class(game)
    boxes = place_bets(
        [RawBet(b["seat"], b["player"], b["spot"], b["amount"]) for b in data["bets"]], cls.bet_spec(rules)
    )
    if not boxes:
        raise BadBet("no bets: a round needs at least one box in play", at=0, key="err.bet.none")
    entries: list[dict[str, Any]] = data.get("actions", [])

    def action_at(i: int) -> Action:
        name = entries[i]["action"]
        if name == "decline" and cls.SCENARIO_ACTIONS:  # the API's word; a scenario declines by silence
            known = cls.SCENARIO_ACTIONS
            raise IllegalAction(
                f"unknown action {name!r}; {cls.GAME} actions: {', '.join(known)}",
                at=i,
                key="err.action.unknown",
                action=name,
                game=cls.GAME,
                known=known,
            )
        try:
            return cls.parse_action(entries[i])
        except IllegalAction as exc:
            raise IllegalAction(exc.message, at=i, key=exc.key, **exc.params) from None

    rnd = cls(rules, boxes)
    source = StackedSource(cards, rules.decks)
    live = DealerEntered(rules.decks) if dealer_entered else None
    i = 0
    while True:
        if live is None:
            deal(rnd, source)  # the stacked cards answer every card step (bad_cards when they run out)
        else:
            while isinstance(rnd.pending, CardStep):
                live.post(rnd, source.draw())
        decision = rnd.pending
        if decision is None:
            break
        assert isinstance(decision, Decision)
        if decision.kind in cls.OFFERS:
            entry = entries[i] if i < len(entries) else None
            if entry is not None and entry["seat"] == decision.seat and entry["action"] in decision.legal:
                _apply(rnd, action_at(i), i)
                i += 1
            else:  # scenario.md: no entry at the point of an offer means declined
                _apply(rnd, cls.decline(decision), i)
            continue
        if i >= len(entries):
            raise IllegalAction(
                f"the round needs a decision from seat {decision.seat} ({', '.join(decision.legal)}) "
                "and the actions list has no more entries",
                at=len(entries),
                key="err.action.missing",
                seat=decision.seat,
                legal=decision.legal,
            )
        _apply(rnd, action_at(i), i)
        i += 1
    if i < len(entries):
        raise IllegalAction(
            f"action {i} is left over: the round ended before it", at=i, key="err.action.left_over", index=i
        )
    out: dict[str, Any] = rnd.result()
    return out


def _apply(rnd: Round, action: Action, index: int) -> None:
    try:
        rnd.apply(action)
    except IllegalAction as exc:
        raise IllegalAction(exc.message, at=index, key=exc.key, **exc.params) from None


def run_text(text: str) -> dict[str, Any]:
    """Parse and play a scenario given as JSON text: anything but strict JSON that Python can hold
    (`tapete.errors.parse_document`) is bad_file, before anything is played."""
    return run(parse_document(text))


def run_file(path: str) -> tuple[int, dict[str, Any]]:
    """(exit code, JSON document) for `tapete scenario FILE`: 0 with the outcome, 2 with the error."""
    try:
        text = read_text(path)
    except TapeteError as exc:
        return 2, exc.to_json()
    try:
        return 0, run_text(text)
    except TapeteError as exc:
        return 2, exc.to_json()
