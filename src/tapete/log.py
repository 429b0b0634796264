"""The event log: canonical JSON records chained by SHA-256 across rounds, verification that names the
first bad record, and recall (any round rebuilt from its events alone by replaying them on the engine).

A record is ``{"seq", "round", "event", "prev", "hash"}`` where ``hash = sha256(canonical(record
without hash))`` and ``prev`` is the previous record's hash (64 zeros for the first). One JSON line each.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tapete.cards import parse_card
from tapete.errors import BadFile, read_text
from tapete.games import round_class
from tapete.rules import load_rules
from tapete.shoe import StackedSource
from tapete.table import RawBet, place_bets

GENESIS = "0" * 64
Event = dict[str, Any]


def canonical(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8; the bytes that are hashed."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def record_hash(record: dict[str, Any]) -> str:
    """SHA-256 of a record without its own ``hash`` field."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


class EventLog:
    """An append-only, hash-chained log, in memory and optionally mirrored to a JSON-lines file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] = []
        self.head = GENESIS
        if self.path is not None and self.path.exists():
            report = verify_lines(self.path.read_text(encoding="utf-8").splitlines())
            if not report.ok:
                raise BadFile(
                    f"{self.path}: {report.message}",
                    at=report.first_bad,
                    key="err.file.log_chain",
                    path=str(self.path),
                    record=report.first_bad,
                )
            self.records = report.records
            self.head = self.records[-1]["hash"] if self.records else GENESIS

    def _chain(self, round_id: int | str, event: Event) -> str:
        """Chain one record and return its JSON line. The canonical body is serialised once: it is
        hashed, and the line is that body with the hash appended (any key order verifies)."""
        record: dict[str, Any] = {
            "seq": len(self.records),
            "round": round_id,
            "event": event,
            "prev": self.head,
        }
        body = canonical(record)
        digest = hashlib.sha256(body).hexdigest()
        record["hash"] = digest
        self.head = digest
        self.records.append(record)
        return body[:-1].decode("utf-8") + ',"hash":"' + digest + '"}'

    def append(self, round_id: int | str, event: Event) -> dict[str, Any]:
        """Chain one event onto the log and return its record."""
        line = self._chain(round_id, event)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        return self.records[-1]

    def extend(self, round_id: int | str, events: Iterable[Event]) -> None:
        """Chain several events of one round (one file write)."""
        lines = [self._chain(round_id, event) for event in events]
        if self.path is not None and lines:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")

    def rounds(self) -> list[int | str]:
        """Round ids in the order they appear."""
        seen: dict[int | str, None] = {}
        for r in self.records:
            seen.setdefault(r["round"], None)
        return list(seen)

    def events_of(self, round_id: int | str) -> list[Event]:
        """The events of one round, in order."""
        return [r["event"] for r in self.records if r["round"] == round_id]


@dataclass
class VerifyReport:
    """Result of checking a chain: ok, how many records, and the first bad record (0-based line)."""

    ok: bool
    count: int
    first_bad: int | None
    message: str
    records: list[dict[str, Any]]


def verify_lines(lines: Iterable[str]) -> VerifyReport:
    """Check every record's hash and link; stop at the first bad one and say what is wrong with it."""
    prev = GENESIS
    records: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            return VerifyReport(False, i, i, f"record {i} is not valid JSON", records)
        if not isinstance(record, dict) or not {"seq", "round", "event", "prev", "hash"} <= set(record):
            return VerifyReport(False, i, i, f"record {i} lacks seq/round/event/prev/hash", records)
        if record["seq"] != len(records):
            return VerifyReport(
                False, i, i, f"record {i} has seq {record['seq']}, expected {len(records)}", records
            )
        if record["prev"] != prev:
            return VerifyReport(
                False,
                i,
                i,
                f"record {i} does not link to the previous record's hash "
                "(a record was removed, inserted or reordered before it)",
                records,
            )
        if record_hash(record) != record["hash"]:
            return VerifyReport(
                False, i, i, f"record {i}'s hash does not match its content (it was edited)", records
            )
        prev = record["hash"]
        records.append(record)
    return VerifyReport(True, len(records), None, f"{len(records)} records, chain intact", records)


def verify_file(path: str | Path) -> VerifyReport:
    """`tapete verify LOG` (BadFile when the file cannot be read or is not text)."""
    return verify_lines(read_text(path).splitlines())


def _bets_and_cards(events: list[Event]) -> tuple[str, dict[str, Any], list[RawBet], list[int]]:
    start = events[0]
    if start.get("type") != "round_started":
        raise BadFile("a round's first event must be round_started", key="err.file.log_round_start")
    bets: list[RawBet] = []
    cards: list[int] = []
    closed = False
    for ev in events:
        kind = ev.get("type")
        if kind == "bets_closed":
            closed = True
        elif kind == "stake" and not closed:
            bets.append(RawBet(ev["seat"], ev["player"], ev["spot"], ev["amount"]))
        elif kind == "card":
            cards.append(parse_card(ev["card"]))
    return start["game"], start["rules"], bets, cards


def replay(events: list[Event]) -> Any:
    """Rebuild a round from its events alone: the rules, bets, cards and decisions they record are
    played again on the engine with a stacked source. Returns the rebuilt round."""
    game, settings, bets, cards = _bets_and_cards(events)
    rules = load_rules(game, settings)
    cls = round_class(game)
    boxes = place_bets(bets, cls.bet_spec(rules))
    # A round may take options its events record (Punto y Banca: who held the shoe, Art.9).
    options_from_events = getattr(cls, "options_from_events", None)
    options = options_from_events(events) if options_from_events is not None else {}
    rnd = cls(rules, StackedSource(cards, rules.decks), boxes, round_id=events[0].get("round", 1), **options)
    for action in cls.actions_from_events(events):
        rnd.apply(action)
    return rnd


def recall(events: list[Event]) -> tuple[Any, bool]:
    """Rebuild a round and say whether replaying it reproduces exactly the logged events."""
    rnd = replay(events)
    return rnd, canonical(rnd.events) == canonical(events)


def iter_round_events(records: list[dict[str, Any]]) -> Iterator[tuple[int | str, list[Event]]]:
    """(round id, events) for each round of a verified log."""
    current: int | str | None = None
    bucket: list[Event] = []
    for r in records:
        if r["round"] != current and bucket:
            assert current is not None
            yield current, bucket
            bucket = []
        current = r["round"]
        bucket.append(r["event"])
    if bucket and current is not None:
        yield current, bucket
