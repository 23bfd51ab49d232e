#!/usr/bin/env bash
# The hostile-input run of issue 30: idem-server's HostileRunTest starts one server process (512 MB
# heap) and sends it, one after another, an HTTP request carrying FLUSHALL, pipelined SCANDUMPs
# never read, oversized DEDUP tables and sketches, twelve unfinished 500 MB arguments, filters up to
# maxmemory, protocol bombs, random bytes, random LOADCHUNK data, unread pipelined writes and 2,000
# connections. After each it checks that the server answers, that what was acknowledged before is
# there, and that its resident memory stays under 1.5 GB; then it kills the server with SIGKILL and
# checks the data again after a restart. Prints the table of outcomes and memory after each attack.
# Extra arguments go to Maven (e.g. -o to stay offline).
#   scripts/hostile-run.sh -o
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/jdk.sh
. "$here/scripts/jdk.sh"
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
cd "$here"
table=idem-server/target/hostile-run.md
rm -f "$table"
status=0
./mvnw -B -q -Dspotless.check.skip=true -pl idem-server -am test \
  -Dtest=HostileRunTest -Dsurefire.failIfNoSpecifiedTests=false "$@" || status=$?
if [ "$status" -eq 0 ] && [ -f "$table" ]; then
  cat "$table"
  echo "hostile-run: PASSED: the server stayed up, kept its data and its memory bounded"
else
  echo "hostile-run: FAILED (exit $status); see idem-server/target/surefire-reports/"
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
