"""WDL probes per second from Python, batched and one at a time, on one core by
default (RAYON_NUM_THREADS=1 before the import). Usage: python bench.py DB [N]
(scripts/python-bench.sh builds the wheel and a small set)."""

import os
import random
import sys
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")
import morris  # noqa: E402

db = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
rng = random.Random(1)
positions = []
for _ in range(n):
    s, o = rng.choice([(3, 3), (3, 4), (4, 3), (4, 4), (3, 5), (5, 3)])
    points = rng.sample(range(24), s + o)
    board = ["."] * 24
    for k, p in enumerate(points):
        board[p] = "W" if k < s else "B"
    positions.append("".join(board) + " w")
tb = morris.Tablebase(db)
tb.probe_wdl_batch(positions)  # warm the page cache and the block cache
t = time.perf_counter()
tb.probe_wdl_batch(positions)
batched = n / (time.perf_counter() - t)
t = time.perf_counter()
for p in positions[: n // 10]:
    tb.probe_wdl(p)
single = (n // 10) / (time.perf_counter() - t)
threads = os.environ["RAYON_NUM_THREADS"]
print(f"{n} random movement positions (s, o <= 5), {threads} thread(s): {batched:,.0f} WDL probes/s batched, {single:,.0f}/s one call each")
