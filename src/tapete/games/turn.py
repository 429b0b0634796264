"""The checks every round with decisions makes first: is the round still waiting, and for this seat."""

from __future__ import annotations

from typing import Any

from tapete.errors import IllegalAction


def check_turn(pending: Any, action: Any) -> None:
    """IllegalAction unless a decision is pending and `action` comes from the seat being asked."""
    if pending is None:
        raise IllegalAction(
            f"the round is over; seat {action.seat}'s {action.action} is left over",
            key="err.action.round_over",
            seat=action.seat,
            action=action.action,
        )
    if action.seat != pending.seat:
        raise IllegalAction(
            f"seat {action.seat} cannot act now: the dealer is asking seat {pending.seat} ({pending.kind})",
            key="err.action.out_of_turn",
            seat=action.seat,
            turn=pending.seat,
            kind=pending.kind,
        )
