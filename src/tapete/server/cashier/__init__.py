"""The cashier and the chip ledger: buy-ins, cash-outs, every movement of chips an entry."""
