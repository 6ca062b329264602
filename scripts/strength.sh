#!/usr/bin/env bash
# Issue 17's strength measurement: the perfect player (strong, then ultra) as White and
# as Black against alphabeta at four node budgets, GAMES games a cell, from the
# standard 9-9 start. Needs the whole standard set with classes:
#   morris solve --all --ultra --db DB
# Usage: scripts/strength.sh DB [GAMES] [PLAYERS]   (PLAYERS default "strong ultra")
# BUDGETS="N ..." overrides the budgets. Prints one JSON line a match (morris match --json) to stdout, and a table to stderr.
# RESUME=FILE (the stdout of an interrupted run) takes every match FILE already holds
# (same players, games and seed) from it instead of playing it again.
set -euo pipefail
db=${1:?usage: scripts/strength.sh DB [GAMES] [PLAYERS]}
games=${2:-100}
players=${3:-strong ultra}
morris=${MORRIS:-target/release/morris}
budgets=${BUDGETS:-100000 250000 640000 1600000}
for perfect in $players; do
  for nodes in $budgets; do
    ab="alphabeta:nodes=$nodes"
    for side in white black; do
      if [ "$side" = white ]; then w=$perfect b=$ab; else w=$ab b=$perfect; fi
      line=""
      if [ -n "${RESUME:-}" ] && [ -f "$RESUME" ]; then
        line=$(python3 - "$RESUME" "$w" "$b" "$games" <<'EOF'
import json, sys
path, w, b, games = sys.argv[1:]
for l in open(path):
    try:
        j = json.loads(l)
    except ValueError:
        continue
    if (j.get("white"), j.get("black"), j.get("games"), j.get("seed")) == (w, b, int(games), 17):
        print(l.strip())
        break
EOF
)
      fi
      if [ -z "$line" ]; then
        line=$("$morris" match --db "$db" --white "$w" --black "$b" --games "$games" --seed 17 --json -q)
      fi
      echo "$line"
      python3 - "$perfect" "$nodes" "$side" "$line" >&2 <<'EOF'
import json, sys
perfect, nodes, side, line = sys.argv[1:]
j = json.loads(line)
wins = j["white_wins"] if side == "white" else j["black_wins"]
losses = j["black_wins"] if side == "white" else j["white_wins"]
lo, hi = j["white_win_ci95"] if side == "white" else j["black_win_ci95"]
print(f"{perfect:6} as {side:5} vs alphabeta {int(nodes):>9,}: won {wins}/{j['games']} "
      f"({100 * wins / j['games']:.1f} %, CI {100 * lo:.1f}-{100 * hi:.1f} %), lost {losses}, "
      f"{j['average_plies']:.1f} plies, {j['seconds']:.0f} s")
EOF
    done
  done
done
