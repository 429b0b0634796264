#!/usr/bin/env bash
# Opt-in: the dieharder battery on the live generator's raw output (docs/rng.md has the last summary).
#
#   scripts/dieharder.sh                 # the full battery: dieharder -a, fed raw on stdin (-g 200)
#   scripts/dieharder.sh --reduced       # every test of -a at its default psamples, but the RGB lagged
#                                        # sum only at lags 0 1 2 4 8 16 32 (the full -a needs ~250 GB)
#   scripts/dieharder.sh -d 1            # any dieharder arguments: here one test again (a WEAK rerun)
#
# Needs Debian's dieharder (apt-get install -y dieharder) and tapete installed. The bytes come from
# `tapete rng raw --bytes 0` (endless: SecureRandom.raw_bits, i.e. the OS CSPRNG through
# secrets.SystemRandom, the generator the shoe shuffles with); dieharder reads them raw from stdin and
# closes the pipe when it is done, each test on fresh bytes. Output goes to stdout: pipe it to tee to keep
# it. Takes from about an hour (--reduced) to many hours (-a): run it niced, never in CI.
# Do not lower psamples (-p, -m < 1) to save time: dieharder's final KS p-value is then miscalibrated
# towards 1 and good generators show WEAK/FAILED (docs/rng.md shows it on MT19937).
set -euo pipefail
if ! command -v dieharder >/dev/null; then
    echo "dieharder is not installed: apt-get install -y dieharder" >&2
    exit 2
fi
if command -v tapete >/dev/null; then
    TAPETE=(tapete)
else
    TAPETE=(python -c "from tapete.cli import main; main()")
fi
run() {
    echo "# command: ${TAPETE[*]} rng raw --bytes 0 | dieharder $* -g 200"
    "${TAPETE[@]}" rng raw --bytes 0 | dieharder "$@" -g 200
}
echo "# started: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm), $(dieharder -h 2>&1 | grep -o 'dieharder version [0-9.]*')"
if [ "$#" -eq 0 ]; then
    run -a
elif [ "$1" = "--reduced" ]; then
    # The tests of `dieharder -a` in its order, each with -a's ntuple range (dieharder -l lists them).
    for d in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 100 101 102; do run -d "$d"; done
    for n in 1 2 3 4 5 6 7 8 9 10 11 12; do run -d 200 -n "$n"; done
    for n in 2 3 4 5; do run -d 201 -n "$n"; done
    for n in 2 3 4 5; do run -d 202 -n "$n"; done
    for n in 0 1 2 4 8 16 32; do run -d 203 -n "$n"; done
    for d in 204 205 206 207 208 209; do run -d "$d"; done
else
    run "$@"
fi
echo "# finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
