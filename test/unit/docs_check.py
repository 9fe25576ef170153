#!/usr/bin/env python3
"""README.md and docs/ against the code they describe.
  python3 test/unit/docs_check.py BUILD_BIN [DOCS_ROOT]
  python3 test/unit/docs_check.py --seeded BUILD_BIN
  python3 test/unit/docs_check.py --schema STATS.json...
Checks (DOCS_ROOT: where README.md, docs/, run.sh and .ci/run are read; default
the top of the tree; the code side is always the built tool and src/):
  - every HYTUNE_* name in README.md, docs/*.md and docs/hytune.1 is a variable of
    the settings table (`hytune info --env`, whose rows are src/env.c's), and the
    variable table of docs/user-guide.md has a row for every variable, with the
    table's default and whether ranks must agree on it;
  - every `hytune SUBCOMMAND ... --option` quoted in README.md and docs/*.md (code
    spans and code blocks) names a subcommand of `hytune help` and options that
    subcommand lists (its --help for tune and report), and so does every option
    quoted alone (`--k-max 8`) on the pages about tune and report; every `./configure
    --option` one that `./configure --help` lists; every bench/ or test/ script
    named exists; every `test/run.sh FILTER` matches a test;
  - every link of README.md and docs/*.md to a file resolves;
  - README.md quotes `./run.sh demo` and `./run.sh test`, run.sh has both, and
    .ci/run runs exactly `./run.sh test` after installing run.sh's packages,
    which docs/install.md names one by one;
  - every example selection table (```json blocks with "collectives") loads
    without a message (`HYTUNE_TABLE=example hytune topo`);
  - every figure of docs/results.md's rows appears on the page the row links,
    and every figure of README.md's results table in docs/results.md;
  - README.md's real-application table and docs/realapps.md's "Measured: whole
    runs" table are docs/data/realapps.csv's rows, in its order, as
    bench/realapps/summary.sh prints them (speedups to 2 decimals; realapps.md
    also the tuning time and the break-even), and the geometric means README.md,
    docs/realapps.md and docs/results.md give are the file's.
--schema: every field of the statistics files is named in docs/statistics.md's
schema (and the same check fails with one field renamed there).
--seeded copies the documents, plants one mistake of each kind in turn and
requires the check to fail on each with a message naming it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# names the documents quote on purpose although no variable has them
NOT_VARIABLES = {
    "HYTUNE_MODEE": "the example of a misspelt name (docs/hytune.1, docs/user-guide.md)",
}


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    return p.returncode, p.stdout


class Code:
    """what the documents are checked against: the built tool, src/, ./configure"""

    def __init__(self, bindir):
        self.hytune = os.path.join(bindir, "hytune")
        rc, out = run([self.hytune, "info", "--env"])
        if rc != 0:
            sys.exit("docs_check: %s info --env failed:\n%s" % (self.hytune, out))
        self.defaults, self.ranks = {}, {}
        name = None
        for line in out.splitlines():
            m = re.match(r"^(HYTUNE_[A-Z0-9_]+)$", line)
            if m:
                name = m.group(1)
                self.defaults[name] = None
            m = re.match(r"^\s+default: (.*)$", line)
            if m and name:
                self.defaults[name] = "unset" if m.group(1) == "(unset)" else m.group(1)
            m = re.match(r"^\s+ranks: (.*)$", line)
            if m and name:
                self.ranks[name] = "may differ" if m.group(1) == "may differ" else "same on all"
        env_c = open(os.path.join(TOP, "src", "env.c")).read()
        for v in self.defaults:
            lit = '"HYTUNE_FORCE_" #U' if v.startswith("HYTUNE_FORCE_") else '"%s"' % v
            if lit not in env_c:
                sys.exit("docs_check: %s is printed by hytune info --env but not in src/env.c" % v)
        self.force_colls = sorted(v[len("HYTUNE_FORCE_"):] for v in self.defaults
                                  if v.startswith("HYTUNE_FORCE_"))
        rc, out = run([self.hytune, "help"])
        self.subs = {}
        for line in out.splitlines():
            m = re.match(r"^  ([a-z]+)\b(.*)$", line)
            if m:
                self.subs[m.group(1)] = set(re.findall(r"--[a-z][a-z-]*", m.group(2)))
        for sub in ("tune", "report"):
            rc, out = run([self.hytune, sub, "--help"])
            if rc != 0 or sub not in self.subs:
                sys.exit("docs_check: hytune %s --help failed (%d):\n%s" % (sub, rc, out))
            self.subs[sub] |= set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out))
        rc, out = run(["sh", os.path.join(TOP, "configure"), "--help"], cwd=TOP)
        self.configure = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out))
        self.tests = []
        for suite in ("unit", "mpi", "smpi"):
            path = os.path.join(TOP, "test", suite, "testlist")
            for line in open(path):
                if line.strip() and not line.startswith("#") and ":" in line:
                    self.tests.append(suite + "/" + line.split(":", 1)[0])


def documents(root):
    docs = os.path.join(root, "docs")
    md = ["README.md"] + sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))
    return md, md + ["docs/hytune.1"]


def code_lines(text, blocks_only=False):
    """the lines of code blocks and the code spans of a markdown text, with
    backslash continuations joined"""
    out, fenced, prev_blank = [], False, True
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or (line.startswith("    ") and (prev_blank or out and out[-1][1])):
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1] + " " + lines[i].strip()
            out.append((line.strip(), True))
            prev_blank = False
            i += 1
            continue
        else:
            for span in re.findall(r"`([^`]+)`", line):
                out.append((span, False))
        prev_blank = line.strip() == ""
        i += 1
    return [c for c, block in out if block or not blocks_only]


def figures(text):
    return re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", text)


def has_figure(page, fig):
    return re.search(r"(?<![\d.,])" + re.escape(fig) + r"(?![\d]|[.,]\d)", page) is not None


COUNT = {}


def seen(what, n=1):
    COUNT[what] = COUNT.get(what, 0) + n


def check(code, root):
    errors = []
    COUNT.clear()
    md, alldocs = documents(root)
    texts = {f: open(os.path.join(root, f)).read() for f in alldocs}

    # variables
    for f in alldocs:
        for lineno, line in enumerate(texts[f].splitlines(), 1):
            for m in re.finditer(r"HYTUNE_[A-Z0-9_<>*]*", line):
                name = m.group(0).rstrip("_")
                if name in ("HYTUNE", "HYTUNE_FORCE") or name.endswith("*") or name.endswith(">"):
                    continue  # HYTUNE_*, HYTUNE_LOG*, HYTUNE_FORCE_<COLL>, HYTUNE_FORCE_\c
                seen("variable names")
                if name in code.defaults or name in NOT_VARIABLES:
                    continue
                errors.append("%s:%d: %s is not a variable of hytune info --env (src/env.c)"
                              % (f, lineno, name))
    guide = texts.get("docs/user-guide.md", "")
    rows = {}
    for line in guide.splitlines():
        m = re.match(r"^\| `(HYTUNE_[A-Z0-9_<>]+)` \| (`([^`]*)`|unset) \| ([^|]*) \|(.*)$", line)
        if m:
            rows[m.group(1)] = (m.group(3) if m.group(3) is not None else "unset", m.group(5),
                                m.group(4).strip())
    for v, dflt in code.defaults.items():
        key = "HYTUNE_FORCE_<COLL>" if v.startswith("HYTUNE_FORCE_") else v
        if key not in rows:
            errors.append("docs/user-guide.md: the variable table has no row for %s" % key)
        elif rows[key][0] != dflt:
            errors.append("docs/user-guide.md: %s's default is %s there, %s in hytune info --env"
                          % (key, rows[key][0], dflt))
        elif rows[key][2] != code.ranks.get(v):
            errors.append("docs/user-guide.md: %s: ranks %s there, %s in hytune info --env"
                          % (key, rows[key][2], code.ranks.get(v)))
    if "HYTUNE_FORCE_<COLL>" in rows:
        named = set(re.findall(r"`([A-Z_]+)`", rows["HYTUNE_FORCE_<COLL>"][1]))
        for c in code.force_colls:
            if c not in named:
                errors.append("docs/user-guide.md: the HYTUNE_FORCE_<COLL> row does not name %s" % c)
    for v in rows:
        if v != "HYTUNE_FORCE_<COLL>" and v not in code.defaults:
            errors.append("docs/user-guide.md: the variable table has a row for %s, which "
                          "hytune info --env does not know" % v)

    # commands quoted in code
    for f in md:
        for c in code_lines(texts[f]):
            inner = re.findall(r"\$\(([^()]*)\)", c)
            outer = re.sub(r"\$\([^()]*\)", "SUBST", c)
            for seg in [x for part in [outer] + inner
                        for x in re.split(r"\s(?:\||;|&&|\|\|)\s", part)]:
                seg = re.sub(r"(^|\s)#.*$", "", seg)
                m = re.search(r"^\s*(?:\w+=\S*\s+)*(?:(?:\S*/)?(?:mpiexec|mpirun|srun|smpirun|smpi_run)"
                              r"(?:\.mpich)?\s.*?)?(?:\S*/)?hytune(?:-smpi)?\s+([a-z][\w-]*)(.*)$", seg)
                if m:
                    sub, rest = m.group(1), m.group(2)
                    if sub not in code.subs:
                        errors.append("%s: `%s`: hytune has no subcommand %s" % (f, c, sub))
                        continue
                    seen("hytune commands")
                    for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest):
                        seen("hytune options")
                        if opt not in code.subs[sub] and opt != "--help":
                            errors.append("%s: `%s`: hytune %s has no option %s" % (f, c, sub, opt))
                m = re.search(r"(?:^|\s)\./configure(\s.*)?$", seg)
                if m:
                    for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", m.group(1) or ""):
                        seen("configure options")
                        if opt not in code.configure:
                            errors.append("%s: `%s`: ./configure has no option %s" % (f, c, opt))
                for script in re.findall(r"(?<![\w./$-])((?:bench|test|tools|platforms)/[\w./-]+"
                                         r"\.(?:sh|py|c|h|xml|in))(?![\w-])", seg):
                    seen("scripts")
                    if not os.path.exists(os.path.join(TOP, script)):
                        errors.append("%s: `%s`: %s does not exist" % (f, c, script))
                m = re.search(r"test/run\.sh((?:\s+[\w-]+)+)", seg)
                if m:
                    for flt in m.group(1).split():
                        if flt.isupper():
                            continue  # a placeholder: FILTER, NAME
                        if not any(flt in t for t in code.tests):
                            errors.append("%s: `%s`: no test name contains %s" % (f, c, flt))

    # the pages about hytune tune and hytune report name options on their own: `--k-max 8`
    own = code.subs["tune"] | code.subs["report"]
    for f in ("docs/tuner.md", "docs/tuner-quality.md", "docs/user-guide.md", "docs/statistics.md"):
        for c in code_lines(texts.get(f, "")):
            m = re.match(r"^(--[a-z][a-z-]*)", c)
            if m and not c.startswith("--cfg="):
                seen("hytune options")
                if m.group(1) not in own:
                    errors.append("%s: `%s`: neither hytune tune nor hytune report has %s"
                                  % (f, c, m.group(1)))

    # the man page: every option it names is one of the command's
    every = set().union(*code.subs.values()) | {"--help", "--version"}
    man = texts["docs/hytune.1"].replace("\\-", "-").replace("\\c", "")
    for opt in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", man))):
        seen("man page options")
        if opt not in every:
            errors.append("docs/hytune.1: %s is not an option of any hytune subcommand" % opt)

    # links to files
    for f in md:
        base = os.path.dirname(os.path.join(root, f))
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", texts[f]):
            if re.match(r"^[a-z]+:", target):
                continue
            seen("links")
            if not os.path.exists(os.path.normpath(os.path.join(base, target))):
                errors.append("%s: the link %s does not resolve" % (f, target))
    for target in re.findall(r"(?<![\w/.-])(docs/[\w.-]+\.(?:md|1))", texts["README.md"]):
        if not os.path.exists(os.path.join(root, target)):
            errors.append("README.md: %s does not exist" % target)

    # the two set-up commands
    readme_code = code_lines(texts["README.md"], blocks_only=True)
    for cmd in ("./run.sh demo", "./run.sh test"):
        if cmd not in readme_code:
            errors.append("README.md: no line of a code block is exactly `%s`" % cmd)
    runsh = open(os.path.join(root, "run.sh")).read()
    for case in ("demo)", "test)"):
        if not re.search(r"^" + re.escape(case), runsh, re.M):
            errors.append("run.sh: no case %s" % case)
    ci = open(os.path.join(root, ".ci", "run")).read()
    last = [l for l in ci.splitlines() if l.strip() and not l.startswith("#")][-1].strip()
    if last != "exec ./run.sh test":
        errors.append(".ci/run: its last command is `%s`, not README.md's `exec ./run.sh test`"
                      % last)
    m = re.search(r'^PACKAGES="([^"]*)"', runsh, re.M)
    packages = m.group(1).split() if m else []
    if not packages:
        errors.append("run.sh: no PACKAGES list")
    ci_pk = re.search(r"apt-get install -y -q (.*?)>", ci.replace("\\\n", " "), re.S)
    ci_packages = set(ci_pk.group(1).split()) if ci_pk else set()
    if set(packages) != ci_packages:
        errors.append(".ci/run installs %s, run.sh %s" % (sorted(ci_packages), sorted(packages)))
    install = texts.get("docs/install.md", "")
    for p in packages:
        if not re.search(r"(?<![\w.-])" + re.escape(p) + r"(?![\w.-])", install):
            errors.append("docs/install.md does not name the package %s that run.sh installs" % p)

    # selection-table examples load as tables (hytune topo reads HYTUNE_TABLE at MPI_Init)
    for f in md:
        for block in re.findall(r"```json\n(.*?)```", texts[f], re.S):
            if '"collectives"' not in block:
                continue
            seen("table examples")
            fd, path = tempfile.mkstemp(suffix=".json")
            with os.fdopen(fd, "w") as out:
                out.write(block)
            env = dict(os.environ, HYTUNE_TABLE=path, HYTUNE_MODE="offline", HYTUNE_LOG="warn")
            rc, out = run([code.hytune, "topo"], env=env)
            os.unlink(path)
            bad = [l for l in out.splitlines() if l.startswith("hytune[")]
            if rc != 0 or bad:
                errors.append("%s: its example table does not load: %s" % (f, (bad or [out])[0][:300]))

    # figures
    results = texts.get("docs/results.md", "")
    for line in results.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("study", "---"):
            continue
        m = re.search(r"\]\(([\w.-]+\.md)\)", cells[3])
        if not m:
            continue
        page = texts.get("docs/" + m.group(1))
        if page is None:
            continue  # reported as a link
        for fig in figures(cells[1]):
            seen("figures")
            if not has_figure(page, fig):
                errors.append("docs/results.md: the row \"%s\" gives %s, which docs/%s does not"
                              % (cells[0][:40], fig, m.group(1)))
    sec = re.search(r"^## Measured\n(.*?)(?=^## )", texts["README.md"], re.M | re.S)
    if not sec:
        errors.append("README.md: no section \"## Measured\"")
    else:
        for line in sec.group(1).splitlines():
            if line.startswith("|"):
                for fig in figures(line):
                    if not has_figure(results, fig):
                        errors.append("README.md: its results table gives %s, which "
                                      "docs/results.md does not" % fig)
    errors += realapps_check(root, texts)
    return errors


def realapps_check(root, texts):
    """README's real-application table, docs/realapps.md's whole-run table and the
    geometric means the pages give against docs/data/realapps.csv"""
    import math
    path = os.path.join(root, "docs", "data", "realapps.csv")
    if not os.path.exists(path):
        return ["docs/data/realapps.csv: missing (README.md's real-application table is its rows)"]
    lines = open(path).read().splitlines()
    fix = "(bench/realapps/summary.sh docs/data/realapps.csv prints them)"
    two = lambda v: "-" if v == "" else "%.2f" % float(v)
    rows = [l.split(",") for l in lines[1:] if l.split(",")[7:8] not in ([], [""])]
    errors = []
    want = [(r[0], r[1], two(r[7]), two(r[8])) for r in rows]
    want_long = [w + ("-" if r[9] == "" else "%.3f" % float(r[9]), r[10]) for w, r in zip(want, rows)]

    def table(text, header):
        m = re.search(r"^" + re.escape(header) + r"\n\|[-:| ]+\|\n((?:\|.*\n)*)", text, re.M)
        if not m:
            return None
        return [[c.strip() for c in l.strip().strip("|").split("|")] for l in m.group(1).splitlines()]

    for f, header, pick, exp in (
            ("README.md", "| application | platform | ranks | offline | hybrid |",
             lambda c: (c[1], c[2], c[3], c[4]), want),
            ("docs/realapps.md", "| application | input | platform | ranks | offline | hybrid | "
             "tuning (s) | break-even (runs) |",
             lambda c: (c[2], c[3], c[4], c[5], c[6], c[7]), want_long)):
        seen("real-application tables")
        got = table(texts.get(f, ""), header)
        if got is None:
            errors.append("%s: no table headed %s" % (f, header))
            continue
        got = [pick(c) for c in got]
        for i in range(max(len(got), len(exp))):
            g = " ".join(got[i]) if i < len(got) else "missing"
            e = " ".join(exp[i]) if i < len(exp) else "missing"
            if g != e:
                errors.append("%s: the real-application table's row %d is \"%s\", not "
                              "docs/data/realapps.csv's \"%s\" %s" % (f, i + 1, g, e, fix))
                break

    def geomean(vals):
        vals = [float(v) for v in vals if v != "" and float(v) > 0]
        return "%.4f" % math.exp(sum(map(math.log, vals)) / len(vals)) if vals else "nan"

    go, gh = geomean(r[7] for r in rows), geomean(r[8] for r in rows)
    for f, text in (("README.md", "Geometric mean over the %d rows %s offline, %s hybrid" % (len(rows), go, gh)),
                    ("docs/realapps.md", "Geometric mean over the %d rows %s offline, %s hybrid" % (len(rows), go, gh)),
                    ("docs/results.md", "geometric mean %s / %s" % (go, gh))):
        seen("real-application geometric means")
        if text not in texts.get(f, ""):
            errors.append("%s: does not say \"%s\", docs/data/realapps.csv's geometric means %s"
                          % (f, text, fix))
    return errors


# (file, text to find, replacement, what the error must say)
SEEDS = [
    ("docs/user-guide.md", "`HYTUNE_PROBE_K_MAX` | `0`", "`HYTUNE_PROBE_KMAX` | `0`",
     "HYTUNE_PROBE_KMAX is not a variable"),
    ("docs/user-guide.md", "| `HYTUNE_HOT_CALLS` | `auto` |", "| `HYTUNE_HOT_CALLS` | `32` |",
     "HYTUNE_HOT_CALLS's default is 32 there, auto"),
    ("docs/user-guide.md", "| `HYTUNE_NODE_HW` | unset | may differ |",
     "| `HYTUNE_NODE_HW` | unset | same on all |",
     "HYTUNE_NODE_HW: ranks same on all there, may differ in hytune info --env"),
    ("docs/user-guide.md", "`NEIGHBOR_ALLTOALLW`", "`NEIGHBOR_ALLTOALLX`",
     "does not name NEIGHBOR_ALLTOALLW"),
    ("README.md", "--max-bytes 1M -o table.json", "--max-byte 1M -o table.json",
     "hytune tune has no option --max-byte"),
    ("docs/tuner.md", "`--k-max", "`--kmax", "neither hytune tune nor hytune report has --kmax"),
    ("docs/hytune.1", "\\-\\-k\\-max", "\\-\\-kmax", "docs/hytune.1: --kmax is not an option"),
    ("README.md", "hytune report hytune-stats", "hytune reports hytune-stats",
     "hytune has no subcommand reports"),
    ("docs/install.md", "--with-modulefiles=/opt/modulefiles", "--with-modulefile=/opt/modulefiles",
     "./configure has no option --with-modulefile"),
    ("README.md", "(docs/tuner.md)", "(docs/tuning.md)", "the link docs/tuning.md does not resolve"),
    ("README.md", "    ./run.sh test\n", "    ./run.sh tests\n",
     "no line of a code block is exactly `./run.sh test`"),
    (".ci/run", "exec ./run.sh test", "exec ./run.sh test unit/",
     "its last command is `exec ./run.sh test unit/`"),
    ("README.md", "sh bench/realapps/summary.sh", "sh bench/realapps/summaries.sh",
     "bench/realapps/summaries.sh does not exist"),
    ("docs/table-format.md", '"algorithm": "knomial", "k": 8', '"algorithm": "knomiall", "k": 8',
     "its example table does not load: hytune[0] error table"),
    ("docs/install.md", "scalapack-mpi-test", "scalapack-test",
     "does not name the package scalapack-mpi-test"),
    ("docs/results.md", "FIGURE", None, "which docs/"),
    ("README.md", "FIGURE", None, "which docs/results.md does not"),
    ("docs/data/realapps.csv", "CSVROW", None, "README.md: the real-application table's row 1 is"),
]


def bump_figure(f, text, others=""):
    """the first decimal figure of a results row (docs/results.md) or of the results table
    (README.md), and the same text with its last digit changed to one that gives a figure
    the documents it is checked against (others) do not hold, so the check must fail"""
    if f == "README.md":
        sec = re.search(r"^## Measured\n(.*?)(?=^## )", text, re.M | re.S)
        rows = [l for l in (sec.group(1) if sec else "").splitlines() if l.startswith("|")]
    else:
        rows = [l for l in text.splitlines() if l.startswith("| ") and "](" in l]
    for row in rows:
        for fig in figures(row):
            if "." in fig:
                for step in range(1, 10):
                    new = fig[:-1] + str((int(fig[-1]) + step) % 10)
                    if not re.search(r"(?<![\d.])%s(?![\d])" % re.escape(new), others):
                        return row, row.replace(fig, new, 1), new
    return None, None, None


def seeded(code):
    bad = 0
    for f, old, new, want in SEEDS:
        tmp = tempfile.mkdtemp()
        try:
            for d in ("docs", ".ci"):
                shutil.copytree(os.path.join(TOP, d), os.path.join(tmp, d))
            for x in ("README.md", "run.sh"):
                shutil.copy(os.path.join(TOP, x), tmp)
            text = open(os.path.join(tmp, f)).read()
            if old == "FIGURE":
                against = ["docs/results.md"] if f == "README.md" else [
                    os.path.join("docs", x) for x in os.listdir(os.path.join(tmp, "docs"))
                    if x.endswith(".md") and x != "results.md"]
                others = "".join(open(os.path.join(tmp, x)).read() for x in against)
                old, new, fig = bump_figure(f, text, others)
                want = "gives %s, %s" % (fig, want)
            elif old == "CSVROW":  # the first row's offline speedup 0.05 higher
                old = text.splitlines()[1]
                c = old.split(",")
                c[7] = "%.4f" % (float(c[7]) + 0.05)
                new = ",".join(c)
            if not old or old not in text:
                print("docs_check --seeded: %s no longer contains %r: update SEEDS" % (f, old))
                bad += 1
                continue
            open(os.path.join(tmp, f), "w").write(text.replace(old, new, 1))
            errors = check(code, tmp)
            if not any(want in e for e in errors):
                print("docs_check --seeded: %s with %r -> %r: no error saying %r (got %s)"
                      % (f, old, new, want, errors))
                bad += 1
            else:
                print("seeded %s: %s" % (f, [e for e in errors if want in e][0]))
        finally:
            shutil.rmtree(tmp)
    return bad


def json_fields(obj, path, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add((path, k))
            json_fields(v, path + "." + k, out)
    elif isinstance(obj, list):
        for v in obj:
            json_fields(v, path + "[]", out)
    return out


def schema_check(stats_text, files):
    """every field the statistics files hold is named in statistics.md's schema"""
    import json
    m = re.search(r"^## The JSON schema.*", stats_text, re.M | re.S)
    if not m:
        return ["docs/statistics.md: no section \"## The JSON schema\""], 0
    spans = [a or b for a, b in re.findall(r"`([^`]*)`|\{([^}]*)\}", m.group(0))]
    named = set(re.findall(r"[a-z_]+", " ".join(spans)))
    errors, fields = [], set()
    for f in files:
        json_fields(json.load(open(f)), "", fields)
    for path, k in sorted(fields):
        if k not in named:
            errors.append("docs/statistics.md: the schema does not name the field %s%s%s, which "
                          "the statistics file has" % (path.lstrip("."), "." if path else "", k))
    return errors, len(fields)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--schema"]:
        text = open(os.path.join(TOP, "docs", "statistics.md")).read()
        errors, n = schema_check(text, args[1:])
        for e in errors:
            print(e)
        print("docs_check --schema: %d fields, %d problem(s)" % (n, len(errors)))
        if errors:
            sys.exit(1)
        want = "docs/statistics.md: the schema does not name the field communicators[].keys[].online.drift_check_cost_us"
        seeded_errors, _ = schema_check(text.replace("`drift_check_cost_us`", "`drift_cost_us`"), args[1:])
        if want not in [e.split(",")[0] for e in seeded_errors]:
            sys.exit("docs_check --schema: with drift_check_cost_us renamed in the schema no error "
                     "said so (got %s)" % seeded_errors)
        print("seeded: " + seeded_errors[0])
        sys.exit(0)
    if args[:1] == ["--seeded"]:
        code = Code(args[1])
        if check(code, TOP):
            sys.exit("docs_check --seeded: the unseeded documents fail; run docs_check first")
        sys.exit(1 if seeded(code) else 0)
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    code = Code(args[0])
    errors = check(code, args[1] if len(args) == 2 else TOP)
    for e in errors:
        print(e)
    print("docs_check: checked %s" % ", ".join("%d %s" % (n, w) for w, n in sorted(COUNT.items())))
    print("docs_check: %d problem(s)" % len(errors))
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
