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
for tool in redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "bench-claims: $tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
done
claims=${CLAIMS:-2000000}
batch=${BATCH:-1000}
connections=${CONNECTIONS:-2}
sides=${SIDES:-redis,idem}
case ",$sides," in
  *,redis,*|*,idem,*) ;;
  *) echo "bench-claims: SIDES ($sides) must name redis, idem or both" >&2; exit 2 ;;
esac
out=bench-out
mkdir -p "$out"

lock=${IDEM_BUILD_LOCK:-/tmp/idem-build.lock}
exec 9>>"$lock"
if ! flock -n 9; then
  echo "bench-claims: waiting for $lock (a build or benchmark is running)..." >&2
  flock 9
fi
jar=idem-bench/target/benchmarks.jar
build=(./mvnw -B -q -pl idem-bench -am package -DskipTests -Dspotless.check.skip=true)
echo "bench-claims: building $jar with $JAVA_HOME" >&2
if ! "${build[@]}" -o; then
  echo "bench-claims: offline build failed; retrying once online (to fetch missing dependencies)" >&2
  "${build[@]}"
fi
if [[ ",$sides," == *,idem,* ]]; then
  ./idem --version >/dev/null # builds the server outside the timings if it is stale
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
data=$(mktemp -d "$out/bench-claims-XXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

args=(--claims "$claims" --batch "$batch" --connections "$connections")
[ -n "${REDIS_BATCH:-}" ] && args+=(--redis-batch "$REDIS_BATCH")
[ -n "${DUP_RATE:-}" ] && args+=(--dup-rate "$DUP_RATE")
[ -n "${SEED:-}" ] && args+=(--seed "$SEED")
ports=()
if [[ ",$sides," == *,redis,* ]]; then
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$data" \
    --daemonize no >"$out/bench-claims-redis.log" 2>&1 &
  pids+=($!)
  args+=(--redis "127.0.0.1:$redis_port" --redis-pid "$!")
  ports+=("$redis_port")
  echo "bench-claims: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$redis_port, persistence off (--save \"\" --appendonly no)"
fi
if [[ ",$sides," == *,idem,* ]]; then
  idem_port=$(free_port)
  ./idem serve --bind 127.0.0.1 --port "$idem_port" --dir "$data/idem" >"$out/bench-claims-idem.log" 2>&1 &
  pids+=($!) # the launcher execs java: this is the server's pid
  args+=(--idem "127.0.0.1:$idem_port" --idem-pid "$!" --idem-dir "$data/idem")
  ports+=("$idem_port")
  echo "bench-claims: idem serve on 127.0.0.1:$idem_port, data in $data/idem (appendfsync everysec)"
fi
for p in "${ports[@]}"; do
  for _ in $(seq 150); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null 2>&1 || { echo "bench-claims: no server answers on port $p; see $out/bench-claims-*.log" >&2; exit 1; }
done

echo "bench-claims: $(nproc) cores; ClaimBench ${args[*]} $*"
"$java" -Xms1g -Xmx2g -XX:+UseParallelGC -cp "$jar" io.idem.bench.ClaimBench "${args[@]}" "$@" \
  | tee "$out/claims.md"
