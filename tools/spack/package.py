# Spack recipe for hytune, from this source tree.  In a Spack environment:
#   spack repo create ~/hytune-repo && mkdir -p ~/hytune-repo/packages/hytune
#   cp tools/spack/package.py ~/hytune-repo/packages/hytune/ && spack repo add ~/hytune-repo
#   spack develop --path "$PWD" hytune@main && spack add hytune@main+simgrid && spack install
# test/unit/spack_options.py runs ./configure with the arguments this recipe
# passes, and checks that each option is one ./configure --help lists.

from spack.package import *


class Hytune(AutotoolsPackage):
    """Hybrid tuner for MPI collectives: a PMPI interposition library for
    MPICH programs that chooses each collective's algorithm from an offline
    table and refines the choice online, and the hytune command that tunes
    that table on the machine."""

    # the source tree (spack develop --path); its VERSION file holds the number
    version("main")

    variant("simgrid", default=False,
            description="Also build libhytune-smpi and hytune-smpicc for SimGrid SMPI")
    variant("sanitize", default=False, description="Build with AddressSanitizer and UBSan")

    # MPI provider: MPICH or a derivative whose mpi.h defines MPICH_VERSION
    # (hytune drives MPICH's own algorithm selection; configure refuses others)
    depends_on("c", type="build")
    depends_on("mpi")
    conflicts("^openmpi", msg="hytune needs MPICH (or an MPICH derivative)")
    conflicts("^spectrum-mpi", msg="hytune needs MPICH (or an MPICH derivative)")
    conflicts("^fujitsu-mpi", msg="hytune needs MPICH (or an MPICH derivative)")
    depends_on("hwloc")
    depends_on("json-c")
    depends_on("uthash", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("simgrid", when="+simgrid")

    def configure_args(self):
        spec = self.spec
        args = [
            "--with-mpicc={0}".format(spec["mpi"].mpicc),
            "--with-hwloc={0}".format(spec["hwloc"].prefix),
            "--with-modulefiles={0}".format(join_path(self.prefix.share, "modulefiles")),
            "CPPFLAGS=-I{0}".format(spec["uthash"].prefix.include),
        ]
        if spec.satisfies("+simgrid"):
            args.append("--with-simgrid={0}".format(spec["simgrid"].prefix))
        else:
            args.append("--without-simgrid")
        args.extend(self.enable_or_disable("sanitize"))
        return args
