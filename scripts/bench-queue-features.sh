#!/usr/bin/env bash
# Issue 46's queue benchmarks beside BullMQ, in one run, each server pinned to CPU 0 and the
# workers to CPU 1 (per core):
#   a rate-limited queue: LIMITED_JOBS no-op jobs under a limit of LIMIT a second, drained; the rate
#     reached, the most jobs started in any 100 ms, CPU a thousand jobs (server and workers);
#   a grouped queue: tenant 0 queues HEAVY jobs, then each of TENANTS-1 others queues LIGHT; the
#     latency of the light tenants' jobs from add to start, and the jobs a second over all.
# Idem: QUEUE.CONFIG RATE, GROUP (appendfsync everysec). BullMQ 6 on Debian's redis-server
# (persistence off): its open-source limiter; tenants as one FIFO queue, and as a queue each.
#   scripts/bench-queue-features.sh    # LIMIT=2000 LIMITED_JOBS=20000 HEAVY=20000 LIGHT=200 TENANTS=10
# Idem's limited queue runs twice: without a burst (one lease every 1/LIMIT s, a millisecond's
# worth at a time) and with BURST (20: room for jitter). Each side warms its JIT first (10,000
# jobs, dropped).
# BullMQ and ioredis are installed from the npm registry into bench-out/queue-node.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
. scripts/jdk.sh
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/bench-lib.sh
out=bench-out
limit=${LIMIT:-2000}
limited=${LIMITED_JOBS:-20000}
heavy=${HEAVY:-20000}
light=${LIGHT:-200}
tenants=${TENANTS:-10}
burst=${BURST:-20}
command -v npm >/dev/null || { echo "bench-queue-features: npm is missing" >&2; exit 1; }
command -v taskset >/dev/null || { echo "bench-queue-features: taskset is missing (util-linux)" >&2; exit 1; }
node_dir="$out/queue-node"
if [ ! -d "$node_dir/node_modules/bullmq" ]; then
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm init -y >/dev/null && npm install --no-audit --no-fund bullmq@6 ioredis >/dev/null)
fi
cp scripts/bench-queue-features-bullmq.mjs "$node_dir/features-side.mjs"
bench_build bench-queue-features
args=()
bench_start_sides bench-queue-features
opt() { for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = "$1" ] && echo "${args[$((i + 1))]}"; done; return 0; }
redis=$(opt --redis)
redis_pid=$(opt --redis-pid)
idem_pid=$(opt --idem-pid)
for pid in "$redis_pid" "$idem_pid"; do
  for t in /proc/"$pid"/task/*; do taskset -pc 0 "${t##*/}" >/dev/null 2>&1 || true; done
done
java_side() {
  local part=$1
  shift
  taskset -c 1 "$JAVA_HOME/bin/java" -Xmx1g -Dbench.part="$part" -cp idem-bench/target/benchmarks.jar \
    io.idem.bench.QueueFeaturesBench --idem "$(opt --idem)" --idem-pid "$idem_pid" \
    --limit "$limit" --limited-jobs "$limited" --heavy "$heavy" --light "$light" --tenants "$tenants" "$@"
}
node_side() {
  (cd "$node_dir" && REDIS="$redis" REDIS_PID="$redis_pid" LIMIT="$limit" LIMITED_JOBS="$limited" \
    HEAVY="$heavy" LIGHT="$light" TENANTS="$tenants" PART="$1" taskset -c 1 node features-side.mjs)
}
{
  echo "bench-queue-features: $(nproc) cores, servers on CPU 0, workers on CPU 1; $(node --version), BullMQ $(node -p "require('./$node_dir/node_modules/bullmq/package.json').version")"
  echo
  echo "Rate-limited queue: $limited jobs under a limit of $limit a second"
  echo
  echo "| side | jobs/s | of the limit | most started in 100 ms | server CPU ms / 1000 jobs | workers' CPU ms / 1000 jobs |"
  echo "|---|---:|---:|---:|---:|---:|"
  java_side limited --burst 0
  java_side limited --burst "$burst"
  node_side limited
  echo
  echo "Grouped queue: $heavy jobs of one tenant, then $light of each of $((tenants - 1)) others"
  echo
  echo "| side | jobs/s | light tenants' share of the 1,000 starts after they all queued (fair: $(awk "BEGIN {printf \"%.2f\", ($tenants - 1) / $tenants}")) | light tenants' add→start p50 ms | p99 ms | max ms | heavy jobs still waiting at the last light start |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  java_side grouped
  node_side grouped
} | tee "$out/queue-features.md"
