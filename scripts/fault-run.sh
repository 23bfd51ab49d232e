#!/usr/bin/env bash
# The cluster's fault simulation at length: idem-server's ClusterFaultTest, one run a seed. Each run
# starts a Kafka broker and three nodes as processes, drives every write family through
# JedisCluster's pipeline and transactions, and injects faults at seeded points: kill -9 of a node
# (snapshots every second), SIGSTOP/SIGCONT past the node timeout, a node restarted with its clock
# ahead or behind, the broker killed and restarted. Then it checks every replica key by key against
# a fresh node's replay of the log, counts against the log, every acknowledged write in the log,
# and every queue job done exactly once. Prints one line a seed; the exit code is Maven's.
# Extra arguments go to Maven (e.g. -o to stay offline).
#   scripts/fault-run.sh                          seeds 1 to 20, 60 s of faults each
#   SEEDS=7 SECONDS_EACH=120 scripts/fault-run.sh -o
#   SEEDS=1-5,9 scripts/fault-run.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

seeds_spec=${SEEDS:-1-20}
each=${SECONDS_EACH:-60}
if ! [[ $each =~ ^[1-9][0-9]{0,4}$ ]]; then
  echo "fault-run: SECONDS_EACH must be an integer from 1 to 99999, not '$each'" >&2
  exit 2
fi
seeds=()
IFS=, read -r -a parts <<<"$seeds_spec"
for part in "${parts[@]}"; do
  if [[ $part =~ ^([0-9]{1,9})-([0-9]{1,9})$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2])) \
    && ((BASH_REMATCH[2] - BASH_REMATCH[1] < 10000)); then
    for ((s = BASH_REMATCH[1]; s <= BASH_REMATCH[2]; s++)); do seeds+=("$s"); done
  elif [[ $part =~ ^[0-9]{1,9}$ ]]; then
    seeds+=("$part")
  else
    echo "fault-run: SEEDS is a list of seeds and ranges (1-20,33), not '$seeds_spec'" >&2
    exit 2
  fi
done
list=$(IFS=,; echo "${seeds[*]}")

cd "$here"
results=idem-server/target/fault-run.txt
mkdir -p idem-server/target
rm -f "$results"
echo "fault-run: ${#seeds[@]} seeds ($list), ${each}s of faults each, with $JAVA_HOME" >&2
start=$(date +%s)
status=0
# -am builds idem-core from this tree too; the test filter runs ClusterFaultTest alone.
./mvnw -B -q -Dspotless.check.skip=true -pl idem-server -am test \
  -Dtest=ClusterFaultTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Didem.fault.seeds="$list" -Didem.fault.seconds="$each" "$@" >idem-server/target/fault-run.log 2>&1 || status=$?
elapsed=$(($(date +%s) - start))

if [ -f "$results" ]; then
  cat "$results"
fi
if [ "$status" -ne 0 ] && ! grep -q FAILED "$results" 2>/dev/null; then
  tail -n 30 idem-server/target/fault-run.log >&2
fi
passed=$(grep -c ' passed: ' "$results" 2>/dev/null || true)
echo "fault-run: $passed of ${#seeds[@]} seeds passed in ${elapsed}s (failed seeds keep their logs" \
  "under idem-server/target/fault-run)"
exit "$status"
