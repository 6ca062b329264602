#!/usr/bin/env bash
# Solves the Lasker and Morabaraba starts with WK, BK <= MAX (default 5; every one into one directory
# per rule set), each under /usr/bin/time -v, and compares the value of each empty board
# with Gévay & Danner's Tables III and IV (docs/rules.md). Prints one line per start:
# rule set, start, value, published value, wall time of that start's solve (the tables
# of earlier starts are kept, so each time is what the start adds), peak memory.
# Starts beyond 5 have no published value ("-"): only those up to 5 can differ.
# Usage: scripts/variants.sh [DIR]   (default /tmp/variants; RULES="lasker" for one set,
# MAX=7 for the starts up to 7-7, SEARCH=1 to value each empty board a second time by
# the placement search over the movement tables alone, `draw --search`, which shares no
# code with the induction that wrote the sector tables; Lasker's is refused: cycles)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/variants}
bin=${MORRIS:-target/release/morris}
[ -x "$bin" ] || cargo build --release --quiet
declare -A published=(
  [lasker,3-3]=W23 [lasker,3-4]=D [lasker,3-5]=D
  [lasker,4-3]=D [lasker,4-4]=D [lasker,4-5]=D
  [lasker,5-3]=W9 [lasker,5-4]=D [lasker,5-5]=D
  [morabaraba,3-3]=W9 [morabaraba,3-4]=D [morabaraba,3-5]=L12
  [morabaraba,4-3]=W9 [morabaraba,4-4]=D [morabaraba,4-5]=D
  [morabaraba,5-3]=W9 [morabaraba,5-4]=D [morabaraba,5-5]=D
)
status=0
for rules in ${RULES:-lasker morabaraba}; do
  for wk in $(seq 3 "${MAX:-5}"); do
    for bk in $(seq 3 "${MAX:-5}"); do
      log=$(mktemp)
      /usr/bin/time -v "$bin" solve --rules "$rules" --db "$dir/$rules" --start "$wk-$bk" -q > /dev/null 2> "$log"
      wall=$(grep -o 'Elapsed (wall clock) time.*' "$log" | awk '{print $NF}')
      peak=$(grep -o 'Maximum resident set size.*' "$log" | awk '{printf "%.0f MB", $NF / 1024}')
      value() {
        "$bin" draw --rules "$rules" --db "$dir/$rules" --stones "$wk-$bk" --json "$@" | tail -1 |
          python3 -c 'import json,sys; j=json.load(sys.stdin); r=j["result"]; print({"win":"W","loss":"L","draw":"D"}[r] + ("" if j["plies"] is None else str(j["plies"])))'
      }
      got=$(value)
      searched=""
      if [ "${SEARCH:-0}" = 1 ] && [ "$rules" != lasker ]; then
        s=$(value --search)
        if [ "$s" = "$got" ]; then searched="  search $s"; else searched="  SEARCH DIFFERS: $s"; status=1; fi
      fi
      want=${published[$rules,$wk-$bk]:--}
      mark=ok
      if [ "$want" = - ]; then mark=unpublished
      elif [ "$got" != "$want" ]; then mark=DIFFERS; status=1; fi
      printf '%-11s %s  %-4s published %-4s %s  %9s  %s%s\n' "$rules" "$wk-$bk" "$got" "$want" "$mark" "$wall" "$peak" "$searched"
      rm -f "$log"
    done
  done
done
exit $status
