#!/bin/sh
# One-command set-up and run for hytune.
#   ./run.sh demo    install what is missing, build, run the main job (the demo
#                    on the embedded simulated cluster)
#   ./run.sh test    install what is missing, build with -Werror, run all tests
# Debian packages are installed with apt-get when running as root; otherwise
# the missing ones are named and nothing is changed.
set -eu
cd "$(dirname "$0")"

PACKAGES="build-essential gfortran pkg-config valgrind man-db python3 tcl mpich libmpich-dev libhwloc-dev uthash-dev libjson-c-dev libsimgrid-dev gnuplot-nox netpipe-mpich2 yorick-mpy-mpich2 scalapack-mpi-test"

usage() {
    sed -n '2,8s/^# \{0,1\}//p' "$0"
}

install_deps() {
    missing=
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "run.sh: installing Debian packages:$missing"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
    else
        echo "run.sh: missing Debian packages:$missing" >&2
        echo "run.sh: install them with: sudo apt-get install -y$missing" >&2
        exit 1
    fi
}

build() {
    if [ ! -f config.mk ] || [ configure -nt config.mk ]; then
        ./configure --enable-werror
    fi
    make -s -j2 "$@"
}

case ${1:-} in
demo)
    install_deps
    build all
    shift
    sh bench/demo.sh "$@"
    ;;
test)
    install_deps
    build tests
    shift
    sh test/run.sh "$@"
    ;;
-h | --help | help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
