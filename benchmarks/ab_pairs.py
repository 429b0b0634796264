"""The speed floor's A/B pairs: two versions of the code, each in a detached worktree of this repository,
run one after the other with the same load (`bench_server`), alternating, so that each pair sees the
machine as it was for both halves. Prints one line per run and the ratio of each pair; the worktrees are
removed at the end.

    python -m benchmarks.ab_pairs --pairs 3                          # 7f25fee against HEAD, closed loop
    python -m benchmarks.ab_pairs --pairs 2 --rate 520               # the latency floor at 520/s
    python -m benchmarks.ab_pairs --old 7f25fee --new main --pairs 3 -- --tables 20 --seconds 30

What is after ``--`` goes to `bench_server` (default: ``--tables 20 --seconds 30 --postgres``)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_server import summary

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LOAD = ["--tables", "20", "--seconds", "30", "--postgres"]


def run_once(tree: Path, load: list[str]) -> dict[str, Any]:
    """One `bench_server` run of the code in `tree`: its JSON summary."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_server", *load, "--json"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree / "src")},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    last = done.stdout.strip().splitlines()[-1:] or [""]
    try:
        return dict(json.loads(last[0]))
    except json.JSONDecodeError:
        said = f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        raise SystemExit(f"bench_server failed in {tree}:\n{said}") from None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--old", default="7f25fee", help="the baseline's commit (first in each pair)")
    parser.add_argument("--new", default="HEAD", help="the change's commit (second in each pair)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=None, help="an offered rate (bench_server --rate)")
    args, rest = parser.parse_known_args()
    load = [a for a in rest if a != "--"] or list(DEFAULT_LOAD)
    if args.rate is not None:
        load += ["--rate", str(args.rate)]
    with tempfile.TemporaryDirectory(prefix="tapete-ab-") as scratch:
        trees: dict[str, Path] = {}
        try:
            for label, ref in (("old", args.old), ("new", args.new)):
                tree = Path(scratch) / label
                made = subprocess.run(
                    ["git", "worktree", "add", "--detach", str(tree), ref],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if made.returncode != 0:
                    raise SystemExit(f"no worktree of {ref!r}: {made.stderr.strip()}")
                trees[label] = tree
            print(f"old {args.old}, new {args.new}; bench_server {' '.join(load)}", flush=True)
            for _ in range(args.pairs):
                old = run_once(trees["old"], load)
                print(time.strftime("%H:%M"), summary(old, f"old {args.old}"), flush=True)
                new = run_once(trees["new"], load)
                print(time.strftime("%H:%M"), summary(new, f"new {args.new}"), flush=True)
                ratio = new["decisions_per_second"] / old["decisions_per_second"]
                print(f"      pair ratio new/old {ratio:.2f}", flush=True)
        finally:
            for tree in trees.values():
                gone = ["git", "worktree", "remove", "--force", str(tree)]
                subprocess.run(gone, cwd=ROOT, capture_output=True, check=False)


if __name__ == "__main__":
    main()
