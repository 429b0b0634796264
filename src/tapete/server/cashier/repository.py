"""The cashier's and the ledger's SQL: accounts, their balances and locks, ledger entries, and what a
player's wallet has committed to bets; written once for both databases (`sql.q`). The services
(`ledger`, `cashier_api`) hold the rules and say which statement to run."""

from __future__ import annotations

from tapete.server.sql import Q, Rows, q

# -- accounts, balances and entries (`ledger`)
ACCOUNT = q("SELECT id, name, kind, balance FROM accounts WHERE name = :name")
ACCOUNTS_LOCKED = q("SELECT id, name, kind, balance FROM accounts WHERE name {in_names} ORDER BY id {lock}")
NEW_ACCOUNT = q(
    "INSERT INTO accounts (name, kind, user_id, table_id, balance)"
    " VALUES (:name, :kind, :user_id, :table_id, 0) ON CONFLICT (name) DO NOTHING"
)
USER_ID = q("SELECT id FROM users WHERE name = :name")
BALANCES_LOCKED = q("SELECT id, balance FROM accounts WHERE id {in_ids} ORDER BY id {lock}")
ENTRIES = Rows(
    "ledger_entries",
    (
        ("txn", "varchar"),
        ("account_id", "integer"),
        ("amount", "bigint"),
        ("balance_after", "bigint"),
        ("kind", "varchar"),
        ("table_id", "integer"),
        ("round_no", "integer"),
        ("player", "varchar"),
        ("spot", "varchar"),
        ("seq", "integer"),
        ("actor", "varchar"),
        ("at", "timestamptz"),
        ("sig", "text"),
    ),
)
#: the entries of a transaction that moves the house: its entries' balances read from its row as moved
LATE_COLUMNS = (*ENTRIES.columns, ("late", "boolean"), ("later", "bigint"))
ENTRIES_LATE = q(
    f"INSERT INTO ledger_entries ({ENTRIES.names}) SELECT txn, account_id, amount,"
    " CASE WHEN late THEN (SELECT a.balance FROM accounts a WHERE a.id = r.account_id) - later"
    ' ELSE balance_after END, kind, table_id, round_no, player, spot, seq, actor, "at", sig'
    " FROM json_to_recordset(CAST(:rows AS json)) AS r("
    + ", ".join(f'"{n}" {k}' if n == "at" else f"{n} {k}" for n, k in LATE_COLUMNS)
    + ")",
    lite=f"INSERT INTO ledger_entries ({ENTRIES.names}) SELECT"
    " json_extract(value, '$.txn'), json_extract(value, '$.account_id'), json_extract(value, '$.amount'),"
    " CASE WHEN json_extract(value, '$.late') THEN (SELECT a.balance FROM accounts a"
    " WHERE a.id = json_extract(value, '$.account_id')) - json_extract(value, '$.later')"
    " ELSE json_extract(value, '$.balance_after') END,"
    " json_extract(value, '$.kind'), json_extract(value, '$.table_id'), json_extract(value, '$.round_no'),"
    " json_extract(value, '$.player'), json_extract(value, '$.spot'), json_extract(value, '$.seq'),"
    " json_extract(value, '$.actor'), json_extract(value, '$.at'), json_extract(value, '$.sig')"
    " FROM json_each(:rows)",
)
LOCK_ONE = q("SELECT id FROM accounts WHERE name = :name {lock}")
AVAILABLE = q(
    "SELECT balance,"
    " (SELECT COALESCE(SUM(amount), 0) FROM bets WHERE user_id = :user) AS on_bets,"
    " (SELECT COALESCE(SUM(amount), 0) FROM back_bet_requests WHERE user_id = :user AND status = 'waiting')"
    " AS on_requests, frozen FROM accounts WHERE name = :name"
)
FUNDS = q(
    "SELECT u.name, COALESCE(a.balance, 0) AS balance,"
    " (SELECT COALESCE(SUM(b.amount), 0) FROM bets b WHERE b.user_id = u.id) AS on_bets,"
    " (SELECT COALESCE(SUM(r.amount), 0) FROM back_bet_requests r"
    " WHERE r.user_id = u.id AND r.status = 'waiting') AS on_requests, a.frozen"
    " FROM users u LEFT JOIN accounts a ON a.user_id = u.id AND a.kind = 'wallet' WHERE u.name {in_names}"
)


# -- the cashier's lists (`cashier_api`)
#: a player by his name in any case (server.md: user names are unique whatever their case)
PLAYER = q("SELECT id, name FROM users WHERE lower(name) = lower(:name) AND role = 'player'")
PLAYERS = q(
    "SELECT u.name, COALESCE(a.balance, 0) AS balance FROM users u"
    " LEFT JOIN accounts a ON a.user_id = u.id AND a.kind = 'wallet' WHERE u.role = 'player' ORDER BY u.name"
)
MOVEMENTS = q(
    'SELECT e.id, e.kind, e.amount, e.balance_after, e.table_id, e.round_no, e."at" FROM ledger_entries e'
    " JOIN accounts a ON a.id = e.account_id WHERE a.name = :name ORDER BY e.id DESC LIMIT 20",
)


# -- made at run time: one UPDATE of as many balances as a step moves
_BALANCE_UPDATES: dict[tuple[int, bool], Q] = {}


def set_balances(count: int) -> Q:
    """One UPDATE of `count` accounts' balances (``id_i`` gets ``value_i``), made once per count."""
    return balance_update(count, added=False)


def balance_update(count: int, *, added: bool) -> Q:
    """One UPDATE of `count` accounts' balances, set to (or, `added`, moved by) ``value_i``."""
    found = _BALANCE_UPDATES.get((count, added))
    if found is None:
        cases = " ".join(f"WHEN :id_{i} THEN :value_{i}" for i in range(count))
        ids = ", ".join(f":id_{i}" for i in range(count))
        value = f"balance + CASE id {cases} END" if added else f"CASE id {cases} END"
        found = _BALANCE_UPDATES[(count, added)] = q(
            f"UPDATE accounts SET balance = {value} WHERE id IN ({ids})"
        )
    return found
