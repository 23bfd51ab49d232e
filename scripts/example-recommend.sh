#!/usr/bin/env bash
# Runs the seen-cache guide's example (idem-client's RecommendServer): a page that recommends
# articles not shown before, remembering them in a signed cookie (default) or on an Idem server:
#   scripts/example-recommend.sh 8080                # then open http://127.0.0.1:8080/
#   ./idem serve &  scripts/example-recommend.sh 8080 server redis://127.0.0.1:6379
# The cookie's key comes from IDEM_COOKIE_KEY (64 hex digits); without it, a random one per run.
#   scripts/example-recommend.sh [port] [cookie | server [redis://127.0.0.1:6379]]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/example-lib.sh
example_run RecommendServer "${1:-8080}" "${2:-cookie}" "${3:-redis://127.0.0.1:6379}"
