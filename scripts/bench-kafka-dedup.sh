#!/usr/bin/env bash
# The Kafka Streams dedup operator against what users write today, Confluent's "find distinct
# events" recipe (a persistent window store and a processor that fetches each id from it), on one
# in-process KRaft broker and the same input topic, both under exactly_once_v2 in a JVM of their own
# (-Xmx4g, one stream thread): records a second; killed with SIGKILL once it has every record,
# the restart's restore time, records restored and time to RUNNING; then, after a clean stop, state
# bytes an id (the app's state directory, and its changelog on the broker). For each size N: N distinct ids plus 10 % repeats, within a
# 24 h window.
#   scripts/bench-kafka-dedup.sh                                  # SIZES=1000000
#   SIZES="1000000 10000000 50000000" scripts/bench-kafka-dedup.sh
#   PIN=no scripts/bench-kafka-dedup.sh                           # no taskset
# Knobs: SIZES (ids per run), PIN (yes: the app on CPU 0, the broker and the driver on CPU 1; needs
# taskset and two cores). Extra arguments go to DedupBench (--window-seconds S, --settle-seconds S,
# --modes recipe,idem). Holds the build lock ($IDEM_BUILD_LOCK) for the build and the run. Prints a
# Markdown table and appends one line a size and mode to bench-out/kafka-dedup.tsv; the apps' logs
# are in idem-kafka/target/dedup-bench/logs. 50 M ids take several GB of disk there.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
java="$JAVA_HOME/bin/java"
# Maven 3.9's own libraries touch sun.misc.Unsafe; on JDK 25 that only prints warnings.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

read -ra sizes <<<"${SIZES:-1000000}"
for n in "${sizes[@]}"; do
  if ! [[ $n =~ ^[1-9][0-9]{0,9}$ ]]; then
    echo "bench-kafka-dedup: SIZES must be positive integers, not '$n'" >&2
    exit 2
  fi
done
export PIN=${PIN:-yes}
pin=()
case "$PIN" in
  yes)
    if ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
      echo "bench-kafka-dedup: PIN=yes needs taskset (util-linux) and two cores; or set PIN=no" >&2
      exit 1
    fi
    pin=(taskset -c 1)
    ;;
  no) ;;
  *) echo "bench-kafka-dedup: PIN must be yes or no, not '$PIN'" >&2; exit 2 ;;
esac

# No other build or benchmark on this machine while this one measures.
lock=${IDEM_BUILD_LOCK:-/tmp/idem-build.lock}
exec 9>>"$lock"
if ! flock -n 9; then
  echo "bench-kafka-dedup: waiting for $lock (a build or benchmark is running)..." >&2
  flock 9
fi

# The operator, the server's test jar (the broker) and idem-kafka's test classes; offline first.
build=(./mvnw -B -q install -DskipTests -pl idem-core,idem-server,idem-kafka -am
  -Dspotless.check.skip=true)
echo "bench-kafka-dedup: building idem-core, idem-server and idem-kafka with $JAVA_HOME" >&2
if ! "${build[@]}" -o; then
  echo "bench-kafka-dedup: offline build failed; retrying once online (to fetch missing dependencies)" >&2
  "${build[@]}"
fi
cpfile="$here/idem-kafka/target/dedup-bench.classpath"
./mvnw -B -q -o -pl idem-kafka dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$cpfile"
cp="idem-kafka/target/test-classes:idem-kafka/target/classes:$(cat "$cpfile")"

mkdir -p bench-out
echo "bench-kafka-dedup: $(nproc) cores; PIN=$PIN; sizes ${sizes[*]}; $("$java" -version 2>&1 | head -n 1)"
# The driver's JVM holds the broker and reads the apps' output; RocksDB loads its JNI library.
${pin[@]+"${pin[@]}"} "$java" -Xmx2g --enable-native-access=ALL-UNNAMED -cp "$cp" \
  io.idem.kafka.bench.DedupBench --dir idem-kafka/target/dedup-bench \
  --out bench-out/kafka-dedup.tsv "$@" "${sizes[@]}"
