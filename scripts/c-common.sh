# Sourced by scripts/c-check.sh and scripts/c-bench.sh: builds the command line and the
# C library, solves the default small set into $work/db, and compiles the C program
# capi/c/$1.c into $work/$1 (run it with LD_LIBRARY_PATH=target/release).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p morris-capi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/morris solve --db "$work/db" -q > /dev/null
cc -std=c11 -O2 -Wall -Wextra -Werror -I capi/include "capi/c/$1.c" -L target/release -lmorris_c -o "$work/$1"
