#!/bin/sh
# Per-call cost of hybrid mode on a settled key: a tight loop of
# hyt_online_before() against the core's counting alone (bench/online_cost.c).
#   sh bench/online_cost.sh [CALLS]     (default 100000000)
# Host CPU time on this machine; the program starts no MPI ranks.
set -u
. bench/lib.sh
b=${HYT_BUILD:-$HYT_TOP/build}
[ -f "$b/lib/libhytune.a" ] || die "no $b/lib/libhytune.a: build it with \`make B=$b\`"
mpicc=$(config_value MPICC) || exit 1
libs=$(sed -n 's/^JSON_LIBS = //p; s/^HWLOC_LIBS = //p' config.mk | tr '\n' ' ')
out=$b/bench/online_cost
mkdir -p "$b/bench"
# shellcheck disable=SC2086
$mpicc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I. -I/usr/include/json-c bench/online_cost.c \
    -Wl,--whole-archive "$b/lib/libhytune.a" -Wl,--no-whole-archive -o "$out" $libs -lpthread -lm ||
    die "cannot build $out"
"$out" "${1:-100000000}"
