#!/bin/sh
# Offline mode with a table that sends every size range of every collective
# to a different registered algorithm: test_core_pass must still get PMPI's
# results byte for byte, and hytune must count every call.
#   sh test/mpi/core_table_all.sh NPROCS KSTEP [quick]
# CORE_WRAP (e.g. "$VALGRIND") is put before the test program.
# The table is generated from `hytune list`: for each collective its
# algorithms (native last) take successive ranges (<=4 B, <=64 B, <=1 KiB,
# <=16 KiB, ...), with k = k_min + KSTEP for radix algorithms.
set -eu
np=$1 kstep=$2 quick=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$B/bin/hytune" list | awk -v kstep="$kstep" '
NR > 1 && $2 != "native" { n[$1]++; alg[$1, n[$1]] = $2; k[$1, n[$1]] = $3 }
END {
    printf "{\"format\": 1, \"collectives\": {"
    sep = ""
    split("allreduce bcast reduce allgather alltoall reduce_scatter_block", colls, " ")
    for (ci = 1; ci <= 6; ci++) {
        c = colls[ci]
        printf "%s\n  \"%s\": [{\"rules\": [", sep, c
        sep = ","
        bytes = 4
        for (i = 1; i <= n[c]; i++) {
            printf "{\"bytes_max\": %d, \"algorithm\": \"%s\"", bytes, alg[c, i]
            if (k[c, i] != "-") { split(k[c, i], r, "\\.\\."); printf ", \"k\": %d", r[1] + kstep }
            printf "}, "
            bytes *= 16
        }
        printf "{\"algorithm\": \"native\"}]}]"
    }
    printf "\n}}\n"
}' >"$tmp/table.json"
cat "$tmp/table.json"
out=$(HYTUNE_MODE=offline HYTUNE_TABLE="$tmp/table.json" HYTUNE_LOG=warn \
    $MPIEXEC -n "$np" ${CORE_WRAP:-} "$B/test/mpi/test_core_pass" $quick 2>&1) || { echo "$out"; exit 1; }
echo "$out"
# the table must have been accepted (no error line from hytune)
if echo "$out" | grep -q '^hytune\[0\] error'; then exit 1; fi
