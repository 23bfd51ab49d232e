#!/usr/bin/env bash
# Runs the client guide's example worker (idem-client's ExampleWorker) against a running server:
#   ./idem serve &                  # in another terminal, or any Idem server
#   scripts/example-worker.sh [redis://127.0.0.1:6379] [jobs]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/jdk.sh
idem_find_jdk25
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
build=(./mvnw -B -q -pl idem-core,idem-server,idem-client -am test-compile -Dspotless.check.skip=true)
"${build[@]}" -o >&2 || "${build[@]}" >&2
cp_file=idem-client/target/example.classpath
resolve=(./mvnw -B -q -pl idem-client dependency:build-classpath -Dmdep.outputFile="$PWD/$cp_file"
  -Dmdep.includeScope=test)
"${resolve[@]}" -o >&2 || "${resolve[@]}" >&2
exec "$JAVA_HOME/bin/java" -cp "idem-client/target/test-classes:idem-client/target/classes:$(cat "$cp_file")" \
  io.idem.client.example.ExampleWorker "${1:-redis://127.0.0.1:6379}" "${2:-100}"
