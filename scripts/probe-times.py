#!/usr/bin/env python3
"""Cold and warm probe times on a table directory.

Cold: N separate `morris probe --json POSITION` processes (each opens the tables,
reads the blocks it needs and exits), timed with /usr/bin/time: wall seconds and peak
RSS. Warm: one `morris probe --json -` process answering the same positions in a batch.
Positions are random positions of the standard game's sectors present in DB: random
stones with stones in hand for a placement sector (the hands of a real game: the side
to move has as many in hand as the opponent, or one more), none for a movement one.

Usage: scripts/probe-times.py DB [N] [--moves]
SECTORS_FROM=DIR draws the positions from DIR's sectors instead (for a compact set,
whose left-out sectors have no file: SECTORS_FROM=the full set).
"""
import json, os, random, statistics, subprocess, sys, time

db = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 20
moves = "--moves" in sys.argv
binary = os.environ.get("MORRIS", "target/release/morris")
rng = random.Random(20261203)

sectors = []
for f in os.listdir(os.environ.get("SECTORS_FROM", db)):
    if f.endswith(".mtb"):
        parts = [int(x) for x in f[:-4].split("-")]
        sectors.append(parts + [0, 0] if len(parts) == 2 else parts)


def random_position(placement):
    while True:
        s, o, sh, oh = rng.choice(sectors)
        if (sh + oh > 0) != placement or oh not in (sh, sh - 1, 0):
            continue
        pts = rng.sample(range(24), s + o)
        board = ["."] * 24
        side = rng.choice("wb")
        mine, theirs = ("W", "B") if side == "w" else ("B", "W")
        for p in pts[:s]:
            board[p] = mine
        for p in pts[s:]:
            board[p] = theirs
        wh, bh = (sh, oh) if side == "w" else (oh, sh)
        return "".join(board) + f" {side}" + (f" {wh} {bh}" if sh + oh else "")


for placement in (True, False):
    kind = "placement" if placement else "movement"
    positions = [random_position(placement) for _ in range(n)]
    walls, rss = [], []
    for pos in positions:
        args = [binary, "probe", "--db", db, "--json", pos]
        t0 = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if out.returncode != 0:
            sys.exit(f"{pos}: {out.stdout} {out.stderr}")
        kb = out.stderr.strip().splitlines()[-1]
        rss.append(int(kb) / 1024)
    print(f"cold {kind}: {n} processes, wall median {statistics.median(walls)*1000:.0f} ms, "
          f"max {max(walls)*1000:.0f} ms; peak RSS median {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB")
    proc = subprocess.Popen([binary, "probe", "--db", db, "--json"] + (["--moves"] if moves else []) + ["-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t0 = time.time()
    out, _ = proc.communicate("\n".join(positions * 50) + "\n")
    secs = time.time() - t0
    answers = [json.loads(l) for l in out.splitlines()]
    assert all("result" in a for a in answers), [a for a in answers if "result" not in a][:3]
    print(f"warm {kind}: {len(answers)} probes{' with every move' if moves else ''} in one process, "
          f"{len(answers)/secs:.0f} probes/s (process start and table opening included)")
