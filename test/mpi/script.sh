# shellcheck shell=sh
# Start of a test/mpi script, sourced from the top of the tree after the
# caller sets name: checks B, defaults MPIEXEC (config.mk's: MPICH's), makes the scratch directory
# $d (removed at exit) and defines fail MESSAGE, which prints
# "NAME: MESSAGE", then the files $fail_logs names (a pattern in $d, if set),
# and exits 1.
set -u
B=${B:?set B to the build directory}
MPIEXEC=${MPIEXEC:-$(sed -n 's/^MPIEXEC = //p' config.mk 2>/dev/null)}
[ -n "$MPIEXEC" ] || { echo "${name:?}: set MPIEXEC to MPICH's mpiexec or run ./configure" >&2; exit 2; }
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
fail() {
    echo "${name:?}: $*"
    # shellcheck disable=SC2086 # fail_logs is a pattern
    [ -z "${fail_logs:-}" ] || cat $fail_logs 2>/dev/null
    exit 1
}
