"""Helpers for Black Jack / Majestic 21 tests: build a scenario document and run it through the engine."""

from __future__ import annotations

from typing import Any

import pytest

from tapete.errors import TapeteError
from tapete.scenario import run

BJ_GAMES = ["blackjack", "majestic_21"]


def available(game: str) -> bool:
    """Whether the game's round module exists yet."""
    from tapete.games import round_class

    try:
        round_class(game)
    except ImportError:
        return False
    return True


def game_param(game: str) -> Any:
    """A pytest param for a game, skipped while its module is not built."""
    return pytest.param(
        game, marks=pytest.mark.skipif(not available(game), reason=f"{game} not built"), id=game
    )


def bet(seat: int, player: str, amount: int, spot: str = "main") -> dict[str, Any]:
    """One bet entry."""
    return {"seat": seat, "player": player, "spot": spot, "amount": amount}


def act(seat: int, action: str, **extra: Any) -> dict[str, Any]:
    """One action entry."""
    return {"seat": seat, "action": action, **extra}


def scenario(
    cards: list[str],
    bets: list[dict[str, Any]],
    actions: list[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    game: str = "blackjack",
) -> dict[str, Any]:
    """Run a scenario document and return the outcome (raises TapeteError on refusal)."""
    doc: dict[str, Any] = {
        "game": game,
        "rules": rules or {},
        "cards": cards,
        "bets": bets,
        "actions": actions or [],
    }
    out = run(doc)
    check_conservation(out)
    return out


def refused(
    cards: list[str],
    bets: list[dict[str, Any]],
    actions: list[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    game: str = "blackjack",
) -> TapeteError:
    """Run a scenario that must be refused and return the error."""
    with pytest.raises(TapeteError) as info:
        scenario(cards, bets, actions, rules, game)
    return info.value


def nets(out: dict[str, Any]) -> dict[str, int]:
    """Players' nets of an outcome."""
    return {p: v["net"] for p, v in out["players"].items()}


def check_conservation(out: dict[str, Any]) -> None:
    """staked = paid + house net, and house net = -(sum of players' nets)."""
    staked = sum(v["staked"] for v in out["players"].values())
    paid = sum(v["paid"] for v in out["players"].values())
    assert staked == paid + out["house"]["net"]
    assert out["house"]["net"] == -sum(v["net"] for v in out["players"].values())
    for v in out["players"].values():
        assert v["net"] == v["paid"] - v["staked"]


def events_of(out: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Events of one type."""
    return [e for e in out["events"] if e["type"] == kind]
