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
# RUN_SECONDS (20, after 5 of warm-up), CONNECTIONS (2), SEED (42); IDEM_JAVA_OPTS goes to idem
# serve's JVM. Holds the build lock ($IDEM_BUILD_LOCK) for the build and the run. Prints a
# Markdown table, also written to bench-out/counters.md.
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
  command -v "$tool" >/dev/null || { echo "bench-counters: $tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
done
sides=${SIDES:-redis,idem}
case ",$sides," in
  *,redis,*|*,idem,*) ;;
  *) echo "bench-counters: SIDES ($sides) must name redis, idem or both" >&2; exit 2 ;;
esac
out=bench-out
mkdir -p "$out"

lock=${IDEM_BUILD_LOCK:-/tmp/idem-build.lock}
exec 9>>"$lock"
if ! flock -n 9; then
  echo "bench-counters: waiting for $lock (a build or benchmark is running)..." >&2
  flock 9
fi
jar=idem-bench/target/benchmarks.jar
build=(./mvnw -B -q -pl idem-bench -am package -DskipTests -Dspotless.check.skip=true)
echo "bench-counters: building $jar with $JAVA_HOME" >&2
if ! "${build[@]}" -o; then
  echo "bench-counters: offline build failed; retrying once online (to fetch missing dependencies)" >&2
  "${build[@]}"
fi
if [[ ",$sides," == *,idem,* ]]; then
  ./idem --version >/dev/null # builds the server outside the timings if it is stale
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
data=$(mktemp -d "$out/bench-counters-XXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

args=(--events "${EVENTS:-400000}" --population "${POPULATION:-1000000}" --rate "${RATE:-20000}"
  --seconds "${RUN_SECONDS:-20}" --connections "${CONNECTIONS:-2}" --seed "${SEED:-42}")
ports=()
if [[ ",$sides," == *,redis,* ]]; then
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$data" \
    --daemonize no >"$out/bench-counters-redis.log" 2>&1 &
  pids+=($!)
  args+=(--redis "127.0.0.1:$redis_port" --redis-pid "$!")
  ports+=("$redis_port")
  echo "bench-counters: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$redis_port, persistence off"
fi
if [[ ",$sides," == *,idem,* ]]; then
  idem_port=$(free_port)
  ./idem serve --bind 127.0.0.1 --port "$idem_port" --dir "$data/idem" >"$out/bench-counters-idem.log" 2>&1 &
  pids+=($!) # the launcher execs java: this is the server's pid
  args+=(--idem "127.0.0.1:$idem_port" --idem-pid "$!" --idem-dir "$data/idem")
  ports+=("$idem_port")
  echo "bench-counters: idem serve on 127.0.0.1:$idem_port, data in $data/idem (appendfsync everysec)"
fi
for p in "${ports[@]}"; do
  for _ in $(seq 150); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null 2>&1 || { echo "bench-counters: no server answers on port $p; see $out/bench-counters-*.log" >&2; exit 1; }
done

echo "bench-counters: $(nproc) cores; CounterBench ${args[*]} $*"
"$java" -Xms1g -Xmx2g -XX:+UseParallelGC -cp "$jar" io.idem.bench.CounterBench "${args[@]}" "$@" \
  | tee "$out/counters.md"
