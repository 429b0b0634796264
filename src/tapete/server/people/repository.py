"""The people's SQL beside the ORM: sessions as a request checks and touches them, and player
protection (limits, self-exclusion, the register of prohibited persons, a player's day); written once
for both databases (`sql.q`). The services (`accounts`, `protection`) hold the rules."""

from __future__ import annotations

from tapete.server.sql import Rows, q

# -- sessions as a request checks and touches them (`accounts`)
BY_TOKEN = q(
    "SELECT s.id, s.last_seen_at, s.ended_at, u.id AS user_id, u.name, u.role, u.active, s.created_at"
    " FROM sessions s"
    " JOIN users u ON u.id = s.user_id WHERE s.token_hash = :hash",
)
BY_ID = q(
    "SELECT s.last_seen_at, s.ended_at, u.role, u.active, s.created_at FROM sessions s"
    " JOIN users u ON u.id = s.user_id WHERE s.id = :id",
)
TOUCH = q("UPDATE sessions SET last_seen_at = :now WHERE id = :id")
END_IDLE = q("UPDATE sessions SET ended_at = :now, ended_reason = 'idle' WHERE id = :id AND ended_at IS NULL")
END_EXPIRED = q(
    "UPDATE sessions SET ended_at = :now, ended_reason = 'expired' WHERE id = :id AND ended_at IS NULL"
)


# -- player protection (`protection`)
PROFILE = q(
    "SELECT u.name, p.document, p.birth_date, p.excluded_until, p.loss_per_day, p.wager_per_day,"
    " p.session_minutes, p.reality_check_minutes, p.pending,"
    " (SELECT COUNT(*) FROM prohibited_persons r WHERE r.document = p.document) AS prohibited"
    " FROM users u LEFT JOIN player_protection p ON p.user_id = u.id WHERE u.id = :user",
)
SESSION_START = q("SELECT created_at FROM sessions WHERE id = :id")
#: a player's day: what he staked and his net (every wallet movement but the cashier's) since the day
#: began, and what he has committed to bets and back-bet requests not yet closed (not yet staked)
DAY = q(
    "SELECT COALESCE(SUM(CASE WHEN e.kind = 'stake' THEN -e.amount ELSE 0 END), 0) AS staked,"
    " COALESCE(SUM(e.amount), 0) AS net,"
    " (SELECT COALESCE(SUM(b.amount), 0) FROM bets b WHERE b.user_id = :user) AS on_bets,"
    " (SELECT COALESCE(SUM(r.amount), 0) FROM back_bet_requests r WHERE r.user_id = :user"
    " AND r.status = 'waiting') AS on_requests"
    " FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
    ' WHERE a.name = :wallet AND e."at" >= :since'
    " AND e.kind NOT IN ('buy_in', 'cash_out')"
)
SINCE = q(
    "SELECT COALESCE(SUM(CASE WHEN e.kind = 'stake' THEN -e.amount ELSE 0 END), 0) AS staked,"
    " COALESCE(SUM(e.amount), 0) AS net"
    " FROM ledger_entries e JOIN accounts a ON a.id = e.account_id"
    ' WHERE a.name = :wallet AND e."at" >= :since'
    " AND e.kind NOT IN ('buy_in', 'cash_out')"
)
PREVIOUS_LOGIN = q(
    "SELECT MAX(created_at) AS last FROM sessions WHERE user_id = :user AND created_at < :began"
)
UPSERT_LIMITS = q(
    "INSERT INTO player_protection (user_id, loss_per_day, wager_per_day, session_minutes,"
    " reality_check_minutes, pending) VALUES (:user, :loss_per_day, :wager_per_day, :session_minutes,"
    " :reality_check_minutes, :pending) ON CONFLICT (user_id) DO UPDATE SET"
    " loss_per_day = excluded.loss_per_day, wager_per_day = excluded.wager_per_day,"
    " session_minutes = excluded.session_minutes, reality_check_minutes = excluded.reality_check_minutes,"
    " pending = excluded.pending"
)
UPSERT_EXCLUSION = q(
    "INSERT INTO player_protection (user_id, excluded_until) VALUES (:user, :until)"
    " ON CONFLICT (user_id) DO UPDATE SET excluded_until = excluded.excluded_until"
)
END_SESSIONS = q(
    "UPDATE sessions SET ended_at = :now, ended_reason = 'excluded'"
    " WHERE user_id = :user AND ended_at IS NULL"
)
CLEAR_REGISTER = q("DELETE FROM prohibited_persons")
REGISTER_ROWS = Rows("prohibited_persons", (("document", "varchar"), ("since", "varchar")))
REGISTER_META = q(
    "INSERT INTO protection_register (id, entries, loaded_at, loaded_by) VALUES (1, :entries, :at, :by)"
    " ON CONFLICT (id) DO UPDATE SET entries = excluded.entries, loaded_at = excluded.loaded_at,"
    " loaded_by = excluded.loaded_by"
)
REGISTER_READ = q("SELECT entries, loaded_at, loaded_by FROM protection_register WHERE id = 1")
#: a player's id and name by his name in any case (server.md: user names are unique whatever their case)
PLAYER_ID = q("SELECT id, name FROM users WHERE lower(name) = lower(:name) AND role = 'player'")
PROHIBITED_USERS = q(
    "SELECT u.name FROM player_protection p JOIN users u ON u.id = p.user_id"
    " JOIN prohibited_persons r ON r.document = p.document ORDER BY u.name"
)
