"""What the scripts in scripts/ share: finding a target's binary and grammar, parsing the command
line, reading a run's summary and coverage.csv, the load average and the commit. Import it with

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bonsai_scripts as bs  # noqa: E402

Binaries. A target T's binary is `bonsai-T` in $BONSAI_BIN_DIR when that is set, else in
target/release ($CARGO_TARGET_DIR/release when that is set), built first with `cargo build
--release --quiet -p bonsai-target-T` (and `-p bonsai`) where a script asks for that. `need_binary` turns a missing one into the scripts' usage error:
`SCRIPT: no binary PATH (build it, or set BONSAI_BIN_DIR)`, exit 2. The engine's own binary
(`bonsai`, no target) is $BONSAI_BIN, else target/debug/bonsai.

Grammars. `grammar_path(T)`: grammars/T.ebnf, or its language's (naga: grammars/wgsl.ebnf, oxc:
grammars/javascript.ebnf), the example target's targets/example/letcalc.ebnf, or for graphql
the tree-sitter grammar.json its crate names, from the cargo registry (`cargo fetch` brings
it); scripts/grammar-path prints it.

Command lines. `Parser(prog, doc)` is an argparse parser whose --help prints the script's
docstring and whose errors print `PROG: MESSAGE` and the docstring on stderr with exit 2, as the
scripts' own `usage()` did; `usage(prog, message, doc)` is that error for checks argparse
cannot make. `positive_int`, `number`, `bounds` and `duration` are argparse types.

Runs. `read_summary(path)`: a run's JSON summary (OUT/summary.json, or a file holding the stdout
of `--json`: the last line that is a JSON object), None when missing. `read_coverage(path)`:
the rows of a coverage.csv (secs,execs,edges,corpus,valid,crashes,hangs and, in newer logs, a
kpathK column) as `Point`s; `coverage_points(path)`: their (secs, edges). Entry `.meta` files:
`read_meta`/`parse_meta` (from scripts/entry_meta.py).

Machine. `load()`: the 1/5/15-minute load average as "0.52 0.58 0.59"; `commit()`: the short
commit of HEAD ($BONSAI_COMMIT when set; "" outside git); `dirty()`: whether tracked files have uncommitted changes.

From the shell (for the bash scripts):
  python3 scripts/bonsai_scripts.py binary T     # prints bonsai-T's path, building it if needed
  python3 scripts/bonsai_scripts.py grammar T    # prints T's grammar
  python3 scripts/bonsai_scripts.py self-test    # checks the pure functions
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
from collections import namedtuple

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(SCRIPTS)
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
from entry_meta import parse_meta, read_meta  # noqa: E402,F401


# ---- binaries ---------------------------------------------------------------------------------

def bin_dir():
    """$BONSAI_BIN_DIR, else the release directory cargo builds into ($CARGO_TARGET_DIR/release
    when that is set, else target/release)."""
    return os.environ.get("BONSAI_BIN_DIR") or os.path.join(
        os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release")


def build(targets, engine=True):
    """`cargo build --release --quiet` of the targets' crates (and the engine's, `-p bonsai`),
    in one invocation: built one by one, each would rebuild the engine with its own features.
    Nothing is built when BONSAI_BIN_DIR is set."""
    if os.environ.get("BONSAI_BIN_DIR"):
        return
    packages = (["-p", "bonsai"] if engine else []) + sum(
        (["-p", f"bonsai-target-{t}"] for t in targets), [])
    subprocess.run(["cargo", "build", "--release", "--quiet", *packages], cwd=ROOT, check=True)


def binary(target, build_it=False, engine=False):
    """The path of bonsai-TARGET (see bin_dir), built first when `build_it` and BONSAI_BIN_DIR
    is not set (with the engine's crate too when `engine`). Not checked: see need_binary."""
    if build_it:
        build([target], engine)
    return os.path.join(bin_dir(), f"bonsai-{target}")


def need_binary(prog, target, build_it=False, engine=False, doc=None):
    """binary(), or the usage error `PROG: no binary PATH (build it, or set BONSAI_BIN_DIR)`."""
    path = binary(target, build_it, engine)
    if not os.access(path, os.X_OK):
        usage(prog, f"no binary {path} (build it, or set BONSAI_BIN_DIR)", doc)
    return path


def bonsai_bin():
    """The engine's own binary: $BONSAI_BIN, else target/debug/bonsai."""
    return os.environ.get("BONSAI_BIN") or os.path.join(ROOT, "target", "debug", "bonsai")


# ---- grammars ---------------------------------------------------------------------------------

# Targets whose grammar is a tree-sitter crate's: the crate and version, as in the target's
# Cargo.toml.
TREE_SITTER = {"graphql": "tree-sitter-graphql-0.3.0"}
# Targets whose grammar is named for the language rather than the target.
LANGUAGE = {"naga": "wgsl", "oxc": "javascript"}
# Targets whose grammar lives beside their code.
OWN = {"example": "targets/example/letcalc.ebnf"}


class GrammarMissing(Exception):
    pass


def grammar_path(target, relative=False):
    """The path of TARGET's grammar (relative to the repository with `relative`, as the
    scripts that run from its root name it in their commands). Raises GrammarMissing for a
    tree-sitter grammar that is not in the cargo registry."""
    if target in TREE_SITTER:
        pattern = os.path.expanduser(
            f"~/.cargo/registry/src/*/{TREE_SITTER[target]}/src/grammar.json")
        found = sorted(glob.glob(pattern))
        if not found:
            raise GrammarMissing(
                f"{TREE_SITTER[target]} is not in the cargo registry: run `cargo fetch`")
        return found[-1]
    path = OWN.get(target) or os.path.join("grammars", f"{LANGUAGE.get(target, target)}.ebnf")
    return path if relative else os.path.join(ROOT, path)


# ---- command lines ----------------------------------------------------------------------------

def usage(prog, message, doc=None):
    """`PROG: MESSAGE` on stderr (and the script's docstring after a blank line), exit 2."""
    print(f"{prog}: {message}\n\n{doc}" if doc else f"{prog}: {message}", file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    """argparse with the scripts' conventions: no abbreviated flags; --help prints `doc` (the
    script's docstring) when given, else argparse's help; a bad flag or value prints
    `PROG: MESSAGE` and the docstring (or, with `hint`, `(see scripts/PROG --help)`) on stderr
    and exits 2."""

    def __init__(self, prog, doc=None, hint=False, **kwargs):
        kwargs.setdefault("description", doc.strip().split("\n\n")[0] if doc else None)
        super().__init__(prog=prog, allow_abbrev=False, **kwargs)
        self.doc = doc
        self.hint = hint

    def format_help(self):
        if self.doc and not self.hint:
            return self.doc.strip("\n") + "\n"
        return super().format_help()

    def error(self, message):
        if self.hint:
            usage(self.prog, f"{message} (see scripts/{self.prog} --help)")
        usage(self.prog, message, self.doc)

    def fail(self, message):
        """A usage error found after parsing."""
        self.error(message)


def positive_int(text):
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs a whole number, got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def number(text):
    """argparse type: digits only (a count, a seed, a port), kept as the text given."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"takes a number, not {text!r}")
    return text


def bounds(text):
    """argparse type: M,N,D, three whole numbers (spaces allowed), kept as given."""
    if not re.fullmatch(r"[0-9]+,[0-9]+,[0-9]+", text.replace(" ", "")):
        raise argparse.ArgumentTypeError(f"needs M,N,D, got {text!r}")
    return text


DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|min|h|d)?")
UNIT_SECS = {"ms": 0.001, "s": 1, None: 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def duration(text):
    """argparse type: a duration as `bonsai fuzz --time` takes it (30s, 5m, 2h), kept as given."""
    if not DURATION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"needs a duration such as 30s, 5m or 2h, got {text!r}")
    return text


def seconds(text):
    """The seconds of a duration (see duration); ValueError when it is none."""
    m = DURATION.fullmatch(text)
    if not m:
        raise ValueError(f"bad duration: {text}")
    return float(m.group(1)) * UNIT_SECS[m.group(2)]


# ---- reading runs -----------------------------------------------------------------------------

def read_summary(path):
    """A run's summary: the last line of PATH that is a JSON object (OUT/summary.json holds
    one line; a saved `--json` stdout may have others before it). None when the file is
    missing or holds none."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


Point = namedtuple("Point", "secs execs edges corpus valid crashes hangs kpaths")


def parse_coverage(text):
    """The rows of a coverage.csv's text, header and torn lines left out; `kpaths` is None in
    logs without that column (older runs, the Nautilus baseline)."""
    points = []
    for line in text.splitlines():
        fields = line.strip().split(",")
        if len(fields) < 7 or fields[0] == "secs":
            continue
        try:
            numbers = [float(fields[0])] + [int(f) for f in fields[1:7]]
            kpaths = int(fields[7]) if len(fields) > 7 and fields[7] else None
        except ValueError:
            continue
        points.append(Point(*numbers, kpaths))
    return points


def read_coverage(path, missing_ok=False):
    """parse_coverage of the file at PATH; [] for a missing file with `missing_ok`."""
    try:
        with open(path) as f:
            return parse_coverage(f.read())
    except OSError:
        if missing_ok:
            return []
        raise


def coverage_points(path, missing_ok=False):
    """(secs, edges) of every row of a coverage.csv."""
    return [(p.secs, p.edges) for p in read_coverage(path, missing_ok)]


def first_reach(points, edges):
    """Seconds of the first (secs, edges) point with at least `edges` edges, or None."""
    return next((secs for secs, covered in points if covered >= edges), None)


# ---- the machine ------------------------------------------------------------------------------

def load():
    """The 1, 5 and 15-minute load averages, as /proc/loadavg writes them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def commit():
    """$BONSAI_COMMIT when set (binaries carried to a machine whose copy of the tree has no
    git, or another commit's `.git`), else the short commit of HEAD ("" outside git)."""
    if os.environ.get("BONSAI_COMMIT"):
        return os.environ["BONSAI_COMMIT"]
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True)
    except OSError:
        return ""
    return done.stdout.strip()


def dirty():
    """Whether tracked files differ from HEAD."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                          capture_output=True, text=True)
    return bool(done.stdout.strip())


# ---- self-test and command line ---------------------------------------------------------------

def self_test():
    import tempfile
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    check("naga's grammar", grammar_path("naga", relative=True), "grammars/wgsl.ebnf")
    check("oxc's grammar", grammar_path("oxc", relative=True), "grammars/javascript.ebnf")
    check("example's grammar", grammar_path("example"),
          os.path.join(ROOT, "targets/example/letcalc.ebnf"))
    check("starlark's grammar", grammar_path("starlark"),
          os.path.join(ROOT, "grammars/starlark.ebnf"))
    csv = ("secs,execs,edges,corpus,valid,crashes,hangs,kpath2\n0.000,0,0,0,0,0,0,0\n"
           "1.5,100,40,7,5,0,1,12\n2.0,200,41,8,5,0,1\n2.5,30")
    check("coverage rows", parse_coverage(csv),
          [Point(0.0, 0, 0, 0, 0, 0, 0, 0), Point(1.5, 100, 40, 7, 5, 0, 1, 12),
           Point(2.0, 200, 41, 8, 5, 0, 1, None)])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.summary.json")
        check("missing summary", read_summary(path), None)
        with open(path, "w") as f:
            f.write('a log line\n{"execs": 5, "edges": 3}\n\n')
        check("summary", read_summary(path), {"execs": 5, "edges": 3})
        check("missing coverage", coverage_points(os.path.join(d, "none.csv"), True), [])
    check("seconds", [seconds(t) for t in ("90", "1.5s", "5m", "2h", "250ms")],
          [90.0, 1.5, 300.0, 7200.0, 0.25])
    for bad_type, text in ((positive_int, "0"), (positive_int, "x"), (number, "-1"),
                           (bounds, "3,3"), (duration, "5 minutes")):
        try:
            bad_type(text)
            failures.append(f"{bad_type.__name__} took {text!r}")
        except argparse.ArgumentTypeError:
            pass
    check("bounds", bounds("3, 3, 3"), "3, 3, 3")
    check("load", len(load().split()), 3)
    old = os.environ.get("BONSAI_BIN_DIR")
    os.environ["BONSAI_BIN_DIR"] = "/somewhere"
    check("binary", binary("toml"), "/somewhere/bonsai-toml")
    if old is None:
        del os.environ["BONSAI_BIN_DIR"]
    else:
        os.environ["BONSAI_BIN_DIR"] = old
    for failure in failures:
        print(f"bonsai_scripts self-test: {failure}", file=sys.stderr)
    if failures:
        return 1
    print("bonsai_scripts self-test: passed")
    return 0


def main(argv):
    parser = Parser("bonsai_scripts", __doc__)
    parser.add_argument("command", choices=["binary", "grammar", "self-test"])
    parser.add_argument("target", nargs="?")
    args = parser.parse_args(argv)
    if args.command == "self-test":
        return self_test()
    if not args.target:
        parser.fail(f"{args.command} needs a TARGET")
    if args.command == "binary":
        print(need_binary("bonsai_scripts", args.target, build_it=True))
    else:
        try:
            print(grammar_path(args.target))
        except GrammarMissing as e:
            sys.exit(f"bonsai_scripts: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
