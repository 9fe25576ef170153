#!/bin/sh
# Every interposed collective entry point reached once and shown in the
# statistics: run test_core_entries and check the dump (entries_check.sh).
#   sh test/mpi/entries_run.sh mpich NP    real MPI: the entry points libhytune.so defines;
#                                          they must cover every collective in MPI's header
#   sh test/mpi/entries_run.sh fortran NP  real MPI, Fortran (`use mpi`, LD_PRELOAD): every
#                                          collective in MPI's header but the _c forms
#                                          (Fortran has those only through mpi_f08)
#   sh test/mpi/entries_run.sh smpi NP     SimGrid: those the program built with
#                                          hytune-smpicc defines
#   sh test/mpi/entries_run.sh smpi-fortran NP   SimGrid, Fortran (hytune-smpif90): the
#                                          Fortran entry points hytune defines there
# (MPIEXEC, SMPIRUN, SMPI, PLAT, B from test/run.sh)
set -u
kind=$1 np=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
# the Wait/Test family, Start and Init/Finalize are interposed too, but are no collectives
notcoll='^MPI_(Init|Init_thread|Finalize|Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|Start|Startall|Request_free)$'
if [ "$kind" = mpich ] || [ "$kind" = fortran ]; then
    nm -D --defined-only "$B/lib/libhytune.so" | awk '$3 ~ /^MPI_/ {print $3}' | sed 's/@.*//' |
        grep -Ev "$notcoll" | sort >"$d/entries"
    # every collective the MPI library's header declares (not the topology queries)
    hdr=$(for f in $("$(sed -n 's/^MPICC = //p' "$top/config.mk")" -show | tr ' ' '\n' | sed -n 's/^-I//p'); do
        ls "$f"/mpi_proto.h "$f"/mpi.h 2>/dev/null; done | head -1)
    [ -n "$hdr" ] || { echo "entries_run: MPI header not found"; exit 1; }
    grep -oE '^int MPI_[A-Za-z_]+\(' "$hdr" | sed 's/^int //; s/($//' |
        grep -E 'gather|scatter|reduce|bcast|barrier|alltoall|scan|Neighbor_' |
        grep -Ev 'Reduce_local' | sort -u >"$d/declared"
    missing=$(comm -23 "$d/declared" "$d/entries")
    [ -z "$missing" ] || { echo "entries_run: not interposed:" $missing; exit 1; }
    echo "entries_run: $(wc -l <"$d/declared") collective entry points in $hdr, all interposed"
    if [ "$kind" = mpich ]; then
        HYTUNE_STATS=$d/stats $MPIEXEC -n "$np" "$B/test/mpi/test_core_entries" >"$d/out" ||
            { cat "$d/out"; exit 1; }
    else
        fc=${MPIF90:-$(sed -n 's/^MPIF90 = //p' "$top/config.mk")}
        [ -n "$fc" ] || { echo "entries_run: configure found no MPICH mpif90 (MPIF90=... ./configure)"; exit 1; }
        "$fc" -O1 -ffree-line-length-none "$top/test/mpi/entries_fortran.F90" -o "$d/prog" ||
            exit 1
        $MPIEXEC -n "$np" -genv LD_PRELOAD "$B/lib/libhytune.so" -genv HYTUNE_STATS "$d/stats" \
            "$d/prog" >"$d/out" || { cat "$d/out"; exit 1; }
        grep -v '_c$' "$d/entries" >"$d/e" && mv "$d/e" "$d/entries"
    fi
elif [ "$kind" = smpi-fortran ]; then
    prog=$d/prog
    "$B/bin/hytune-smpif90" -O1 -DHYT_SMPI -ffree-line-length-none -fallow-argument-mismatch -w \
        "$top/test/mpi/entries_fortran.F90" -o "$prog" || exit 1
    # hytune's Fortran collectives in the program, by their C names (mpi_iallreduce_: MPI_Iallreduce)
    nm "$prog" | awk '$2 == "T" && $3 ~ /^mpi_.*_$/ {print $3}' |
        grep -E 'gather|scatter|reduce|bcast|barrier|alltoall|scan' |
        sed 's/^mpi_\(.\)\(.*\)_$/\1 \2/' |
        while read -r first rest; do
            echo "MPI_$(echo "$first" | tr a-z A-Z)$rest"
        done | sort -u >"$d/entries"
    i=0
    while [ $i -lt "$np" ]; do echo "node-$i"; i=$((i + 1)); done >"$d/hf"
    # shellcheck disable=SC2086
    HYTUNE_STATS=$d/stats $SMPIRUN -np "$np" -platform "$PLAT/cluster-small.xml" \
        -hostfile "$d/hf" $SMPI "$prog" >"$d/out" 2>&1 || { cat "$d/out"; exit 1; }
else
    prog=$B/test/smpi/test_core_entries
    # SimGrid 3.32 aborts in neighborhood collectives ("not yet implemented")
    nm "$prog" | awk '($2 == "T" || $2 == "W") && $3 ~ /^MPI_/ {print $3}' |
        grep -Ev "$notcoll" | grep -v '^MPI_I*[Nn]eighbor_' | sort -u >"$d/entries"
    i=0
    while [ $i -lt "$np" ]; do echo "node-$i"; i=$((i + 1)); done >"$d/hf"
    # shellcheck disable=SC2086
    HYTUNE_STATS=$d/stats $SMPIRUN -np "$np" -platform "$PLAT/cluster-small.xml" \
        -hostfile "$d/hf" $SMPI "$prog" >"$d/out" 2>&1 || { cat "$d/out"; exit 1; }
fi
tail -1 "$d/out"
sh "$top/test/mpi/entries_check.sh" "$d/out" "$d/stats" "$d/entries" || { cat "$d/stats"; exit 1; }
