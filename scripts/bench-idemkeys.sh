#!/usr/bin/env bash
# Issue 45's benchmark: idempotency keys on Idem (IDEMKEY.BEGIN, WAIT while in progress,
# IDEMKEY.COMPLETE) against what people build on Redis (SET NX PX marker and GET of the result key
# pipelined, SET EX + DEL to complete, retries polling a key in progress), per core: each server
# pinned to CPU 0 and the load (one client thread, IdemKeyBench) to CPU 1. Redis with AOF
# everysec, ./idem serve with its default (appendfsync everysec). Each side, in turn: a month's
# keys stored (memory and disk a key), the mix at a fixed rate (latencies), the mix as fast as
# it is taken (requests a second). ROUNDS rounds, each on fresh servers, the sides' order
# alternating.
#   scripts/bench-idemkeys.sh
#   STORED=100000 RATE=5000 RUN_SECONDS=5 SATURATION=100000 ROUNDS=1 PIN=no scripts/bench-idemkeys.sh
# Knobs: STORED (1000000), RATE (10000), RUN_SECONDS (20), WARMUP_SECONDS (10), RETRIES (0.25),
# WORK_MS (20), POLL_MS (20), SATURATION (600000), IN_FLIGHT (2000), ROUNDS (3), PIN (yes).
# Prints Markdown tables, also written to bench-out/idemkeys.md.
# Needs redis-server, redis-cli (apt-get install redis-server redis-tools) and taskset.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
. scripts/jdk.sh
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/bench-lib.sh

rounds=${ROUNDS:-3}
pin=${PIN:-yes}
for tool in redis-server redis-cli taskset; do
  command -v "$tool" >/dev/null || { echo "bench-idemkeys: $tool is missing: apt-get install redis-server redis-tools util-linux" >&2; exit 1; }
done
[[ $rounds =~ ^[1-9]$ ]] || { echo "bench-idemkeys: ROUNDS must be 1 to 9, not '$rounds'" >&2; exit 2; }
[[ $pin == yes || $pin == no ]] || { echo "bench-idemkeys: PIN must be yes or no, not '$pin'" >&2; exit 2; }
if [ "$pin" = yes ] && [ "$(nproc)" -lt 2 ]; then
  echo "bench-idemkeys: pinning needs two CPUs; this machine has $(nproc) (PIN=no runs unpinned)" >&2; exit 2
fi
server_cpu=(); load_cpu=()
if [ "$pin" = yes ]; then server_cpu=(taskset -c 0); load_cpu=(taskset -c 1); fi

bench_build bench-idemkeys
./idem --version >/dev/null # builds the server outside the timings if it is stale
out=bench-out
mkdir -p "$out"
data=$(mktemp -d "$out/bench-idemkeys-XXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"' EXIT

# Fresh servers for each round, so that a round's memory and disk figures are its own.
start_servers() {
  redis_port=$(bench_free_port)
  idem_port=$(bench_free_port)
  rm -rf "$data/redis" "$data/idem"
  mkdir -p "$data/redis"
  "${server_cpu[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly yes \
    --appendfsync everysec --dir "$data/redis" >"$out/bench-idemkeys-redis.log" 2>&1 &
  redis_pid=$!; pids+=($!)
  "${server_cpu[@]}" ./idem serve --bind 127.0.0.1 --port "$idem_port" --dir "$data/idem" \
    >"$out/bench-idemkeys-idem.log" 2>&1 &
  idem_pid=$!; pids+=($!) # the launcher execs java: this is the server's pid
  local port
  for port in "$redis_port" "$idem_port"; do
    for _ in $(seq 150); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
    redis-cli -p "$port" PING >/dev/null 2>&1 || { echo "bench-idemkeys: no server answers on port $port; see $out/bench-idemkeys-*.log" >&2; exit 1; }
  done
  redis=(--redis "127.0.0.1:$redis_port" --redis-pid "$redis_pid")
  idem=(--idem "127.0.0.1:$idem_port" --idem-pid "$idem_pid" --idem-dir "$data/idem")
}

stop_servers() {
  for s in redis idem; do
    p=${s}_pid
    echo "bench-idemkeys: $s resident $(awk '/^VmRSS:/ { printf "%.0f MB", $2 / 1024 }' "/proc/${!p}/status") after the round"
  done | tee -a "$out/idemkeys.md"
  kill "$redis_pid" "$idem_pid"
  wait "$redis_pid" "$idem_pid" 2>/dev/null || true
}

args=(--stored "${STORED:-1000000}" --rate "${RATE:-10000}" --seconds "${RUN_SECONDS:-20}"
  --warmup "${WARMUP_SECONDS:-10}" --retries "${RETRIES:-0.25}" --work-ms "${WORK_MS:-20}"
  --poll-ms "${POLL_MS:-20}" --saturation "${SATURATION:-600000}" --in-flight "${IN_FLIGHT:-2000}")
echo "bench-idemkeys: $(redis-server --version | cut -d' ' -f1-3) (AOF everysec), $(./idem --version 2>/dev/null | head -n 1)," \
  "pinned: $pin; IdemKeyBench ${args[*]}" | tee "$out/idemkeys.md"
for round in $(seq 1 "$rounds"); do
  start_servers
  sides=("${redis[@]}" "${idem[@]}")
  ((round % 2 == 0)) && sides=("${idem[@]}" "${redis[@]}")
  echo -e "\n### Round $round\n" | tee -a "$out/idemkeys.md"
  "${load_cpu[@]}" "$JAVA_HOME/bin/java" -Xms2g -Xmx2g -XX:+UseParallelGC -cp idem-bench/target/benchmarks.jar \
    io.idem.bench.IdemKeyBench "${sides[@]}" "${args[@]}" | tee -a "$out/idemkeys.md"
  stop_servers
done
