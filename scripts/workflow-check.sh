#!/usr/bin/env bash
# The workflow (workflow/Snakefile, one `morris solve --unit` job a unit) run locally
# with 2 workers on lasker 5-5 and morabaraba 5-5 writes the tables of one
# single-process `morris solve --start 5-5`, byte for byte; then a run killed midway
# resumes to the same tables. Installs Snakemake into a venv under the target
# directory on first use.
#
#   scripts/workflow-check.sh            (CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."

target=${CARGO_TARGET_DIR:-target}
cargo build --release --locked --quiet
morris=$(realpath "$target/release/morris")

venv="$target/venv"
if ! "$venv/bin/snakemake" --version >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet snakemake snakemake-executor-plugin-slurm
fi
snakemake=$(realpath "$venv/bin/snakemake")
snakefile=$(realpath workflow/Snakefile)
profile=$(realpath workflow/profiles/local)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs the workflow for rules $1 into directory $2 (Snakemake's own files in $2.wf),
# with Snakemake options $3...
workflow() {
    local rules=$1 db=$2
    shift 2
    mkdir -p "$db.wf"
    "$snakemake" -s "$snakefile" --profile "$profile" --cores 2 --directory "$db.wf" --quiet all \
        --config morris="$morris" rules="$rules" scope="--start 5-5" db="$db" "$@"
}

# Compares every table of $1 with $2, which must hold the same table names.
same_tables() {
    local a=$1 b=$2 n=0
    diff <(cd "$a" && ls -- *.mtb) <(cd "$b" && ls -- *.mtb)
    for f in "$a"/*.mtb; do
        cmp "$f" "$b/$(basename "$f")"
        n=$((n + 1))
    done
    echo "$n tables identical"
}

for rules in lasker morabaraba; do
    start=$SECONDS
    "$morris" --rules "$rules" solve --db "$work/$rules-single" --start 5-5 --quiet >/dev/null
    single=$((SECONDS - start))
    start=$SECONDS
    workflow "$rules" "$work/$rules-flow" >"$work/$rules.log" 2>&1 || { cat "$work/$rules.log"; exit 1; }
    flow=$((SECONDS - start))
    echo "$rules 5-5: single process $single s, workflow with 2 workers $flow s"
    same_tables "$work/$rules-single" "$work/$rules-flow"
done

# Resume: kill the workflow midway with SIGKILL (Snakemake and its running jobs, as a
# lost node would), remove Snakemake's stale lock as after any crash, run it again.
setsid bash -c "$(declare -p snakemake snakefile profile morris); $(declare -f workflow); workflow lasker '$work/resume'" >"$work/resume.log" 2>&1 &
pid=$!
sleep 8
{ kill -KILL -- "-$pid" && wait "$pid"; } 2>/dev/null || true
before=$(ls "$work/resume"/*.mtb 2>/dev/null | wc -l)
workflow lasker "$work/resume" --unlock >>"$work/resume.log" 2>&1
workflow lasker "$work/resume" >>"$work/resume.log" 2>&1 || { cat "$work/resume.log"; exit 1; }
echo "lasker 5-5 resumed from $before tables:"
same_tables "$work/lasker-single" "$work/resume"
echo "workflow check passed"
