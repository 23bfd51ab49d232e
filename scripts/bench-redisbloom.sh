#!/usr/bin/env bash
# Idem against RedisBloom, side by side in one run, on the same cores: RedisBloom with AOF
# everysec (its durable setting, the one to compare with), RedisBloom without persistence, and
# ./idem serve (default: every reply waits for the write-ahead log, fsync every second). Each round
# recreates a filter of CAPACITY items at 1 % on each server, then runs redis-benchmark -P 16 -c 50
# for N requests of BF.ADD, BF.EXISTS and BF.MEXISTS (10 items), the servers one after another;
# ROUNDS rounds alternate them. Idem's filter takes its default layout (classic, RedisBloom's); on
# Idem it also runs the same against a filter in the blocked layout (bf-layout blocked). Then it
# prints each server's resident memory beside the filter's size (BF.INFO Size), Idem's once the
# blocked filter is deleted.
#   REDISBLOOM=/path/to/redisbloom.so scripts/bench-redisbloom.sh
#   REDISBLOOM=... N=500000 ROUNDS=1 scripts/bench-redisbloom.sh
# RedisBloom is built from its source on the measuring machine (it is in no package registry);
# neither the module nor a recipe for it is kept here. Needs Debian's redis-server and redis-tools.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
module=${REDISBLOOM:?set REDISBLOOM to the path of a redisbloom.so built from source}
[ -f "$module" ] || { echo "bench-redisbloom: no file $module" >&2; exit 2; }
n=${N:-2000000}
rounds=${ROUNDS:-3}
capacity=${CAPACITY:-20000000}
out=bench-out
mkdir -p "$out"
for tool in redis-server redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "bench-redisbloom: $tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
done
./idem --version >/dev/null # builds the server outside the timings if it is stale

data=$(mktemp -d "$out/bench-redisbloom-XXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"' EXIT
aof_port=$(bench_free_port)
mem_port=$(bench_free_port)
idem_port=$(bench_free_port)
mkdir -p "$data/aof" "$data/mem"
redis-server --port "$aof_port" --bind 127.0.0.1 --loadmodule "$module" --save "" \
  --appendonly yes --appendfsync everysec --dir "$data/aof" --daemonize no >"$out/bench-rb-aof.log" 2>&1 &
pids+=($!)
aof_pid=$!
redis-server --port "$mem_port" --bind 127.0.0.1 --loadmodule "$module" --save "" \
  --appendonly no --dir "$data/mem" --daemonize no >"$out/bench-rb-mem.log" 2>&1 &
pids+=($!)
mem_pid=$!
./idem serve --bind 127.0.0.1 --port "$idem_port" --dir "$data/idem" >"$out/bench-rb-idem.log" 2>&1 &
pids+=($!)
idem_pid=$!
for p in "$aof_port" "$mem_port" "$idem_port"; do
  for _ in $(seq 150); do redis-cli -p "$p" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$p" PING >/dev/null || { echo "bench-redisbloom: no server on $p; see $out/bench-rb-*.log" >&2; exit 1; }
done
version=$(redis-cli -p "$mem_port" MODULE LIST | sed -n '4p')
echo "bench-redisbloom: RedisBloom $version ($module) on redis $(redis-server --version | cut -d' ' -f3 | cut -d= -f2), Idem at $(git rev-parse --short HEAD), $(nproc) cores"

rps() { # port command...: requests per second
  local port=$1; shift
  redis-benchmark -p "$port" -P 16 -c 50 -n "$n" -r 100000000 --csv "$@" 2>/dev/null | tail -n 1 \
    | awk -F'","' '{ gsub(/"/, "", $0); split($0, f, ","); printf "%.0f", f[2] }'
}
mexists=(BF.MEXISTS bench)
for _ in $(seq 10); do mexists+=("__rand_int__"); done

# Warm-up, not measured: the JVM compiles its hot paths in its first seconds.
for p in "$aof_port" "$mem_port" "$idem_port"; do
  redis-cli -p "$p" BF.RESERVE warm 0.01 "$capacity" >/dev/null
  redis-benchmark -p "$p" -P 16 -c 50 -n 1000000 -r 100000000 -q BF.ADD warm "__rand_int__" >/dev/null 2>&1
  redis-benchmark -p "$p" -P 16 -c 50 -n 1000000 -r 100000000 -q BF.EXISTS warm "__rand_int__" >/dev/null 2>&1
  redis-cli -p "$p" DEL warm >/dev/null
done

idemblk_port=$idem_port

declare -A result
for round in $(seq "$rounds"); do
  for side in aof mem idem idemblk; do
    port_var="${side}_port"
    port=${!port_var}
    if [ "$side" = idemblk ]; then
      # Idem's other layout, on the same server: made while bf-layout says blocked.
      redis-cli -p "$port" DEL blocked >/dev/null
      redis-cli -p "$port" CONFIG SET bf-layout blocked >/dev/null
      redis-cli -p "$port" BF.RESERVE blocked 0.01 "$capacity" >/dev/null
      redis-cli -p "$port" CONFIG SET bf-layout classic >/dev/null
      result[$side,add,$round]=$(rps "$port" BF.ADD blocked "__rand_int__")
      result[$side,exists,$round]=$(rps "$port" BF.EXISTS blocked "__rand_int__")
      result[$side,mexists,$round]=$(rps "$port" "${mexists[@]/bench/blocked}")
      continue
    fi
    redis-cli -p "$port" DEL bench >/dev/null
    redis-cli -p "$port" BF.RESERVE bench 0.01 "$capacity" >/dev/null
    result[$side,add,$round]=$(rps "$port" BF.ADD bench "__rand_int__")
    result[$side,exists,$round]=$(rps "$port" BF.EXISTS bench "__rand_int__")
    result[$side,mexists,$round]=$(rps "$port" "${mexists[@]}")
  done
done

echo
echo "## requests/s, redis-benchmark -P 16 -c 50 -n $n -r 100000000, a filter of $capacity at 1 %"
echo "| test | round | RedisBloom, AOF everysec | RedisBloom, no persistence | Idem (everysec, classic layout) | Idem, blocked layout | Idem / RedisBloom AOF | Idem / RedisBloom no persistence | Idem blocked / RedisBloom AOF |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for op in add exists mexists; do
  for round in $(seq "$rounds"); do
    a=${result[aof,$op,$round]} m=${result[mem,$op,$round]} i=${result[idem,$op,$round]} c=${result[idemblk,$op,$round]}
    awk -v op="$op" -v r="$round" -v a="$a" -v m="$m" -v i="$i" -v c="$c" 'BEGIN {
      name = op == "add" ? "BF.ADD" : op == "exists" ? "BF.EXISTS" : "BF.MEXISTS (10)";
      printf "| %s | %d | %d | %d | %d | %d | %.2f | %.2f | %.2f |\n", name, r, a, m, i, c, i / a, i / m, c / a }'
  done
done

# Idem's blocked filter goes before the memory is read, so each server holds one filter of the
# same capacity; Idem's heap gives back what it no longer needs once idle for 5 s.
blocked=$(redis-cli -p "$idem_port" BF.INFO blocked SIZE | tail -n 1)
redis-cli -p "$idem_port" DEL blocked >/dev/null
sleep 8

echo
echo "## memory after the run: resident set against the filter's size"
echo "| server | RSS MB | filter (BF.INFO Size) MB |"
echo "|---|---:|---:|"
for side in aof mem idem; do
  port_var="${side}_port"
  pid_var="${side}_pid"
  rss=$(ps -o rss= -p "${!pid_var}" | tr -d ' ')
  size=$(redis-cli -p "${!port_var}" BF.INFO bench SIZE | tail -n 1)
  label=$([ "$side" = aof ] && echo "RedisBloom, AOF everysec" || { [ "$side" = mem ] && echo "RedisBloom, no persistence" || echo "Idem"; })
  awk -v l="$label" -v r="$rss" -v s="$size" 'BEGIN { printf "| %s | %.0f | %.1f |\n", l, r / 1024, s / 1048576 }'
done
awk -v s="$blocked" 'BEGIN { printf "| (Idem'"'"'s filter in the blocked layout, deleted before) | | %.1f |\n", s / 1048576 }'
