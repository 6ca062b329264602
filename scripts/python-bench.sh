#!/usr/bin/env bash
# WDL probes per second from Python (python/bench.py), on one core, over the default
# small set. Usage: scripts/python-bench.sh [N]; needs python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q maturin
"$work/venv/bin/maturin" build --release --locked -q -m python/Cargo.toml -o "$work/wheels"
"$work/venv/bin/pip" install -q "$work"/wheels/*.whl
cargo build --release --locked --quiet
target/release/morris solve --db "$work/db" -q > /dev/null
"$work/venv/bin/python" python/bench.py "$work/db" "${1:-200000}"
