#!/usr/bin/env bash
# Builds idem-bench/target/benchmarks.jar and runs the JMH benchmarks, then BloomAccuracy,
# BloomRates, BloomLayout, BloomVersus and BloomOneCall.
# Results go to bench-out/ (git-ignored): one JMH JSON and one text log per class,
# bloom-accuracy.md, bloom-rates.md, and env.txt (JDK, CPU).
#   scripts/bench-jmh.sh                                   # all: about 22 minutes on 2 cores
#   scripts/bench-jmh.sh BloomBenchmark HashBenchmark      # only these classes
#   scripts/bench-jmh.sh BloomBenchmark -- -prof gc         # extra JMH options after --
#   scripts/bench-jmh.sh BloomVersus -- 20                  # for a plain main alone: its arguments
#   scripts/bench-jmh.sh BloomBenchmark -- -jvmArgsPrepend -XX:+UseTransparentHugePages
#     (JVM options go in -jvmArgsPrepend: -jvmArgsAppend would replace the classes' own, among
#     them BloomBenchmark's --add-modules=jdk.incubator.vector, without which Idem runs scalar)
#   JMH_OPTS='-f 3 -wi 5 -i 10 -w 5s -r 5s' scripts/bench-jmh.sh   # a longer configuration
#
# Classes: HashBenchmark, HashLongBenchmark, BloomBenchmark, CuckooBenchmark,
# MemoryLatencyBenchmark (random loads at a working set's size, one a JMH invocation: what memory
# costs a filter),
# CounterQueryBenchmark (a 30-feature day query of a counter table, in process), and the plain mains
# BloomAccuracy (memory and false-positive rate), BloomRates (the server's two Bloom layouts at
# every rate from 0.1 to 1e-10: bytes, and the rate measured at capacity; about 6 minutes;
# its argument is the most probes a filter), BloomLayout (batched lookups with the blocks
# on cache lines against the same bits 8 and 16 bytes off, with and without the batch's first
# pass, alternated in rounds of a second in one JVM; about 80 s), BloomVersus (Idem's lookups
# against Guava's, alternated the same way, with their ratio round by round; about 2 minutes)
# and BloomOneCall (one lookup a call, with and without its hash, and the hash alone; about
# 80 s).
#
# The default configuration, -f 1 -wi 5 -i 3 -w 2s -r 2s (one fork per parameter set, five 2 s
# warm-up and three 2 s measured iterations), is short: enough for a first figure. Five warm-ups,
# not two, because Guava's BloomFilter needs about 8 s on 2 cores to reach steady state (it reads
# 3x slower before). With 3 iterations JMH's 99.9 % error uses Student's t at 2 degrees of
# freedom (x31.6), so the +- is wide; publish figures from a longer run (-f 3 -i 10).
#
# The build and the runs hold one lock ($IDEM_BUILD_LOCK, default /tmp/idem-build.lock) for the
# whole script, so no build on this machine competes with a measurement. Maven runs offline; if
# a dependency is missing from the local repository, the build is retried once online.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
java="$JAVA_HOME/bin/java"

all=(HashBenchmark HashLongBenchmark BloomBenchmark CuckooBenchmark MemoryLatencyBenchmark
  CounterQueryBenchmark BloomAccuracy BloomRates BloomLayout BloomVersus BloomOneCall)
classes=()
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; extra=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) classes+=("$1"); shift ;;
  esac
done
[ ${#classes[@]} -gt 0 ] || classes=("${all[@]}")
for c in "${classes[@]}"; do
  case " ${all[*]} " in
    *" $c "*) ;;
    *) echo "bench-jmh: unknown class $c (one of: ${all[*]})" >&2; exit 2 ;;
  esac
done
# shellcheck disable=SC2206 # JMH_OPTS is a list of options, split on purpose
jmh_opts=(${JMH_OPTS:--f 1 -wi 5 -i 3 -w 2s -r 2s})

# shellcheck source=scripts/bench-lib.sh
. "$here/scripts/bench-lib.sh"
jar=idem-bench/target/benchmarks.jar
bench_build bench-jmh

out=bench-out
mkdir -p "$out"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  "$java" -version 2>&1
  lscpu | grep -E 'Model name|^CPU family|^Model:|^CPU\(s\)|L2 cache|L3 cache' || true
  # The host can change from one run to the next. This is the CPU's flag; whether Idem's vector
  # paths run is what the JVM makes of it: the Bloom mains and BloomBenchmark print the probe.
  if [ ! -r /proc/cpuinfo ]; then
    echo "AVX-512 (CPU flag): unknown"
  elif grep -qw avx512f /proc/cpuinfo; then
    echo "AVX-512 (CPU flag): yes"
  else
    echo "AVX-512 (CPU flag): no"
  fi
  echo "JMH options: ${jmh_opts[*]} ${extra[*]}"
} > "$out/env.txt"
cat "$out/env.txt" >&2

for c in "${classes[@]}"; do
  if [ "$c" = BloomAccuracy ]; then
    echo "bench-jmh: BloomAccuracy -> $out/bloom-accuracy.md" >&2
    "$java" -Xms3g -Xmx3g -cp "$jar" io.idem.bench.BloomAccuracy | tee "$out/bloom-accuracy.md"
    continue
  fi
  if [ "$c" = BloomRates ]; then
    echo "bench-jmh: BloomRates -> $out/bloom-rates.md" >&2
    "$java" -Xmx2g -cp "$jar" io.idem.bench.BloomRates "${extra[@]}" | tee "$out/bloom-rates.md"
    continue
  fi
  if [ "$c" = BloomLayout ] || [ "$c" = BloomVersus ] || [ "$c" = BloomOneCall ]; then
    suffix=${c#Bloom}
    log="$out/bloom-${suffix,,}.txt"
    echo "bench-jmh: $c -> $log" >&2
    "$java" -Xms3g -Xmx3g --add-modules jdk.incubator.vector -cp "$jar" "io.idem.bench.$c" \
      "${extra[@]}" 2>&1 | grep -v '^WARNING: Using incubator' | tee "$log"
    continue
  fi
  echo "bench-jmh: $c -> $out/$c.json" >&2
  # The flag silences the sun.misc.Unsafe warning JMH 1.37 itself prints on JDK 24+ (JEP 471).
  "$java" --sun-misc-unsafe-memory-access=allow -jar "$jar" "^io\.idem\.bench\.$c\." \
    "${jmh_opts[@]}" "${extra[@]}" \
    -rf json -rff "$out/$c.json" 2>&1 | tee "$out/$c.txt"
done
