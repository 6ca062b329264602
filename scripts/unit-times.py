#!/usr/bin/env python3
"""Solves every unit of a plan one process at a time and measures each.

    scripts/unit-times.py MORRIS DB [morris plan options...] > times.jsonl

Runs `MORRIS plan --db DB OPTIONS --json`, then `/usr/bin/time -v MORRIS solve --db DB
--unit ID -q` for each unit in the plan's order, and prints one JSON line per unit:
its `id`, `method`, `slots`, `read_slots`, the plan's estimates (`est_seconds`,
`est_memory_bytes`) and the measured `seconds` (wall) and `rss_bytes` (peak resident
set). The rates in src/solve/graph.rs were fitted to such lines, and
scripts/simulate-schedule.py reads them as measured unit times.
"""
import json
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    morris, db, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
    rules = []
    if "--rules" in opts:
        k = opts.index("--rules")
        rules = opts[k : k + 2]
        opts = opts[:k] + opts[k + 2 :]
    plan = json.loads(subprocess.run([morris, *rules, "plan", "--db", db, *opts, "--json"], check=True, capture_output=True, text=True).stdout)
    for unit in plan["units"]:
        run = subprocess.run(["/usr/bin/time", "-v", morris, *rules, "solve", "--db", db, "--unit", unit["id"], "-q"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"unit {unit['id']} failed: {run.stderr}")
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", run.stderr)
        seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1)) * 1024
        line = {
            "id": unit["id"],
            "method": unit["method"],
            "slots": unit["slots"],
            "read_slots": unit["read_slots"],
            "est_seconds": unit["seconds"],
            "est_memory_bytes": unit["memory_bytes"],
            "seconds": seconds,
            "rss_bytes": rss,
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
