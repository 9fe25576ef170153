#!/bin/sh
# ./configure as packagers' tools call it: the argument list of Debian's
# dh_auto_configure (directories naming ${prefix}, --build, the
# dependency-tracking and option-checking switches), VAR=VALUE arguments,
# CFLAGS/CPPFLAGS/LDFLAGS/MPICC from the environment, "--opt VALUE"; and
# errors for unknown options, relative directories and VAR names that are not
# names.  Runs configure in a scratch directory.
#   B=build sh test/unit/configure_options.sh
name=configure_options
. test/mpi/script.sh
top=$(pwd)
conf() { # configure ARGS in $d; output in $d/out
    (cd "$d" && rm -f config.mk && env -u CFLAGS -u CPPFLAGS -u LDFLAGS -u MPICC "$top/configure" --without-simgrid -q "$@") >"$d/out" 2>&1
}
envconf() { # configure with VAR=VALUE... from the environment
    (cd "$d" && rm -f config.mk && env "$@" "$top/configure" --without-simgrid -q) >"$d/out" 2>&1
}
mk() { sed -n "s/^$1 = //p" "$d/config.mk"; }
is() { [ "$(mk "$1")" = "$2" ] || fail "${3:-}: config.mk $1 = \"$(mk "$1")\", expected \"$2\""; }

# shellcheck disable=SC2016 # ${prefix} is for make, as autoconf writes it
conf --build=x86_64-linux-gnu --prefix=/usr '--includedir=${prefix}/include' '--mandir=${prefix}/share/man' \
    '--infodir=${prefix}/share/info' --sysconfdir=/etc --localstatedir=/var --disable-option-checking \
    --disable-silent-rules '--libdir=${prefix}/lib/x86_64-linux-gnu' --runstatedir=/run \
    --disable-maintainer-mode --disable-dependency-tracking --enable-unknown-feature \
    CFLAGS=-O3 CPPFLAGS=-DHYT_CONF_TEST LDFLAGS=-Wl,-z,relro ||
    { cat "$d/out"; fail "the Debian argument list was refused"; }
# shellcheck disable=SC2016
{
    is prefix /usr debian
    is libdir '${prefix}/lib/x86_64-linux-gnu' debian
    is includedir '${prefix}/include' debian
    is mandir '${prefix}/share/man' debian
    is bindir '${exec_prefix}/bin' debian
    is LDFLAGS -Wl,-z,relro debian
}
case " $(mk CFLAGS) " in
*" -O2 "*"-DHYT_CONF_TEST "*"-O3 "*) ;;
*) fail "CFLAGS = $(mk CFLAGS): -O3 must follow hytune's -O2 (and CPPFLAGS be in)" ;;
esac

# the environment, and "--opt VALUE"
envconf CFLAGS=-O1 LDFLAGS=-L/nonexistent-ld CPPFLAGS=-DHYT_ENV MPICC=mpicc.mpich || { cat "$d/out"; fail "environment refused"; }
case " $(mk CFLAGS) " in *" -DHYT_ENV "*"-O1 "*) ;; *) fail "CFLAGS/CPPFLAGS from the environment not used: $(mk CFLAGS)" ;; esac
is LDFLAGS -L/nonexistent-ld environment
is MPICC mpicc.mpich environment
conf --prefix /opt/h --with-modulefiles /opt/modulefiles || { cat "$d/out"; fail "--prefix DIR refused"; }
is prefix /opt/h "--prefix DIR"
is modulefilesdir /opt/modulefiles "--with-modulefiles DIR"
# the flags reach the checks: an LDFLAGS the linker refuses fails configure
conf LDFLAGS=-Wl,--no-such-linker-option && fail "a broken LDFLAGS was not used by the checks"

# errors
for bad in --bogus --enable-unknown-feature --with-nothing=1 --libdir=lib --bindir=relative/bin FOO-BAR=1 --prefix; do
    conf "$bad" && fail "$bad accepted"
    grep -q "^configure: .*$(echo "${bad%%=*}" | sed 's/[][]/\\&/g')" "$d/out" || { cat "$d/out"; fail "$bad: no error naming it"; }
    [ "$(wc -l <"$d/out")" = 1 ] || { cat "$d/out"; fail "$bad: more than one line"; }
done
grep -q 'needs a value' "$d/out" || fail "--prefix without a value: no clear error"
"$top/configure" --help | grep -q -- '--libdir=DIR' || fail "--help does not list --libdir"
echo "configure_options: ok"
