#!/usr/bin/env bash
# Load test of `morris serve` on loopback: wrk with 8 and 32 concurrent clients, each
# request a probe of a random position from random games (placement and movement).
# Prints requests per second and the p50 / p99 latency; fails if any request fails.
#
#   scripts/load-test.sh [DB] [SECONDS] [CONNECTIONS...]      (default: databases 20 8 32)
#
# Needs wrk (Debian: apt-get install wrk) and python3. The server and wrk share the
# machine's cores, so the figures are a floor for a server on its own machine.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=${1:-databases}
SECS=${2:-20}
shift $(( $# < 2 ? $# : 2 ))
CONNS=("${@:-8}")
[ $# -eq 0 ] && CONNS=(8 32)
BIN=${MORRIS:-target/release/morris}
command -v wrk >/dev/null || { echo "load-test: wrk is needed (apt-get install wrk)" >&2; exit 1; }
[ -x "$BIN" ] || cargo build --release --quiet

WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$BIN" serve --db "$DB" --addr 127.0.0.1:0 > "$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do grep -q listening "$WORK/serve.log" && break; sleep 0.1; done
ADDR=$(grep -o 'http://[0-9.:]*' "$WORK/serve.log" | head -1)
[ -n "$ADDR" ] || { cat "$WORK/serve.log" >&2; exit 1; }

# Positions from random games, through the API itself: every one is legal and answerable.
python3 - "$ADDR" "$WORK/paths.lua" <<'EOF'
import json, random, sys, urllib.parse, urllib.request
addr, out = sys.argv[1], sys.argv[2]
get = lambda path: json.load(urllib.request.urlopen(addr + path, timeout=120))
start = get("/api/info")["start_position"] or "WWW......BBB............ w"
rng = random.Random(7)
paths = []
while len(paths) < 2000:
    pos = start
    for _ in range(rng.randrange(1, 80)):
        path = "/api/probe?position=" + urllib.parse.quote(pos)
        paths.append(path)
        moves = get(path)["moves"]
        if not moves:
            break
        pos = rng.choice(moves)["position"]
with open(out, "w") as f:
    f.write("paths = {\n" + "".join(f'  "{p}",\n' for p in paths) + "}\n")
EOF

cat >> "$WORK/paths.lua" <<'EOF'
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f failed=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.connect + e.read + e.write + e.status + e.timeout))
end
EOF

status=0
for c in "${CONNS[@]}"; do
    line=$(wrk -t2 -c"$c" -d"${SECS}s" --timeout 10s -s "$WORK/paths.lua" "$ADDR" | grep '^RESULT')
    echo "connections=$c ${line#RESULT }"
    case "$line" in *" failed=0") ;; *) status=1 ;; esac
done
exit $status
