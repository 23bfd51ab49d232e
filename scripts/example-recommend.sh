#!/usr/bin/env bash
# Runs the seen-cache guide's example (idem-client's RecommendServer): a page that recommends
# articles not shown before, remembering them in a signed cookie (default) or on an Idem server:
#   scripts/example-recommend.sh 8080                # then open http://127.0.0.1:8080/
#   ./idem serve &  scripts/example-recommend.sh 8080 server redis://127.0.0.1:6379
# The cookie's key comes from IDEM_COOKIE_KEY (64 hex digits); without it, a random one per run.
#   scripts/example-recommend.sh [port] [cookie | server [redis://127.0.0.1:6379]]
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
  io.idem.client.example.RecommendServer "${1:-8080}" "${2:-cookie}" "${3:-redis://127.0.0.1:6379}"
