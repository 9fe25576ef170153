#!/bin/sh
# A real application that Debian builds against MPICH, run at n=2 on MPICH
# with LD_PRELOAD=libhytune.so: once without hytune (the reference), then in
# every mode (off; offline and hybrid with a table `hytune tune` wrote for
# the application's collectives in the same test) and with five forced sets
# that together cover every registered algorithm.  Every run must pass the
# application's own checks and print the reference's numbers; every run but
# off must leave statistics that count the application's collectives (and,
# forced, name the forced algorithm).
#   sh test/mpi/debian_app.sh APP      APP: netpipe mpy scalapack-lu scalapack-qr scalapack-llt
# The application's Debian package must be installed (CI and ./run.sh test
# install it); a missing package fails and names it.
app=${1:?usage: sh test/mpi/debian_app.sh APP}
name=debian_app-$app
. test/mpi/script.sh
fail_logs="$d/out"
export MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE=${MPIR_CVAR_CH4_SHM_POLL_BATCH_SIZE:-1}

# Per application: pkg (Debian package), prog (its MPI program), colls (the
# collectives it calls, for the tuner and the statistics check), and
# app_run OUTDIR: run it at n=2 (extra mpiexec words in $genv), leaving in
# OUTDIR/numbers what must equal the reference and failing unless its own
# checks pass.
case $app in
netpipe)
    # NetPIPE's integrity mode: every message size 1 B..64 KiB (with the
    # 3 B perturbation) sent 5 times each way and compared byte for byte;
    # MPI_Barrier between the tests
    pkg=netpipe-mpich2 prog=/usr/bin/NPmpich2 colls=barrier
    app_run() {
        # shellcheck disable=SC2086 # genv is a list of mpiexec words
        (cd "$1" && timeout 120 $MPIEXEC -n 2 $genv "$prog" -i -u 65536 -n 5 -o np.out) >"$d/out" 2>&1 ||
            fail "NetPIPE exited with $?"
        # 28 sizes from 1 B to 64 KiB (5, 7, 9, 13, ... 49153 B)
        n=$(grep -c 'bytes .* times --> *Integrity check passed$' "$d/out")
        [ "$n" = 28 ] || fail "$n of 28 sizes passed NetPIPE's integrity check"
        ! grep -qi 'fail' "$d/out" || fail "NetPIPE reports a failure"
        { grep 'Integrity check' "$d/out"; cat "$1/np.out"; } >"$1/numbers"
    }
    ;;
mpy)
    # yorick's MPI interpreter and its own test suite (testmp2, testmp3:
    # point-to-point rings and exchanges; mpool: a task pool), reading its
    # commands from standard input on rank 0
    pkg=yorick-mpy-mpich2 prog=/usr/bin/mpy.mpich2 colls=
    app_run() {
        zcat /usr/share/doc/yorick-mpy-common/examples/testmp.i.gz >"$1/testmp.i" ||
            fail "cannot read yorick-mpy-common's testmp.i"
        # shellcheck disable=SC2086 # genv is a list of mpiexec words
        (cd "$1" && printf 'testmp\nquit\n' | timeout 120 $MPIEXEC -n 2 $genv "$prog" -j testmp.i) >"$d/out" 2>&1 ||
            fail "mpy exited with $?"
        for t in 'testmp2 passed on all 2 ranks' 'testmp3 passed on all 2 ranks' \
            'mpool finished (vpack) nerrors=0' 'mpool self=1 finished (vsave) nerrors=0' \
            'mpool list= finished (vpack) nerrors=0'; do
            grep -qxF "$t" "$d/out" || fail "mpy's test suite did not print \"$t\""
        done
        grep -v '^ *$' "$d/out" >"$1/numbers"
    }
    ;;
scalapack-*)
    # ScaLAPACK's own test drivers (MPICH build): the input file shipped in
    # scalapack-test-common with the process grids cut to 1x1, 1x2 and 2x1
    # and one block size and right-hand side count (the first listed);
    # BLACS combines through MPI_Allreduce/MPI_Reduce with its own operations
    # and derived datatypes, broadcasts through MPI_Bcast, on row and column
    # sub-communicators.  Printed numbers compared: each test's parameters
    # and verdict (its times and MFLOPS are left out; QR's residual is
    # printed and compared) and the summary, skips of the input's illegal
    # combinations included.
    drv=${app#scalapack-}
    case $drv in
    # keep: the columns of a test's line compared (not its times or MFLOPS)
    lu) prog=xdlu dat=LU.dat keep="1 2 3 4 5 6 7 8 12" ;;   # M N NB NRHS NBRHS P Q, CHECK
    qr) prog=xzqr dat=QR.dat keep="1 2 3 4 5 6 7 10 11" ;;  # M N MB NB P Q, CHECK, residual
    llt) prog=xsllt dat=LLT.dat keep="1 2 3 4 5 6 7 8 12" ;;
    *) echo "$name: unknown ScaLAPACK driver (lu, qr, llt)" >&2; exit 2 ;;
    esac
    pkg=scalapack-mpi-test prog=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/$prog
    colls="allreduce bcast"
    app_run() {
        awk 'tolower($0) ~ /number of (nb|nrhs|nbrhs)\47?s/ { sub(/^[0-9]+/, "1") }
            /number of process grids/ { sub(/^[0-9]+/, "3") }
            /values of P/ { sub(/^[0-9 ]+/, "1 1 2\t") }
            /values of Q/ { sub(/^[0-9 ]+/, "1 2 1\t") } { print }' "/usr/share/scalapack/$dat" >"$1/$dat" ||
            fail "cannot read scalapack-test-common's $dat"
        # shellcheck disable=SC2086 # genv is a list of mpiexec words
        (cd "$1" && timeout 120 $MPIEXEC -n 2 $genv "$prog") >"$d/out" 2>&1 ||
            fail "$prog exited with $?"
        grep -Eq '^ +[1-9][0-9]* tests completed and passed residual checks' "$d/out" ||
            fail "$prog: no test passed its residual checks"
        grep -Eq '^ +0 tests completed and failed residual checks' "$d/out" ||
            fail "$prog: a test failed its residual checks"
        awk -v keep="$keep" 'BEGIN { nk = split(keep, k, " ") }
            /^(WALL|CPU) / { out = $k[1]; for (i = 2; i <= nk; i++) out = out " " $k[i]; print out; next }
            /tests (completed|skipped)/ { print }' "$d/out" >"$1/numbers"
    }
    ;;
*)
    echo "$name: unknown application (netpipe, mpy, scalapack-lu, scalapack-qr, scalapack-llt)" >&2
    exit 2
    ;;
esac

dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && [ -x "$prog" ] ||
    fail "Debian package $pkg is not installed: apt-get install $pkg (./run.sh test and CI install it)"

# run TAG [VAR=VALUE...]: one run in $d/TAG; TAG ref runs without hytune
run() {
    tag=$1
    shift
    mkdir "$d/$tag"
    genv=
    if [ "$tag" != ref ]; then
        genv="-genv LD_PRELOAD $B/lib/libhytune.so -genv HYTUNE_STATS $d/$tag/s.%r"
        for kv in "$@"; do genv="$genv -genv ${kv%%=*} ${kv#*=}"; done
    fi
    app_run "$d/$tag"
    if [ "$tag" != ref ]; then
        cmp -s "$d/ref/numbers" "$d/$tag/numbers" || {
            diff "$d/ref/numbers" "$d/$tag/numbers" | head -20
            fail "$tag ($*): the application's numbers differ from the run without hytune"
        }
    fi
    echo "$tag ($*): own checks passed, numbers equal the reference"
}

# stats TAG [ALGORITHM]: both ranks' statistics count every collective in
# $colls (with ALGORITHM in their rows when given)
stats() {
    for r in 0 1; do
        f=$d/$1/s.$r
        [ -s "$f" ] || fail "$1: rank $r wrote no statistics ($f)"
        grep -q "^==== hytune statistics (rank $r of 2" "$f" || fail "$1: $f is not hytune's statistics"
        for c in $colls; do
            grep -Eq "^ +$c +[0-9].* [1-9][0-9]* +[0-9.]+ +[0-9.]+ +${2:-[a-z]}" "$f" ||
                { cat "$f"; fail "$1: rank $r's statistics have no $c row${2:+ with $2}"; }
        done
    done
}

run ref
run off HYTUNE_MODE=off
[ ! -e "$d/off/s.0" ] || fail "mode off wrote statistics"
if [ -n "$colls" ]; then
    tc=$(echo "$colls" | tr ' ' ,)
    timeout 120 $MPIEXEC -n 2 "$B/bin/hytune" tune --coll "$tc" --max-bytes 64K --timeout 3 \
        --point-budget 0.001 -o "$d/table.json" >"$d/out" 2>&1 || fail "hytune tune --coll $tc failed"
else
    cp test/data/table-native-all.json "$d/table.json"
fi
run offline HYTUNE_MODE=offline HYTUNE_TABLE="$d/table.json"
stats offline
run hybrid HYTUNE_MODE=hybrid HYTUNE_TABLE="$d/table.json" HYTUNE_HOT_CALLS=4
stats hybrid
# forced sets: every non-native algorithm of the registry in one of them
run forced1 HYTUNE_FORCE_ALLREDUCE=recmult:2 HYTUNE_FORCE_BCAST=knomial:2 HYTUNE_FORCE_REDUCE=knomial:2 \
    HYTUNE_FORCE_ALLGATHER=kring:1 HYTUNE_FORCE_ALLTOALL=pairwise HYTUNE_FORCE_BARRIER=dissemination:2 \
    HYTUNE_FORCE_GATHER=knomial:2 HYTUNE_FORCE_SCATTER=knomial:2 HYTUNE_FORCE_ALLGATHERV=ring \
    HYTUNE_FORCE_ALLTOALLV=pairwise HYTUNE_FORCE_REDUCE_SCATTER=pairwise \
    HYTUNE_FORCE_REDUCE_SCATTER_BLOCK=pairwise HYTUNE_FORCE_SCAN=recdoubling HYTUNE_FORCE_EXSCAN=recdoubling
stats forced1
run forced2 HYTUNE_FORCE_ALLREDUCE=rabenseifner HYTUNE_FORCE_BCAST=recmult:2 HYTUNE_FORCE_REDUCE=rabenseifner \
    HYTUNE_FORCE_ALLGATHER=kbruck:2 HYTUNE_FORCE_ALLTOALL=kbruck:2 HYTUNE_FORCE_BARRIER=knomial:2 \
    HYTUNE_FORCE_ALLGATHERV=recmult:2 HYTUNE_FORCE_ALLTOALLV=scattered:1 \
    HYTUNE_FORCE_REDUCE_SCATTER=rechalving HYTUNE_FORCE_REDUCE_SCATTER_BLOCK=rechalving
stats forced2
run forced3 HYTUNE_FORCE_ALLREDUCE=kring:1 HYTUNE_FORCE_BCAST=kring:1 HYTUNE_FORCE_ALLGATHER=recmult:2 \
    HYTUNE_FORCE_REDUCE=composition:2 HYTUNE_FORCE_ALLTOALLV=scattered:2
stats forced3
run forced4 HYTUNE_FORCE_ALLREDUCE=knomial:2 HYTUNE_FORCE_ALLGATHER=knomial:2 HYTUNE_FORCE_BCAST=composition:2
stats forced4
run forced5 HYTUNE_FORCE_ALLREDUCE=composition:2 HYTUNE_FORCE_ALLGATHER=composition:2
stats forced5
# the barrier is the one collective NetPIPE calls: the forced algorithm is what ran
if [ "$app" = netpipe ]; then
    stats forced1 dissemination:k=2
    stats forced2 knomial:k=2
fi
echo "$name: all runs passed"
