"""Card notation, decks and packs, and pack inspection (BJ Art.1h, 3, 4; PyB Art.3-4; M21 Art.1g, 3, 4).

A card is a small int, ``rank * 4 + suit`` with ranks A=0, 2=1 … 9=8, T=9, J=10, Q=11, K=12 and suits
s=0, h=1, d=2, c=3: cheap to copy, hash and index lookup tables with, which the simulators need. The text
form is always rank + suit (``As``, ``Td``); only a person typing at the terminal may write ``10d`` or
``as`` (`read_card`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tapete.errors import BadCards

Card = int

RANKS = "A23456789TJQK"
SUITS = "shdc"
DECK_SIZE = 52
JOKER = "JK"  # how a joker is written when a physical deck is entered for inspection

RANK_OF: tuple[int, ...] = tuple(c // 4 for c in range(DECK_SIZE))
SUIT_OF: tuple[int, ...] = tuple(c % 4 for c in range(DECK_SIZE))
#: Black Jack value with the Ace as 1 (BJ Art.3: A = 1 or 11; J, Q, K = 10).
BJ_VALUE: tuple[int, ...] = tuple(min(r + 1, 10) for r in RANK_OF)
#: Punto y Banca value (PyB Art.3: A = 1, 2-9 face value, 10/J/Q/K = 0).
BACCARAT_VALUE: tuple[int, ...] = tuple((r + 1) if r < 9 else 0 for r in RANK_OF)
NAMES: tuple[str, ...] = tuple(RANKS[c // 4] + SUITS[c % 4] for c in range(DECK_SIZE))
_BY_NAME: dict[str, Card] = {name: i for i, name in enumerate(NAMES)}


def _normal(text: str) -> str:
    """Rank upper-case, suit lower-case, '10' as 'T': input is accepted in any case."""
    text = text.strip()
    if text[:2] == "10":
        text = "T" + text[2:]
    return text[:-1].upper() + text[-1:].lower()


def parse_card(text: object) -> Card:
    """Parse a card written as rules.md writes it everywhere (files, API, logs): rank ``A 2-9 T J Q K``
    then suit ``s h d c`` (``As``, ``Td``), or raise BadCards naming what was given. A lab's file or a shoe
    reader that writes ``as`` or ``10s`` is told so rather than read as it might have meant."""
    if isinstance(text, str):
        card = _BY_NAME.get(text)
        if card is not None:
            return card
    raise BadCards(
        f"unknown card {text!r}: write rank (A 2-9 T J Q K) then suit (s h d c), e.g. 'As', 'Td'",
        key="err.cards.unknown",
        card=text,
    )


def read_card(text: object) -> Card:
    """A card a person typed at the terminal: any case, spaces around it, ``10`` for ``T`` (``as``,
    ``10D``), then as `parse_card`."""
    return parse_card(_normal(text) if isinstance(text, str) and text.strip() else text)


def parse_cards(texts: Iterable[object]) -> list[Card]:
    """Parse many cards; the error names the index of the first bad one."""
    out: list[Card] = []
    for i, text in enumerate(texts):
        try:
            out.append(parse_card(text))
        except BadCards as exc:
            raise BadCards(exc.message, at=i, key=exc.key, **exc.params) from None
    return out


def card_name(card: Card) -> str:
    """The canonical two-character name of a card."""
    return NAMES[card]


def card_names(cards: Iterable[Card]) -> list[str]:
    """Canonical names of several cards."""
    return [NAMES[c] for c in cards]


def deck() -> list[Card]:
    """One 52-card English deck in factory order (BJ Art.1h)."""
    return list(range(DECK_SIZE))


def pack(decks: int) -> list[Card]:
    """A pack (*paquete*) of `decks` complete decks in factory order."""
    if decks < 1:
        raise BadCards(f"a pack needs at least one deck, got {decks}", key="err.cards.no_deck", decks=decks)
    return [c for _ in range(decks) for c in range(DECK_SIZE)]


def _count(seen: Counter[Card], card: Card, decks: int, at: int) -> None:
    """Count one more copy of `card`; BadCards at `at` when the pack holds fewer."""
    seen[card] += 1
    if seen[card] > decks:
        raise BadCards(
            f"card {NAMES[card]} appears {seen[card]} times but a pack of {decks} deck(s) holds only {decks}",
            at=at,
            key="err.cards.too_many",
            card=NAMES[card],
            count=seen[card],
            decks=decks,
        )


def parse_shoe(texts: Sequence[object], decks: int) -> list[Card]:
    """Parse cards given in shoe order for a pack of `decks` decks, in one pass: BadCards names the
    first entry that is not a card or is one copy more than the pack holds."""
    seen: Counter[Card] = Counter()
    out: list[Card] = []
    for i, text in enumerate(texts):
        try:
            card = parse_card(text)
        except BadCards as exc:
            raise BadCards(exc.message, at=i, key=exc.key, **exc.params) from None
        _count(seen, card, decks, i)
        out.append(card)
    return out


def check_can_hold(cards: Sequence[Card], decks: int) -> None:
    """Raise BadCards (``at`` = index) at the first card the pack holds fewer copies of than are given."""
    seen: Counter[Card] = Counter()
    for i, c in enumerate(cards):
        _count(seen, c, decks, i)


@dataclass(frozen=True)
class Inspection:
    """The result of inspecting physical decks (BJ Art.4): the playable pack and the jokers set aside."""

    cards: tuple[Card, ...]
    jokers_removed: int
    decks: int
    notes: tuple[str, ...] = field(default_factory=tuple)


def inspect_pack(texts: Sequence[str], decks: int) -> Inspection:
    """Inspect the cards of `decks` decks as entered: jokers removed and counted, every card exactly
    `decks` times, nothing foreign. Raises BadCards naming the first missing, extra or foreign card."""
    jokers = 0
    cards: list[Card] = []
    for i, text in enumerate(texts):
        if isinstance(text, str) and text.strip().upper() in (JOKER, "JOKER", "JKR"):
            jokers += 1
            continue
        try:
            cards.append(parse_card(text))
        except BadCards:
            raise BadCards(
                f"foreign card {text!r} at position {i}: not part of an English deck",
                at=i,
                key="err.cards.foreign",
                card=text,
                position=i,
            ) from None
    counts = Counter(cards)
    for c in range(DECK_SIZE):
        have = counts.get(c, 0)
        if have < decks:
            raise BadCards(
                f"incomplete pack: {NAMES[c]} appears {have} time(s), {decks} expected",
                key="err.cards.incomplete",
                card=NAMES[c],
                count=have,
                decks=decks,
            )
        if have > decks:
            raise BadCards(
                f"extra card: {NAMES[c]} appears {have} time(s), {decks} expected",
                key="err.cards.extra",
                card=NAMES[c],
                count=have,
                decks=decks,
            )
    notes = (f"{jokers} joker(s) removed before first use",) if jokers else ()
    return Inspection(cards=tuple(cards), jokers_removed=jokers, decks=decks, notes=notes)
