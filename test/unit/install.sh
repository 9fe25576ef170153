#!/bin/sh
# make install into a DESTDIR with prefix and libdir (naming ${exec_prefix})
# given to make: the files where those directories say,
# the library with its soname and links, hytune.pc that links a program with
# `pkg-config --libs hytune` (run with hytune interposed, its statistics
# printed) and the module file's paths inside the installation; then
# make uninstall leaves no file, link or hytune directory.
#   B=build sh test/unit/install.sh
name=install
. test/mpi/script.sh
MPICC=$(sed -n "s/^MPICC = //p" config.mk)
prefix=/opt/hytune-test
root=$d/root
# shellcheck disable=SC2016 # ${prefix} is make's: a directory that names the prefix
make -s B="$B" DESTDIR="$root" prefix="$prefix" libdir='${exec_prefix}/lib64' install >"$d/log" 2>&1 || { cat "$d/log"; fail "make install failed"; }
P=$root$prefix
version=$(cat VERSION)
major=${version%%.*}
for f in bin/hytune include/hytune.h lib64/libhytune.a lib64/libhytune.so.$version lib64/pkgconfig/hytune.pc \
    share/man/man1/hytune.1 share/modulefiles/hytune/$version share/doc/hytune/README.md \
    share/doc/hytune/docs/install.md; do
    [ -f "$P/$f" ] || fail "$prefix/$f not installed"
done
[ "$(readlink "$P/lib64/libhytune.so.$major")" = "libhytune.so.$version" ] || fail "libhytune.so.$major is not a link to libhytune.so.$version"
[ "$(readlink "$P/lib64/libhytune.so")" = "libhytune.so.$major" ] || fail "libhytune.so is not a link to libhytune.so.$major"
soname=$(readelf -d "$P/lib64/libhytune.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libhytune.so.$major" ] || fail "soname is \"$soname\", not libhytune.so.$major"
grep -q "^#define HYTUNE_VERSION \"$version\"" "$P/include/hytune.h" || fail "hytune.h does not say version $version"
"$P/bin/hytune" --version | grep -qx "hytune $version" || fail "hytune --version is not $version"
grep -q "hytune $version" "$P/share/man/man1/hytune.1" || fail "the man page does not say version $version"

# a program linked with pkg-config --libs hytune from the installed tree
export PKG_CONFIG_PATH="$P/lib64/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
[ "$(pkg-config --modversion hytune)" = "$version" ] || fail "pkg-config --modversion hytune: $(pkg-config --modversion hytune)"
libs=$(pkg-config --libs hytune) || fail "pkg-config --libs hytune failed"
echo "$libs" | grep -q -- '-Wl,--push-state,--no-as-needed -lhytune -Wl,--pop-state' || fail "Libs do not restore the linker state after -lhytune: $libs"
pkg-config --static --libs hytune | grep -q -- '-ljson-c' || fail "Libs.private lacks json-c: $(pkg-config --static --libs hytune)"
cat >"$d/app.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <hytune.h>
int main(int argc, char **argv) {
    int x = 1, sum = 0, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != n) return 1;
    printf("app of hytune %s: ok\n", HYTUNE_VERSION);
    MPI_Finalize();
    return 0;
}
C
# shellcheck disable=SC2046,SC2086 # pkg-config output is words
$MPICC $(pkg-config --cflags hytune) "$d/app.c" -o "$d/app" -Wl,--as-needed $libs || fail "linking with pkg-config --libs hytune failed"
readelf -d "$d/app" | grep -q "NEEDED.*\[libhytune.so.$major\]" || fail "the program does not need libhytune.so.$major (readelf -d)"
out=$(LD_LIBRARY_PATH="$P/lib64" HYTUNE_STATS=stdout $MPIEXEC -n 2 "$d/app" 2>&1) || { echo "$out"; fail "the linked program failed"; }
echo "$out" | grep -q "app of hytune $version: ok" || { echo "$out"; fail "no ok from the program"; }
echo "$out" | grep -Eq '^ +allreduce +4-7 B +1 ' || { echo "$out"; fail "hytune did not count the program's allreduce"; }

# linked with libhytune.a and pkg-config --static --libs hytune: the online
# layer, which no other file names (it registers itself when the program
# loads), is linked in, and the program runs interposed
# shellcheck disable=SC2046,SC2086
$MPICC $(pkg-config --cflags hytune) "$d/app.c" -o "$d/app-static" \
    $(pkg-config --static --libs hytune | sed 's/-lhytune /-l:libhytune.a /') ||
    fail "linking libhytune.a with pkg-config --static --libs hytune failed"
nm "$d/app-static" | grep -q ' T hyt_online_before$' ||
    fail "the program linked with libhytune.a lacks the online layer (Libs.private: --undefined)"
out=$(HYTUNE_STATS=stdout $MPIEXEC -n 2 "$d/app-static" 2>&1) || { echo "$out"; fail "the statically linked program failed"; }
echo "$out" | grep -Eq '^ +allreduce +4-7 B +1 ' || { echo "$out"; fail "hytune did not count the statically linked program's allreduce"; }

# the module file leads into the installation
tclsh >"$d/mod" <<TCL || fail "the module file does not load in tclsh"
proc prepend-path {var dir} { puts "\$var \$dir" }
proc setenv {var val} { puts "\$var \$val" }
proc module-whatis {args} {}
proc conflict {args} {}
source $P/share/modulefiles/hytune/$version
TCL
for v in PATH MANPATH PKG_CONFIG_PATH LD_LIBRARY_PATH; do
    dir=$(sed -n "s/^$v //p" "$d/mod")
    [ -n "$dir" ] || fail "the module file sets no $v"
    [ -d "$root$dir" ] || fail "the module file's $v $dir is not a directory of the installation"
done
[ -x "$root$(sed -n 's/^PATH //p' "$d/mod")/hytune" ] || fail "the module file's PATH has no hytune"

# shellcheck disable=SC2016
make -s B="$B" DESTDIR="$root" prefix="$prefix" libdir='${exec_prefix}/lib64' uninstall >"$d/log" 2>&1 || { cat "$d/log"; fail "make uninstall failed"; }
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
left=$(find "$root" -type d -name '*hytune*' ! -path "$root$prefix")
[ -z "$left" ] || fail "make uninstall left directories: $left"
echo "install: ok"
