#!/usr/bin/env python3
"""tools/spack/package.py against ./configure, without Spack: the recipe is
loaded with stand-ins for Spack's directives and spec, its configure_args()
is called for ~simgrid~sanitize and +simgrid, every option it passes must be
one that `./configure --help` lists, and ./configure must accept the whole
argument list (run in a scratch directory, with --prefix as Spack adds it).
  python3 test/unit/spack_options.py"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

TOP = os.getcwd()
RECIPE = os.path.join(TOP, "tools", "spack", "package.py")
failures = []


def fail(msg):
    failures.append(msg)
    print("spack_options: " + msg)


class Prefix(str):
    """a Spack prefix: attributes are subdirectories"""

    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class Dep:
    def __init__(self, prefix, **attrs):
        self.prefix = Prefix(prefix)
        self.__dict__.update(attrs)


class Spec:
    def __init__(self, variants, deps):
        self.variants, self.deps = variants, deps

    def __getitem__(self, name):
        return self.deps[name]

    def satisfies(self, constraint):
        m = re.fullmatch(r"([+~])(\w+)", constraint)
        if not m:
            raise ValueError("stand-in spec cannot answer satisfies(%r)" % constraint)
        return self.variants[m.group(2)] == (m.group(1) == "+")


directives = {"version": [], "variant": [], "depends_on": [], "conflicts": []}
spack_package = types.ModuleType("spack.package")
for _name in directives:
    spack_package.__dict__[_name] = (lambda n: lambda *a, **k: directives[n].append((a, k)))(_name)
spack_package.join_path = os.path.join


class AutotoolsPackage:
    def enable_or_disable(self, variant):
        return ["--%s-%s" % ("enable" if self.spec.variants[variant] else "disable", variant)]


spack_package.AutotoolsPackage = AutotoolsPackage
spack_package.__all__ = ["version", "variant", "depends_on", "conflicts", "join_path", "AutotoolsPackage"]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = spack_package
ns = {"__name__": "hytune_recipe"}
exec(compile(open(RECIPE).read(), RECIPE, "exec"), ns)
Hytune = ns["Hytune"]

variants = {a[0] for a, k in directives["variant"]}
if variants != {"simgrid", "sanitize"}:
    fail("variants %s, expected simgrid and sanitize" % sorted(variants))
deps = {a[0]: k for a, k in directives["depends_on"]}
for need in ("c", "mpi", "hwloc", "json-c", "uthash", "simgrid"):
    if need not in deps:
        fail("no depends_on(%r)" % need)
if deps.get("simgrid", {}).get("when") != "+simgrid":
    fail("simgrid is not a dependency when=+simgrid only")
if not any(a[0] == "^openmpi" for a, k in directives["conflicts"]):
    fail("Open MPI is not refused as the MPI provider")

help_text = subprocess.run([os.path.join(TOP, "configure"), "--help"], capture_output=True,
                           text=True, check=True).stdout
listed = set(re.findall(r"(?m)^\s+(--[a-z][a-z-]*)", help_text))
listed |= set(re.findall(r"--(?:enable|disable)/--(?:enable|disable)-[a-z-]+", help_text))
variables = set(re.findall(r"(?m)^  ([A-Z][A-Z0-9_]*)\s", help_text.split("Variables", 1)[-1]))


def documented(arg):
    if re.match(r"[A-Z][A-Z0-9_]*=", arg):
        return arg.split("=", 1)[0] in variables
    name = arg.split("=", 1)[0]
    if name in listed:
        return True
    m = re.fullmatch(r"--(enable|disable)-([a-z-]+)", name)
    if m:  # --help lists one of --enable-X / --disable-X
        return ("--enable-" + m.group(2)) in listed or ("--disable-" + m.group(2)) in listed
    return False


mpicc = shutil.which("mpicc.mpich") or shutil.which("mpicc")
usr = os.path.dirname(os.path.dirname(shutil.which("smpicc") or "/usr/bin/smpicc"))
scratch = tempfile.mkdtemp()
try:
    for sim in (False, True):
        if sim and not shutil.which("smpicc"):
            print("spack_options: no smpicc; +simgrid not run")
            continue
        pkg = Hytune.__new__(Hytune)
        pkg.prefix = Prefix(os.path.join(scratch, "opt"))
        pkg.spec = Spec({"simgrid": sim, "sanitize": False},
                        {"mpi": Dep(os.path.dirname(os.path.dirname(mpicc)), mpicc=mpicc),
                         "hwloc": Dep("/usr"), "uthash": Dep("/usr"), "simgrid": Dep(usr)})
        args = pkg.configure_args()
        label = "+simgrid" if sim else "~simgrid"
        for a in args:
            if not documented(a):
                fail("%s: %s is not an option ./configure --help lists" % (label, a))
        run = os.path.join(scratch, label)
        os.mkdir(run)
        r = subprocess.run([os.path.join(TOP, "configure"), "--prefix=" + pkg.prefix] + args,
                           cwd=run, capture_output=True, text=True)
        if r.returncode != 0:
            fail("%s: ./configure %s failed:\n%s" % (label, " ".join(args), r.stderr))
            continue
        mk = dict(re.findall(r"(?m)^(\w+) = (.*)$", open(os.path.join(run, "config.mk")).read()))
        if mk.get("MPICC") != mpicc:
            fail("%s: config.mk MPICC = %r, not %r" % (label, mk.get("MPICC"), mpicc))
        if bool(mk.get("SMPICC")) != sim:
            fail("%s: config.mk SMPICC = %r" % (label, mk.get("SMPICC")))
        if mk.get("modulefilesdir") != os.path.join(pkg.prefix, "share", "modulefiles"):
            fail("%s: config.mk modulefilesdir = %r" % (label, mk.get("modulefilesdir")))
        print("spack_options: %s: ./configure %s: ok" % (label, " ".join(args)))
finally:
    shutil.rmtree(scratch)
sys.exit(1 if failures else 0)
