#!/usr/bin/env bash
# Runs the idempotency-keys guide's example (idem-client's PaymentServer): a payments API whose
# POST /payments charges once per Idempotency-Key, its keys on an Idem server:
#   ./idem serve &  scripts/example-payments.sh 8080
#   curl -i -X POST localhost:8080/payments -H 'Idempotency-Key: "order-7"' -d '{"amount":1200}'
#   scripts/example-payments.sh [port] [redis://127.0.0.1:6379]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/example-lib.sh
example_run PaymentServer "${1:-8080}" "${2:-redis://127.0.0.1:6379}"
