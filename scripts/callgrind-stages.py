#!/usr/bin/env python3
"""Instructions of a solve by stage and by component (issue 31, docs/measurements.md).

Usage: callgrind-stages.py CALLGRIND_OUT

CALLGRIND_OUT is from `valgrind --tool=callgrind --separate-callers=8`, so that each
`cpu::with_features` frame (every hot loop runs in one, with everything inlined) is
named with its callers: the stage is that calling context, the component the source
file of each inlined line (callgrind's `fi=`/`fe=`). Prints a Markdown table of self
cost, in G instructions, by stage and component.
"""
import collections
import re
import sys

names = {"fl": {}, "fn": {}}


def name(kind, rest):
    m = re.match(r"\((\d+)\)(?: (.*))?", rest)
    if not m:
        return rest
    d = names[kind]
    if m.group(2) is not None:
        d[m.group(1)] = m.group(2)
    return d[m.group(1)]


# self cost by (context, file)
cost = collections.defaultdict(collections.Counter)
fl = fi = fn = None
pending_call = False
with open(sys.argv[1]) as f:
    for line in f:
        line = line.rstrip("\n")
        if not line:
            continue
        if line[0].isdigit() or line[0] in "+-*":
            parts = line.split()
            if len(parts) < 2:
                continue
            if pending_call:  # the inclusive cost of a call, not self cost
                pending_call = False
            else:
                cost[fn][fi] += int(parts[1])
            continue
        key, _, rest = line.partition("=")
        if key == "fl":
            fl = fi = name("fl", rest)
        elif key in ("fi", "fe"):
            fi = name("fl", rest)
        elif key == "fn":
            fn = name("fn", rest)
            fi = fl
        elif key in ("cfl", "cfi"):
            name("fl", rest)
        elif key == "cfn":
            name("fn", rest)
        elif key == "calls":
            pending_call = True


def stage(fn, files):
    if "initialise::initialise" in fn:
        return "initialise"
    if "induction::solve_sector" in fn:
        return "induction"
    if "fill_holes" in fn:
        return "write: fill_holes"
    if any(k in fn for k in ("planes_of", "ZSTD_", "zstd", "writer::compress", "xxh")):
        return "write: planes, zstd, xxh3"
    if "decode_block" in fn or "reader" in fn:
        return "read tables"
    if fn.startswith("morris::cpu::with_features"):
        # propagation and Stats::of_deep share their rayon calling context
        if any(f and ("propagate.rs" in f or "values.rs" in f) for f in files):
            return "propagate (+ Stats::of_deep)"
        if any(f and "stats.rs" in f for f in files):
            return "Stats::of_deep"
    if "with_features" in fn and "call_mut" in fn and "sort" in fn:
        return "propagate (+ Stats::of_deep)"
    return "rest"


GROUPS = [
    ("indexing", ["position/index.rs", "position/combin.rs", "rules/symmetry.rs", "sync/once_lock.rs", "num/uint_macros.rs", "core/src/option.rs"]),
    ("move, unmove generation", ["rules/game.rs", "rules/geometry.rs", "rules/movegen.rs", "rules/ply.rs", "rules/board24.rs"]),
    ("exits, child values", ["retro/exits.rs", "position/value.rs", "position/wld.rs"]),
    ("distinct (sort, dedup)", ["retro/distinct.rs", "slice/sort/"]),
    ("loop, counters, atomics, level lists", ["retro/initialise.rs", "retro/propagate.rs", "retro/values.rs", "retro/frontier.rs", "sync/atomic.rs", "raw_vec", "alloc/src/vec/", "x86/sse.rs", "table/stats.rs", "table/writer.rs", "placement/induction.rs"]),
    ("zstd, xxh3", [".c", ".h", "xxhash"]),
]
COLS = [g for g, _ in GROUPS] + ["rest"]


def group(f):
    for g, keys in GROUPS:
        if f and any(k in f for k in keys):
            return g
    return "rest"


table = collections.defaultdict(collections.Counter)
for fn, files in cost.items():
    s = stage(fn, files)
    for f, v in files.items():
        table[s][group(f)] += v
total = sum(sum(c.values()) for c in table.values())
print(f"total {total:,} instructions")
print("| stage | " + " | ".join(COLS) + " | total |")
print("|---|" + "---:|" * (len(COLS) + 1))
every = collections.Counter()
for s in sorted(table, key=lambda s: -sum(table[s].values())):
    t = sum(table[s].values())
    every.update(table[s])
    print(f"| {s} | " + " | ".join(f"{table[s][c] / 1e9:.2f}" for c in COLS) + f" | {t / 1e9:.2f} ({100 * t / total:.1f} %) |")
print("| all | " + " | ".join(f"{every[c] / 1e9:.2f} ({100 * every[c] / total:.1f} %)" for c in COLS) + f" | {total / 1e9:.2f} |")
