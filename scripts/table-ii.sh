#!/usr/bin/env bash
# Computes Gévay & Danner's Table II entries (value for White of the empty board with
# WK and BK stones to place) for every WK-BK whose movement tables exist in DIR, and
# compares them with the published values. Usage: scripts/table-ii.sh [DIR]
# MAX_STONES=N skips entries with WK+BK > N; ONLY="8-7 9-8" computes just those.
# Each entry is read from the placement tables when `morris solve --start WK-BK` wrote
# them, and searched over the movement tables otherwise; SEARCH=1 always searches.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-databases}
bin=${MORRIS:-target/release/morris}
[ -x "$bin" ] || cargo build --release --quiet
# rows WK = 3..9, columns BK = 3..9 (docs/rules.md, "Published figures")
table=(
"W23 D D L12 L12 L12 L12"
"D D D D L20 L16 L16"
"W9 D D D L24 L22 L20"
"W9 D D D L34 L26 L24"
"W9 W17 W25 W33 D L36 L28"
"W9 W15 W21 W25 W33 D L36"
"W9 W15 W19 W23 W27 W35 D"
)
max=${MAX_STONES:-18}
status=0
for wk in 3 4 5 6 7 8 9; do
  row=(${table[$((wk-3))]})
  for bk in 3 4 5 6 7 8 9; do
    [ $((wk+bk)) -le "$max" ] || continue
    [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $wk-$bk "* ]] || continue
    want=${row[$((bk-3))]}
    if ! line=$(/usr/bin/time -f "%e %M" -o /tmp/table-ii.time "$bin" draw --db "$dir" --stones "$wk-$bk" --json ${SEARCH:+--search} 2>/tmp/table-ii.err | tail -1) || [ -z "$line" ]; then
      echo "$wk-$bk: $(grep -m1 error /tmp/table-ii.err || echo failed)"
      grep -q "missing movement tables" /tmp/table-ii.err || status=1
      continue
    fi
    got=$(python3 -c 'import json,sys; o=json.loads(sys.argv[1]); r={"win":"W","loss":"L","draw":"D"}[o["result"]]; print(r + (str(o["plies"]) if o["plies"] is not None else ""))' "$line")
    method=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("method", "search"))' "$line")
    read -r secs kb < /tmp/table-ii.time
    mark=ok; [ "$got" = "$want" ] || { mark=MISMATCH; status=1; }
    printf '%s-%s  %-4s published %-4s %s  (%s, %s s, %s MB)\n' "$wk" "$bk" "$got" "$want" "$mark" "$method" "$secs" "$((kb/1024))"
  done
done
exit $status
