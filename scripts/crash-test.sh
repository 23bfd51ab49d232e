#!/usr/bin/env bash
# The crash test at length: idem-server's CrashTest kills two server processes with SIGKILL CYCLES
# times (default 100) while every family's writes run on connections of their own (BF, CF with
# duplicates and deletes, CMS, TOPK, TDIGEST, PF and their merges, SCANDUMP/LOADCHUNK, DEDUP in
# EXACT, RECENT and FILTER modes with releases and slice drops, COUNTER, DISTINCT, QUEUE with its
# leases, IDEMKEY with its leases, results and stale tokens; and on the second
# server DEL, RENAME, EXPIRE, PERSIST, expiry and FLUSHALL), restarts them on the same data each
# time, and checks every workload's model: every acknowledged write survived, none applied twice.
# Prints pass or fail, the time taken and the writes acknowledged; the exit code is Maven's.
# Extra arguments go to Maven (e.g. -o to stay offline).
#   scripts/crash-test.sh
#   CYCLES=20 scripts/crash-test.sh -o
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
# Maven 3.9's own libraries touch sun.misc.Unsafe; on JDK 25 that only prints warnings.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

cycles=${CYCLES:-100}
if ! [[ $cycles =~ ^[1-9][0-9]{0,5}$ ]]; then
  echo "crash-test: CYCLES must be an integer from 1 to 999999, not '$cycles'" >&2
  exit 2
fi
cd "$here"
report=idem-server/target/surefire-reports/TEST-io.idem.server.it.CrashTest.xml
rm -f "$report" # so a report found below is this run's

echo "crash-test: $cycles kill -9 cycles with $JAVA_HOME" >&2
start=$(date +%s)
status=0
# -am builds idem-core from this tree too; the test filter runs CrashTest alone.
./mvnw -B -q -Dspotless.check.skip=true -pl idem-server -am test \
  -Dtest=CrashTest -Dsurefire.failIfNoSpecifiedTests=false -Didem.crash.cycles="$cycles" "$@" \
  || status=$?
elapsed=$(($(date +%s) - start))

if [ "$status" -eq 0 ] && [ -f "$report" ]; then
  echo "crash-test: PASSED: $cycles cycles in ${elapsed}s, every acknowledged write survived, none applied twice"
else
  echo "crash-test: FAILED after ${elapsed}s (exit $status); see idem-server/target/surefire-reports/"
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
