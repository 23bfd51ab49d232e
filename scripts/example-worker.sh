#!/usr/bin/env bash
# Runs the client guide's example worker (idem-client's ExampleWorker) against a running server:
#   ./idem serve &                  # in another terminal, or any Idem server
#   scripts/example-worker.sh [redis://127.0.0.1:6379] [jobs]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/example-lib.sh
example_run ExampleWorker "${1:-redis://127.0.0.1:6379}" "${2:-100}"
