#!/usr/bin/env python3
"""Measured unit times from the log of a whole-directory solve.

    morris plan --rules R --all --json --db DB > plan.json
    scripts/log-unit-times.py plan.json solve.log [solve.log ...] > times.jsonl

Reads the table lines that `morris solve` prints (sector, positions, W/D/L, deepest
win and loss, time in seconds, ...), over every leg of a solve that was interrupted
and resumed, and prints one JSON line per unit of the plan whose tables all have a
measured time: its `id`, `method`, `slots`, the plan's estimate `est_seconds`, and the
measured `seconds` (a table solved again after an interruption counts its last
complete time). Every table of a unit carries the unit's time, so a unit's time is its
tables' greatest, not their sum. Where the lines have the CPU seconds column (builds
from 2026-12-07 on), `cpu_seconds` is the unit's too: beside other work it says more
of the unit's own cost than the wall time. Lines of tables that a leg kept ("kept")
carry no time and are skipped. scripts/simulate-schedule.py --times reads the output. Units with a table never timed are counted on standard error.
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        units = json.load(f)["units"]
    times, cpus = {}, {}
    for log in sys.argv[2:]:
        with open(log) as f:
            for line in f:
                parts = line.split()
                # sector positions wins draws losses maxW maxL time pos/s bits/pos [cpu]
                if len(parts) not in (10, 11) or not parts[1].isdigit():
                    continue
                try:
                    times[parts[0]] = float(parts[7])
                except ValueError:
                    continue  # "kept"
                cpus.pop(parts[0], None)
                if len(parts) == 11:
                    try:
                        cpus[parts[0]] = float(parts[10])
                    except ValueError:
                        pass
    missing = 0
    for u in units:
        secs = [times.get(s) for s in u["sectors"]]
        if any(t is None for t in secs):
            missing += 1
            continue
        row = {"id": u["id"], "method": u["method"], "slots": u["slots"], "est_seconds": u["seconds"], "seconds": max(secs)}
        cpu = [cpus.get(s) for s in u["sectors"]]
        if all(c is not None for c in cpu):
            row["cpu_seconds"] = max(cpu)
        print(json.dumps(row))
    print(f"{len(units) - missing} of {len(units)} units timed, {missing} with a table never timed", file=sys.stderr)


if __name__ == "__main__":
    main()
