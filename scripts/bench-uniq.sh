#!/usr/bin/env bash
# `idem uniq` beside `awk '!seen[$0]++'` and `sort -u`, in one run, on one generated file:
# LINES lines (default 10 M) of which 20 % repeat an earlier line. Prints wall time and peak
# resident memory of each, and checks that idem's output equals awk's byte for byte.
#   scripts/bench-uniq.sh            # 10 M lines
#   LINES=1000000 scripts/bench-uniq.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
lines=${LINES:-10000000}
out=bench-out
mkdir -p "$out"
input="$out/uniq-$lines.txt"

if [ ! -s "$input" ]; then
  echo "generating $input ..." >&2
  # Line k is "evt:<k>:<8 hex digits>"; each line repeats a uniformly chosen earlier line with
  # probability 0.2, else is the next new one. mawk's srand(42) makes the file reproducible.
  awk -v n="$lines" 'BEGIN {
    srand(42); fresh = 0
    for (i = 0; i < n; i++) {
      if (fresh > 0 && rand() < 0.2) k = int(rand() * fresh); else k = fresh++
      printf "evt:%010d:%08x\n", k, (k * 2654435761) % 4294967296
    }
  }' > "$input"
fi
distinct=$(awk '!seen[$0]++' "$input" | wc -l)
echo "input: $input, $(wc -l < "$input") lines, $distinct distinct, $(du -h "$input" | cut -f1)" >&2

./idem --version > /dev/null # build the distribution first, outside the timings
# Warm the page cache so every tool reads from memory.
cat "$input" > /dev/null

run() { # name, command...: prints "| name | seconds | peak MB |"
  local name=$1; shift
  local t
  t=$( { /usr/bin/time -f '%e %M' "$@" > "$out/uniq-out-$name.txt"; } 2>&1 | tail -n 1)
  awk -v n="$name" -v s="${t% *}" -v kb="${t#* }" 'BEGIN { printf "| %s | %s | %.0f |\n", n, s, kb / 1024 }'
}

echo "| tool | wall s | peak RSS MB |"
echo "|---|---:|---:|"
run "idem-uniq-exact" ./idem uniq "$input"
run "idem-uniq-error-1e-6" ./idem uniq --error 1e-6 "$input"
run "awk" awk '!seen[$0]++' "$input"
run "sort-u" sort -u "$input"
if cmp -s "$out/uniq-out-idem-uniq-exact.txt" "$out/uniq-out-awk.txt"; then
  echo "idem uniq output == awk output" >&2
else
  echo "MISMATCH: idem uniq output differs from awk's" >&2
  exit 1
fi
