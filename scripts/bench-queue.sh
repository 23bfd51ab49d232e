#!/usr/bin/env bash
# Issue 33's queue benchmark, in one run: Idem's QUEUE.* (appendfsync everysec) beside seed 000's
# design (a Redis sorted set scored by due time, popped by a Lua script) and BullMQ, both on
# Debian's redis-server with persistence off, on the same no-op jobs:
#   enqueue JOBS jobs (pipelined), drain them (reserve and ack), and the latency from due to
#   delivered for jobs due 50 ms after they are added, at RATE a second for SECONDS.
#   scripts/bench-queue.sh                     # JOBS=200000 RATE=2000 RUN_SECONDS=10
# BullMQ and ioredis are installed from the npm registry into bench-out/queue-node (Node 20).
# Needs redis-server and redis-cli (apt-get install redis-server redis-tools), node and npm.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
. scripts/jdk.sh
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/bench-lib.sh
out=bench-out
jobs=${JOBS:-200000}
rate=${RATE:-2000}
seconds=${RUN_SECONDS:-10}
command -v npm >/dev/null || { echo "bench-queue: npm is missing" >&2; exit 1; }
node_dir="$out/queue-node"
if [ ! -d "$node_dir/node_modules/bullmq" ]; then
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm init -y >/dev/null && npm install --no-audit --no-fund bullmq@6 ioredis >/dev/null)
fi
cp scripts/bench-queue-bullmq.mjs "$node_dir/bullmq-side.mjs"
bench_build bench-queue
args=()
bench_start_sides bench-queue
redis=""
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--redis" ] && redis=${args[$((i + 1))]}
done
echo "bench-queue: $(nproc) cores; $jobs jobs; due→delivered at $rate jobs/s for $seconds s; $(node --version), BullMQ $(node -p "require('./$node_dir/node_modules/bullmq/package.json').version")"
"$JAVA_HOME/bin/java" -Xmx1g -cp idem-bench/target/benchmarks.jar io.idem.bench.QueueBench \
  --idem "$(for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = "--idem" ] && echo "${args[$((i + 1))]}"; done)" \
  --redis "$redis" --jobs "$jobs" --rate "$rate" --seconds "$seconds" | tee "$out/queue.md"
redis-cli -p "${redis##*:}" FLUSHALL >/dev/null
(cd "$node_dir" && REDIS="$redis" JOBS="$jobs" RATE="$rate" SECONDS="$seconds" node bullmq-side.mjs) | tee -a "$out/queue.md"
