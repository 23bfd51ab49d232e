#!/usr/bin/env bash
# Idem's resident memory for the load of bench-redisbloom.sh, one server setting after another:
# a filter of CAPACITY items at 1 %, N BF.ADD then N BF.EXISTS (redis-benchmark -P 16 -c 50), then
# the resident set at the end of the load, 10 s later (idle), and at its peak, beside the
# requests per second. Each line is a fresh ./idem serve with the given IDEM_JAVA_OPTS (and
# environment): the launcher's defaults first, then the collector it used before.
#   scripts/bench-footprint.sh
#   N=1000000 scripts/bench-footprint.sh
# Needs Debian's redis-server and redis-tools (redis-cli, redis-benchmark).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
n=${N:-2000000}
capacity=${CAPACITY:-20000000}
out=bench-out
mkdir -p "$out"
./idem --version >/dev/null # builds the server outside the timings if it is stale

# label | environment for the launcher (IDEM_JAVA_OPTS and malloc's settings)
settings=(
  "default (G1, heap from 16 MB, 10-30 % free, idle collection at 5 s)|"
  "default, mmap threshold 32 MB (where glibc's dynamic one ends)|MALLOC_MMAP_THRESHOLD_=33554432"
  "ParallelGC, the collector before (with its heap sizing)|IDEM_JAVA_OPTS=-XX:+UseParallelGC"
)
rss_mb() { awk -v k="$2" '$1 == k":" { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
echo "| setting | BF.ADD /s | BF.EXISTS /s | RSS after the load, MB | 10 s later | peak |"
echo "|---|---:|---:|---:|---:|---:|"
for s in "${settings[@]}"; do
  label=${s%%|*}
  env_words=${s#*|}
  port=$(bench_free_port)
  data=$(mktemp -d "$out/bench-footprint-XXXX")
  # shellcheck disable=SC2086 # the words are NAME=value pairs, split on purpose
  env $env_words ./idem serve --bind 127.0.0.1 --port "$port" --dir "$data" >"$out/bench-footprint.log" 2>&1 &
  pid=$!
  for _ in $(seq 150); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
  java_pid=$(pgrep -P "$pid" java || echo "$pid")
  redis-cli -p "$port" BF.RESERVE bench 0.01 "$capacity" >/dev/null
  add=$(redis-benchmark -p "$port" -P 16 -c 50 -n "$n" -r 100000000 --csv BF.ADD bench "__rand_int__" 2>/dev/null | tail -n 1 | cut -d'"' -f4)
  exists=$(redis-benchmark -p "$port" -P 16 -c 50 -n "$n" -r 100000000 --csv BF.EXISTS bench "__rand_int__" 2>/dev/null | tail -n 1 | cut -d'"' -f4)
  after=$(rss_mb "$java_pid" VmRSS)
  sleep 10
  later=$(rss_mb "$java_pid" VmRSS)
  peak=$(rss_mb "$java_pid" VmHWM)
  printf '| %s | %.0f | %.0f | %s | %s | %s |\n' "$label" "$add" "$exists" "$after" "$later" "$peak"
  redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$data"
done
