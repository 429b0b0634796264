"""The event log: canonical JSON records chained by SHA-256, per table, behind a small store interface;
verification that names the first bad record; and recall and resume (a round rebuilt from its events).

A record is ``{"seq", "round", "event", "prev", "hash"}`` where ``hash = sha256(canonical(record
without hash))`` and ``prev`` is the previous record's hash (64 zeros for the first): one chain per table.
A store keeps each table's chain head (next seq, last hash, last round) and appends; it never needs every
record in memory: the file store reads its head from the file's last line and streams records. The SQL
store (server) implements the same interface.

Rounds are logged step by step: a round's records are the events each step handed out. `rebuild` folds a
round's logged events, complete or cut at any point, back into a live round (checking that replaying
them reproduces them exactly); `resume` also returns the events a step cut in the middle still owes the
log; `recall` rebuilds a finished round and says whether its events are reproduced.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from tapete.errors import BadFile, read_text
from tapete.games import round_class
from tapete.games.base import Event, Round
from tapete.rules import load_rules
from tapete.table import RawBet, place_bets, round_settled

GENESIS = "0" * 64
Record = dict[str, Any]
#: The table name a single-table log (the terminal table, `tapete verify FILE`) records under.
TABLE = "table"


def canonical(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8; the bytes that are hashed."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def record_hash(record: dict[str, Any]) -> str:
    """SHA-256 of a record without its own ``hash`` field."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


def round_number(round_id: object) -> int:
    """The round number a record's ``round`` stands for: a round's own number, or N for the shoe's
    procedures logged after round N (``shoe-N``); 0 for anything else."""
    if isinstance(round_id, int) and not isinstance(round_id, bool):
        return round_id
    if isinstance(round_id, str) and round_id.startswith("shoe-") and round_id[5:].isdigit():
        return int(round_id[5:])
    return 0


class Head(NamedTuple):
    """A table's chain head: the next record's seq, the last record's hash, the last round number."""

    seq: int
    hash: str
    round: int


EMPTY_HEAD = Head(0, GENESIS, 0)


def chain(head: Head, round_id: int | str, events: Iterable[Event]) -> tuple[list[Record], list[str], Head]:
    """Chain `events` of one round onto `head`: the records, their JSON lines and the new head. The
    canonical body is serialised once: it is hashed, and the line is that body with the hash appended
    (any key order verifies)."""
    seq, prev, last = head
    records: list[Record] = []
    lines: list[str] = []
    for event in events:
        record: Record = {"seq": seq, "round": round_id, "event": event, "prev": prev}
        body = canonical(record)
        digest = hashlib.sha256(body).hexdigest()
        record["hash"] = digest
        records.append(record)
        lines.append(body[:-1].decode("utf-8") + ',"hash":"' + digest + '"}')
        seq += 1
        prev = digest
    return records, lines, Head(seq, prev, max(last, round_number(round_id)))


class EventStore(Protocol):
    """Where tables' hash chains live: one chain per table, appended round by round, step by step."""

    def head(self, table: str) -> Head:
        """The table's chain head (EMPTY_HEAD for a table with no records)."""
        ...

    def append(self, table: str, round_id: int | str, events: Sequence[Event]) -> list[Record]:
        """Chain and keep `events` of one round; return their records."""
        ...

    def records(self, table: str, start: int = 0) -> Iterator[Record]:
        """The table's records from seq `start` on, streamed in order."""
        ...


class MemoryStore:
    """A store in memory (tests, simulations, a terminal table without a file). It keeps the records as
    they were chained (parsed back from their JSON), so writing into an event after it was appended
    changes nothing stored: the copy is made at this boundary."""

    def __init__(self) -> None:
        self._records: dict[str, list[Record]] = {}
        self._heads: dict[str, Head] = {}

    def head(self, table: str) -> Head:
        """The table's chain head."""
        return self._heads.get(table, EMPTY_HEAD)

    def append(self, table: str, round_id: int | str, events: Sequence[Event]) -> list[Record]:
        """Chain `events` onto the table's chain."""
        records, lines, head = chain(self.head(table), round_id, events)
        self._records.setdefault(table, []).extend(json.loads(line) for line in lines)
        self._heads[table] = head
        return records

    def records(self, table: str, start: int = 0) -> Iterator[Record]:
        """The table's records from seq `start`."""
        return iter(self._records.get(table, [])[start:])


class FileStore:
    """Each table's chain in a JSON-lines file: ``path`` itself for a single-table store, else
    ``DIRECTORY/TABLE.jsonl``. Only the heads are kept in memory; a head is read from the file's last
    line the first time a table is used (the file is checked whole once, streamed, when `verify` is set)."""

    def __init__(self, path: str | Path, *, single: bool | None = None, verify: bool = True) -> None:
        self.path = Path(path)
        self.single = self.path.suffix == ".jsonl" if single is None else single
        self.verify = verify
        self._heads: dict[str, Head] = {}

    def file(self, table: str) -> Path:
        """The file holding `table`'s chain."""
        return self.path if self.single else self.path / f"{table}.jsonl"

    def head(self, table: str) -> Head:
        """The table's chain head, from the file's last record (checked whole first when `verify`)."""
        head = self._heads.get(table)
        if head is None:
            head = self._heads[table] = self._read_head(self.file(table))
        return head

    def _read_head(self, path: Path) -> Head:
        if not path.exists() or path.stat().st_size == 0:
            return EMPTY_HEAD
        if self.verify:
            report = verify_lines(_lines(path), keep=False)
            if not report.ok:
                raise BadFile(
                    f"{path}: {report.message}",
                    at=report.first_bad,
                    key="err.file.log_chain",
                    path=str(path),
                    record=report.first_bad,
                )
        last = json.loads(_last_line(path))
        rounds = max(round_number(r["round"]) for r in self._tail_records(path)) if self.verify else 0
        return Head(last["seq"] + 1, last["hash"], max(rounds, round_number(last["round"])))

    def _tail_records(self, path: Path) -> Iterator[Record]:
        for line in _lines(path):
            if line.strip():
                yield json.loads(line)

    def append(self, table: str, round_id: int | str, events: Sequence[Event]) -> list[Record]:
        """Chain `events` and append their lines in one write, flushed to disk."""
        records, lines, head = chain(self.head(table), round_id, events)
        if lines:
            path = self.file(table)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        self._heads[table] = head
        return records

    def records(self, table: str, start: int = 0) -> Iterator[Record]:
        """The table's records from seq `start`, read line by line."""
        path = self.file(table)
        if not path.exists():
            return
        for line in _lines(path):
            if line.strip():
                record: Record = json.loads(line)
                if record["seq"] >= start:
                    yield record


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield line.rstrip("\n")


def _last_line(path: Path) -> str:
    """The file's last non-empty line, read from its end (the head needs nothing else)."""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        end = fh.tell()
        block = b""
        pos = end
        while pos > 0:
            step = min(4096, pos)
            pos -= step
            fh.seek(pos)
            block = fh.read(step) + block
            stripped = block.rstrip(b"\n")
            if b"\n" in stripped:
                return stripped.rsplit(b"\n", 1)[1].decode("utf-8")
        return block.rstrip(b"\n").decode("utf-8")


class EventLog:
    """One table's hash-chained log on a store: in memory, or mirrored to a JSON-lines file (the
    terminal table's ``--log``). Appends step by step; reads stream from the store."""

    def __init__(
        self, path: str | Path | None = None, *, store: EventStore | None = None, table: str = TABLE
    ):
        self.path = Path(path) if path is not None else None
        self.store: EventStore = store or (FileStore(self.path, single=True) if self.path else MemoryStore())
        self.table = table
        self.store.head(table)  # a broken file is refused when the log is opened

    @property
    def head(self) -> str:
        """The last record's hash (64 zeros before the first)."""
        return self.store.head(self.table).hash

    @property
    def last_round(self) -> int:
        """The highest round number logged (shoe-N records count as round N), 0 for a new log."""
        return self.store.head(self.table).round

    def append(self, round_id: int | str, event: Event) -> Record:
        """Chain one event onto the log and return its record."""
        return self.store.append(self.table, round_id, [event])[0]

    def extend(self, round_id: int | str, events: Iterable[Event]) -> list[Record]:
        """Chain several events of one round (one write)."""
        return self.store.append(self.table, round_id, list(events))

    def iter_records(self, start: int = 0) -> Iterator[Record]:
        """The records from seq `start`, streamed."""
        return self.store.records(self.table, start)

    @property
    def records(self) -> list[Record]:
        """Every record (materialised: for tests and small logs; use `iter_records` otherwise)."""
        return list(self.iter_records())

    def rounds(self) -> list[int | str]:
        """Round ids in the order they appear."""
        seen: dict[int | str, None] = {}
        for r in self.iter_records():
            seen.setdefault(r["round"], None)
        return list(seen)

    def events_of(self, round_id: int | str) -> list[Event]:
        """The events of one round, in order."""
        return [r["event"] for r in self.iter_records() if r["round"] == round_id]


@dataclass
class VerifyReport:
    """Result of checking a chain: ok, how many records, and the first bad record (0-based line)."""

    ok: bool
    count: int
    first_bad: int | None
    message: str
    records: list[dict[str, Any]]


def verify_lines(lines: Iterable[str], *, keep: bool = True) -> VerifyReport:
    """Check every record's hash and link; stop at the first bad one and say what is wrong with it.
    With ``keep=False`` the records are checked as they stream by and not kept."""
    prev = GENESIS
    records: list[dict[str, Any]] = []
    count = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # broken JSON, a number Python cannot hold, deep nesting
            return VerifyReport(False, i, i, f"record {i} is not valid JSON", records)
        if not isinstance(record, dict) or not {"seq", "round", "event", "prev", "hash"} <= set(record):
            return VerifyReport(False, i, i, f"record {i} lacks seq/round/event/prev/hash", records)
        if record["seq"] != count:
            return VerifyReport(False, i, i, f"record {i} has seq {record['seq']}, expected {count}", records)
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
        count += 1
        if keep:
            records.append(record)
    return VerifyReport(True, count, None, f"{count} records, chain intact", records)


def verify_file(path: str | Path) -> VerifyReport:
    """`tapete verify LOG` (BadFile when the file cannot be read or is not text)."""
    return verify_lines(read_text(path).splitlines())


# ---------------------------------------------------------------------------------------- rebuild
class RoundIncomplete(BadFile):
    """A round's events stop before its bets were closed: its opening was not recorded whole, so it
    cannot be rebuilt (`void_incomplete` returns the stakes it recorded)."""


def _opening(events: Sequence[Event]) -> tuple[str, dict[str, Any], list[RawBet], bool]:
    if not events or events[0].get("type") != "round_started":
        raise BadFile("a round's first event must be round_started", key="err.file.log_round_start")
    bets: list[RawBet] = []
    for ev in events:
        kind = ev.get("type")
        if kind == "bets_closed":
            return events[0]["game"], events[0]["rules"], bets, True
        if kind == "stake":
            bets.append(RawBet(ev["seat"], ev["player"], ev["spot"], ev["amount"]))
    return events[0]["game"], events[0]["rules"], bets, False


def rebuild(events: Sequence[Event]) -> Round:
    """A round rebuilt from its logged events alone, at whatever point they stop: opened on the bets they
    record, then every logged step (each card, each decision, a void) taken again on the engine, so each
    logged card and decision is checked by the rules. The rebuilt round's events begin with the logged
    ones; a step whose events were cut in the middle is taken whole (`resume` hands out the rest)."""
    game, settings, bets, closed = _opening(events)
    if not closed:
        raise RoundIncomplete(
            "the round's events stop before its bets were closed", key="err.file.log_round_open"
        )
    rules = load_rules(game, settings)
    cls = round_class(game)
    boxes = place_bets(bets, cls.bet_spec(rules))
    rnd = cls(rules, boxes, round_id=events[0].get("round", 1), **cls.options_from_events(events))
    first = events[0]
    for key in ("engine", "schema"):  # the versions that logged it, not today's: it is its record
        if key in first:
            rnd.events[0][key] = first[key]
        else:
            rnd.events[0].pop(key, None)
    step_from_event = cls.step_from_event
    for ev in events[len(rnd.events) :]:
        if ev.get("type") == "round_voided":
            rnd.void(ev["reason"])
            continue
        step = step_from_event(ev)
        if step is not None:
            rnd.apply(step)
    if canonical(rnd.events[: len(events)]) != canonical(list(events)):
        raise BadFile(
            "replaying the round's events does not reproduce them", key="err.file.log_replay_differs"
        )
    return rnd


def resume(events: Sequence[Event]) -> tuple[Round, list[Event]]:
    """A round rebuilt from its logged events to be continued, and the events its last step still owes
    the log (when the log was cut in the middle of a step's events)."""
    rnd = rebuild(events)
    return rnd, rnd.events[len(events) :]


def void_incomplete(events: Sequence[Event], reason: str) -> list[Event]:
    """The events that void a round whose opening was not recorded whole: every stake it recorded is
    returned (round_voided, then the closing record with every net at zero)."""
    _opening(events)
    staked: dict[str, int] = {}
    for ev in events:
        if ev.get("type") == "stake":
            staked[ev["player"]] = staked.get(ev["player"], 0) + ev["amount"]
    return [
        {"type": "round_voided", "reason": reason, "returned": dict(staked)},
        round_settled(staked, dict(staked), 0),
    ]


def recall(events: list[Event]) -> tuple[Round, bool]:
    """Rebuild a round and say whether replaying it reproduces exactly the logged events."""
    try:
        rnd = rebuild(events)
    except RoundIncomplete:
        raise
    except BadFile as exc:
        if exc.key != "err.file.log_replay_differs":
            raise
        return _replay_loose(events), False
    return rnd, canonical(rnd.events) == canonical(events)


def _replay_loose(events: list[Event]) -> Round:
    """The round its logged bets, cards and decisions make, when they do not reproduce its events (an
    edited log): what the engine says those steps give, for the inspector to compare."""
    game, settings, bets, _ = _opening(events)
    rules = load_rules(game, settings)
    cls = round_class(game)
    rnd = cls(rules, place_bets(bets, cls.bet_spec(rules)), round_id=events[0].get("round", 1))
    for ev in events:
        step = cls.step_from_event(ev)
        if step is not None and rnd.pending is not None:
            rnd.apply(step)
    return rnd


def iter_round_events(records: Iterable[dict[str, Any]]) -> Iterator[tuple[int | str, list[Event]]]:
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
