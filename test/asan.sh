#!/bin/sh
# Sanitizer pass: builds the library, the command and the core tests with
# AddressSanitizer + UBSan into "$B-asan" and runs the unit tests and a set
# of 2-rank MPI tests there.  Any report fails the test (UBSan does not
# recover; ASan leak checking is on, with test/lsan.supp naming only leaks
# inside MPICH's own hwloc initialisation).
set -eu
A=$B-asan
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
units=$(ls test/unit/*.c | sed "s|^test/unit/\(.*\)\.c$|$A/test/unit/\1|")
mpis="$A/test/mpi/test_core_pass $A/test/mpi/test_core_comm $A/test/mpi/coll_matrix_mpi $A/test/mpi/test_online_mpi $A/test/mpi/test_scratch $A/test/mpi/test_nbsel $A/test/mpi/test_alloc_agree"
make -s -j2 B="$A" SANITIZE="$SAN" "$A/lib/libhytune.so" "$A/bin/hytune" $units $mpis
# full unwinding: MPICH's leak comes from an unloaded hwloc plugin frame
export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:exitcode=97
export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fail=0
run() {
    echo "+ $*"
    "$@" || { echo "asan: FAILED: $*"; fail=1; }
}
for t in $units; do
    case $t in *test_forest_speed | *test_tune_load) continue ;; esac  # timing only; helper of tune tests
    case ${t##*/} in
    test_table) run "$t" test/data ;;
    test_file) d=$(mktemp -d) && run "$t" "$d" && rm -rf "$d" ;;
    *) run "$t" ;;
    esac
done
tab=$PWD/test/smpi/online_table.json
run env HYTUNE_MODE=offline HYTUNE_TABLE=test/data/table-native-all.json $MPIEXEC -n 2 "$A/test/mpi/test_core_pass" quick
run $MPIEXEC -n 2 "$A/test/mpi/test_core_comm" 200
run env HYTUNE_MODE=offline $MPIEXEC -n 2 "$A/test/mpi/coll_matrix_mpi" quick
run env HYTUNE_TABLE="$tab" $MPIEXEC -n 2 "$A/test/mpi/test_online_mpi" 40
run $MPIEXEC -n 2 "$A/test/mpi/test_scratch" fail
run env HYTUNE_TEST_KERNEL_FAIL=1 $MPIEXEC -n 2 "$A/test/mpi/test_scratch" fail
run $MPIEXEC -n 2 "$A/test/mpi/test_scratch" cap
run $MPIEXEC -n 2 "$A/test/mpi/test_scratch" wide
run env HYTUNE_TEST_KERNEL_FAIL=1 HYTUNE_TEST_KERNEL_FAIL_AT=node $MPIEXEC -n 2 "$A/test/mpi/test_alloc_agree" node 10
ctab=$PWD/test/smpi/online_choose_table.json
run env HYTUNE_TEST_KERNEL_FAIL=1 HYTUNE_TEST_KERNEL_FAIL_AT=online HYTUNE_PROBE_CALLS=2 HYTUNE_HOT_CALLS=auto HYTUNE_TABLE="$ctab" $MPIEXEC -n 2 "$A/test/mpi/test_alloc_agree" online 200
run env HYTUNE_PROBE_CALLS=2 HYTUNE_HOT_CALLS=auto HYTUNE_TABLE="$ctab" $MPIEXEC -n 2 "$A/test/mpi/test_alloc_agree" online 200
# small allocations served from the emergency reserve (and freed back to it)
for at in ctx nodemodel key init; do
    run env HYTUNE_TEST_KERNEL_FAIL=1 HYTUNE_TEST_KERNEL_FAIL_AT=$at HYTUNE_MODE=offline HYTUNE_TABLE="$PWD/test/mpi/alloc_small_table.json" $MPIEXEC -n 2 "$A/test/mpi/test_alloc_agree" small 10
done
run env HYTUNE_TEST_KERNEL_FAIL=0 HYTUNE_TEST_KERNEL_FAIL_AT=onlinekey HYTUNE_PROBE_CALLS=2 HYTUNE_HOT_CALLS=auto HYTUNE_TABLE="$ctab" $MPIEXEC -n 2 "$A/test/mpi/test_alloc_agree" small 60
run env HYTUNE_TABLE=test/data/table-nb.json $MPIEXEC -n 2 "$A/test/mpi/test_nbsel" vars
d=$(mktemp -d)
run $MPIEXEC -n 2 "$A/bin/hytune" tune --coll allreduce --max-bytes 64 --timeout 3 --point-budget 0.001 --nonblocking all -o "$d/t.json" --mpich-json "$d/m.json"
rm -rf "$d"
exit $fail
