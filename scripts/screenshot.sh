#!/usr/bin/env bash
# Screenshot of the web board: starts `morris serve` on a table directory, opens a position in
# headless Chromium and writes a PNG. Needs Debian's `chromium` (apt-get install chromium).
#
#   scripts/screenshot.sh [--db DIR] [--rules RULESET] [--position POS] [--size WxH] [--out FILE]
#
# Defaults: --db databases, the server's start position, 1200x900, docs/board.png.
# Example (phone): scripts/screenshot.sh --db /tmp/t44 --size 390x844 --out /tmp/phone.png
set -euo pipefail

db=databases
position=
rules=standard
size=1200x900
out=docs/board.png
morris=${MORRIS:-target/release/morris}

while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --position) position=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

chrome=${CHROME:-}
if [ -z "$chrome" ]; then
  for c in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$c" >/dev/null 2>&1; then chrome=$(command -v "$c"); break; fi
  done
fi
[ -n "$chrome" ] || { echo "no chromium on PATH (apt-get install chromium)" >&2; exit 1; }
[ -x "$morris" ] || { echo "$morris not found: cargo build --release first (or set MORRIS)" >&2; exit 1; }

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$morris" serve --db "$db" --rules "$rules" --addr 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
base=
for _ in $(seq 100); do
  base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/serve.out" 2>/dev/null | head -n1 || true)
  [ -n "$base" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$base" ] || { echo "the server printed no address" >&2; exit 1; }

url="$base/"
if [ -n "$position" ]; then
  url="$base/?position=${position// /%20}" # positions hold only W B . w b digits and spaces
fi

mkdir -p "$(dirname "$out")"
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --window-size="${size/x/,}" \
  --virtual-time-budget=5000 --screenshot="$out" "$url" 2>"$work/chrome.err" >/dev/null \
  || { cat "$work/chrome.err" >&2; exit 1; }
echo "$out ($size) of $url"
