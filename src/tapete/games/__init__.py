"""One module per game: a pure round state machine with no I/O, no clock and no randomness."""
