#!/usr/bin/env bash
# Idem's server beside Debian's redis-server, in one run, driven by redis-benchmark -P 16 -c 50:
#   throughput: Idem BF.ADD / BF.EXISTS (default fsync policy, everysec) against Redis SET / GET
#   and SADD / SISMEMBER with persistence off (seed 001's naive sets);
#   memory: IDS (default 10 M) 16-byte ids in an Idem Bloom filter at 1 % against a Redis set,
#   and each server's resident set beside its data.
#   scripts/bench-server.sh                 # N=2000000 requests per test, IDS=10000000
#   N=500000 IDS=1000000 scripts/bench-server.sh
# Needs redis-server, redis-cli and redis-benchmark (apt-get install redis-server redis-tools).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
n=${N:-2000000}
ids=${IDS:-10000000}
out=bench-out
mkdir -p "$out"
for tool in redis-server redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "bench-server: $tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
idem_port=$(free_port)
data=$(mktemp -d "$out/bench-server-XXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

./idem --version >/dev/null # build outside the timings
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$data" \
  --daemonize no >"$out/bench-redis.log" 2>&1 &
pids+=($!)
./idem serve --port "$idem_port" --dir "$data/idem" >"$out/bench-idem.log" 2>&1 &
pids+=($!)
for p in "$redis_port" "$idem_port"; do
  for _ in $(seq 100); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
done

bench() { # label port command...: prints "| label | requests/s | p50 ms | p99 ms |"
  local label=$1 port=$2; shift 2
  local csv
  csv=$(redis-benchmark -p "$port" -P 16 -c 50 -n "$n" -r 100000000 --csv "$@" 2>/dev/null | tail -n 1)
  # "name","rps","avg","min","p50","p95","p99","max"
  echo "$csv" | awk -F'","' -v l="$label" '{ gsub(/"/, "", $0); split($0, f, ","); printf "| %s | %.0f | %s | %s |\n", l, f[2], f[5], f[7] }'
}

# Warm-up, not measured: the JVM compiles its hot paths in the first seconds (Redis needs none,
# but both get the same pass so the comparison stays symmetric).
redis-benchmark -p "$redis_port" -P 16 -c 50 -n 1000000 -r 100000000 -q SET "warm:__rand_int__" v >/dev/null 2>&1
redis-benchmark -p "$idem_port" -P 16 -c 50 -n 1000000 -r 100000000 -q BF.ADD warm "__rand_int__" >/dev/null 2>&1
redis-benchmark -p "$idem_port" -P 16 -c 50 -n 1000000 -r 100000000 -q BF.EXISTS warm "__rand_int__" >/dev/null 2>&1
redis-cli -p "$redis_port" FLUSHALL >/dev/null
redis-cli -p "$idem_port" DEL warm >/dev/null

echo "## throughput: redis-benchmark -P 16 -c 50 -n $n -r 100000000 ($(nproc) cores)"
echo "| test | requests/s | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|"
bench "Redis SET (persistence off)" "$redis_port" SET "key:__rand_int__" "v"
bench "Redis GET" "$redis_port" GET "key:__rand_int__"
bench "Redis SADD" "$redis_port" SADD ids "__rand_int__"
bench "Redis SISMEMBER" "$redis_port" SISMEMBER ids "__rand_int__"
redis-cli -p "$idem_port" BF.RESERVE bf 0.01 "$n" >/dev/null
bench "Idem BF.ADD (appendfsync everysec)" "$idem_port" BF.ADD bf "__rand_int__"
bench "Idem BF.EXISTS" "$idem_port" BF.EXISTS bf "__rand_int__"

echo
echo "## memory: $ids ids of 16 bytes"
redis-cli -p "$redis_port" FLUSHALL >/dev/null
redis-cli -p "$idem_port" DEL bf >/dev/null
base=$(redis-cli -p "$redis_port" INFO memory | awk -F: '/^used_memory:/ { print $2+0 }')
# The same ids for both: 16 hex characters from a fixed multiplicative sequence.
gen() { # command key: one RESP request per id
  awk -v n="$ids" -v cmd="$1" -v key="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      id = sprintf("%08x%08x", (i * 2654435761) % 4294967296, i)
      printf "*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$16\r\n%s\r\n", length(cmd), cmd, length(key), key, id
    }
  }'
}
gen SADD ids | redis-cli -p "$redis_port" --pipe >/dev/null
redis_mem=$(redis-cli -p "$redis_port" INFO memory | awk -F: '/^used_memory:/ { print $2+0 }')
redis-cli -p "$idem_port" BF.RESERVE bf 0.01 "$ids" >/dev/null
gen BF.ADD bf | redis-cli -p "$idem_port" --pipe >/dev/null
idem_mem=$(redis-cli -p "$idem_port" MEMORY USAGE bf)
idem_card=$(redis-cli -p "$idem_port" BF.CARD bf)
redis_card=$(redis-cli -p "$redis_port" SCARD ids)
echo "| store | items | bytes | bytes per id |"
echo "|---|---:|---:|---:|"
awk -v c="$redis_card" -v m="$((redis_mem - base))" 'BEGIN { printf "| Redis set (used_memory growth) | %d | %d | %.1f |\n", c, m, m / c }'
awk -v c="$idem_card" -v m="$idem_mem" -v n="$ids" 'BEGIN { printf "| Idem Bloom filter at 1%% (MEMORY USAGE) | %d | %d | %.2f |\n", c, m, m / n }'
awk -v r="$((redis_mem - base))" -v i="$idem_mem" 'BEGIN { printf "\nRedis set / Idem Bloom filter: %.1fx\n", r / i }'

# Each process's resident set beside what it holds: Idem's heap follows its data (the launcher's
# G1 settings), so its RSS is read once it has been idle for the idle collection (5 s).
sleep 8
echo
echo "| server | RSS MB | its data MB |"
echo "|---|---:|---:|"
for i in 0 1; do
  rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/${pids[$i]}/status")
  if [ "$i" = 0 ]; then
    awk -v r="$rss" -v m="$redis_mem" 'BEGIN { printf "| redis-server (used_memory) | %.0f | %.1f |\n", r / 1024, m / 1048576 }'
  else
    awk -v r="$rss" -v m="$idem_mem" 'BEGIN { printf "| idem serve (the filter'"'"'s MEMORY USAGE) | %.0f | %.1f |\n", r / 1024, m / 1048576 }'
  fi
done
