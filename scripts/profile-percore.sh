#!/usr/bin/env bash
# Where one command's time goes on a pinned server (issue 43): starts ./idem serve on CPU 0, warms
# it with WARM requests of the command from redis-benchmark on CPU 1, then, during N more, reads
# every server thread's CPU time (/proc) and, with PERF=1, samples the whole process with perf
# (cpu-clock, call graphs, the JIT's symbols from -XX:+DumpPerfMapAtExit). Prints requests a
# second, CPU 0's ticks and each thread's, then perf's top symbols of the busiest threads.
#   scripts/profile-percore.sh 'BF.RESERVE bf 0.01 4000000' 'BF.ADD bf i:__rand_int__'
#   PERF=1 RANGE=10000 scripts/profile-percore.sh '' 'COUNTER.INCRBY clicks * f:__rand_int__ 1'
# Knobs: N (1000000), WARM (1000000), RANGE (-r, 100000000), PERF (off), IDEM_JAVA_OPTS.
# Needs redis-tools (redis-benchmark), util-linux (taskset) and, for PERF=1, linux-perf.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
. scripts/jdk.sh
idem_find_jdk25 || exit 1
. scripts/bench-lib.sh
[ $# -eq 2 ] || { echo "usage: scripts/profile-percore.sh 'SETUP COMMAND' 'BENCHMARKED COMMAND'" >&2; exit 2; }
setup=$1
command=$2
n=${N:-1000000}
warm=${WARM:-1000000}
range=${RANGE:-100000000}
for v in "$n" "$warm" "$range"; do
  [[ $v =~ ^[1-9][0-9]{0,9}$ ]] || { echo "profile-percore: N, WARM and RANGE must be positive integers, not '$v'" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "profile-percore: pinning needs two CPUs" >&2; exit 2; }
if [ -n "${PERF:-}" ]; then
  command -v perf >/dev/null || { echo "profile-percore: perf is missing: apt-get install linux-perf" >&2; exit 1; }
fi
./idem --version >/dev/null # builds the server if it is stale
out=bench-out
mkdir -p "$out"
data=$(mktemp -d "$out/profile-percore-XXXX")
port=$(bench_free_port)
opts="${IDEM_JAVA_OPTS:-}"
[ -n "${PERF:-}" ] && opts="$opts -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
IDEM_JAVA_OPTS="$opts" taskset -c 0 ./idem serve --bind 127.0.0.1 --port "$port" --dir "$data/idem" \
  >"$out/profile-percore-idem.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 150); do redis-cli -p "$port" PING 2>/dev/null | grep -q PONG && break; sleep 0.2; done
threads() { # each thread name's user and system ticks, summed over threads of that name
  local t name f
  for t in $(find /proc/"$pid"/task -mindepth 1 -maxdepth 1); do # no glob: set -f is on
    name=$(tr ' ' _ <"$t/comm")
    read -r -a f < <(sed 's/.*) //' "$t/stat")
    echo "$name ${f[11]} ${f[12]}"
  done | awk '{ u[$1] += $2; s[$1] += $3 } END { for (k in u) print k, u[k], s[k] }' | sort
}
bench() { # requests -> redis-benchmark's CSV line
  # shellcheck disable=SC2086
  taskset -c 1 redis-benchmark -p "$port" -n "$1" -c 50 -P 16 -r "$range" --csv $command | tail -n 1
}
set -f # the commands are split on spaces, never globbed (COUNTER.INCRBY's '*')
# shellcheck disable=SC2086
[ -n "$setup" ] && redis-cli -p "$port" $setup >/dev/null
echo "warm-up: $(bench "$warm")"
before=$(threads)
read -r -a c0 < <(grep '^cpu0 ' /proc/stat)
if [ -n "${PERF:-}" ]; then
  perf record -e cpu-clock -F 999 -g -p "$pid" -o "$out/profile-percore.perf" >/dev/null 2>&1 &
  perf_pid=$!
fi
echo "measured: $(bench "$n")"
if [ -n "${PERF:-}" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
read -r -a c1 < <(grep '^cpu0 ' /proc/stat)
after=$(threads)
set +f
echo "CPU 0 ticks: user $(((c1[1] + c1[2]) - (c0[1] + c0[2]))), system $((c1[3] - c0[3])), idle $((c1[4] - c0[4])), interrupts $((c1[6] + c1[7] - c0[6] - c0[7]))"
join <(echo "$before") <(echo "$after") \
  | awk '{ u = $4 - $2; s = $5 - $3; if (u + s > 0) printf "  %-24s user %6d  system %6d\n", $1, u, s }' | sort -k3 -nr
if [ -n "${PERF:-}" ]; then
  kill "$pid"; wait "$pid" 2>/dev/null || true # the JVM writes its perf map as it exits
  for comm in multiThreadIoEv idem-commit; do
    echo "perf, thread $comm, top symbols (share of all samples):"
    perf report -i "$out/profile-percore.perf" --no-children --comm "$comm" --sort dso,sym --stdio -g none 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | head -n 20
  done
fi
