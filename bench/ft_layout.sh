#!/bin/sh
# NAS FT's communication outside FT (docs/realapps.md): bench/ft_layout.c on
# NP ranks (one per host) under SimGrid with computation off and MPICH's
# selection, as bench/realapps/run.sh runs applications, once with hytune off
# (MPI's own algorithms) and once per hytune Alltoall algorithm forced
# (HYTUNE_FORCE_ALLTOALL, no table: the private duplicate is made at each
# communicator's first call, so the first call shows its cost).
#   sh bench/ft_layout.sh [NP [PLATFORM [ALG...]]]
#     defaults: 256, platforms/dragonfly-256.xml, kbruck:2 kbruck:4 kbruck:8 kbruck:NP/8
# FT class W's shape at 256 ranks: rows of 8 neighbouring ranks with 4 KiB
# blocks, columns of NP/8 ranks 8 apart with 1 KiB blocks, 8 calls each
# (FT_LAYOUT="NP2 B1 B2 CALLS" changes it; CALLS 16 by default).
# Prints each configuration's lines (ft_layout.c says what they are).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2034 # read by bench/lib.sh
HYT_TOP=$top
. "$top/bench/lib.sh"
B=$(hyt_build_dir)
NP=${1:-256}
PLAT=${2:-$top/platforms/dragonfly-256.xml}
if [ $# -gt 2 ]; then shift 2; else set --; fi
plat_need_hosts "$PLAT" "$NP"
# shellcheck disable=SC2086 # the layout is four words
set -- ${FT_LAYOUT:-8 4096 1024 16} "$@"
np2=$1 b1=$2 b2=$3 calls=$4
shift 4
[ $((NP % np2)) -eq 0 ] || die "FT_LAYOUT's NP2 ($np2) must divide NP ($NP)"
[ $# -gt 0 ] || set -- kbruck:2 kbruck:4 kbruck:8 "kbruck:$((NP / np2))"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
hostfile "$NP" 1 >"$d/hf"
"$B/bin/hytune-smpicc" -std=c11 -O2 "$top/bench/ft_layout.c" -o "$d/ft_layout"
export SMPI_EXTRA="--cfg=smpi/coll-selector:mpich"
for f in off "$@"; do
    progress "ft_layout: $NP ranks, $(basename "$PLAT"), alltoall $f"
    if [ "$f" = off ]; then
        HYTUNE_MODE=off smpi_run "$NP" "$PLAT" "$d/hf" "$d/ft_layout" "$np2" "$b1" "$b2" "$calls" | sed "s/^/$f: /"
    else
        HYTUNE_MODE=offline HYTUNE_FORCE_ALLTOALL=$f smpi_run "$NP" "$PLAT" "$d/hf" "$d/ft_layout" "$np2" "$b1" "$b2" "$calls" | sed "s/^/$f: /"
    fi
done
