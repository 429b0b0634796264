"""The inspector: recall of a round, the chain's check, reports, the significant events, the integrity of
records and accounts."""
