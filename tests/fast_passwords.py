"""Run a module as ``python -m`` would (``tapete.cli serve …``) with argon2id at its cheapest parameters.

A test server creates and logs in dozens of users, and argon2id at its production cost takes 150 ms each
on this machine: the tests' `Server(..., fast_passwords=True)` starts the real command through here. The
tests about the hashing itself (its cost, a login's time whether the name exists) start it plainly.

    python -m tests.fast_passwords tapete.cli serve --port 8000
"""

from __future__ import annotations

import runpy
import sys

from argon2 import PasswordHasher

from tapete.server.people import accounts


def cheapest() -> PasswordHasher:
    """argon2id at its smallest costs: what the tests' servers hash passwords with (in their process or
    in a subprocess started through here)."""
    return PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


def main() -> None:
    """Swap the server's hasher for the cheapest argon2id, then run the module named first."""
    accounts._HASHER = cheapest()
    module, *args = sys.argv[1:]
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
