"""People and sessions, and player protection: logins, passwords, roles, a player's identity, limits and
self-exclusion."""
