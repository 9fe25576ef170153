#!/bin/sh
# Real applications under SimGrid SMPI with hytune inside: NAS Parallel
# Benchmarks 3.4 (MPI), HPCG 3.1, CoMD 1.1, miniFE 2.2 (ref) and LULESH 2.0 (MPI, no
# OpenMP), each built from a source tree
# you unpacked (docs/realapps.md says where to get them, the versions and the
# commands).
#
# usage: sh bench/realapps/run.sh -s [APP=]SRC... -o OUTDIR [-a "is cg mg hpcg comd minife lulesh"]
#            [-c CLASS] [-n RANKS] [-T RANKS] [-p "PLATFORM.xml..."]
#            [-M "mpich native offline radix hybrid"]
#   -s SRC    a source tree, repeatable: nas=SRC (the NAS tree: its top, holding
#             NPB3.4-MPI/, or NPB3.4-MPI itself; a bare SRC means nas=SRC),
#             hpcg=SRC (the HPCG tree's top), comd=SRC (the CoMD tree's top),
#             minife=SRC (the miniFE tree's top, holding ref/), lulesh=SRC (the
#             LULESH 2.0 tree's top, holding lulesh.cc)
#   -a        applications: NAS benchmarks (is cg mg ft lu ep), hpcg, comd, minife,
#             lulesh (a cube number of ranks: 64, 216, 512, 1000)
#             (default "is cg mg")
#   -c        NAS class (default S)
#   -n        ranks, one per node (default 64; the platform needs as many hosts)
#   -T        nodes `hytune tune` searches on, the first of the job's (default:
#             all of them): the tuner runs on all the job's ranks with
#             `--tune-nodes T`, benchmarks its search's points on those T nodes
#             and measures each rule against MPI's own algorithm, and a new
#             communicator's cost, on the whole job too; the table of that
#             shape serves the whole job; REALAPPS_TUNE_SHAPES=all tunes its
#             power-of-two sub-scales too (`hytune tune --shapes`, docs/tuner.md)
#   -p        platforms (default platforms/dragonfly-64.xml platforms/fattree-64.xml)
#   -M        modes (default mpich native offline hybrid):
#               mpich    HYTUNE_MODE=off: SimGrid's MPICH selection (the baseline)
#               native   HYTUNE_MODE=offline with a table of MPI's own algorithm
#                        everywhere: the baseline's calls timed per collective
#               offline  HYTUNE_MODE=offline, table from `hytune tune` run first
#                        on the same ranks and platform (as a job script would)
#               hybrid   HYTUNE_MODE=hybrid with that table; the online radix
#                        search bounded by the tuner's k-max, which the table
#                        carries (tuning.k_max; REALAPPS_PROBE_K_MAX sets
#                        HYTUNE_PROBE_K_MAX instead)
#               radix    hybrid with that table stripped of its rules'
#                        shortlists (table-PLATFORM-radix.json): the table's
#                        algorithm is final, only its radix is tuned online
#                        (radix-only hybrid mode; hybrid also chooses among
#                        each rule's shortlist on the application's calls)
# Inputs: HPCG --nx=REALAPPS_HPCG_N (default 16) per rank in each direction,
# --rt=0 (its quick path); CoMD a ranks grid i x j x k = RANKS, 4 unit cells
# per rank in each direction, REALAPPS_COMD_STEPS steps (default 100), energy
# printed every 10; miniFE a global box of n^3 elements, n = 12 x cube root of
# RANKS (REALAPPS_MINIFE_N sets n), its solution verified; LULESH -s
# REALAPPS_LULESH_S (default 8) elements per rank in each direction for
# REALAPPS_LULESH_ITERS cycles (default 100).  Each run gets
# REALAPPS_RUN_TIMEOUT seconds of wall time (default 3600).
# REALAPPS_RESUME=1 keeps what an earlier run of the harness into the same
# OUTDIR finished: the table (same ranks, platform, collectives, tuning
# options and hytune-smpi binary) and each run of the same mode, command, platform (and table)
# that ended (checked again); the rest runs.
# Every run uses --cfg=smpi/simulate-computation:no and the MPICH selector
# (bench/lib.sh smpi_run): the simulated time of a run is its communication
# time.  Every run must pass the application's own check: NAS prints
# "Verification = SUCCESSFUL", HPCG "HPCG result is VALID", CoMD "no atoms
# lost", miniFE "solution matches analytic solution"; LULESH, which prints no
# verdict, its own symmetry test of rank 0's energy (MaxRelDiff at most 1e-8)
# after the cycles asked for, and, in hytune's modes, a final origin energy
# equal to the mpich run's (its only collective that feeds the computation is
# an MPI_MIN Allreduce, exact in any order).
# Output in OUTDIR: realapps.csv (one row per run), coll-speedup.csv (rank 0's time
# in the application's collectives per mode), colls.csv (rank 0's time
# per MPI entry point from hytune's statistics), tune-PLATFORM.log and
# table-PLATFORM.json, speedup.csv, each run's directory run-PLATFORM-APP-MODE
# (log, statistics, the application's own output files) and the summary
# printed at the end; with the radix mode, radix.csv (mpich, offline, radix
# and hybrid side by side; speedup.csv keeps its columns).
set -u
HYT_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$HYT_TOP/bench/lib.sh"

nas_src='' hpcg_src='' comd_src='' minife_src='' lulesh_src='' out='' apps="is cg mg" class=S np=64 tnp=
modes="mpich native offline hybrid"
plats="$HYT_TOP/platforms/dragonfly-64.xml $HYT_TOP/platforms/fattree-64.xml"
while getopts s:o:a:c:n:T:p:M: opt; do
    case $opt in
    s)
        case $OPTARG in
        nas=*) nas_src=${OPTARG#nas=} ;;
        hpcg=*) hpcg_src=${OPTARG#hpcg=} ;;
        comd=*) comd_src=${OPTARG#comd=} ;;
        minife=*) minife_src=${OPTARG#minife=} ;;
        lulesh=*) lulesh_src=${OPTARG#lulesh=} ;;
        *=*) die "-s $OPTARG: unknown application \"${OPTARG%%=*}\" (valid: nas, hpcg, comd, minife, lulesh)" ;;
        *) nas_src=$OPTARG ;;
        esac
        ;;
    o) out=$OPTARG ;; a) apps=$OPTARG ;; c) class=$OPTARG ;;
    n) np=$OPTARG ;; T) tnp=$OPTARG ;; p) plats=$OPTARG ;; M) modes=$OPTARG ;;
    *) die "usage: see the comment at the top of bench/realapps/run.sh" ;;
    esac
done
tnp=${tnp:-$np}
kmax=8 # the tuner's --k-max; the online search's bound in hybrid mode
probe_kmax=${REALAPPS_PROBE_K_MAX:-} # empty: the table's tuning.k_max bounds the search
run_timeout=${REALAPPS_RUN_TIMEOUT:-3600}
tshapes=${REALAPPS_TUNE_SHAPES:-job}
case $tshapes in job | all) ;; *) die "REALAPPS_TUNE_SHAPES=$tshapes: use job or all" ;; esac
hpcg_n=${REALAPPS_HPCG_N:-16}
comd_steps=${REALAPPS_COMD_STEPS:-100}
lulesh_s=${REALAPPS_LULESH_S:-8}
lulesh_iters=${REALAPPS_LULESH_ITERS:-100}
minife_n=${REALAPPS_MINIFE_N:-$(awk -v n="$np" 'BEGIN { printf "%d", 12 * exp(log(n) / 3) + 0.5 }')}
[ -n "$out" ] || die "give -o OUTDIR"
for mode in $modes; do
    case $mode in mpich | native | offline | radix | hybrid) ;;
    *) die "unknown mode \"$mode\" (valid: mpich native offline radix hybrid)" ;;
    esac
done
nas_apps='' other_apps=''
for a in $apps; do
    case $a in
    is | cg | mg | ft | lu | ep) nas_apps="$nas_apps $a" ;;
    hpcg | comd | minife | lulesh) other_apps="$other_apps $a" ;;
    *) die "unknown application \"$a\" (valid: is cg mg ft lu ep hpcg comd minife lulesh)" ;;
    esac
done
if [ -n "$nas_apps" ]; then
    [ -n "$nas_src" ] || die "NAS benchmarks ($nas_apps ) need -s nas=SRC (an unpacked NAS Parallel Benchmarks 3.4 tree)"
    npb=$nas_src
    [ -d "$nas_src/NPB3.4-MPI" ] && npb=$nas_src/NPB3.4-MPI
    [ -f "$npb/IS/is.c" ] && [ -f "$npb/config/make.def.template" ] ||
        die "no NAS Parallel Benchmarks 3.4 MPI tree at \"$nas_src\" (want NPB3.4-MPI/IS/is.c): unpack it as docs/realapps.md says"
fi
case " $other_apps " in *" hpcg "*)
    [ -n "$hpcg_src" ] || die "hpcg needs -s hpcg=SRC (an unpacked HPCG 3.1 tree)"
    [ -f "$hpcg_src/src/ComputeDotProduct_ref.cpp" ] && [ -f "$hpcg_src/setup/Make.MPI_GCC_OMP" ] ||
        die "no HPCG 3.1 tree at \"$hpcg_src\" (want src/ComputeDotProduct_ref.cpp): unpack it as docs/realapps.md says" ;;
esac
case " $other_apps " in *" comd "*)
    [ -n "$comd_src" ] || die "comd needs -s comd=SRC (an unpacked CoMD tree)"
    [ -f "$comd_src/src-mpi/CoMD.c" ] && [ -f "$comd_src/src-mpi/Makefile.vanilla" ] ||
        die "no CoMD tree at \"$comd_src\" (want src-mpi/CoMD.c): unpack it as docs/realapps.md says" ;;
esac
case " $other_apps " in *" minife "*)
    [ -n "$minife_src" ] || die "minife needs -s minife=SRC (an unpacked miniFE tree)"
    [ -f "$minife_src/ref/src/main.cpp" ] && [ -f "$minife_src/ref/src/make_targets" ] ||
        die "no miniFE tree at \"$minife_src\" (want ref/src/main.cpp): unpack it as docs/realapps.md says" ;;
esac
case " $other_apps " in *" lulesh "*)
    [ -n "$lulesh_src" ] || die "lulesh needs -s lulesh=SRC (an unpacked LULESH 2.0 tree)"
    [ -f "$lulesh_src/lulesh.cc" ] && [ -f "$lulesh_src/lulesh-comm.cc" ] ||
        die "no LULESH 2.0 tree at \"$lulesh_src\" (want lulesh.cc): unpack it as docs/realapps.md says"
    awk -v n="$np" 'BEGIN { c = int(exp(log(n) / 3) + 0.5); exit c * c * c != n }' ||
        die "lulesh needs a cube number of ranks (64, 216, 512, 1000), not -n $np" ;;
esac
B=$(hyt_build_dir)
[ -x "$B/bin/hytune-smpi" ] || die "no $B/bin/hytune-smpi: build hytune with SimGrid (./configure && make)"
# a library or tuner older than hytune's sources would measure other code than the tree's;
# offline/ and tools/ are the tuner's (hytune-smpi), not the library's, so make rebuilds only it
# newer_source FILE DIR...: the first C source or header under hytune's DIRs newer than FILE
newer_source() {
    _f=$1
    shift
    _n=$#
    for _d in "$@"; do set -- "$@" "$HYT_TOP/$_d"; done
    shift "$_n"
    find "$@" -name '*.[ch]' -newer "$_f" 2>/dev/null | head -n 1
}
lib_dirs="src algorithms online topology"
stale=$(newer_source "$B/lib/libhytune-smpi.a" $lib_dirs)
[ -f "$B/lib/libhytune-smpi.a" ] && [ -z "$stale" ] ||
    die "$B/lib/libhytune-smpi.a is missing or older than ${stale:-the sources}: run make (B=$B) first, so that the runs measure the sources of this tree"
stale=$(newer_source "$B/bin/hytune-smpi" $lib_dirs offline tools)
[ -z "$stale" ] ||
    die "$B/bin/hytune-smpi is older than $stale: run make (B=$B) first, so that the tuning runs the sources of this tree"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# copy_tree SRC DST: a private copy of an application's tree to build in
copy_tree() {
    [ -d "$2" ] && return 0
    cp -R "$1" "$2.tmp" && mv "$2.tmp" "$2" || die "cannot copy $1 to $2"
    # objects and programs an earlier build left in the source tree are not ours
    find "$2" \( -name '*.o' -o -name '*.mod' \) -exec rm -f {} +
}

# ---- build: a copy of the tree, compiled with hytune's SMPI wrappers ------
# NAS: the make.def below, one program per benchmark and class
build_nas() {
bdir=$out/NPB3.4-MPI
[ -d "$bdir" ] || { copy_tree "$npb" "$bdir" && rm -rf "${bdir:?}/bin"; }
mkdir -p "$bdir/bin"
# SimGrid's smpif90 treats only .f90/.F90 sources as Fortran programs (a .f
# file gets no object name and its PROGRAM is not renamed to SMPI's
# user_main): NAS's fixed-form .f files are compiled as NAME.f90 copies with
# -ffixed-form
cat >"$bdir/smpif77" <<EOF
#!/bin/sh
n=\$#
for a in "\$@"; do
    case \$a in
    *.f) cp "\$a" "\${a%.f}.f90" || exit 1; set -- "\$@" "\${a%.f}.f90" ;;
    *) set -- "\$@" "\$a" ;;
    esac
done
shift \$n
exec "$B/bin/hytune-smpif90" -ffixed-form "\$@"
EOF
chmod +x "$bdir/smpif77"
# gfortran 10+ rejects NAS's MPI calls with mismatched buffer types without -fallow-argument-mismatch
cat >"$bdir/config/make.def" <<EOF
MPIFC = $bdir/smpif77
FLINK = \$(MPIFC)
FFLAGS = -O2 -fallow-argument-mismatch
FLINKFLAGS = \$(FFLAGS)
MPICC = $B/bin/hytune-smpicc
CLINK = \$(MPICC)
CFLAGS = -O2
CLINKFLAGS = \$(CFLAGS)
CC = gcc
BINDIR = ../bin
RAND = randdp
EOF
for a in $nas_apps; do
    exe=$bdir/bin/$a.$class.x
    current "$exe" && continue
    progress "realapps: building NAS $a class $class"
    up=$(echo "$a" | tr a-z A-Z)
    (cd "$bdir" && make "$up" CLASS="$class") >"$out/build-$a.$class.log" 2>&1 && [ -x "$exe" ] ||
        die "building NAS $a class $class failed: see $out/build-$a.$class.log"
done
}

# current EXE: EXE exists and was linked after hytune's library was last
# built; otherwise it is removed, so that make links it again (an application
# binary holds the library it was linked with: a kept one would run old code)
current() {
    [ -x "$1" ] && [ ! "$B/lib/libhytune-smpi.a" -nt "$1" ] && return 0
    rm -f "$1"
    return 1
}

# HPCG: its reference code with a setup file for hytune's C++ wrapper, no OpenMP
build_hpcg() {
    hdir=$out/hpcg
    copy_tree "$hpcg_src" "$hdir"
    current "$hdir/bin/xhpcg" && return 0
    progress "realapps: building HPCG"
    sed -e "s|^CXX .*|CXX          = $B/bin/hytune-smpicxx|" -e 's|^HPCG_OPTS .*|HPCG_OPTS     = -DHPCG_NO_OPENMP|' \
        -e 's| -fopenmp||' "$hdir/setup/Make.MPI_GCC_OMP" >"$hdir/setup/Make.SMPI_HYTUNE" || die "cannot write $hdir/setup/Make.SMPI_HYTUNE"
    (cd "$hdir" && make arch=SMPI_HYTUNE) >"$out/build-hpcg.log" 2>&1 && [ -x "$hdir/bin/xhpcg" ] ||
        die "building HPCG failed: see $out/build-hpcg.log"
}

# CoMD: its MPI variant (src-mpi/Makefile.vanilla) with hytune's C wrapper
build_comd() {
    cdir=$out/comd
    copy_tree "$comd_src" "$cdir"
    current "$cdir/bin/CoMD-mpi" && return 0
    progress "realapps: building CoMD"
    (cd "$cdir/src-mpi" && cp Makefile.vanilla Makefile && make CC="$B/bin/hytune-smpicc" OPTFLAGS=-O2) \
        >"$out/build-comd.log" 2>&1 && [ -x "$cdir/bin/CoMD-mpi" ] ||
        die "building CoMD failed: see $out/build-comd.log"
}

# miniFE: its reference version (ref/src/Makefile's flags) with hytune's
# wrappers; MPI_Pcontrol, which SimGrid does not provide, is a no-op
build_minife() {
    mdir=$out/minife
    copy_tree "$minife_src" "$mdir"
    current "$mdir/ref/src/miniFE.x" && return 0
    progress "realapps: building miniFE"
    printf '#include <mpi.h>\n#define MPI_Pcontrol(...) MPI_SUCCESS\n' >"$mdir/ref/src/smpi_pcontrol.h" ||
        die "cannot write $mdir/ref/src/smpi_pcontrol.h"
    (cd "$mdir/ref/src" && make CXX="$B/bin/hytune-smpicxx" CC="$B/bin/hytune-smpicc" CFLAGS=-O2 \
        CPPFLAGS="-include smpi_pcontrol.h -I. -I../utils -I../fem -DMINIFE_SCALAR=double -DMINIFE_LOCAL_ORDINAL=int -DMINIFE_GLOBAL_ORDINAL=int -DMINIFE_CSR_MATRIX -DHAVE_MPI -DMPICH_IGNORE_CXX_SEEK -DMINIFE_REPORT_RUSAGE") \
        >"$out/build-minife.log" 2>&1 && [ -x "$mdir/ref/src/miniFE.x" ] ||
        die "building miniFE failed: see $out/build-minife.log"
}

# LULESH: its five sources with USE_MPI=1 and without OpenMP (its Makefile's
# serial flags)
build_lulesh() {
    ldir=$out/lulesh
    copy_tree "$lulesh_src" "$ldir"
    current "$ldir/lulesh2.0" && return 0
    progress "realapps: building LULESH"
    (cd "$ldir" && make CXX="$B/bin/hytune-smpicxx -DUSE_MPI=1" CXXFLAGS="-O2 -I." LDFLAGS=-O2) \
        >"$out/build-lulesh.log" 2>&1 && [ -x "$ldir/lulesh2.0" ] ||
        die "building LULESH failed: see $out/build-lulesh.log"
}

[ -z "$nas_apps" ] || build_nas
for a in $other_apps; do "build_$a"; done

# grid3 N: "i j k" with i * j * k = N, as near a cube as N allows (i >= j >= k)
grid3() {
    awk -v n="$1" 'BEGIN {
        best = ""; bs = -1
        for (i = 1; i <= n; i++) if (n % i == 0) for (j = 1; j <= i; j++) if ((n / i) % j == 0) {
            k = n / i / j; if (k > j) continue
            s = k / i; if (s > bs) { bs = s; best = i " " j " " k }
        }
        print best
    }'
}

# app_cmd APP: the program and its arguments for a run of APP on $np ranks
app_cmd() {
    case $1 in
    hpcg) echo "$out/hpcg/bin/xhpcg --nx=$hpcg_n --ny=$hpcg_n --nz=$hpcg_n --rt=0" ;;
    comd)
        # shellcheck disable=SC2046 # three numbers
        set -- $(grid3 "$np")
        echo "$out/comd/bin/CoMD-mpi -i $1 -j $2 -k $3 -x $((4 * $1)) -y $((4 * $2)) -z $((4 * $3)) -N $comd_steps -n 10" ;;
    minife) echo "$out/minife/ref/src/miniFE.x -nx $minife_n -ny $minife_n -nz $minife_n -verify_solution 1" ;;
    lulesh) echo "$out/lulesh/lulesh2.0 -s $lulesh_s -i $lulesh_iters" ;;
    *) echo "$out/NPB3.4-MPI/bin/$1.$class.x" ;;
    esac
}

# lulesh_energy LOG: the final origin energy LULESH printed
lulesh_energy() { sed -n 's/^ *Final Origin Energy *= *//p' "$1"; }

# verified APP RUNDIR [REFDIR]: the application's own check passed in RUNDIR
# (LULESH: and its energy equals REFDIR's, when REFDIR has a log)
verified() {
    case $1 in
    lulesh)
        e=$(lulesh_energy "$2/log")
        [ -n "$e" ] && grep -Eq "^ *Iteration count *= *$lulesh_iters\$" "$2/log" &&
            awk '/^ *MaxRelDiff *=/ { seen = 1; bad = !($3 + 0 <= 1e-8) } END { exit !seen || bad }' "$2/log" &&
            { [ -z "${3-}" ] || [ ! -s "$3/log" ] || [ "$e" = "$(lulesh_energy "$3/log")" ]; } ;;
    hpcg) cat "$2"/HPCG-Benchmark_*.txt 2>/dev/null | grep -q '^Final Summary::HPCG result is VALID' ;;
    comd) grep -Eq '^ *Final atom count : [0-9]+, no atoms lost' "$2/log" ;;
    minife) grep -q '^solution matches analytic solution' "$2/log" ;;
    *) grep -Eq '^ *Verification *= *SUCCESSFUL' "$2/log" ;;
    esac
}

# the collectives each benchmark calls (from its source), for the tuner
colls_of() {
    case $1 in
    is) echo alltoall,alltoallv,allreduce,reduce,bcast ;;
    cg) echo bcast,reduce,barrier ;;
    mg | lu) echo allreduce,reduce,bcast,barrier ;;
    ft) echo alltoall,reduce,bcast,barrier ;;
    hpcg) echo allreduce,bcast ;;
    comd) echo allreduce,bcast,barrier ;;
    minife) echo allreduce,allgather,bcast,reduce ;;
    lulesh) echo allreduce,reduce,barrier ;;
    *) echo allreduce ;;
    esac
}
tcolls=$(for a in $apps; do colls_of "$a" | tr , '\n'; done | sort -u | paste -sd, -)

csv=$out/realapps.csv
echo "platform,ranks,app,input,mode,sim_s,verified,wall_s" | write_atomic "$csv"
ccsv=$out/colls.csv
echo "platform,app,mode,call,calls,total_s,algorithms" | write_atomic "$ccsv"
tcsv=$out/tune.csv
echo "platform,tune_ranks/search_nodes,colls,tune_sim_s,tune_wall_s" | write_atomic "$tcsv"
native=$HYT_TOP/test/data/table-native-all.json
export SMPI_EXTRA="--cfg=smpi/coll-selector:mpich --cfg=smpi/display-timing:yes --log=smpi_utils.thres:info"

for plat in $plats; do
    [ -f "$plat" ] || die "platform \"$plat\" not found (see platforms/)"
    plat=$(cd "$(dirname "$plat")" && pwd)/$(basename "$plat")
    pname=$(basename "$plat" .xml)
    [ "$(plat_nodes "$plat")" -ge "$np" ] || die "$pname has fewer than $np hosts"
    hf=$out/hostfile-$np
    hostfile "$np" 1 | write_atomic "$hf"
    table=$out/table-$pname.json
    case " $modes " in *" offline "* | *" hybrid "* | *" radix "*)
        # the job script's first step: tune on the same ranks and platform
        trow=$out/tune-$pname.row
        # and the same tuner: a table another build wrote is tuned again
        tune_run="$np/$tnp $plat $tcolls $kmax ${REALAPPS_TUNE_MAX_BYTES:-4K} ${REALAPPS_TUNE_BUDGET:-1} $tshapes $(cksum <"$B/bin/hytune-smpi")"
        if [ "${REALAPPS_RESUME:-0}" = 1 ] && [ -s "$table" ] && [ -s "$trow" ] && [ "$(sed -n 1p "$trow")" = "$tune_run" ]; then
            progress "realapps: $pname: the table of an earlier run kept"
            sed -n 2p "$trow" >>"$tcsv"
        else
            progress "realapps: $pname: hytune tune --coll $tcolls on $np ranks, searching on $tnp nodes"
            t0=$(date +%s)
            smpi_run "$np" "$plat" "$hf" "$B/bin/hytune-smpi" tune --coll "$tcolls" --shapes "$tshapes" --k-max "$kmax" \
                --tune-nodes "$tnp" \
                --batch 8 --max-bytes "${REALAPPS_TUNE_MAX_BYTES:-4K}" --timeout "${REALAPPS_TUNE_BUDGET:-1}" \
                -o "$table" >"$out/tune-$pname.log" 2>&1 && [ -s "$table" ] ||
                die "hytune tune failed on $pname: see $out/tune-$pname.log"
            tsim=$(awk '/^tune: done:/ { for (i = 1; i < NF; i++) if ($i == "elapsed") v = $(i + 1) } END { print v }' \
                "$out/tune-$pname.log")
            row="$pname,$np/$tnp,$(echo "$tcolls" | tr , +),$tsim,$(($(date +%s) - t0))"
            echo "$row" >>"$tcsv"
            printf '%s\n%s\n' "$tune_run" "$row" >"$trow" || die "cannot write $trow"
        fi
        ;;
    esac
    case " $modes " in *" radix "*)
        strip_shortlists "$table" "$out/table-$pname-radix.json" || die "cannot write $out/table-$pname-radix.json" ;;
    esac
    for a in $apps; do
        case $a in
        hpcg) input="n$hpcg_n" ;; comd) input="steps$comd_steps" ;; minife) input="n$minife_n" ;;
        lulesh) input="s${lulesh_s}i$lulesh_iters" ;; *) input=$class ;;
        esac
        for mode in $modes; do
            rdir=$out/run-$pname-$a-$mode
            stats=$rdir/stats
            # the mode's table (radix: the tuned one without its shortlists)
            mtable=$table
            [ "$mode" != radix ] || mtable=$out/table-$pname-radix.json
            case $mode in # (modes checked at the start)
            mpich) set -- HYTUNE_MODE=off ;;
            native) set -- HYTUNE_MODE=offline "HYTUNE_TABLE=$native" "HYTUNE_STATS=$stats.%r" ;;
            offline) set -- HYTUNE_MODE=offline "HYTUNE_TABLE=$mtable" "HYTUNE_STATS=$stats.%r" ;;
            hybrid | radix) set -- HYTUNE_MODE=hybrid "HYTUNE_TABLE=$mtable" "HYTUNE_STATS=$stats.%r"
                [ -z "$probe_kmax" ] || set -- "$@" "HYTUNE_PROBE_K_MAX=$probe_kmax" ;;
            esac
            log=$rdir/log
            # the run, as words: with REALAPPS_RESUME=1 a run directory holding
            # the same run, finished (its wall time written) is kept
            run="$* $np $plat $(app_cmd "$a")"
            # offline, radix and hybrid: and the same table (one tuned again runs them again)
            case $mode in offline | hybrid | radix) run="$run table $(cksum <"$mtable")" ;; esac
            if [ "${REALAPPS_RESUME:-0}" = 1 ] && [ -s "$rdir/wall" ] && [ "$(cat "$rdir/run" 2>/dev/null)" = "$run" ]; then
                progress "realapps: $pname $np ranks: $a $input ($mode): kept from an earlier run"
                wall=$(cat "$rdir/wall")
            else
                rm -rf "$rdir" && mkdir -p "$rdir" || die "cannot create $rdir"
                progress "realapps: $pname $np ranks: $a $input ($mode)"
                t0=$(date +%s)
                # shellcheck disable=SC2046 # the command's words are split on purpose
                (cd "$rdir" && env "$@" timeout "$run_timeout" sh -c '. "$0"/bench/lib.sh; shift; smpi_run "$@"' \
                    "$HYT_TOP" - "$np" "$plat" "$hf" $(app_cmd "$a")) >"$log" 2>&1
                rc=$?
                [ "$rc" -eq 124 ] && die "$a $input ($mode) on $pname did not finish in $run_timeout s of wall time (REALAPPS_RUN_TIMEOUT): see $log"
                [ "$rc" -eq 0 ] || die "$a $input ($mode) on $pname failed: see $log"
                wall=$(($(date +%s) - t0))
                echo "$run" >"$rdir/run" && echo "$wall" >"$rdir/wall" || die "cannot write in $rdir"
            fi
            verified "$a" "$rdir" "$out/run-$pname-$a-mpich" || die "$a $input ($mode) on $pname did not pass its own check: see $rdir"
            sim=$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$log")
            [ -n "$sim" ] || die "no simulated time in $log"
            echo "$pname,$np,$a,$input,$mode,$sim,yes,$wall" >>"$csv"
            [ "$mode" = mpich ] && continue
            [ -s "$stats.0" ] || die "$a $input ($mode): no statistics $stats.0"
            # rank 0's time per entry point, and the algorithms its rows name
            awk -v pre="$pname,$a,$mode" '
                /^-- collective time by entry point/ { e = 1; next }
                e && /^ +MPI_/ { calls[$1] = $2; tot[$1] = $5; order[++n] = $1; next }
                e && /^$/ { e = 0 }
                /^   [a-z_]+ +[0-9]/ {
                    c = "MPI_" toupper(substr($1, 1, 1)) substr($1, 2); a = $2 "B: " $7
                    for (i = 8; i <= NF; i++) a = a " " $i
                    alg[c] = alg[c] (alg[c] == "" ? "" : "; ") a
                }
                END { for (i = 1; i <= n; i++) { c = order[i]; printf "%s,%s,%s,%s,\"%s\"\n", pre, c, calls[c], tot[c], alg[c] } }' \
                "$stats.0" >>"$ccsv"
        done
    done
done

# speedup of the communication time over MPICH's selection; break-even: the
# number of such runs whose saving pays for the tuning
awk -F, -v tfile="$tcsv" '
    BEGIN { while ((getline l < tfile) > 0) { split(l, f, ","); tune[f[1]] = f[4] } }
    NR > 1 { k = $1 FS $2 FS $3 FS $4; t[k, $5] = $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END {
        print "platform,ranks,app,input,mpich_s,offline_s,hybrid_s,speedup_offline,speedup_hybrid,tune_s,breakeven_runs_offline"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, FS); m = t[k, "mpich"]; o = t[k, "offline"]; h = t[k, "hybrid"]
            be = (m && o && m > o && tune[f[1]] != "") ? sprintf("%.0f", tune[f[1]] / (m - o)) : "never"
            printf "%s,%s,%s,%s,%s,%s,%s,%s\n", k, m, o, h, (m && o ? sprintf("%.4f", m / o) : ""),
                (m && h ? sprintf("%.4f", m / h) : ""), tune[f[1]], be
        }
    }' "$csv" | write_atomic "$out/speedup.csv"
# radix-only hybrid beside offline and hybrid (speedup.csv keeps its columns)
case " $modes " in *" radix "*)
    awk -F, 'NR > 1 { k = $1 FS $2 FS $3 FS $4; t[k, $5] = $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
        function sp(m, x) { return m && x ? sprintf("%.4f", m / x) : "" }
        END {
            print "platform,ranks,app,input,mpich_s,offline_s,radix_s,hybrid_s,speedup_offline,speedup_radix,speedup_hybrid"
            for (i = 1; i <= n; i++) {
                k = order[i]; m = t[k, "mpich"]; o = t[k, "offline"]; r = t[k, "radix"]; h = t[k, "hybrid"]
                printf "%s,%s,%s,%s,%s,%s,%s,%s\n", k, m, o, r, h, sp(m, o), sp(m, r), sp(m, h)
            }
        }' "$csv" | write_atomic "$out/radix.csv" ;;
*) rm -f "$out/radix.csv" ;; # an earlier run's, into the same OUTDIR
esac
# rank 0's time in the application's collectives (hytune's statistics):
# offline and hybrid against native (the same calls with MPI's own algorithms)
awk -F, 'NR > 1 { k = $1 FS $2; s[k, $3] += $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END {
        print "platform,app,native_coll_s,offline_coll_s,hybrid_coll_s,coll_speedup_offline,coll_speedup_hybrid"
        for (i = 1; i <= n; i++) {
            k = order[i]; m = s[k, "native"]; o = s[k, "offline"]; h = s[k, "hybrid"]
            printf "%s,%.6f,%.6f,%.6f,%s,%s\n", k, m, o, h, (m && o ? sprintf("%.4f", m / o) : ""), (m && h ? sprintf("%.4f", m / h) : "")
        }
    }' "$ccsv" | write_atomic "$out/coll-speedup.csv"
echo "== whole run (simulated s, computation off; hytune modes include its start-up and statistics), speedup over MPICH's selection"
column -s, -t "$out/speedup.csv"
if [ -f "$out/radix.csv" ]; then
    echo "== offline, radix-only hybrid (radix) and hybrid, speedup over MPICH's selection"
    column -s, -t "$out/radix.csv"
fi
echo "== tuning"
column -s, -t "$tcsv"
echo "== rank 0's time in the application's collectives (s), speedup over MPI's own algorithms"
column -s, -t "$out/coll-speedup.csv"
echo "== rank 0's time per collective (s)"
column -s, -t "$ccsv"
echo "realapps: results in $out"
