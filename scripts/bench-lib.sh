# Shared by the benchmark scripts (source it; it defines functions and runs nothing).
#   bench_build NAME          holds the build lock ($IDEM_BUILD_LOCK) on fd 9 for the rest of the
#                             script, so no build on this machine competes with a measurement,
#                             and builds idem-bench/target/benchmarks.jar (offline, then online)
#   bench_start_sides NAME    starts Debian's redis-server (persistence off) and/or ./idem serve
#                             (appendfsync everysec) on free loopback ports, as $SIDES says
#                             (redis,idem by default); appends their --redis/--idem options to the
#                             caller's args array, waits until both answer PING, and stops them
#                             and removes their data on exit. Logs: bench-out/NAME-{redis,idem}.log

bench_build() {
  local name=$1
  local lock=${IDEM_BUILD_LOCK:-/tmp/idem-build.lock}
  exec 9>>"$lock"
  if ! flock -n 9; then
    echo "$name: waiting for $lock (a build or benchmark is running)..." >&2
    flock 9
  fi
  local build=(./mvnw -B -q -pl idem-bench -am package -DskipTests -Dspotless.check.skip=true)
  echo "$name: building idem-bench/target/benchmarks.jar with $JAVA_HOME" >&2
  if ! "${build[@]}" -o; then
    echo "$name: offline build failed; retrying once online (to fetch missing dependencies)" >&2
    "${build[@]}"
  fi
}

bench_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

bench_start_sides() {
  local name=$1 out=bench-out
  bench_sides=${SIDES:-redis,idem}
  case ",$bench_sides," in
    *,redis,*|*,idem,*) ;;
    *) echo "$name: SIDES ($bench_sides) must name redis, idem or both" >&2; exit 2 ;;
  esac
  if [[ ",$bench_sides," == *,redis,* ]]; then
    local tool
    for tool in redis-server redis-cli; do
      command -v "$tool" >/dev/null || { echo "$name: $tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
    done
  fi
  if [[ ",$bench_sides," == *,idem,* ]]; then
    ./idem --version >/dev/null # builds the server outside the timings if it is stale
  fi
  mkdir -p "$out"
  bench_data=$(mktemp -d "$out/$name-XXXX")
  bench_pids=()
  trap 'for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$bench_data"' EXIT
  local ports=() port
  if [[ ",$bench_sides," == *,redis,* ]]; then
    port=$(bench_free_port)
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$bench_data" \
      --daemonize no >"$out/$name-redis.log" 2>&1 &
    bench_pids+=($!)
    args+=(--redis "127.0.0.1:$port" --redis-pid "$!")
    ports+=("$port")
    echo "$name: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$port, persistence off (--save \"\" --appendonly no)"
  fi
  if [[ ",$bench_sides," == *,idem,* ]]; then
    port=$(bench_free_port)
    ./idem serve --bind 127.0.0.1 --port "$port" --dir "$bench_data/idem" >"$out/$name-idem.log" 2>&1 &
    bench_pids+=($!) # the launcher execs java: this is the server's pid
    args+=(--idem "127.0.0.1:$port" --idem-pid "$!" --idem-dir "$bench_data/idem")
    ports+=("$port")
    echo "$name: idem serve on 127.0.0.1:$port, data in $bench_data/idem (appendfsync everysec)"
  fi
  for port in "${ports[@]}"; do
    for _ in $(seq 150); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
    redis-cli -p "$port" PING >/dev/null 2>&1 || { echo "$name: no server answers on port $port; see $out/$name-*.log" >&2; exit 1; }
  done
}
