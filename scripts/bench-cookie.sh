#!/usr/bin/env bash
# Issue 34's seen-cache cookie sizes (10, 100 and 1000 items at 1 % and 0.1 %) beside seed 000's
# Guava filter in base64 for the same items, the rates both measure, and one request's cookie work
# on each (idem-bench's CookieSizes). Prints a Markdown table:
#   scripts/bench-cookie.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/jdk.sh
idem_find_jdk25 || exit 1
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/bench-lib.sh
bench_build bench-cookie
exec "$JAVA_HOME/bin/java" -Xmx1g -cp idem-bench/target/benchmarks.jar io.idem.bench.CookieSizes
