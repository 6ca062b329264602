#!/usr/bin/env bash
# Compares the tables in DIR (default: databases) with the known-good list
# databases/checksums.txt. Each table is first decoded in full (`morris stats --check`):
# every block is checked against its XXH3-64 and the content checksum against the
# block checksums, so the content, not only the checksum its header claims, is checked.
# Exits non-zero on any mismatch, on a table that fails to decode, or when no table of
# DIR is in the list.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-databases}
known=databases/checksums.txt
bin=${MORRIS:-target/release/morris}
[ -x "$bin" ] || cargo build --release --quiet
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
if ! "$bin" stats --db "$dir" --json --check > "$stats"; then
    echo "morris stats --check failed on $dir" >&2
    exit 1
fi
status=0; checked=0; unknown=0
while read -r sub sum; do
    want=$(awk -v s="$sub" '$1 == s {print $2}' "$known")
    if [ -z "$want" ]; then unknown=$((unknown + 1)); continue; fi
    checked=$((checked + 1))
    if [ "$sum" != "$want" ]; then
        echo "MISMATCH $sub: $sum, known good $want"; status=1
    fi
done < <(python3 -c 'import sys, json
for line in open(sys.argv[1]):
    o = json.loads(line); print(o["subspace"], o["checksum"])' "$stats")
echo "$checked tables decoded and compared with $known ($unknown not in the list)"
[ "$checked" -gt 0 ] || { echo "no table of $dir is in $known" >&2; exit 1; }
exit $status
