"""The SQL of what every domain shares: the answers kept under an Idempotency-Key, and the database's
ping; written once for both databases (`sql.q`)."""

from __future__ import annotations

from tapete.server.sql import q

#: the answer kept under a caller's Idempotency-Key, and its request's fingerprint
ANSWERED = q(
    'SELECT fingerprint, status_code, body FROM idempotency_keys WHERE user_id = :user AND "key" = :key',
)
ANSWER = q(
    'INSERT INTO idempotency_keys (user_id, "key", fingerprint, status_code, body, created_at)'
    " VALUES (:user, :key, :fingerprint, :status, :body, :at)"
)
#: what tells that the database answers
PING = q("SELECT 1 AS alive")
