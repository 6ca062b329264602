#!/usr/bin/env bash
# Nanoseconds per warm probe from C (capi/c/bench.c) over the default small set.
# Usage: scripts/c-bench.sh [POSITIONS] (default 512)
set -euo pipefail
source "$(dirname "$0")/c-common.sh" bench
LD_LIBRARY_PATH=target/release "$work/bench" "$work/db" "${1:-512}"
