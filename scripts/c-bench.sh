#!/usr/bin/env bash
# Nanoseconds per warm probe from C (capi/c/bench.c) over the default small set.
# Usage: scripts/c-bench.sh [POSITIONS] (default 512)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p morris-capi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/morris solve --db "$work/db" -q > /dev/null
cc -std=c11 -O2 -Wall -Wextra -Werror -I capi/include capi/c/bench.c -L target/release -lmorris_c -o "$work/bench"
LD_LIBRARY_PATH=target/release "$work/bench" "$work/db" "${1:-512}"
