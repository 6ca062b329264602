#!/usr/bin/env bash
# The figures of a whole game once `morris solve --rules R --all` has finished: every
# table checked in full, the forward verification (timed), the statistics as JSON,
# the start's value with every first move, the shares and longest values over the
# whole game, and the disk size full, compact and `--wdl` compact (from the dry runs,
# which write nothing).
#
#   scripts/whole-game.sh RULES DB OUT [MORRIS]
#
# RULES is a rule set (lasker, morabaraba, ...), DB the solved directory, OUT a new
# directory for the reports; MORRIS defaults to target/release/morris. Each step is
# skipped when its report is already in OUT, so a rerun after an interruption
# continues. SCOPE (default --all) narrows it to a smaller game for a trial, for
# example SCOPE="--start 5-5". VERIFY=0 leaves the verification (the longest step)
# for a later run, and prints the other figures now.
set -euo pipefail
RULES=${1:?usage: whole-game.sh RULES DB OUT [MORRIS]}
DB=${2:?usage: whole-game.sh RULES DB OUT [MORRIS]}
OUT=${3:?usage: whole-game.sh RULES DB OUT [MORRIS]}
MORRIS=${4:-target/release/morris}
SCOPE=${SCOPE:---all}
mkdir -p "$OUT"
step() {
    local name=$1
    shift
    if [ -s "$OUT/$name.done" ]; then
        echo "$name: done before"
        return
    fi
    # An earlier leg cut short keeps its report, for its peak memory.
    [ -e "$OUT/$name.time" ] && mv "$OUT/$name.time" "$OUT/$name.time.$(date +%s)"
    echo "$name: $*"
    /usr/bin/time -v "$@" >"$OUT/$name.txt" 2>"$OUT/$name.time"
    date -u +%FT%TZ >"$OUT/$name.done"
}
step check nice "$MORRIS" stats --rules "$RULES" --db "$DB" --check
step stats nice "$MORRIS" stats --rules "$RULES" --db "$DB" --json
# The start: both hands full, an empty board, White to move.
stones=$("$MORRIS" plan --rules "$RULES" $SCOPE --json --db "$DB" | python3 -c '
import json, sys
units = json.load(sys.stdin)["units"]
print(max(max(int(x) for x in s.split("-")[2:]) for u in units for s in u["sectors"] if s.count("-") == 3))')
step start "$MORRIS" probe --rules "$RULES" --db "$DB" --json --moves "........................ w $stones $stones"
du -sb "$DB" | cut -f1 >"$OUT/size-full.txt"
# The compact sets' sizes from their dry runs, which foretell the bytes written
# exactly (tests/compact.rs), so a whole game's copies need no disk of their own.
for kind in compact compact-wdl; do
    if [ ! -s "$OUT/size-$kind.txt" ]; then
        "$MORRIS" compact --rules "$RULES" --db "$DB" --out "$OUT/$kind" --dry-run $([ $kind = compact-wdl ] && echo --wdl) \
            >"$OUT/$kind-left-out.txt" 2>"$OUT/$kind-dry-run.txt"
        sed -n 's/.*: \([0-9]*\) bytes would be written.*/\1/p' "$OUT/$kind-dry-run.txt" >"$OUT/size-$kind.txt"
    fi
done
# Last, as it takes longest: the journal lets a verification cut short resume, table
# by table, and its seconds add up the legs.
[ "${VERIFY:-1}" = 0 ] || step verify nice "$MORRIS" verify --rules "$RULES" --db "$DB" $SCOPE --journal "$OUT/verify.journal"
python3 - "$OUT" <<'EOF'
import json, sys, re, pathlib
out = pathlib.Path(sys.argv[1])
rows = [json.loads(l) for l in (out / "stats.txt").read_text().splitlines() if l.startswith("{")]
keys = set().union(*(r.keys() for r in rows))
def num(r, *names):
    for n in names:
        if n in r:
            return r[n]
    raise KeyError(f"none of {names} in {sorted(keys)}")
pos = sum(num(r, "positions") for r in rows)
w = sum(num(r, "wins") for r in rows)
d = sum(num(r, "draws") for r in rows)
l = sum(num(r, "losses") for r in rows)
deepest = max(rows, key=lambda r: max(num(r, "max_win"), num(r, "max_loss")))
print(f"tables {len(rows)}, positions {pos}")
print(f"wins {100 * w / pos:.1f} %, draws {100 * d / pos:.1f} %, losses {100 * l / pos:.1f} %")
print(f"longest: {max(num(deepest, 'max_win'), num(deepest, 'max_loss'))} plies, in {num(deepest, 'subspace')}")
for name in ["full", "compact", "compact-wdl"]:
    f = out / f"size-{name}.txt"
    if f.exists():
        b = int(f.read_text())
        print(f"size {name}: {b / 1e9:.2f} GB, {8 * b / pos:.3f} bits a position")
for name in ["verify", "check"]:
    legs = sorted(out.glob(f"{name}.time*"))
    if not legs:
        continue
    rss = max(int(m.group(1)) for f in legs for m in [re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read_text())] if m)
    walls = [re.search(r"Elapsed \(wall clock\) time.*: (\S+)", f.read_text()) for f in legs]
    wall = ", ".join(m.group(1) for m in walls if m)
    print(f"{name}: {wall} wall in {len(legs)} legs, {rss / 1e6:.2f} GB peak")
journal = out / "verify.journal"
if journal.exists():
    rows = [l.split() for l in journal.read_text().splitlines() if not l.startswith("#") and len(l.split()) == 5]
    secs, cpu = sum(float(r[3]) for r in rows), sum(float(r[4]) for r in rows)
    print(f"verify, table by table from the journal: {secs:.0f} s ({secs / 3600:.2f} h) wall, {cpu:.0f} CPU seconds ({cpu / 3600:.2f} h)")
if (out / "verify.done").exists():
    print((out / "verify.txt").read_text().strip().splitlines()[-1])
else:
    print("verify: not finished")
start = json.loads((out / "start.txt").read_text().splitlines()[0])
print("start:", {k: v for k, v in start.items() if k != "moves"})
for m in start.get("moves", []):
    print("  ", m.get("move"), m.get("result"), m.get("plies"))
EOF
