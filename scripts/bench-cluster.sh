#!/usr/bin/env bash
# Issue 32's cluster benchmark, in one run on this machine: BF.ADD, DEDUP.MCLAIM (10 claims a
# command) and COUNTER.INCRBY on
#   1. one node alone (./idem serve, appendfsync everysec),
#   2. one node in cluster mode with a Kafka log (a one-node broker from scripts/kafka.sh),
#   3. three nodes in cluster mode on the same broker, two replicas (each write applied twice),
#      driven by redis-benchmark --cluster.
# Each command twice: throughput (redis-benchmark -c 50 -P 16) and one write at a time (-c 1 -P 1),
# whose p50 and p99 show what the log adds to a write's latency.
#   scripts/bench-cluster.sh                  # N=200000 pipelined requests, LAT_N=3000 single
#   N=50000 LAT_N=1000 scripts/bench-cluster.sh
# Prints a Markdown table, also written to bench-out/cluster.md.
# Needs redis-cli and redis-benchmark (apt-get install redis-tools).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/jdk.sh
idem_find_jdk25
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/kafka.sh
. scripts/bench-lib.sh
n=${N:-200000}
lat_n=${LAT_N:-3000}
out=bench-out
mkdir -p "$out"
for tool in redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "bench-cluster: $tool is missing: apt-get install redis-tools" >&2; exit 1; }
done
./idem --version >/dev/null # builds outside the timings
data=$(mktemp -d "$out/bench-cluster-XXXX")
pids=()
stop_nodes() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_nodes; kafka_stop; rm -rf "$data"' EXIT
kafka_port=$(bench_free_port)
kafka_start "$data/kafka" "$kafka_port"

await_ping() {
  local port=$1 i
  for i in $(seq 1 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "bench-cluster: no server on $port" >&2
  exit 1
}
await_live() { # port names
  local i
  for i in $(seq 1 600); do
    [ "$(redis-cli -p "$1" INFO cluster | tr -d '\r' | sed -n 's/^cluster_live_nodes://p')" = "$2" ] && return 0
    sleep 0.1
  done
  echo "bench-cluster: the nodes did not all join" >&2
  exit 1
}

row() { # label mode port command...: one table row from redis-benchmark's CSV
  local label=$1 mode=$2 port=$3
  shift 3
  local cluster=()
  [ "$mode" = cluster ] && cluster=(--cluster)
  local thr lat
  thr=$(redis-benchmark "${cluster[@]}" -p "$port" -c 50 -P 16 -n "$n" -r 100000000 --csv "$@" 2>/dev/null | tail -n 1)
  lat=$(redis-benchmark "${cluster[@]}" -p "$port" -c 1 -P 1 -n "$lat_n" -r 100000000 --csv "$@" 2>/dev/null | tail -n 1)
  # "name","rps","avg","min","p50","p95","p99","max"
  awk -v l="$label" -v t="$thr" -v s="$lat" 'BEGIN {
    gsub(/"/, "", t); gsub(/"/, "", s); split(t, a, ","); split(s, b, ",")
    printf "| %s | %.0f | %s | %s | %.0f | %s | %s |\n", l, a[2], a[5], a[7], b[2], b[5], b[7]
  }' | tee -a "$out/cluster.md"
}

workload() { # setup label-prefix mode port
  local label=$1 mode=$2 port=$3
  local cluster=()
  [ "$mode" = cluster ] && cluster=(--cluster)
  # The tables DEDUP.MCLAIM claims into: redis-benchmark makes one key a node from {tag}; a
  # second DEDUP.RESERVE of a key is an error, ignored.
  redis-benchmark "${cluster[@]}" -p "$port" -c 1 -n 50 DEDUP.RESERVE "d:{tag}" 1h >/dev/null 2>&1 || true
  # Warm-up, not measured: the JVMs compile their hot paths.
  redis-benchmark "${cluster[@]}" -p "$port" -c 50 -P 16 -n 100000 -r 100000000 -q BF.ADD "warm:{tag}" "__rand_int__" >/dev/null 2>&1 || true
  local items=()
  for _ in $(seq 1 10); do items+=("id:__rand_int__" w); done
  row "$label BF.ADD" "$mode" "$port" BF.ADD "bf:{tag}" "__rand_int__"
  row "$label DEDUP.MCLAIM ×10" "$mode" "$port" DEDUP.MCLAIM "d:{tag}" ITEMS "${items[@]}"
  row "$label COUNTER.INCRBY" "$mode" "$port" COUNTER.INCRBY "c:{tag}" '*' "n:__rand_int__" 1
}

: >"$out/cluster.md"
{
  echo "## bench-cluster: $(nproc) cores; redis-benchmark -c 50 -P 16 -n $n (throughput), -c 1 -P 1 -n $lat_n (one at a time)"
  echo "| setup and command | requests/s | p50 ms | p99 ms | one at a time: requests/s | p50 ms | p99 ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
} | tee -a "$out/cluster.md"

# 1. Alone.
port=$(bench_free_port)
./idem serve --port "$port" --dir "$data/alone" 2>"$out/bench-cluster-alone.log" &
pids+=($!)
await_ping "$port"
workload "alone:" plain "$port"
stop_nodes

# 2. One node with a log.
port=$(bench_free_port)
./idem serve --port "$port" --dir "$data/one" --set cluster-enabled=yes --set cluster-node=a \
  --set cluster-nodes="a=127.0.0.1:$port" --set cluster-partitions=6 \
  --set cluster-log="127.0.0.1:$kafka_port" --set cluster-topic=bench-one \
  2>"$out/bench-cluster-one.log" &
pids+=($!)
await_ping "$port"
await_live "$port" a
workload "1 node, log:" plain "$port"
stop_nodes

# 3. Three nodes with a log, two replicas.
ports=("$(bench_free_port)" "$(bench_free_port)" "$(bench_free_port)")
names=(a b c)
nodes="a=127.0.0.1:${ports[0]} b=127.0.0.1:${ports[1]} c=127.0.0.1:${ports[2]}"
for i in 0 1 2; do
  ./idem serve --port "${ports[$i]}" --dir "$data/three-${names[$i]}" --set cluster-enabled=yes \
    --set cluster-node="${names[$i]}" --set cluster-nodes="$nodes" --set cluster-partitions=6 \
    --set cluster-replicas=2 --set cluster-log="127.0.0.1:$kafka_port" \
    --set cluster-topic=bench-three 2>"$out/bench-cluster-three-${names[$i]}.log" &
  pids+=($!)
done
for i in 0 1 2; do await_ping "${ports[$i]}"; done
await_live "${ports[0]}" a,b,c
workload "3 nodes, log, 2 replicas:" cluster "${ports[0]}"
stop_nodes
