#!/usr/bin/env bash
# Builds the C library and capi/c/check.c with the system's cc, walks random games
# through the C API, and compares every answer (value, WDL, value by bitboards, every
# move's name, order and value) with the command line's `probe --json --moves`.
# Usage: scripts/c-check.sh [GAMES] (default 100); exits non-zero on any difference.
set -euo pipefail
games=${1:-100}
source "$(dirname "$0")/c-common.sh" check
LD_LIBRARY_PATH=target/release "$work/check" "$work/db" "........................ w 4 4" "$games" 17 > "$work/c.txt"
LD_LIBRARY_PATH=target/release "$work/check" "$work/db" "W..W....B..B....W....B.. w" "$games" 18 >> "$work/c.txt"
cut -d'|' -f1 "$work/c.txt" | target/release/morris probe --db "$work/db" --json --moves - > "$work/cli.jsonl"
python3 - "$work/c.txt" "$work/cli.jsonl" <<'PY'
import json, sys
c = open(sys.argv[1]).read().splitlines()
cli = [json.loads(l) for l in open(sys.argv[2])]
assert len(c) == len(cli) and c, (len(c), len(cli))
def val(j):
    return f'{j["result"]} {j["plies"] or 0}'
bad = 0
for line, j in zip(c, cli):
    pos, value, wdl, bits, moves = line.split('|')
    want_moves = ','.join(f'{m["move"]}={val(m)}' for m in j.get('moves', []))
    for what, got, want in [('value', value, val(j)), ('wdl', wdl, j['result']), ('bits', bits, val(j)), ('moves', moves, want_moves)]:
        if got != want:
            bad += 1
            if bad <= 10:
                print(f'{pos}: {what}: C says {got!r}, the CLI {want!r}')
print(f'c-check: {len(c)} positions, {sum(l.count("=") for l in c)} moves compared, {bad} differences')
sys.exit(1 if bad else 0)
PY
