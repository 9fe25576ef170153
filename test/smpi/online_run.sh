#!/bin/sh
# Run an SMPI test program for the online tests with a block hostfile of
# 8 ranks per node, then optionally compare the per-rank statistics files.
#   online_run.sh NP PLATFORM PROG [ARGS...]
# Environment: B, SMPIRUN, SMPI (from test/run.sh); ONLINE_STATS=DIR makes
# every rank write DIR/stats.RANK(.json) and checks them with
# test_online_statscmp (ONLINE_CMP_ARGS passed along).
set -u
np=$1 plat=$2
shift 2
hf=$(mktemp /tmp/online-hosts.XXXXXX)
trap 'rm -f "$hf"' EXIT
i=0
while [ $((i * 8)) -lt "$np" ]; do
    echo "node-$i:8" >>"$hf"
    i=$((i + 1))
done
opts=
grep -q '_file=' "$plat" && opts=--cfg=network/optim:Full
if [ -n "${ONLINE_STATS:-}" ]; then
    rm -f "$ONLINE_STATS"/stats.*
    mkdir -p "$ONLINE_STATS"
    export HYTUNE_STATS="$ONLINE_STATS/stats.%r"
fi
# shellcheck disable=SC2086
$SMPIRUN -np "$np" -platform "$plat" -hostfile "$hf" $SMPI $opts "$@" || exit 1
if [ -n "${ONLINE_STATS:-}" ]; then
    # shellcheck disable=SC2086
    "$B/test/unit/test_online_statscmp" ${ONLINE_CMP_ARGS:-} "$ONLINE_STATS"/stats.*.json || exit 1
    rm -rf "$ONLINE_STATS"
fi
exit 0
