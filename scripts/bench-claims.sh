#!/usr/bin/env bash
# Issue 4's claim benchmark, in one run: Tapjoy's Redis dedup (seed 003: hash buckets of ~100 ids
# keyed by event second and slice, one Lua script per bucket) beside Idem's DEDUP.MCLAIM on one
# exact table. CLAIMS UUID claims (default 2 M, one minute of Tapjoy's traffic) with 1 % duplicate
# deliveries; wall time per side, Redis used_memory and RSS, Idem RSS and data directory size.
#   scripts/bench-claims.sh
#   CLAIMS=500000 BATCH=1000 CONNECTIONS=2 scripts/bench-claims.sh
#   SIDES=redis scripts/bench-claims.sh          # the baseline only (SIDES=idem: Idem only)
#   scripts/bench-claims.sh --in-flight 64       # more ClaimBench options (ClaimBench --help)
# Knobs: CLAIMS, BATCH (claims per MCLAIM, default 1000), CONNECTIONS (per side, default 2),
# REDIS_BATCH (messages the baseline groups by bucket at once; default all, one batch a minute
# as Tapjoy's Spark job), DUP_RATE (0.01), SEED (42), SIDES (redis,idem); IDEM_JAVA_OPTS goes to
# idem serve's JVM (./idem's knob): its RSS follows the heap the JVM is let grow, so say so with
# the figure (e.g. IDEM_JAVA_OPTS=-Xmx1g).
# Starts Debian's redis-server with persistence off and ./idem serve (default appendfsync
# everysec), each on a free loopback port; holds the build lock ($IDEM_BUILD_LOCK) for the build
# and the run, so no build on this machine competes with a measurement. Prints a Markdown table,
# also written to bench-out/claims.md.
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
bench_build bench-claims
args=(--claims "${CLAIMS:-2000000}" --batch "${BATCH:-1000}" --connections "${CONNECTIONS:-2}")
[ -n "${REDIS_BATCH:-}" ] && args+=(--redis-batch "$REDIS_BATCH")
[ -n "${DUP_RATE:-}" ] && args+=(--dup-rate "$DUP_RATE")
[ -n "${SEED:-}" ] && args+=(--seed "$SEED")
bench_start_sides bench-claims

echo "bench-claims: $(nproc) cores; ClaimBench ${args[*]} $*"
"$java" -Xms1g -Xmx2g -XX:+UseParallelGC -cp "$jar" io.idem.bench.ClaimBench "${args[@]}" "$@" \
  | tee "$out/claims.md"
