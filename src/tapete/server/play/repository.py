"""The tables' and rounds' SQL: every statement the `play` package runs (a table's row, its seats, bets
and back-bet requests, rounds, shoes, the chain's records, deck-change requests and claims), written
once for both databases (`sql.q`), beside nothing else. The services (`tables`, `chain`, `control`,
`state`, `betting`) hold the rules and say which statement to run; a row comes back read by name."""

from __future__ import annotations

from tapete.server.play.table_row import COLUMNS
from tapete.server.sql import Q, Rows, q

# -- the chain's records (`chain`)
RECORD_COLUMNS = 'seq, "round", event, prev, "at", "by", hash, sig'
#: a table's records, as `append` writes them
RECORDS = Rows(
    "events",
    (
        ("table_id", "integer"),
        ("seq", "integer"),
        ("round", "varchar"),
        ("round_no", "integer"),
        ("event", "json"),
        ("prev", "varchar"),
        ("at", "varchar"),
        ("by", "varchar"),
        ("hash", "varchar"),
        ("sig", "text"),
    ),
)
RECORDS_OF_ROUND = q(
    f"SELECT {RECORD_COLUMNS} FROM events WHERE table_id = :t AND round_no = :r ORDER BY seq"
)
RECORDS_FROM = q(f"SELECT {RECORD_COLUMNS} FROM events WHERE table_id = :t AND seq >= :s ORDER BY seq")
RECORDS_OF_ROUND_BEFORE = q(
    f"SELECT {RECORD_COLUMNS} FROM events WHERE table_id = :t AND round_no = :r AND seq < :s ORDER BY seq"
)

#: PostgreSQL: a round's records committed before the step that settles it are still the ones this
#: process wrote (`:kept`, their every column), compared in the database and sent with the step's writes
#: (nothing waits for it): any record changed, added or gone refuses the step (TPMOV), which is then
#: taken again from the database, whose records are checked whole before it settles (`chain.check_round`)
ROUND_INTACT = q(
    "SELECT tapete_moved('the round''s records') WHERE"
    " (SELECT count(*) FROM events WHERE table_id = :t AND round_no = :r AND seq < :s) <> :n"
    " OR EXISTS (SELECT 1 FROM events e LEFT JOIN json_to_recordset(CAST(:kept AS json)) AS k(seq integer,"
    ' prev varchar, "at" varchar, "by" varchar, hash varchar, sig text, event jsonb) ON k.seq = e.seq'
    " WHERE e.table_id = :t AND e.round_no = :r AND e.seq < :s AND (k.seq IS NULL OR e.prev <> k.prev"
    ' OR e."at" <> k."at" OR e."by" IS DISTINCT FROM k."by" OR e.hash <> k.hash'
    " OR e.sig IS DISTINCT FROM k.sig OR CAST(e.event AS jsonb) <> k.event))",
    # never run on SQLite, which reads the round's records and compares them itself (`chain.round_records`)
    lite="SELECT NULL AS tapete_moved WHERE 0",
)

# -- a table's row, seats, bets, back-bet requests, rounds and shoes (`tables`)
JSON_COLUMNS = ("rules", "pending_shoe_events")
SELECT_TABLE = f"SELECT {', '.join(COLUMNS)} FROM tables"
TABLE = q(SELECT_TABLE + " WHERE id = :id")
TABLE_LOCKED = q(SELECT_TABLE + " WHERE id = :id {lock}")
ALL_TABLES = q(SELECT_TABLE + " ORDER BY id")
ALL_TABLES_LOCKED = q(SELECT_TABLE + " ORDER BY id {lock}")
NEW_TABLE = q(
    "INSERT INTO tables (name, game, mode, rules, turn_seconds, betting_seconds, status, version, next_seq,"
    " head_hash, round_no, in_round, shuffle_no, created_at) VALUES (:name, :game, :mode, :rules,"
    " :turn_seconds, :betting_seconds, 'open', 0, 0, :head, 0, :no, 0, :at) RETURNING id"
)
NEW_SHOE = q(
    "INSERT INTO shoes (table_id, shuffle_no, from_seq, sealed, created_at)"
    " VALUES (:table_id, :shuffle_no, :from_seq, :sealed, :at)"
)
LAST_SHOE = q(
    "SELECT shuffle_no, from_seq, sealed FROM shoes WHERE table_id = :t ORDER BY shuffle_no DESC LIMIT 1"
)
SEAT = q("SELECT id, user_id FROM seats WHERE table_id = :t AND seat = :seat")
TAKE_SEAT = q("INSERT INTO seats (table_id, seat, user_id, taken_at) VALUES (:t, :seat, :user, :at)")
FREE_SEAT = q("DELETE FROM seats WHERE id = :id")
BETS = q(
    "SELECT b.seat, u.name, b.spot, b.amount FROM bets b JOIN users u ON u.id = b.user_id"
    " WHERE b.table_id = :t ORDER BY b.id"
)
NEW_BET = q(
    "INSERT INTO bets (table_id, seat, user_id, spot, amount, placed_at)"
    " VALUES (:t, :seat, :user, :spot, :amount, :at) RETURNING id"
)
FIRST_BET_AT = q(  # a holder's own bet starts the betting timer; a back-bet (or its consent) does not
    "SELECT b.placed_at FROM bets b JOIN seats s"
    " ON s.table_id = b.table_id AND s.seat = b.seat AND s.user_id = b.user_id"
    " WHERE b.table_id = :t ORDER BY b.placed_at LIMIT 1",
)
DROP_BETS = q("DELETE FROM bets WHERE table_id = :t")
DROP_SEAT_BETS = q("DELETE FROM bets WHERE table_id = :t AND seat = :seat")
DROP_PLAYER_BETS = q("DELETE FROM bets WHERE table_id = :t AND user_id = :user")
DROP_PLAYER_SEAT_BETS = q("DELETE FROM bets WHERE table_id = :t AND user_id = :user AND seat = :seat")
#: the requests still waiting when the bets close, or when their requester leaves, are kept, no longer
#: waiting: a row deleted would give its id to the next request (SQLite reuses the highest rowid), and a
#: holder answering the old id would answer another request
DROP_WAITING = q(
    "UPDATE back_bet_requests SET status = 'lapsed', answered_at = :at"
    " WHERE table_id = :t AND status = 'waiting'"
)
LAPSE_SEAT_WAITING = q(
    "UPDATE back_bet_requests SET status = 'lapsed', answered_at = :at"
    " WHERE table_id = :t AND seat = :seat AND status = 'waiting'"
)
DROP_PLAYER_WAITING = q(
    "UPDATE back_bet_requests SET status = 'withdrawn', answered_at = :at"
    " WHERE table_id = :t AND user_id = :user AND status = 'waiting'"
)
NEW_BACK_BET_REQUEST = q(
    "INSERT INTO back_bet_requests (table_id, seat, user_id, spot, amount, status, created_at)"
    " VALUES (:t, :seat, :user, :spot, :amount, 'waiting', :at) RETURNING id"
)
BACK_BET_REQUEST = q(
    "SELECT table_id, seat, user_id, spot, amount, status FROM back_bet_requests WHERE id = :id"
)
ANSWER = q("UPDATE back_bet_requests SET status = :status, answered_at = :at WHERE id = :id")
USER = q("SELECT id, name FROM users WHERE id = :id")
USER_ID = q("SELECT id FROM users WHERE name = :name")
NEW_ROUND = q(
    "INSERT INTO rounds (table_id, round_no, status, started_at, first_seq, last_seq)"
    " VALUES (:t, :n, 'in_progress', :at, :seq, :seq)"
)
END_ROUND = q(
    "UPDATE rounds SET status = :status, ended_at = :at, last_seq = :last"
    " WHERE table_id = :t AND round_no = :n"
)
ROUND_VOID = q("SELECT void_requested_by, void_reason FROM rounds WHERE table_id = :t AND round_no = :n")
ASK_VOID = q(
    "UPDATE rounds SET void_requested_by = :by, void_reason = :reason WHERE table_id = :t AND round_no = :n"
)
FENCE = "id = :id AND version = :fence_version AND next_seq = :fence_seq AND head_hash = :fence_head"
#: a step's check sent without waiting for its answer (PostgreSQL; a round's end, `unread_check`): the
#: table's row locked where it is still the one the step started from, else the transaction refused
#: (`tapete_moved`, migration 0004: the step is taken again, `Stale`)
FENCE_CHECK = q(
    f"SELECT tapete_moved('the table') WHERE NOT EXISTS (SELECT 1 FROM tables WHERE {FENCE} {{lock}})"
)
#: after a round's end that did not read the table's chips: they must have settled to zero
CHIPS_SETTLED = q("SELECT tapete_moved('the table''s chips') FROM accounts WHERE id = :id AND balance <> 0")


# -- deck-change requests and claims (`control`)
NEW_DECK_REQUEST = q(
    "INSERT INTO deck_change_requests (table_id, user_id, role, reason, status, created_at)"
    " VALUES (:t, :user, :role, :reason, 'open', :at) RETURNING id"
)
OPEN_DECK_REQUESTS = q(
    "SELECT r.id, u.name, r.role, r.reason, r.created_at FROM deck_change_requests r"
    " JOIN users u ON u.id = r.user_id WHERE r.table_id = :t AND r.status = 'open' ORDER BY r.id",
)
ALL_DECK_REQUESTS = q(
    "SELECT r.id, r.table_id, u.name, r.role, r.reason, r.status, r.created_at, r.closed_by, r.closed_at,"
    " r.closed_seq FROM deck_change_requests r JOIN users u ON u.id = r.user_id ORDER BY r.id DESC LIMIT 200",
)
DECK_REQUEST = q(
    "SELECT r.id, r.table_id, u.name, r.reason, r.status FROM deck_change_requests r"
    " JOIN users u ON u.id = r.user_id WHERE r.id = :id"
)
CLOSE_DECK_REQUEST = q(
    "UPDATE deck_change_requests SET status = 'closed', closed_at = :at, closed_by = :by, closed_seq = :seq"
    " WHERE id = :id AND status = 'open'"
)
ROUND_STATUS = q("SELECT status FROM rounds WHERE table_id = :t AND round_no = :n")
BET_IN = q(
    "SELECT 1 AS found FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
    " WHERE a.user_id = :user AND e.table_id = :t AND e.round_no = :n LIMIT 1"
)
NEW_CLAIM = q(
    "INSERT INTO claims (table_id, round_no, user_id, text, status, created_at)"
    " VALUES (:t, :n, :user, :text, 'open', :at) RETURNING id"
)
CLAIM_COLUMNS = (
    "SELECT c.id, c.table_id, c.round_no, u.name AS player, c.text, c.status, c.created_at, c.outcome,"
    " c.resolution, c.resolved_by, c.resolved_at FROM claims c JOIN users u ON u.id = c.user_id"
)
#: every claim, newest first (server.md: the inspector and the administrator read them all)
CLAIMS = q(CLAIM_COLUMNS + " ORDER BY c.id DESC")
OWN_CLAIMS = q(CLAIM_COLUMNS + " WHERE c.user_id = :user ORDER BY c.id DESC")
CLAIM = q(CLAIM_COLUMNS + " WHERE c.id = :id")
RESOLVE = q(
    "UPDATE claims SET status = 'resolved', outcome = :outcome, resolution = :text, resolved_by = :by,"
    " resolved_at = :at WHERE id = :id AND status = 'open'"
)


# -- what a viewer's state reads (`state`)
BACK_BET_REQUESTS = q(
    "SELECT r.id, r.seat, r.spot, r.amount, r.status, u.name FROM back_bet_requests r"
    " JOIN users u ON u.id = r.user_id WHERE r.table_id = :t AND r.status = 'waiting' ORDER BY r.id"
)


# -- the last bet, taken back (`betting`)
LAST_BET = q(
    "SELECT id, seat, spot, amount FROM bets WHERE table_id = :t AND user_id = :user ORDER BY id DESC LIMIT 1"
)
DROP_BET = q("DELETE FROM bets WHERE id = :id")


# -- what the casino asks of a table's row (`app`)
#: what tells whether a cached row is still the table's: every write of a table's row moves its version
FRESH = q("SELECT version, next_seq, head_hash FROM tables WHERE id = :id")
FRESH_LOCKED = q("SELECT version, next_seq, head_hash FROM tables WHERE id = :id {lock}")
#: the tables whose timer is due, taken by one process each (the others skip them)
DUE_TABLES = q("SELECT id FROM tables WHERE deadline_at <= :now ORDER BY id LIMIT 50 {skip_locked}")


# -- made at run time: a step writes the columns it changed
_FENCED: dict[tuple[tuple[str, ...], bool], Q] = {}


def _sets(columns: tuple[str, ...]) -> str:
    """The SET list of these columns of a table's row, each from its own parameter."""
    return ", ".join(f"{column} = :{column}" for column in columns)


def fenced_statement(columns: tuple[str, ...], records: bool) -> Q:
    """PostgreSQL's one statement for a step that read nothing: the table's row (these columns) written
    only where it is still the row the step started from (its version, chain length and head: the
    fence), and the step's records (``:rows``) inserted only where the fence held; made once per set of
    columns."""
    found = _FENCED.get((columns, records))
    if found is not None:
        return found
    sets = _sets(columns)
    if not records:
        text = f"UPDATE tables SET {sets} WHERE {FENCE}"
    else:
        rows, _ = RECORDS.select(source="fence")
        text = (
            f"WITH fence AS (UPDATE tables SET {sets} WHERE {FENCE} RETURNING id)"
            f" INSERT INTO events ({RECORDS.names}) {rows}"
        )
    found = _FENCED[(columns, records)] = q(text, writes="events" if records else "tables")
    return found


_UPDATES: dict[tuple[tuple[str, ...], bool], Q] = {}


def update_of(columns: tuple[str, ...], *, fenced: bool = False) -> Q:
    """The UPDATE of these columns of a table's row, or only where the row is still the one a step
    started from (`FENCE`); made once per set of columns."""
    found = _UPDATES.get((columns, fenced))
    if found is None:
        found = _UPDATES[(columns, fenced)] = q(
            f"UPDATE tables SET {_sets(columns)} WHERE {FENCE if fenced else 'id = :id'}"
        )
    return found
