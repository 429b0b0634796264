"""The inspector's and integrity's SQL beside the ORM: checkpoints, the ledger's and the chains' checks,
frozen accounts and their reopening, the significant-event journal; written once for both databases
(`sql.q`). The services (`integrity`, `integrity_api`, `journal`) hold the rules."""

from __future__ import annotations

from tapete.server.play import repository as play
from tapete.server.sql import q

# -- checkpoints and the checks of chains and ledger (`integrity`)
RANGE = q(f"SELECT {play.RECORD_COLUMNS} FROM events WHERE table_id = :t AND seq >= :s ORDER BY seq LIMIT :n")
CHECKPOINTS = q(
    "SELECT kind, seq, hash, sig FROM checkpoints WHERE table_id = :t AND kind IN ('table', 'legacy')"
    " ORDER BY seq DESC"
)
LEDGER_CHECKPOINTS = q(
    "SELECT kind, seq, hash, sig FROM checkpoints WHERE table_id IS NULL"
    " AND kind IN ('ledger', 'legacy_ledger') ORDER BY seq DESC"
)
ACCOUNT_CHECKPOINTS = q(
    "SELECT seq, hash, sig FROM checkpoints WHERE kind = 'account' AND table_id IS NULL ORDER BY seq"
)
NEW_CHECKPOINT = q(
    'INSERT INTO checkpoints (kind, table_id, seq, hash, "at", sig)'
    " VALUES (:kind, :t, :seq, :hash, :at, :sig)"
)
BALANCES = q(
    "SELECT a.id, a.name, a.balance, a.frozen, (SELECT e.balance_after FROM ledger_entries e"
    " WHERE e.account_id = a.id ORDER BY e.id DESC LIMIT 1) AS last_balance FROM accounts a ORDER BY a.id"
)
#: the ledger's entries after an id, each with its account's previous balance and its transaction's number of
#: entries and sum as they stand (whatever their ids: a transaction's house entry is written last)
ENTRIES_AFTER = q(
    "SELECT e.id, e.txn, e.account_id, e.amount, e.balance_after, e.kind, e.table_id, e.round_no, e.player,"
    ' e.spot, e.seq, e.actor, e."at", e.sig, (SELECT p.balance_after FROM ledger_entries p'
    " WHERE p.account_id = e.account_id AND p.id < e.id ORDER BY p.id DESC LIMIT 1) AS before,"
    " (SELECT COUNT(*) FROM ledger_entries t WHERE t.txn = e.txn) AS txn_entries,"
    " (SELECT SUM(t.amount) FROM ledger_entries t WHERE t.txn = e.txn) AS txn_sum, a.kind AS account_kind"
    " FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
    " WHERE e.id > :after AND e.id <= :upto ORDER BY e.id LIMIT :n",
)
#: how many entries lie between two ids (the ledger's check read them before it locked the tables)
ENTRIES_BETWEEN = q("SELECT COUNT(*) AS n FROM ledger_entries WHERE id > :after AND id <= :upto")
#: a transaction's remaining entries: each one's account and its kind, and the wallet of the player it names
TXN_ACCOUNTS = q(
    "SELECT e.id, e.account_id, a.kind, (SELECT w.id FROM accounts w WHERE w.name = 'wallet:' || e.player)"
    " AS wallet FROM ledger_entries e JOIN accounts a ON a.id = e.account_id WHERE e.txn = :txn ORDER BY e.id"
)
FROZEN_AMONG = q("SELECT name FROM accounts WHERE id {in_ids} AND frozen IS NOT NULL ORDER BY id")
FREEZE = q("UPDATE accounts SET frozen = :why WHERE id = :id AND frozen IS NULL RETURNING id")
ACCOUNT_NAME = q("SELECT name FROM accounts WHERE id = :id")
TABLE_HEADS = q("SELECT id, next_seq FROM tables ORDER BY id")
MAX_ENTRY = q("SELECT MAX(id) AS last FROM ledger_entries")


# -- frozen accounts and their reopening (`integrity_api`)
FROZEN = q("SELECT id, name, kind, balance, frozen FROM accounts WHERE frozen IS NOT NULL ORDER BY id")
ACCOUNT = q("SELECT id, name, balance, frozen FROM accounts WHERE name = :name {lock}")
LAST_ENTRY = q("SELECT id, balance_after FROM ledger_entries WHERE account_id = :id ORDER BY id DESC LIMIT 1")
REOPEN = q("UPDATE accounts SET frozen = NULL, balance = :balance WHERE id = :id")


# -- the significant-event journal and a table's holders (`journal`)
NOTE = q(
    'INSERT INTO significant_events ("at", kind, actor, table_id, details)'
    " VALUES (:at, :kind, :actor, :table_id, :details)"
)
SEATS = q(
    "SELECT s.seat, u.name FROM seats s JOIN users u ON u.id = s.user_id"
    " WHERE s.table_id = :t ORDER BY s.seat"
)
