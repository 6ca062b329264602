#!/usr/bin/env python3
"""A simulated schedule of a plan's units on W workers.

    morris plan --all --json > plan.json
    scripts/simulate-schedule.py plan.json [--times times.jsonl] [--workers 1,4,16,64]

Reads the graph of `morris plan --json` (each unit's `seconds` is the plan's estimate;
`--times` replaces them by the measured `seconds` of scripts/unit-times.py lines where
it has the unit) and prints, for each number of workers, the makespan of a list
schedule: whenever a worker is free it takes, among the units whose dependencies are
done, the one with the longest chain of work still behind it (its bottom level). It
also prints the critical path (no number of workers finishes sooner) and the total work
(one worker). A worker is one machine running one unit at a time; memory is not
modelled.
"""
import argparse
import heapq
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("plan")
    ap.add_argument("--times", help="JSON lines of scripts/unit-times.py: measured seconds by unit id")
    ap.add_argument("--workers", default="1,4,16,64")
    args = ap.parse_args()
    with open(args.plan) as f:
        units = json.load(f)["units"]
    seconds = {u["id"]: u["seconds"] for u in units}
    measured = 0
    if args.times:
        with open(args.times) as f:
            for line in f:
                row = json.loads(line)
                if row["id"] in seconds:
                    seconds[row["id"]] = row["seconds"]
                    measured += 1
    deps = {u["id"]: u["depends_on"] for u in units}
    users = {u["id"]: [] for u in units}
    for u in units:
        for d in u["depends_on"]:
            users[d].append(u["id"])

    # Bottom levels, from the last unit back (the plan lists dependencies first).
    bottom = {}
    for u in reversed(units):
        bottom[u["id"]] = seconds[u["id"]] + max((bottom[x] for x in users[u["id"]]), default=0.0)
    critical = max(bottom.values(), default=0.0)
    work = sum(seconds.values())
    print(f"{len(units)} units ({measured} with measured times), total work {work:.0f} s, critical path {critical:.0f} s")
    print(f"{'workers':>8} {'makespan s':>11} {'speedup':>8} {'efficiency':>11}")
    for w in [int(x) for x in args.workers.split(",")]:
        span = makespan(units, deps, users, seconds, bottom, w)
        print(f"{w:>8} {span:>11.0f} {work / span:>8.2f} {work / span / w:>10.0%}")


def makespan(units, deps, users, seconds, bottom, workers):
    waiting = {u["id"]: len(deps[u["id"]]) for u in units}
    ready = [(-bottom[i], i) for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    running = []  # (finish time, id)
    now, free = 0.0, workers
    while ready or running:
        while free and ready:
            _, i = heapq.heappop(ready)
            heapq.heappush(running, (now + seconds[i], i))
            free -= 1
        now, done = heapq.heappop(running)
        free += 1
        for x in users[done]:
            waiting[x] -= 1
            if waiting[x] == 0:
                heapq.heappush(ready, (-bottom[x], x))
    return now


if __name__ == "__main__":
    main()
