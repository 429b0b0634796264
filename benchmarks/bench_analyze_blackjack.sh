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
PYTHONPATH=src python -m tapete.cli analyze blackjack --decks "$DECKS" --json > /dev/null  # build caches
uptime
i=0
while [ "$i" -lt "$N" ]; do
    /usr/bin/time -f "tapete analyze: user %U sys %S wall %e" env PYTHONPATH=src \
        python -m tapete.cli analyze blackjack --decks "$DECKS" --json > /dev/null
    /usr/bin/time -f "Farmer C++:     user %U sys %S wall %e" "$WORK/drv" "$DECKS" > /dev/null
    i=$((i + 1))
done
uptime
rm -rf "$WORK"
