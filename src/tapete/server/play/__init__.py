"""Tables and rounds: each step of play asking the engine, its event chain, the state each viewer sees, live
tables' control procedures, deck-change requests and claims."""
