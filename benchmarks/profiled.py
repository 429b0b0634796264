"""Run a module under cProfile and write its stats when the process is told to stop (SIGTERM or SIGINT).

    python -m benchmarks.profiled OUT.prof tapete.cli serve --port 8000

uvicorn raises the signal it caught again once it has shut down, which ends the process before cProfile
writes anything; here the signal ends the run with SystemExit instead, and the stats are written.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys


def main() -> None:
    out, module, *args = sys.argv[1:]

    def stop(_signum: int, _frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    sys.argv = [module, *args]
    profile = cProfile.Profile()
    try:
        profile.runcall(runpy.run_module, module, run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        profile.dump_stats(out)


if __name__ == "__main__":
    main()
