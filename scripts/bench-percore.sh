#!/usr/bin/env bash
# Issue 43's per-core comparison: Idem against Redis, each server pinned to CPU 0 and
# redis-benchmark to CPU 1 (taskset), so each side is judged on one core, as Redis's single thread
# is. Sides: ./idem serve (appendfsync everysec, its default), Redis with AOF everysec and Redis
# without persistence, both with the RedisBloom module when REDISBLOOM names one (BF, CF and CMS
# have no baseline without it). ROUNDS rounds; in each the sides take turns on every command,
# each on a fresh keyspace, after a round that warms Idem's JIT. Prints requests a second and p99 per side, then Idem's ratio to Redis
# with AOF everysec, and each server's resident and counted memory beside its data.
#   REDISBLOOM=/path/to/redisbloom.so scripts/bench-percore.sh
#   N=200000 ROUNDS=1 PIN=no scripts/bench-percore.sh        # unpinned, smaller
#   ONLY=PFADD,QUEUE.ADD scripts/bench-percore.sh            # some commands only
# Every command: redis-benchmark -P 16 -c 50, N requests, keys and items from -r 100000000 (the
# counters: one table of 10000 names, against 10000 features' bucket keys; CL.THROTTLE: 10000
# limiters, against Redis's fixed-window limiter, INCR then EXPIRE 60 NX), but QUEUE.RESERVE+ACK:
# QueueBench drains QUEUE_JOBS (N / 2) jobs with 4 workers. Needs redis-server, redis-tools (redis-benchmark) and util-linux
# (taskset). RedisBloom is built from its source on the measuring machine (docs/benchmarks).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
. scripts/jdk.sh
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/bench-lib.sh

n=${N:-1000000}
rounds=${ROUNDS:-3}
pin=${PIN:-yes}
only=${ONLY:-}
module=${REDISBLOOM:-}
for tool in redis-server redis-cli redis-benchmark taskset; do
  command -v "$tool" >/dev/null || { echo "bench-percore: $tool is missing: apt-get install redis-server redis-tools util-linux" >&2; exit 1; }
done
[[ $n =~ ^[1-9][0-9]{0,9}$ ]] || { echo "bench-percore: N must be a positive integer, not '$n'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "bench-percore: ROUNDS must be 1 to 99, not '$rounds'" >&2; exit 2; }
[[ $pin == yes || $pin == no ]] || { echo "bench-percore: PIN must be yes or no, not '$pin'" >&2; exit 2; }
if [ -n "$module" ] && [ ! -f "$module" ]; then
  echo "bench-percore: no file $module (REDISBLOOM)" >&2; exit 2
fi
if [ "$pin" = yes ] && [ "$(nproc)" -lt 2 ]; then
  echo "bench-percore: pinning needs two CPUs; this machine has $(nproc) (PIN=no runs unpinned)" >&2; exit 2
fi
server_cpu=(); load_cpu=()
if [ "$pin" = yes ]; then server_cpu=(taskset -c 0); load_cpu=(taskset -c 1); fi

bench_build bench-percore # idem-bench's QueueBench, under the build lock for the whole run
./idem --version >/dev/null # builds the server outside the timings if it is stale
out=bench-out
mkdir -p "$out"
data=$(mktemp -d "$out/bench-percore-XXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"' EXIT

# The sides: name, port, pid.
sides=(idem aof none)
declare -A port pid
for s in "${sides[@]}"; do port[$s]=$(bench_free_port); done
load=()
[ -n "$module" ] && load=(--loadmodule "$module")
mkdir -p "$data/aof" "$data/none"
"${server_cpu[@]}" redis-server --port "${port[aof]}" --bind 127.0.0.1 "${load[@]}" --save "" \
  --appendonly yes --appendfsync everysec --dir "$data/aof" >"$out/bench-percore-aof.log" 2>&1 &
pid[aof]=$!; pids+=($!)
"${server_cpu[@]}" redis-server --port "${port[none]}" --bind 127.0.0.1 "${load[@]}" --save "" \
  --appendonly no --dir "$data/none" >"$out/bench-percore-none.log" 2>&1 &
pid[none]=$!; pids+=($!)
"${server_cpu[@]}" ./idem serve --bind 127.0.0.1 --port "${port[idem]}" --dir "$data/idem" \
  >"$out/bench-percore-idem.log" 2>&1 &
pid[idem]=$!; pids+=($!) # the launcher execs java: this is the server's pid
for s in "${sides[@]}"; do
  for _ in $(seq 150); do redis-cli -p "${port[$s]}" PING >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "${port[$s]}" PING >/dev/null 2>&1 || { echo "bench-percore: $s does not answer; see $out/bench-percore-$s.log" >&2; exit 1; }
done
echo "bench-percore: $(redis-server --version | cut -d' ' -f1-3)${module:+ with $(basename "$module")}," \
  "$(./idem --version 2>/dev/null | head -n 1), N=$n, ROUNDS=$rounds, pinned: $pin"

# The commands: a name, then for Idem and for Redis the set-up (';'-separated commands) and the
# command redis-benchmark repeats. A '-' for Redis: no baseline. "needs-module" marks the ones
# whose Redis side needs RedisBloom.
cap=$((n * 2))
table=(
  "BF.ADD|BF.RESERVE bf 0.01 $cap|BF.ADD bf i:__rand_int__|BF.RESERVE bf 0.01 $cap|BF.ADD bf i:__rand_int__|module"
  "BF.EXISTS|BF.RESERVE bf 0.01 $cap|BF.EXISTS bf i:__rand_int__|BF.RESERVE bf 0.01 $cap|BF.EXISTS bf i:__rand_int__|module"
  "BF.MADD|BF.RESERVE bf 0.01 $((cap * 10))|BF.MADD bf a:__rand_int__ b:__rand_int__ c:__rand_int__ d:__rand_int__ e:__rand_int__ f:__rand_int__ g:__rand_int__ h:__rand_int__ i:__rand_int__ j:__rand_int__|BF.RESERVE bf 0.01 $((cap * 10))|BF.MADD bf a:__rand_int__ b:__rand_int__ c:__rand_int__ d:__rand_int__ e:__rand_int__ f:__rand_int__ g:__rand_int__ h:__rand_int__ i:__rand_int__ j:__rand_int__|module"
  "CF.ADD|CF.RESERVE cf $cap|CF.ADD cf c:__rand_int__|CF.RESERVE cf $cap|CF.ADD cf c:__rand_int__|module"
  "CF.EXISTS|CF.RESERVE cf $cap|CF.EXISTS cf c:__rand_int__|CF.RESERVE cf $cap|CF.EXISTS cf c:__rand_int__|module"
  "CMS.INCRBY|CMS.INITBYDIM cms 2000 5|CMS.INCRBY cms x:__rand_int__ 1|CMS.INITBYDIM cms 2000 5|CMS.INCRBY cms x:__rand_int__ 1|module"
  "PFADD||PFADD hll h:__rand_int__||PFADD hll h:__rand_int__|"
  "COUNTER.INCRBY||COUNTER.INCRBY clicks * f:__rand_int__ 1||INCRBY f:__rand_int__:clicks:29 1|"
  "(EXPIRE)|-|-||EXPIRE f:__rand_int__:clicks:29 90000|"
  "CL.THROTTLE||CL.THROTTLE rl:__rand_int__ 15 30 60 1||INCR rl:__rand_int__|"
  "(EXPIRE NX)|-|-||EXPIRE rl:__rand_int__ 60 NX|"
  "DEDUP.CLAIM|DEDUP.RESERVE d 1d EXACT CAPACITY $cap|DEDUP.CLAIM d id:__rand_int__ owner-1||SET id:__rand_int__ owner-1 NX EX 86400|"
  "QUEUE.ADD||QUEUE.ADD q payload:__rand_int__||ZADD q __rand_int__ payload:__rand_int__|"
  "QUEUE.RESERVE+ACK|queuebench|-|queuebench|-|"
)

# QUEUE.RESERVE COUNT 100 and one QUEUE.ACK of the 100 against the seed's Lua pop of 100: replies
# carry tokens redis-benchmark cannot send back, so QueueBench (idem-bench) drives it, on the load
# CPU: QUEUE_JOBS jobs added (not timed here), then drained by 4 workers.
queue_jobs=${QUEUE_JOBS:-$((n / 2))}
[[ $queue_jobs =~ ^[1-9][0-9]{0,8}$ ]] || { echo "bench-percore: QUEUE_JOBS must be a positive integer, not '$queue_jobs'" >&2; exit 2; }
queue_drain() { # side -> prints "rps -"
  local flag=--redis
  [ "$1" = idem ] && flag=--idem
  redis-cli -p "${port[$1]}" FLUSHALL >/dev/null
  "${load_cpu[@]}" "$JAVA_HOME/bin/java" -Xmx1g -cp idem-bench/target/benchmarks.jar io.idem.bench.QueueBench \
    "$flag" "127.0.0.1:${port[$1]}" --jobs "$queue_jobs" --seconds 0 \
    | awk -F'|' 'NR == 3 { gsub(/[ ,]/, "", $4); print $4, "-" }'
}

set -f # commands are split on spaces, never globbed (COUNTER.INCRBY's '*' is its time: now)
run_one() { # side setup command -> prints "rps p99"
  local s=$1 setup=$2 command=$3 range=100000000
  redis-cli -p "${port[$s]}" FLUSHALL >/dev/null
  if [ -n "$setup" ] && [ "$setup" != "-" ]; then
    IFS=';' read -r -a steps <<<"$setup"
    local step
    for step in "${steps[@]}"; do
      # shellcheck disable=SC2086
      redis-cli -p "${port[$s]}" $step >/dev/null
    done
  fi
  [[ $command == *" f:__rand_int__"* || $command == "f:"* || $command == *"INCRBY f:"* || $command == *" rl:"* ]] && range=10000
  # shellcheck disable=SC2086
  "${load_cpu[@]}" redis-benchmark -p "${port[$s]}" -n "$n" -c 50 -P 16 -r "$range" --csv $command \
    | awk -F'","' 'NR==2 { gsub(/"/, "", $2); gsub(/"/, "", $7); print $2, $7 }'
}

declare -A rps p99
# Round 0 warms Idem's JIT on every command (Redis needs none); its figures are not shown.
for round in $(seq 0 "$rounds"); do
  for row in "${table[@]}"; do
    IFS='|' read -r name idem_setup idem_cmd redis_setup redis_cmd needs <<<"$row"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]] && ! [[ $name == "(EXPIRE)" && ",$only," == *",COUNTER.INCRBY,"* ]] \
      && ! [[ $name == "(EXPIRE NX)" && ",$only," == *",CL.THROTTLE,"* ]]; then
      continue
    fi
    order=("${sides[@]}")
    ((round % 2 == 0)) && order=(none aof idem) # alternate who goes first
    ((round == 0)) && order=(idem)
    for s in "${order[@]}"; do
      if [ "$s" = idem ]; then setup=$idem_setup; cmd=$idem_cmd; else setup=$redis_setup; cmd=$redis_cmd; fi
      if { [ "$cmd" = "-" ] && [ "$setup" != queuebench ]; } || { [ "$s" != idem ] && [ "$needs" = module ] && [ -z "$module" ]; }; then
        continue
      fi
      if [ "$setup" = queuebench ]; then
        read -r r q < <(queue_drain "$s")
      else
        read -r r q < <(run_one "$s" "$setup" "$cmd")
      fi
      rps[$name,$s,$round]=$r
      p99[$name,$s,$round]=$q
    done
  done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "-") printf "%.2f", a / b; else print "-" }'; }
printf '\n%-16s %5s %12s %12s %12s %8s %8s %8s %14s\n' command round idem/s aof/s none/s \
  idem-p99 aof-p99 none-p99 "idem/aof"
for row in "${table[@]}"; do
  IFS='|' read -r name _ <<<"$row"
  for round in $(seq 1 "$rounds"); do
    [ -n "${rps[$name,idem,$round]:-}${rps[$name,aof,$round]:-}" ] || continue
    i=${rps[$name,idem,$round]:-0}; a=${rps[$name,aof,$round]:-0}; z=${rps[$name,none,$round]:-0}
    if [ "$name" = COUNTER.INCRBY ] && [ -n "${rps[(EXPIRE),aof,$round]:-}" ]; then
      # Redis's per-bucket design costs an INCRBY and an EXPIRE an event for each of the two
      # resolutions Idem's default table keeps (minutes and hours).
      a=$(awk -v x="$a" -v y="${rps[(EXPIRE),aof,$round]}" 'BEGIN { printf "%.2f", 1 / (2 / x + 2 / y) }')
      z=$(awk -v x="$z" -v y="${rps[(EXPIRE),none,$round]}" 'BEGIN { printf "%.2f", 1 / (2 / x + 2 / y) }')
    fi
    if [ "$name" = CL.THROTTLE ] && [ -n "${rps[(EXPIRE NX),aof,$round]:-}" ]; then
      # The INCR + EXPIRE limiter costs an INCR and an EXPIRE ... NX a request.
      a=$(awk -v x="$a" -v y="${rps[(EXPIRE NX),aof,$round]}" 'BEGIN { printf "%.2f", 1 / (1 / x + 1 / y) }')
      z=$(awk -v x="$z" -v y="${rps[(EXPIRE NX),none,$round]}" 'BEGIN { printf "%.2f", 1 / (1 / x + 1 / y) }')
    fi
    [ "$i" = 0 ] && i=-
    printf '%-16s %5s %12s %12s %12s %8s %8s %8s %14s\n' "$name" "$round" "$i" "$a" "$z" \
      "${p99[$name,idem,$round]:--}" "${p99[$name,aof,$round]:--}" "${p99[$name,none,$round]:--}" \
      "$(ratio "$i" "$a")"
  done
done
echo "(COUNTER.INCRBY's Redis figures are events a second: an INCRBY and an EXPIRE for its minute and its hour bucket each;"
echo " CL.THROTTLE's are requests a second of the fixed-window limiter: INCR, then EXPIRE 60 NX;"
echo " QUEUE.RESERVE+ACK's are jobs a second: RESERVE COUNT 100 and one ACK of the 100, against the seed's Lua pop of 100)"

echo
for s in "${sides[@]}"; do
  rss=$(awk '/^VmRSS:/ { printf "%.0f MB", $2 / 1024 }' "/proc/${pid[$s]}/status")
  used=$(redis-cli -p "${port[$s]}" INFO memory | awk -F: '/^used_memory_human:/ { gsub(/\r/, ""); print $2 }')
  keys=$(redis-cli -p "${port[$s]}" DBSIZE)
  echo "bench-percore: $s resident $rss, counted $used, $keys keys (the last command's data)"
done
