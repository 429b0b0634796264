"""The event log: canonical JSON, SHA-256 chain across rounds, `tapete verify`, recall."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tapete.cli import app
from tapete.games.blackjack import Action
from tapete.log import EventLog, canonical, recall, verify_file
from tapete.session import TableSession
from tapete.shoe import SeededRandom
from tapete.table import RawBet


def _play(path: Path, rounds: int = 6) -> TableSession:
    session = TableSession("blackjack", {}, live=False, rng=SeededRandom(7), log=path)
    for _ in range(rounds):
        rnd = session.start_round([RawBet(1, "ana", "main", 1000), RawBet(3, "ben", "main", 500)])
        while rnd.pending is not None:
            d = rnd.pending
            many = len(rnd._box(d.seat).hands) > 1
            choice = (
                "hit"
                if d.kind == "play" and "hit" in d.legal and len(rnd._box(d.seat).hands[d.hand].cards) < 3
                else None
            )
            session.apply(
                Action(
                    d.seat, choice or ("stand" if d.kind == "play" else "decline"), d.hand if many else None
                )
            )
        session.finish_round()
    return session


def test_canonical_json_is_sorted_and_compact() -> None:
    assert canonical({"b": 1, "a": "ñ"}) == '{"a":"ñ","b":1}'.encode()


def test_chain_verifies_and_rounds_replay(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _play(path)
    report = verify_file(path)
    assert report.ok and report.count > 50
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0 and "6 of 6 rounds" in result.output


def test_edited_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _play(path)
    lines = path.read_text().splitlines()
    rec = json.loads(lines[20])
    rec["event"]["tampered"] = True
    lines[20] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    report = verify_file(path)
    assert not report.ok and report.first_bad == 20 and "edited" in report.message
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1 and "record 20" in result.output


def test_removed_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _play(path)
    lines = path.read_text().splitlines()
    del lines[10]
    path.write_text("\n".join(lines) + "\n")
    report = verify_file(path)
    assert not report.ok and report.first_bad == 10


def test_log_reopens_and_continues_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _play(path, 2)
    log = EventLog(path)
    head = log.head
    log.append("note", {"type": "correction", "by": "inspector", "reason": "test"})
    assert log.records[-1]["prev"] == head
    assert verify_file(path).ok


def test_recall_rebuilds_a_round_from_its_events_alone(tmp_path: Path) -> None:
    session = _play(tmp_path / "t.jsonl", 4)
    for round_id in range(1, 5):
        events = session.log.events_of(round_id)
        rnd, same = recall(events)
        assert same and rnd.finished
        assert rnd.result()["players"] == events[-1]["players"]
