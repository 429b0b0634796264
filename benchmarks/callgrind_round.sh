#!/usr/bin/env bash
# Instructions per one-seat Black Jack round (callgrind counts instructions: load-independent), for the
# tree at SRC (default: this checkout) and, when given, a second tree to compare with in the same sitting.
#
#   benchmarks/callgrind_round.sh [N] [OTHER_TREE]      e.g. after `git worktree add /tmp/old fc587e1`
#
# Each figure is (run of N rounds - run of 0 rounds) / N with PYTHONHASHSEED=0 (hash randomisation moves
# the counts by a few thousand instructions between runs) and warm .pyc files.
set -euo pipefail
N=${1:-1000}
OTHER=${2:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=$(python -c 'import sys; print(sys.executable)')
PY=$(readlink -f "$PY")
export PYTHONHASHSEED=0
tmp=$(mktemp -d)
count() {  # tree rounds
  cat > "$tmp/run.py" <<PYEOF
import sys
sys.path.insert(0, "$1/src"); sys.path.insert(0, "$1/benchmarks")
from bench_blackjack import play
play(int(sys.argv[1]), 1)
PYEOF
  "$PY" "$tmp/run.py" 5 >/dev/null
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$PY" "$tmp/run.py" "$2" >/dev/null 2>&1
  grep '^totals:' "$tmp/out" | awk '{print $2}'
}
per_round() {
  a=$(count "$1" 0); b=$(count "$1" "$N")
  echo $(( (b - a) / N ))
}
echo "$HERE: $(per_round "$HERE") instructions per 1-seat round (N=$N)"
if [ -n "$OTHER" ]; then echo "$OTHER: $(per_round "$OTHER") instructions per 1-seat round (N=$N)"; fi
rm -rf "$tmp"
