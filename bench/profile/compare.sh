#!/usr/bin/env bash
# Two builds' executor CPU per job, interleaved, four ways (docs/benchmarks/profile.md):
#   cold   fresh nodes drain 100,000 jobs
#   first  100,000 after a first drain of 100,000 (as make bench measures)
#   warm   300,000 after 500,000
#   steady 1,000,000 after 3,000,000 (JIT mostly settled)
# usage: bench/profile/compare.sh BASEAPP FINALAPP [ROUNDS]   (quarkus-app directories; PG* as for drain.sh)
# Prints each run's result line and per-thread summary; full results in target/profile/<label>/.
set -uo pipefail
BASE=$1; FINAL=$2; ROUNDS=${3:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
run() { # label app warm jobs
  if [[ $3 == 0 ]]; then "$HERE/drain.sh" "$2" 2 "$4" "$1"; else WARM=$3 "$HERE/drain.sh" "$2" 2 "$4" "$1"; fi 2>&1 \
    | grep -a "cpu_us_per_job\|JIT compiler"; }
both() { # method round warm jobs: base, then final
  run "$1-base-$2" "$BASE" "$3" "$4"; run "$1-final-$2" "$FINAL" "$3" "$4"; }
for r in $(seq 1 "$ROUNDS"); do
  both C "$r" 0 100000
  both F "$r" 100000 100000
  both W "$r" 500000 300000
done
for r in $(seq 1 $(( ROUNDS > 1 ? ROUNDS - 1 : 1 ))); do both S "$r" 3000000 1000000; done
