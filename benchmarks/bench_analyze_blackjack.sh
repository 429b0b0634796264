#!/bin/sh
# Time the whole `tapete analyze blackjack --json` command (imports included) against Eric Farmer's C++
# CDZ- analyzer (github.com/possibly-wrong/blackjack, v7.6) computing one rule set, alternately, N times.
#
#   benchmarks/bench_analyze_blackjack.sh FARMER_CHECKOUT [N] [DECKS]
#
# FARMER_CHECKOUT is a checkout of possibly-wrong/blackjack (its src/ holds blackjack.cpp). The driver
# below builds his BJPlayer for one rule set (DECKS decks, S17, DAS, SPL3, NRSA, late surrender, CDZ-)
# and prints its expected value; compiled with g++ -O3. Each line: user and system CPU seconds, wall.
set -eu
FARMER=${1:?path to a checkout of possibly-wrong/blackjack}
N=${2:-5}
DECKS=${3:-6}
WORK=$(mktemp -d)
cat > "$WORK/drv.cpp" <<'CPP'
#include "blackjack.h"
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
    BJShoe shoe(atoi(argv[1]));
    BJRules rules(false, true, true, true, false, true, true, false, true, 1.5);
    BJStrategy strategy(true, true);
    BJProgress progress;
    BJPlayer &player = *new BJPlayer(shoe, rules, strategy, progress);  // too big for the stack
    printf("%.15f\n", player.getValue() * 100);
    return 0;
}
CPP
g++ -O3 -I"$FARMER/src" -o "$WORK/drv" "$WORK/drv.cpp" "$FARMER/src/blackjack.cpp"
cd "$(dirname "$0")/.."
# bytecode as an installed package has it (pip compiles at install; PYTHONDONTWRITEBYTECODE would
# otherwise make every run compile our modules again)
python -m compileall -q src/tapete > /dev/null
# the interpreter itself, as an installed `tapete` script's first line names it (a version manager's
# shim, such as pyenv's bash one, adds its own ~60 ms before Python starts)
PY=$(python -c 'import sys; print(sys.executable)')
PYTHONPATH=src "$PY" -m tapete.cli analyze blackjack --decks "$DECKS" --json > /dev/null  # build caches
uptime
i=0
while [ "$i" -lt "$N" ]; do
    /usr/bin/time -a -o "$WORK/times" -f "tapete %U %S %e" env PYTHONPATH=src \
        "$PY" -m tapete.cli analyze blackjack --decks "$DECKS" --json > /dev/null
    /usr/bin/time -a -o "$WORK/times" -f "farmer %U %S %e" "$WORK/drv" "$DECKS" > /dev/null
    i=$((i + 1))
done
uptime
# per program: median and best wall, median CPU (user + system), then the ratio of the medians
awk '{wall[$1] = wall[$1] " " $4; cpu[$1] = cpu[$1] " " ($2 + $3)}
    function median(list,   a, n) { n = split(list, a, " "); asort(a); return a[int((n + 1) / 2)] }
    function best(list,   a, n) { n = split(list, a, " "); asort(a); return a[1] }
    END {
        for (p in wall) printf "%-7s wall median %.2f s, best %.2f s; CPU median %.2f s\n", p, median(wall[p]), best(wall[p]), median(cpu[p])
        printf "ratio of medians: wall %.2fx, CPU %.2fx\n", median(wall["tapete"]) / median(wall["farmer"]), median(cpu["tapete"]) / median(cpu["farmer"])
    }' "$WORK/times"
rm -rf "$WORK"
