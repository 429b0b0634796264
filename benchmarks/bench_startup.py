"""The start-up's integrity check on a long chain: a fresh PostgreSQL database (127.0.0.1:5432, dropped
afterwards) holding one table with N signed chain records (and a ledger of M signed entries), then the
check `tapete serve` runs before a table takes a request (`integrity.startup`), timed twice: the first
start (no checkpoint: every record's hash, link and signature) and the next (from the checkpoint the
first one wrote, a little below the head).

    python -m benchmarks.bench_startup --records 1000000 --entries 100000
    python -m benchmarks.bench_startup --records 1000000 --entries 100000 --checkpointed

`--checkpointed`: the database as a running server leaves it (its checkpoint sweep verified the records
and signed a checkpoint `CHECKPOINT_BEHIND` below the head, here written by the tool as the sweep writes
it): only the start-up from it is timed.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from tempfile import mkdtemp

import psycopg

from tapete.log import GENESIS
from tapete.server import signing
from tapete.server.app import Casino
from tapete.server.config import Settings
from tapete.server.db import migrate
from tapete.server.inspection import integrity
from tapete.server.play import chain

ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def _copy_records(conn: psycopg.Connection, table_id: int, n: int) -> str:
    """N signed records of table `table_id`, copied in; the chain's head."""
    signer = signing.current()
    head = GENESIS
    at = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    seq = 0
    while seq < n:
        buf = io.StringIO()
        for _ in range(min(50_000, n - seq)):
            round_no = seq // 20 + 1
            event = {"type": "card", "card": CARDS[seq % 52], "to": "box 1", "hand": 0}
            record = {"seq": seq, "round": round_no, "event": event, "prev": head, "at": at, "by": "dora"}
            digest = chain.record_digest(record)
            sig = signer.sign(signing.record_message(table_id, seq, digest))
            buf.write(
                "\t".join(
                    (
                        str(table_id),
                        str(seq),
                        str(round_no),
                        str(round_no),
                        json.dumps(event),
                        head,
                        at,
                        "dora",
                        digest,
                        sig,
                    )
                )
                + "\n"
            )
            head = digest
            seq += 1
        buf.seek(0)
        with conn.cursor().copy(
            'COPY events (table_id, seq, "round", round_no, event, prev, "at", "by", hash, sig) FROM STDIN'
        ) as copy:
            copy.write(buf.read())
        print(f"  {seq} records", flush=True)
    return head


def _copy_entries(conn: psycopg.Connection, m: int) -> None:
    """M signed ledger entries moving chips between two accounts, two to a transaction (each linked to its
    account's, each transaction summing to zero, each signature covering its transaction's size, as
    `ledger.post_many` signs them; the house's and the cage's balances are not under it)."""
    signer = signing.current()
    ids = [
        conn.execute(
            "INSERT INTO accounts (name, kind, balance) VALUES (%s, %s, 0) RETURNING id", (name, kind)
        ).fetchone()[0]  # type: ignore[index]
        for name, kind in (("cage", "cage"), ("house", "house"))
    ]
    balances = dict.fromkeys(ids, 0)
    m -= m % 2  # whole transactions
    at = datetime.now(UTC)
    buf = io.StringIO()
    txn = ""
    for i in range(m):
        account = ids[i % 2]
        amount = 100 if i % 2 == 0 else -100
        balances[account] += amount
        if i % 2 == 0:
            txn = str(uuid.uuid4())
        entry = {"txn": txn, "account_id": account, "amount": amount, "kind": "buy_in"}
        sig = signer.sign(signing.entry_message(entry, signing.time_text(at), entries=2))
        buf.write(
            f"{entry['txn']}\t{account}\t{amount}\t{balances[account]}\tbuy_in\t{at.isoformat()}\t{sig}\n"
        )
    buf.seek(0)
    conn.execute("ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_link")  # the copy's speed
    with conn.cursor().copy(
        'COPY ledger_entries (txn, account_id, amount, balance_after, kind, "at", sig) FROM STDIN'
    ) as copy:
        copy.write(buf.read())
    conn.execute("ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_link")
    for account, balance in balances.items():
        conn.execute("UPDATE accounts SET balance = %s WHERE id = %s", (balance, account))


async def _check(casino: Casino) -> tuple[float, integrity.StartupReport]:
    t0 = time.perf_counter()
    report = await integrity.startup(casino.store, print)
    return time.perf_counter() - t0, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--checkpointed", action="store_true")
    args = parser.parse_args()
    name = f"tapete_startup_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    try:
        migrate(url)
        home = Path(mkdtemp(prefix="tapete-bench-"))
        casino = Casino(Settings(database_url=url, data_dir=home, shoe_key=bytes(32)))
        t0 = time.perf_counter()
        with psycopg.connect(url, autocommit=True) as conn:
            table_id = conn.execute(
                "INSERT INTO tables (name, game, mode, rules, status, version, next_seq, head_hash, round_no,"
                " in_round, shuffle_no, created_at) VALUES ('bench', 'blackjack', 'live', '{}', 'open', 0, 0,"
                " %s, 0, false, 0, now()) RETURNING id",
                (GENESIS,),
            ).fetchone()[0]  # type: ignore[index]
            head = _copy_records(conn, table_id, args.records)
            conn.execute(
                "UPDATE tables SET next_seq = %s, head_hash = %s, round_no = %s WHERE id = %s",
                (args.records, head, args.records // 20 + 1, table_id),
            )
            _copy_entries(conn, args.entries)
            conn.execute("VACUUM ANALYZE")
            if args.checkpointed:
                at = args.records - 1 - integrity.CHECKPOINT_BEHIND
                digest = conn.execute(
                    "SELECT hash FROM events WHERE table_id = %s AND seq = %s", (table_id, at)
                ).fetchone()[0]  # type: ignore[index]
                for kind, t, seq, h in (
                    ("table", table_id, at, digest),
                    ("ledger", None, args.entries - 1000, ""),
                ):
                    sig = signing.current().sign(signing.checkpoint_message(kind, t, seq, h))
                    conn.execute(
                        'INSERT INTO checkpoints (kind, table_id, seq, hash, "at", sig)'
                        " VALUES (%s, %s, %s, %s, now(), %s)",
                        (kind, t, seq, h, sig),
                    )
        print(f"built {args.records} records and {args.entries} entries in {time.perf_counter() - t0:.1f} s")

        async def run() -> None:
            try:
                labels = ["first start (no checkpoint)", "next start (from the checkpoint)"]
                for label in labels[1:] if args.checkpointed else labels:
                    seconds, report = await _check(casino)
                    print(
                        f"{label}: {seconds:.2f} s (every table held {report.held:.2f} s of it),"
                        f" {report.records} records and {report.entries} entries checked,"
                        f" suspended {report.suspended}, frozen {report.frozen}",
                        flush=True,
                    )
            finally:
                await casino.dispose()

        asyncio.run(run())
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
