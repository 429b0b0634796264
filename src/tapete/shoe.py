"""Card sources: the virtual shoe (CSPRNG shuffle, cut, cut card, burn, control procedures as events)
and the stacked source (scenarios, labs, a dealer entering a physical shoe's cards).

BJ Art.5-6, PyB Art.5-6, M21 Art.5, SP Art.6-7. The shoe order is never written to any event: only the
cards as they leave the shoe are.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any, Protocol

from tapete.cards import BACCARAT_VALUE, NAMES, Card, check_can_hold, pack
from tapete.errors import BadCards, LiveTableRefused, ShoeSealBroken

#: rules.md §0 [A]: the software cut lands at least this many cards from either end.
MIN_CUT_FROM_END = 40

Event = dict[str, Any]


class RandomSource(Protocol):
    """Where a shuffle's randomness comes from: an unbiased integer in [0, n)."""

    kind: str

    def randbelow(self, n: int) -> int:
        """A uniformly distributed integer 0 <= k < n."""
        ...


class SecureRandom:
    """The live generator: the operating system's CSPRNG through ``secrets.SystemRandom``.

    ``randbelow`` draws ``n.bit_length()`` random bits and rejects values >= n (CPython's
    ``SystemRandom._randbelow``), so every integer below n is exactly equally likely.
    """

    kind = "secure"

    def __init__(self) -> None:
        self._sr = secrets.SystemRandom()

    def randbelow(self, n: int) -> int:
        """Unbiased integer in [0, n) by rejection sampling over OS random bits."""
        return self._sr.randrange(n)

    def raw_bits(self, k: int) -> int:
        """`k` raw random bits before any scaling (for the lab's raw-output collection)."""
        return self._sr.getrandbits(k)


class SeededRandom:
    """A reproducible generator (Mersenne Twister) for simulation, tests and replay; refused live."""

    kind = "seeded"

    def __init__(self, seed: int | str | bytes) -> None:
        self.seed = seed
        self._r = random.Random(seed)

    def randbelow(self, n: int) -> int:
        """Unbiased integer in [0, n) (rejection sampling inside random.Random)."""
        return self._r.randrange(n)

    def shuffle(self, cards: list[Card]) -> None:
        """Fisher-Yates with this generator: `random.Random.shuffle` runs the same loop as
        `fisher_yates` with the same draws (so the same order for a seed), without a Python call per
        draw. Simulation only: the live generator always goes through `fisher_yates`."""
        self._r.shuffle(cards)


def fisher_yates(cards: list[Card], rng: RandomSource) -> None:
    """Shuffle in place: for i from the last position down, swap with a uniform j in [0, i]."""
    randbelow = rng.randbelow
    for i in range(len(cards) - 1, 0, -1):
        j = randbelow(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def cut_point(size: int, rng: RandomSource, margin: int = MIN_CUT_FROM_END) -> int:
    """Where the cutter goes: uniform in [margin, size - margin] (rules.md §0 [A]); whole range if small."""
    if size <= 2 * margin:
        return rng.randbelow(size) if size else 0
    return margin + rng.randbelow(size - 2 * margin + 1)


def cut(cards: list[Card], at: int) -> list[Card]:
    """BJ Art.5e: the cards above the cutter go to the bottom."""
    return cards[at:] + cards[:at]


def burn_count(burn: int | str, first: Card | None) -> int:
    """How many cards a burn takes (Art.5g): the fixed count, or for ``"first_card_value"`` (Punto y
    Banca [A]) the first card turned and as many more as its baccarat value, a face or ten counting 10."""
    if burn == "first_card_value":
        if first is None:
            raise ValueError("a burn by the first card's value needs the first card")
        return 1 + (BACCARAT_VALUE[first] or 10)
    return int(burn)


class Shoe:
    """A virtual shoe: shuffles with `rng`, cuts, places the cut card, burns, and deals until the cut
    card comes out; the round then in progress is the shoe's last (BJ Art.2c, 6).

    `burn` is a fixed count or ``"first_card_value"`` (Punto y Banca [A]: turn the first card, burn it
    and as many more as its baccarat value, a ten or face counting 10).
    """

    def __init__(
        self,
        decks: int,
        rng: RandomSource,
        *,
        cut_card_depth: int | None,
        burn: int | str = 1,
        live: bool = False,
        one_handed_cut: bool = False,
    ) -> None:
        self._setup(
            decks, rng, cut_card_depth=cut_card_depth, burn=burn, live=live, one_handed_cut=one_handed_cut
        )
        self.new_pack(reason="new decks")

    def _setup(
        self,
        decks: int,
        rng: RandomSource,
        *,
        cut_card_depth: int | None,
        burn: int | str,
        live: bool,
        one_handed_cut: bool,
    ) -> None:
        if live and not isinstance(rng, SecureRandom):
            raise LiveTableRefused(
                f"a live table shuffles only with the CSPRNG; a {rng.kind} generator is for simulation, "
                "tests and replay",
                key="err.live.rng",
                kind=rng.kind,
            )
        self.decks = decks
        self.rng = rng
        self.size = 52 * decks
        self.cut_card_depth = cut_card_depth
        self.burn = burn
        self.live = live
        self.one_handed_cut = one_handed_cut
        self.kind = rng.kind
        self.events: list[Event] = []
        self._cards: list[Card] = []
        self._pos = 0
        self._stop = 0
        self.cut_card_out = False
        self.shuffles = 0

    # -- procedures ---------------------------------------------------------------------------------
    def new_pack(self, reason: str = "new decks") -> list[Event]:
        """Art.4-5: inspect, show, turn, mix, shuffle, cut, load, burn a fresh pack (an event each)."""
        start = len(self.events)
        self._cards = pack(self.decks)
        self.events.append({"type": "new_pack", "decks": self.decks, "reason": reason})
        # Art.4: the software's pack is complete by construction (no joker, each card once per deck)
        self.events.append(
            {"type": "procedure", "step": "inspect", "result": "complete", "jokers_removed": 0}
        )
        for step in ("show", "turn", "mix"):
            self.events.append({"type": "procedure", "step": step})
        self._shuffle_cut_load_burn()
        return self.events[start:]

    def reshuffle(self) -> list[Event]:
        """Art.6: after the cut card came out, shuffle, cut, load and burn the same pack again."""
        start = len(self.events)
        self._cards = pack(self.decks)
        self._shuffle_cut_load_burn()
        return self.events[start:]

    def _shuffle_cut_load_burn(self) -> None:
        """Art.5d-g (burned cards leave through the base `draw`, not a subclass's override of it)."""
        cards = self._cards
        if isinstance(self.rng, SeededRandom):
            self.rng.shuffle(cards)
        else:
            fisher_yates(cards, self.rng)
        self.shuffles += 1
        self.events.append({"type": "procedure", "step": "shuffle", "generator": self.rng.kind})
        if self.one_handed_cut:
            at = 1 + self.rng.randbelow(len(cards) - 1) if len(cards) > 1 else 0
        else:
            at = cut_point(len(cards), self.rng)
        self._cards = cut(cards, at)
        cut_ev: Event = {"type": "procedure", "step": "cut", "at": at, "by": "dealer"}
        if self.one_handed_cut:
            cut_ev["one_handed"] = True
        else:
            cut_ev["cut_card_depth"] = self.cut_card_depth
        self.events.append(cut_ev)
        if self.cut_card_depth is None:
            self._stop = len(self._cards)
        else:
            self._stop = len(self._cards) - self.cut_card_depth
        if not self.one_handed_cut:  # Showdown Art.7: a one-handed cut, no shoe to load
            self.events.append({"type": "procedure", "step": "load", "cut_card_depth": self.cut_card_depth})
        self._pos = 0
        self.cut_card_out = False
        burned: list[str] = []
        if self.burn == "first_card_value":
            first = Shoe.draw(self)  # turned: its value says how many more go
            burned.append(NAMES[first])
            more = burn_count(self.burn, first) - 1
        else:
            more = burn_count(self.burn, None)
        burned.extend(NAMES[Shoe.draw(self)] for _ in range(more))
        if burned or not self.one_handed_cut:  # Showdown burns only when the table burns
            self.events.append({"type": "procedure", "step": "burn", "cards": burned})

    # -- across a crash (docs/recovery.md) ----------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The shoe's secret state: the order of the pack as loaded (after the cut) and where the cut card
        lies. Never part of the public log: `seal_shoe` encrypts it for the table's store. Where dealing
        stands is not in it: the log's cards since the shuffle say that (`Shoe.restore`)."""
        return {
            "v": 1,
            "decks": self.decks,
            "order": list(self._cards),
            "stop": self._stop,
            "cut_card_depth": self.cut_card_depth,
            "burn": self.burn,
            "one_handed_cut": self.one_handed_cut,
            "shuffles": self.shuffles,
        }

    @classmethod
    def restore(
        cls, snapshot: dict[str, Any], rng: RandomSource, out: Sequence[Card], *, live: bool = False
    ) -> Shoe:
        """The shoe of `snapshot`, dealing on after the cards `out` that the log says left it since its
        last shuffle (burns included), each checked against the snapshot's order: a log and a shoe that
        disagree are refused (BadCards), never dealt on."""
        shoe = cls.__new__(cls)
        shoe._setup(
            snapshot["decks"],
            rng,
            cut_card_depth=snapshot["cut_card_depth"],
            burn=snapshot["burn"],
            live=live,
            one_handed_cut=snapshot["one_handed_cut"],
        )
        order = [int(c) for c in snapshot["order"]]
        if sorted(order) != sorted(pack(shoe.decks)):
            raise BadCards("the sealed shoe does not hold a whole pack", key="err.cards.snapshot_pack")
        for i, card in enumerate(out):
            if i >= len(order) or order[i] != card:
                raise BadCards(
                    f"card {i} out of the shoe since its shuffle is {NAMES[card]} in the log but not in "
                    "the sealed shoe",
                    at=i,
                    key="err.cards.snapshot_differs",
                    index=i,
                    card=NAMES[card],
                )
        shoe._cards = order
        shoe._stop = int(snapshot["stop"])
        shoe._pos = len(out)
        shoe.cut_card_out = shoe._pos > shoe._stop
        shoe.shuffles = int(snapshot["shuffles"])
        return shoe

    @classmethod
    def recover(
        cls,
        decks: int,
        rng: RandomSource,
        out: Sequence[Card],
        *,
        cut_card_depth: int | None,
        burn: int | str = 1,
        live: bool = False,
        one_handed_cut: bool = False,
        reason: str = "the shoe's sealed order could not be read",
    ) -> Shoe:
        """The fallback when the sealed order is lost: the cards still in the shoe (the pack less `out`,
        the cards the log says left it since the shuffle) reshuffled with `rng`; dealing goes on at the same
        count, so the cut card keeps its place. Nobody's odds change: the undealt cards were in a uniformly
        random order, and a fresh uniform shuffle of them is the same law. A ``shoe_recovered`` event says
        it (rules.md §0: every procedure is an event)."""
        shoe = cls.__new__(cls)
        shoe._setup(
            decks, rng, cut_card_depth=cut_card_depth, burn=burn, live=live, one_handed_cut=one_handed_cut
        )
        left = pack(decks)
        for i, card in enumerate(out):
            try:
                left.remove(card)
            except ValueError:
                raise BadCards(
                    f"{NAMES[card]} left the shoe more often than the pack holds it",
                    at=i,
                    key="err.cards.too_many",
                    card=NAMES[card],
                    count=list(out[: i + 1]).count(card),
                    decks=decks,
                ) from None
        fisher_yates(left, rng)
        shoe._cards = [*out, *left]
        shoe._stop = len(shoe._cards) - cut_card_depth if cut_card_depth is not None else len(shoe._cards)
        shoe._pos = len(out)
        shoe.cut_card_out = shoe._pos > shoe._stop
        shoe.events.append(
            {"type": "shoe_recovered", "reason": reason, "undealt": len(left), "generator": rng.kind}
        )
        return shoe

    # -- dealing ------------------------------------------------------------------------------------
    def draw(self) -> Card:
        """The next card out of the shoe (burns too); the card past the cut card's place records
        ``cut_card_out`` (Art.6)."""
        pos = self._pos
        if pos >= len(self._cards):
            raise BadCards("the shoe ran out of cards", at=pos, key="err.cards.shoe_empty")
        card = self._cards[pos]
        self._pos = pos = pos + 1
        if pos > self._stop and not self.cut_card_out:
            self.cut_card_out = True
            self.events.append({"type": "cut_card_out", "dealt": pos - 1})
        return card

    @property
    def remaining(self) -> int:
        """Cards left in the shoe (the cut card's position is not revealed by this)."""
        return len(self._cards) - self._pos

    def needs_shuffle(self) -> bool:
        """True once the cut card came out: the next round starts with Art.6's procedures."""
        return self.cut_card_out

    def prepare_round(self) -> list[Event]:
        """Before a round: reshuffle if the cut card came out in the last one (Art.6)."""
        if self.cut_card_out:
            return self.reshuffle()
        return []

    def dealt_order(self) -> Sequence[Card]:  # pragma: no cover - inspector tooling only
        """The cards already dealt (never the undealt order)."""
        return tuple(self._cards[: self._pos])


def seal_shoe(snapshot: dict[str, Any], key: bytes, context: str) -> str:
    """`snapshot` encrypted and authenticated (AES-256-GCM) under the server's `key`, bound to `context`
    (the table and its shuffle): what a store keeps outside the public log, so that the database alone
    never tells anyone the next card, and a snapshot cannot be moved to another table or shuffle."""
    import base64
    import json
    import os

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(12)
    body = json.dumps(snapshot, separators=(",", ":")).encode("utf-8")
    sealed = AESGCM(key).encrypt(nonce, body, context.encode("utf-8"))
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def open_shoe(sealed: str, key: bytes, context: str) -> dict[str, Any]:
    """The snapshot `seal_shoe` sealed (ShoeSealBroken for a wrong key, another context or any change)."""
    import base64
    import binascii
    import json

    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        raw = base64.urlsafe_b64decode(sealed.encode("ascii"))
        body = AESGCM(key).decrypt(raw[:12], raw[12:], context.encode("utf-8"))
    except (InvalidTag, ValueError, binascii.Error, UnicodeError):
        raise ShoeSealBroken(
            "the sealed shoe cannot be opened: wrong key, another table or shuffle, or it was altered",
            key="err.live.seal",
        ) from None
    snapshot: dict[str, Any] = json.loads(body)
    return snapshot


class StackedSource:
    """Cards in a given order: scenarios, labs, and a dealer entering a physical shoe's cards.

    Cards the pack cannot contain are rejected up front; running out raises BadCards with ``at`` = the
    number of cards given (scenario.md).
    """

    kind = "stacked"

    def __init__(self, cards: Sequence[Card], decks: int, *, dealer_entered: bool = False) -> None:
        check_can_hold(cards, decks)
        self._cards = list(cards)
        self._pos = 0
        self.decks = decks
        self.dealer_entered = dealer_entered
        self.cut_card_out = False
        self.events: list[Event] = []

    def draw(self) -> Card:
        """The next given card, or BadCards when the list is exhausted."""
        if self._pos >= len(self._cards):
            raise BadCards(
                f"the shoe ran out: the round needs more than the {len(self._cards)} cards given",
                at=len(self._cards),
                key="err.cards.stack_empty",
                given=len(self._cards),
            )
        card = self._cards[self._pos]
        self._pos += 1
        return card

    @property
    def used(self) -> int:
        """How many cards were drawn."""
        return self._pos

    def prepare_round(self) -> list[Event]:
        """Nothing to do: the order is given."""
        return []


class CardSource(Protocol):
    """What a round draws from: a Shoe or a StackedSource."""

    kind: str
    cut_card_out: bool

    def draw(self) -> Card:
        """The next card."""
        ...


def check_live_source(source: CardSource, *, live: bool) -> None:
    """A live table takes only the CSPRNG shoe, or a stacked source declared as dealer-entered cards."""
    if not live:
        return
    if isinstance(source, Shoe) and isinstance(source.rng, SecureRandom):
        return
    if isinstance(source, StackedSource) and source.dealer_entered:
        return
    from tapete.dealer import DealerEntered

    if isinstance(source, DealerEntered):
        return
    raise LiveTableRefused(
        f"a live table refuses a {source.kind} card source: seeded and stacked sources are for simulation, "
        "tests and replay (a stacked source is allowed live only when declared as a dealer-entered shoe)",
        key="err.live.source",
        kind=source.kind,
    )
