#!/usr/bin/env bash
# Solves the whole of Six and Five Men's Morris (the 16-point board) from scratch, each
# under /usr/bin/time -v, verifies every table, and prints the start's value with the
# value of every first move (`morris draw`), the positions, the table bytes, the wall
# time and the peak memory.
# Usage: scripts/small_games.sh [DIR]   (default /tmp/small-games)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/small-games}
bin=${MORRIS:-target/release/morris}
[ -x "$bin" ] || cargo build --release --quiet
for rules in six five; do
  rm -rf "${dir:?}/$rules"
  log=$(mktemp)
  /usr/bin/time -v "$bin" solve --rules "$rules" --db "$dir/$rules" --all -q > /dev/null 2> "$log"
  wall=$(grep -o 'Elapsed (wall clock) time.*' "$log" | awk '{print $NF}')
  peak=$(grep -o 'Maximum resident set size.*' "$log" | awk '{printf "%.0f MB", $NF / 1024}')
  echo "== $rules: solve $wall, peak $peak"
  "$bin" verify --rules "$rules" --db "$dir/$rules" --all | tail -1
  "$bin" stats --rules "$rules" --db "$dir/$rules" | tail -1
  "$bin" draw --rules "$rules" --db "$dir/$rules"
  rm -f "$log"
done
