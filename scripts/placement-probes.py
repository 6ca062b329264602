#!/usr/bin/env python3
"""Times placement-phase probes of the standard game in one warm `morris probe` process.

Plays random games from the 9-9 empty board through `morris probe - --json --moves`
(one line in, one line out) and records how long each probe of a position with stones
in hand takes, by ply. The first probe loads the tables it needs; later ones are warm.
The process's transposition table is kept between probes, as a probing program would.

Usage: scripts/placement-probes.py DB [GAMES] [FIRST_PLY]
Positions before FIRST_PLY (default 4) are played at random without being timed.
"""
import json, random, statistics, subprocess, sys, time

db = sys.argv[1]
games = int(sys.argv[2]) if len(sys.argv) > 2 else 10
first = int(sys.argv[3]) if len(sys.argv) > 3 else 4
binary = "target/release/morris"
rng = random.Random(20261202)
start = "........................ w 9 9"


proc = subprocess.Popen([binary, "probe", "--db", db, "--json", "--moves", "-"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def probe(pos):
    proc.stdin.write(pos + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def random_prefix(plies):
    """A position after `plies` random placements from the start (no captures check
    needed: the placements are read back from a position string)."""
    board = ["."] * 24
    for p in range(plies):
        colour = "W" if p % 2 == 0 else "B"
        empty = [i for i, c in enumerate(board) if c == "."]
        board[rng.choice(empty)] = colour
    side = "w" if plies % 2 == 0 else "b"
    return "".join(board) + f" {side} {9 - (plies + 1) // 2} {9 - plies // 2}"


by_ply = {}
loaded = None
for g in range(games):
    pos = random_prefix(first)
    ply = first
    while True:
        t0 = time.time()
        r = probe(pos)
        secs = time.time() - t0
        if "error" in r:
            sys.exit(f"{pos}: {r['error']}")
        if loaded is None:
            loaded = secs
            print(f"first probe (loads tables): {secs:.1f} s")
        else:
            by_ply.setdefault(ply, []).append(secs)
        print(f"game {g} ply {ply:2} {pos}  {r['result']:4} {r['plies'] or '':>3}  {secs:7.3f} s", flush=True)
        moves = r["moves"]
        if not moves or pos.split()[2:] in ([], ["0", "0"]):
            break
        pos = rng.choice(moves)["position"]
        ply += 1
        if len(pos.split()) == 2:  # movement phase: the placement game is over
            break

proc.stdin.close()
proc.wait()
print("\nply  probes  median s  max s")
for ply in sorted(by_ply):
    t = by_ply[ply]
    print(f"{ply:3}  {len(t):6}  {statistics.median(t):8.3f}  {max(t):6.3f}")
allt = [x for t in by_ply.values() for x in t]
print(f"all  {len(allt):6}  {statistics.median(allt):8.3f}  {max(allt):6.3f}")
