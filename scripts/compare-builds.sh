#!/usr/bin/env bash
# Solves small scopes of every named rule set with two builds of morris and compares
# every table byte for byte: a change that must keep the tables identical passes
# only if this prints "0 differ" on every line.
#
#   scripts/compare-builds.sh OLD_BINARY NEW_BINARY [WORKDIR]
set -u
OLD=${1:?usage: compare-builds.sh OLD NEW [WORKDIR]}
NEW=${2:?usage: compare-builds.sh OLD NEW [WORKDIR]}
WORK=${3:-$(mktemp -d)}
status=0
run() {
    local name=$1; shift
    "$OLD" solve --db "$WORK/old-$name" -q "$@" >/dev/null || { echo "$name: the old build failed"; status=1; return; }
    "$NEW" solve --db "$WORK/new-$name" -q "$@" >/dev/null || { echo "$name: the new build failed"; status=1; return; }
    local n=0 bad=0
    for f in "$WORK/old-$name"/*.mtb; do
        n=$((n + 1))
        cmp -s "$f" "$WORK/new-$name/$(basename "$f")" || { bad=$((bad + 1)); echo "DIFF $name $(basename "$f")"; }
    done
    local m
    m=$(ls "$WORK/new-$name"/*.mtb | wc -l)
    [ "$bad" -eq 0 ] && [ "$n" -eq "$m" ] || status=1
    echo "$name ($*): $n tables old, $m new, $bad differ"
}
run standard
run standard-11 --max-stones 11
run lasker --rules lasker --start 5-5
run morabaraba --rules morabaraba --start 5-5
run twelve --rules twelve --start 4-4
run six --rules six --all
run five --rules five --all
run take-each --rules standard,take=each --start 5-5
run strict --rules standard,removal=strict --start 4-4
run lasker-take-each --rules lasker,take=each --start 4-4
exit $status
