#!/bin/sh
# Two ftcoll binaries compared as whole processes (docs/performance.md): for each
# configuration and fault rate, one warm-up round and 3 counted rounds, each round running
# binary A then binary B on the same `simulate` (P = 2^20, binomial, --engine full), timed by
# GNU time ("%U %M": user seconds, peak RSS in KB). It prints one line per run
#   correction|fault_rate|round|binary|user_s|peak_kb
# and "DIFF ..." when the two binaries' CSV outputs of a round differ; the tables in
# docs/performance.md are the medians of the counted rounds and of the pair-by-pair ratios.
#
#   scripts/ab.sh /tmp/ftcoll-before /tmp/ftcoll-after > /tmp/ab.txt
#
# Environment: PROCS (default 1048576), RATES (default "0 0.01").
set -eu
A=$1
B=$2
PROCS=${PROCS:-1048576}
RATES=${RATES:-"0 0.01"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for c in "opportunistic:2 --start overlap" "checked --start sync" "failproof:1 --start sync"; do
    for fr in $RATES; do
        for round in 0 1 2 3; do
            for bin in "$A" "$B"; do
                tag=$([ "$bin" = "$A" ] && echo a || echo b)
                # shellcheck disable=SC2086 # $c is a list of words
                /usr/bin/time -f "$c|$fr|$round|$tag|%U|%M" -o "$out/time" "$bin" simulate \
                    --procs "$PROCS" --tree binomial --correction $c --fault-rate "$fr" \
                    --engine full --format csv >"$out/$tag.csv"
                cat "$out/time"
            done
            cmp -s "$out/a.csv" "$out/b.csv" || echo "DIFF $c $fr round $round"
        done
    done
done
