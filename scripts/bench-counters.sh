#!/usr/bin/env bash
# Issue 5's counter benchmark, in one run: Smyte's first design (seed 004) on Debian's
# redis-server -- a key per feature and time bucket, INCRBY then EXPIRE, MGET of the 24 hour keys
# to read a day -- beside Idem's counter table (COUNTER.INCRBY of an event's 30 features,
# COUNTER.QUERY of their day). Both keep minute buckets for 2 h and hour buckets for 8 d, load the
# same day of events, must give the same sums for 200 day queries, then answer 30-feature day
# queries at a fixed rate (open loop, latency from the schedule). Memory: Redis used_memory
# against Idem's RSS growth (and its data directory).
#   scripts/bench-counters.sh
#   EVENTS=100000 RATE=10000 RUN_SECONDS=10 scripts/bench-counters.sh
#   SIDES=idem scripts/bench-counters.sh                 # one side only (or SIDES=redis)
# Knobs: EVENTS (400000), POPULATION (1000000 values per feature type), RATE (20000 queries/s),
# RUN_SECONDS (20, after a settling second that is not timed), WARMUP_SECONDS (30, before both),
# CONNECTIONS (2), SEED (42); IDEM_JAVA_OPTS goes to idem serve's JVM. Holds the build lock
# ($IDEM_BUILD_LOCK) for the build and the run. Prints a Markdown table, also written to
# bench-out/counters.md.
# Needs redis-server and redis-cli (apt-get install redis-server redis-tools).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
java="$JAVA_HOME/bin/java"
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
# shellcheck source=scripts/bench-lib.sh
. "$here/scripts/bench-lib.sh"
out=bench-out
jar=idem-bench/target/benchmarks.jar
bench_build bench-counters
args=(--events "${EVENTS:-400000}" --population "${POPULATION:-1000000}" --rate "${RATE:-20000}"
  --seconds "${RUN_SECONDS:-20}" --warmup "${WARMUP_SECONDS:-30}" --connections "${CONNECTIONS:-2}"
  --seed "${SEED:-42}")
bench_start_sides bench-counters

echo "bench-counters: $(nproc) cores; CounterBench ${args[*]} $*"
"$java" -Xms1g -Xmx2g -XX:+UseParallelGC -cp "$jar" io.idem.bench.CounterBench "${args[@]}" "$@" \
  | tee "$out/counters.md"
