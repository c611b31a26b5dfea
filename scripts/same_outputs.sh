#!/usr/bin/env bash
# Runs every command line of scripts/same_outputs.txt (simulate for the three families, sweep,
# pap-simulate, tree, gaps; bad input included) with two builds of the `ftcoll` binary and
# compares their stdout, stderr and exit codes byte for byte. For refactors that must not change
# behaviour: build the binary before the change, copy it aside, build after, then
#   scripts/same_outputs.sh /tmp/ftcoll-before target/release/ftcoll
# Exit 0 and "identical" when every output matches; otherwise the differing files are listed.
set -euo pipefail
before=$(realpath "$1")
after=$(realpath "$2")
list=$(realpath "$(dirname "$0")/same_outputs.txt")
work=$(mktemp -d)
for side in before after; do
  bin=${!side}
  mkdir -p "$work/$side"
  i=0
  while read -r line; do
    i=$((i + 1))
    n=$(printf %03d "$i")
    rc=0
    # shellcheck disable=SC2086 # each line is a whole argument list
    (cd "$work/$side" && "$bin" $line > "$n.out" 2> "$n.err") || rc=$?
    echo "$rc" > "$work/$side/$n.rc"
  done < "$list"
done
if diff -r "$work/before" "$work/after"; then
  echo "identical: $(wc -l < "$list") command lines, stdout, stderr and exit code each"
  rm -rf "$work"
else
  echo "outputs differ (kept in $work)"
  exit 1
fi
