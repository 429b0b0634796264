"""A round with its card source, for tests written before dealing became a step: `start` opens a round
and deals from the source up to its first decision; the returned object's `apply` takes a decision and
deals what follows (tapete.dealer.deal), like a table's dealer. Everything else is the round's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tapete.dealer import deal
from tapete.games.base import Event, Round, Step
from tapete.shoe import CardSource


class AutoDealt:
    """`rnd` dealt from `source` after every step (attributes are the round's)."""

    def __init__(self, rnd: Round, source: CardSource) -> None:
        self.__dict__["round"] = rnd
        self.__dict__["source"] = source
        deal(rnd, source)

    def apply(self, step: Step) -> list[Event]:
        """Take the step, then deal every card the round now waits for."""
        events = self.round.apply(step)
        return events + deal(self.round, self.source)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["round"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["round"], name, value)


def start(cls: Any, rules: Any, source: CardSource, boxes: Sequence[Any], **options: Any) -> Any:
    """Open a round of `cls` on `boxes` and deal it from `source` up to its first decision."""
    return AutoDealt(cls(rules, boxes, **options), source)
