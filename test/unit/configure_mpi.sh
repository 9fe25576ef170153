#!/bin/sh
# configure finds MPICH's own wrappers when Open MPI's own the plain names:
# fake Open MPI mpicc/mpiexec first on PATH are passed over for mpicc.mpich and
# mpiexec.mpich; an Open MPI (or non-MPICH) compiler or mpiexec named by the
# user (MPICC=, --with-mpicc=, MPIEXEC=) is refused with one error naming what
# was found and the fix.  Runs configure in a scratch directory.
#   B=build sh test/unit/configure_mpi.sh
name=configure_mpi
. test/mpi/script.sh
top=$(pwd)
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
    fail "needs MPICH's mpicc.mpich and mpiexec.mpich (Debian: mpich libmpich-dev)"
mkdir "$d/ompi" "$d/ompi/include" "$d/other" "$d/other/include" "$d/run"
# Open MPI-like wrappers: mpi.h defines OMPI_*_VERSION, --showme answers
cat >"$d/ompi/include/mpi.h" <<'H'
#define OMPI_MAJOR_VERSION 4
#define OMPI_MINOR_VERSION 1
#define OMPI_RELEASE_VERSION 5
int MPI_Init(int *, char ***);
H
cat >"$d/ompi/mpicc" <<SH
#!/bin/sh
case "\$1" in --showme*) echo "gcc -I$d/ompi/include -lmpi"; exit 0 ;; esac
exec cc -I$d/ompi/include "\$@"
SH
cat >"$d/ompi/mpiexec" <<'SH'
#!/bin/sh
case "$1" in --version) echo "mpiexec (Open MPI) 4.1.5"; exit 0 ;; esac
exit 1
SH
cp "$d/ompi/mpicc" "$d/ompi/mpif90"
# a compiler whose mpi.h is some other MPI (no MPICH_VERSION, no OMPI_*)
echo 'int MPI_Init(int *, char ***);' >"$d/other/include/mpi.h"
printf '#!/bin/sh\nexec cc -I%s/other/include "$@"\n' "$d" >"$d/other/mpicc"
chmod +x "$d/ompi/mpicc" "$d/ompi/mpiexec" "$d/ompi/mpif90" "$d/other/mpicc"
"$d/ompi/mpicc" -E -dM "$d/ompi/include/mpi.h" | grep -q OMPI_MAJOR_VERSION || fail "the fake Open MPI mpicc does not work"

conf() { # configure in $d/run; output in $d/out, status returned
    (cd "$d/run" && rm -f config.mk && env -u MPICC -u MPIEXEC -u MPIF90 "$@" "$top/configure" --without-simgrid) >"$d/out" 2>&1
}
mk() { sed -n "s/^$1 = //p" "$d/run/config.mk"; }

# 1. Open MPI's wrappers first on PATH: MPICH's .mpich ones are chosen
conf PATH="$d/ompi:$PATH" || { cat "$d/out"; fail "configure failed with Open MPI first on PATH"; }
[ "$(mk MPICC)" = "$(command -v mpicc.mpich)" ] || fail "MPICC = $(mk MPICC), not mpicc.mpich"
[ "$(mk MPIEXEC)" = "$(command -v mpiexec.mpich)" ] || fail "MPIEXEC = $(mk MPIEXEC), not mpiexec.mpich"
case $(mk MPI_VERSION) in "MPICH "[0-9]*) ;; *) fail "MPI_VERSION = $(mk MPI_VERSION)" ;; esac
case $(mk MPIF90) in "$d"/*) fail "MPIF90 = $(mk MPIF90): the fake Open MPI one" ;; esac

# 2. an Open MPI compiler named by the user: one error naming it and the fix
for how in "MPICC=$d/ompi/mpicc" "--with-mpicc=$d/ompi/mpicc"; do
    case $how in
    MPICC=*) conf "$how" && fail "$how accepted" ;;
    *) (cd "$d/run" && "$top/configure" --without-simgrid "$how") >"$d/out" 2>&1 && fail "$how accepted" ;;
    esac
    grep -q "error: $d/ompi/mpicc is not MPICH's compiler: its mpi.h is Open MPI 4.1.5" "$d/out" ||
        { cat "$d/out"; fail "$how: no error naming Open MPI 4.1.5"; }
    grep -q "MPICC=$(command -v mpicc.mpich)" "$d/out" || { cat "$d/out"; fail "$how: the fix (MPICC=mpicc.mpich) not named"; }
    [ ! -f "$d/run/config.mk" ] || fail "$how: config.mk written"
done

# 3. a compiler of another MPI
conf MPICC="$d/other/mpicc" && fail "a non-MPICH compiler accepted"
grep -q "its mpi.h is an MPI whose mpi.h defines no MPICH_VERSION" "$d/out" || { cat "$d/out"; fail "non-MPICH: no clear error"; }

# 4. Open MPI's mpiexec named by the user
conf MPIEXEC="$d/ompi/mpiexec" && fail "Open MPI's mpiexec accepted"
grep -q "error: $d/ompi/mpiexec is Open MPI's mpiexec" "$d/out" || { cat "$d/out"; fail "mpiexec: no clear error"; }

# 5. MPICC and MPIEXEC from the environment are used as given
conf MPICC=mpicc.mpich MPIEXEC="$(command -v mpiexec.mpich)" PATH="$d/ompi:$PATH" || { cat "$d/out"; fail "MPICC=mpicc.mpich refused"; }
[ "$(mk MPICC)" = mpicc.mpich ] || fail "MPICC from the environment not used: $(mk MPICC)"
echo "configure_mpi: ok"
