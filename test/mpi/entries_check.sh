#!/bin/sh
# Check a test_core_entries run against hytune's statistics dump.
#   entries_check.sh OUTPUT STATS ENTRIES
# OUTPUT: the program's stdout ("expect <entry> <calls> <bytes> <timed>" lines);
# STATS: the text dump (HYTUNE_STATS=PATH of rank 0); ENTRIES: the collective
# entry points hytune defines, one per line.  Every entry of ENTRIES must have
# an expect line (the program called it) and a summary row in STATS with the
# expected calls, bytes and timed calls, and no row may count more.
set -u
out=$1 stats=$2 entries=$3
fail=0
n=$(wc -l <"$entries")
[ "$n" -gt 0 ] || { echo "entries_check: no entry points in $entries"; exit 1; }
while read -r e; do
    grep -q "^expect $e " "$out" || { echo "entries_check: $e never called by the test"; fail=1; }
done <"$entries"
grep '^expect ' "$out" >/dev/null || { echo "entries_check: no expect lines in $out"; exit 1; }
grep '^expect ' "$out" | while read -r _ e calls bytes timed; do
    # summary row: call calls timed bytes total-s %time tuned native why
    row=$(awk -v e="$e" '$1 == e { print; exit }' "$stats")
    if [ -z "$row" ]; then
        echo "entries_check: $e missing from the statistics summary"; exit 1
    fi
    set -- $row
    if [ "$2" != "$calls" ] || [ "$3" != "$timed" ] || [ "$4" != "$bytes" ]; then
        echo "entries_check: $e: calls $2 timed $3 bytes $4, want $calls $timed $bytes"; exit 1
    fi
done || fail=1
rows=$(grep -cE '^ +MPI_[A-Z][a-z_]+ +[0-9]' "$stats")
want=$(grep -c '^expect ' "$out")
[ "$rows" = "$want" ] || { echo "entries_check: $rows summary rows, $want entry points called"; fail=1; }
[ $fail = 0 ] && echo "entries_check: $want entry points called once each, all in the statistics"
exit $fail
