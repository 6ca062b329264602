#!/usr/bin/env bash
# Compares the content checksums of the tables in DIR (default: databases) with the
# known-good list databases/checksums.txt. Exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-databases}
known=databases/checksums.txt
bin=${MORRIS:-target/release/morris}
[ -x "$bin" ] || cargo build --release --quiet
status=0; checked=0
while read -r sub sum; do
    [ -z "$sub" ] || [ "${sub:0:1}" = "#" ] && continue
    want=$(grep -E "^$sub " "$known" | awk '{print $2}' || true)
    [ -z "$want" ] && continue
    checked=$((checked + 1))
    if [ "$sum" != "$want" ]; then
        echo "MISMATCH $sub: $sum, known good $want"; status=1
    fi
done < <("$bin" stats --db "$dir" --json | python3 -c 'import sys, json
for line in sys.stdin:
    o = json.loads(line); print(o["subspace"], o["checksum"])')
echo "$checked tables compared with $known"
exit $status
