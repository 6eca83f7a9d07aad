"""Model: the ledger, the fold and RunState. No I/O, no clock."""
