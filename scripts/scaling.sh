#!/bin/sh
# The scaling figure of docs/performance.md ("The general driver"): wall time and peak
# memory of one `ftcoll simulate` run against P = 2^MIN .. 2^MAX, for the general driver and the
# exact fast path, measured as whole processes by /usr/bin/time (GNU time: "%e %U %M": wall and user seconds,
# peak RSS).
#
#   cargo build --release -p ftcoll-lab
#   scripts/scaling.sh > docs/scaling.csv              # P = 2^10 .. 2^24 (a few minutes, ~8 GB)
#   target/release/ftcoll plot docs/scaling.csv --x procs --y wall_s --series series \
#       --log-x --log-y --output docs/scaling_time.svg
#   target/release/ftcoll plot docs/scaling.csv --x procs --y peak_mib --series series \
#       --log-x --log-y --output docs/scaling_memory.svg
#
# Environment: FTCOLL (default target/release/ftcoll), MIN and MAX exponents (10 and 24).
# Series: the driver on binomial + opportunistic:2 overlapped and on binomial + checked
# synchronized (--engine full), and the fast path on the latter (--engine auto); 1 % failures
# (--fault-rate 0.01), seed 1, one run per point.
set -eu
FTCOLL=${FTCOLL:-target/release/ftcoll}
MIN=${MIN:-10}
MAX=${MAX:-24}
times=$(mktemp)
trap 'rm -f "$times"' EXIT
echo "series,procs,wall_s,user_s,peak_mib"
e=$MIN
while [ "$e" -le "$MAX" ]; do
    p=$((1 << e))
    for series in driver-opportunistic2-overlap driver-checked-sync fastpath-checked-sync; do
        case $series in
        driver-opportunistic2-overlap) flags="--correction opportunistic:2 --start overlap --engine full" ;;
        driver-checked-sync) flags="--correction checked --start sync --engine full" ;;
        fastpath-checked-sync) flags="--correction checked --start sync --engine auto" ;;
        esac
        # shellcheck disable=SC2086 # $flags is a list of words
        /usr/bin/time -f "%e %U %M" -o "$times" "$FTCOLL" simulate --procs "$p" --tree binomial \
            $flags --fault-rate 0.01 --format csv >/dev/null
        awk -v s="$series" -v p="$p" '{ printf "%s,%d,%.2f,%.2f,%.1f\n", s, p, $1, $2, $3 / 1024 }' "$times"
    done
    e=$((e + 1))
done
