#!/bin/sh
# Added cost per MPI_Allreduce call of hytune's interposed path, on real MPI
# (2 ranks), for HYTUNE_MODE=off and for offline mode with a table hit
# (a table whose rule for every size is "native"), then hybrid mode without
# a table (the default configuration).  Each mode is one run of
# bench/overhead.c, which alternates batches of PMPI_Allreduce (baseline)
# and MPI_Allreduce (interposed) and prints medians.
#   sh bench/overhead.sh [BATCHES [CALLS_PER_BATCH]]
# HYT_BUILD selects the build (default: build); NP the rank count (2).
# The figures are this machine's: compare the "added" column (or "fastest"
# on a loaded machine: the difference of the fastest batches), not the
# absolute times, and prefer the "self" rows (no communication noise).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${HYT_BUILD:-$top/build}
NP=${NP:-2}
HYT_TOP=$top
. "$top/bench/lib.sh"
MPIEXEC=$(config_value MPIEXEC)
MPICC=$(config_value MPICC)
[ -f "$B/lib/libhytune.so" ] || { echo "overhead.sh: $B/lib/libhytune.so missing; build first (make B=...)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -std=c11 -O2 -I"$top" "$top/bench/overhead.c" -o "$tmp/overhead" \
    -L"$B/lib" -Wl,--no-as-needed -lhytune -Wl,-rpath,"$B/lib"
cat >"$tmp/table.json" <<'EOF'
{"format": 1, "collectives": {"allreduce": [{"rules": [
  {"bytes_max": 8, "algorithm": "native"},
  {"algorithm": "native"}]}]}}
EOF
export MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE=${MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE:-1}
for mode in off offline; do
    HYTUNE_MODE=$mode HYTUNE_TABLE="$tmp/table.json" "$MPIEXEC" -n "$NP" "$tmp/overhead" "$@"
done
# the default configuration (hybrid, no table) for reference
env -u HYTUNE_TABLE HYTUNE_MODE=hybrid "$MPIEXEC" -n "$NP" "$tmp/overhead" "$@"
