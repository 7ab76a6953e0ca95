"""`scripts/mutation-score --target starlark|naga`: mutation scores of corpora against a real
target's compiler, with mutant schemata (see the header of scripts/mutation-score).

Everything built from registry code lives in the work directory (default
/tmp/bonsai-mutation-TARGET), never in the repository:

  src/CRATE/           pristine copy of the crate's registry source (its version in CRATE.version)
  mutated/CRATE/       the copy the schemata tool writes into (a [patch.crates-io] path)
  ws/                  a copy of the workspace (Cargo.toml with the patch, the engine, the target)
  target/              its cargo target directory; bin/ the built binary
  manifests/, exclude/ the schemata manifests and the ids dropped as unviable
  corpora/HASH/        each corpus as numbered text files
  results/BUILD-tMS/HASH/  per binary, per-input budget and corpus: the reference run and one
                       JSON file per mutant, the cache that makes a second run resume
"""
import fnmatch, glob, hashlib, json, os, random, shutil, signal, subprocess, sys, threading, time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMATA = os.path.join(ROOT, "scripts/mutation/schemata")

# Which files are mutated, as CRATE/GLOB. starlark: the type checker (src/typing) and the scope
# resolver whose errors it reports, then starlark_syntax's lexer, parser and syntax checks;
# left out are tests, the AST data types and generic traversals (ast.rs, uniplate.rs,
# payload_map.rs), which are mostly derive- and macro-made. naga: the WGSL front end and the
# validator; the back ends run only on valid shaders and are not mutated.
TARGETS = {
    "starlark": {
        "package": "bonsai-target-starlark",
        "crates": ["starlark_syntax", "starlark"],
        "root": {"starlark_syntax": "src/lib.rs", "starlark": "src/lib.rs"},
        "files": [
            "starlark/src/typing/**",
            "starlark/src/eval/compiler/scope.rs",
            "starlark/src/eval/compiler/scope/*.rs",
            "starlark_syntax/src/lexer.rs",
            "starlark_syntax/src/syntax/parser_rd.rs",
            "starlark_syntax/src/syntax/validate.rs",
            "starlark_syntax/src/syntax/def.rs",
            "starlark_syntax/src/syntax/grammar_util.rs",
            "starlark_syntax/src/syntax/type_expr.rs",
            "starlark_syntax/src/syntax/top_level_stmts.rs",
            "starlark_syntax/src/syntax/module.rs",
            "starlark_syntax/src/syntax/call.rs",
        ],
    },
    "naga": {
        "package": "bonsai-target-naga",
        "crates": ["naga"],
        "root": {"naga": "src/lib.rs"},
        "files": ["naga/src/front/wgsl/**", "naga/src/valid/**"],
    },
}

# Test modules are never compiled into the target.
TEST_FILES = ["*/tests/*", "*/tests.rs", "*_tests.rs", "*/testcases.rs", "*/test.rs"]

USAGE = """usage: scripts/mutation-score --target starlark|naga [--mutants K] [--seed S]
       [--files CRATE/GLOB,...] [--jobs N] [--timeout SECONDS] [--work DIR] NAME=DIR ...
  --mutants K   mutants sampled among the viable ones (default 200)
  --seed S      sampling seed (default 1)
  --files       files to mutate, e.g. naga/src/valid/** (default: TARGETS in scripts/mutation/target_mode.py)
  --jobs N      mutants run at once (default 2)
  --timeout S   CPU seconds per input and run (default 1)
  --work DIR    work directory (default /tmp/bonsai-mutation-TARGET)
  DIR           a fuzzing output (DIR/queue/*.txt), an exported corpus (manifest.json), or a
                directory of text files"""


def fail(message, code=2):
    print(f"mutation-score: {message}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    opts = {"mutants": 200, "seed": 1, "files": None, "jobs": 2, "timeout": 1.0, "work": None,
            "target": None, "corpora": []}
    args = list(argv)
    numeric = {"--mutants": ("mutants", int), "--seed": ("seed", int), "--jobs": ("jobs", int),
               "--timeout": ("timeout", float)}
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if a in numeric or a in ("--target", "--files", "--work"):
            if not args:
                fail(f"{a} needs a value\n{USAGE}")
            v = args.pop(0)
            if a in numeric:
                key, kind = numeric[a]
                try:
                    opts[key] = kind(v)
                except ValueError:
                    fail(f"{a}: not a number: {v}")
                if opts[key] <= 0 and key != "seed":
                    fail(f"{a} must be positive")
            elif a == "--files":
                opts["files"] = [g for g in v.split(",") if g]
            else:
                opts[a[2:]] = v
        elif "=" in a and not a.startswith("-"):
            name, path = a.split("=", 1)
            if not name or not os.path.isdir(path):
                fail(f"{a}: expected NAME=DIR with an existing directory")
            opts["corpora"].append((name, path))
        else:
            fail(f"unknown argument: {a}\n{USAGE}")
    if opts["target"] not in TARGETS:
        fail(f"--target must be one of {', '.join(TARGETS)}")
    if not opts["corpora"]:
        fail(f"no corpus given\n{USAGE}")
    names = [n for n, _ in opts["corpora"]]
    if len(set(names)) != len(names):
        fail("corpus names must differ")
    return opts


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, **kw)


# ---------------------------------------------------------------------------------------------
# The mutated build


def registry_dir(crate, version):
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = glob.glob(os.path.join(home, "registry/src/*", f"{crate}-{version}"))
    if not found:
        fail(f"{crate} {version} is not in the cargo registry cache: build the target once "
             f"(cargo build --release -p ...) so that cargo downloads it", 1)
    return found[0]


def locked_version(crate):
    """The version of CRATE in the workspace's Cargo.lock: the one the target links."""
    versions = []
    with open(os.path.join(ROOT, "Cargo.lock")) as f:
        blocks = f.read().split("[[package]]")
    for block in blocks:
        fields = dict(line.split(" = ", 1) for line in block.strip().splitlines() if " = " in line)
        if fields.get("name", "").strip('"') == crate and "source" in fields:
            versions.append(fields["version"].strip('"'))
    if len(versions) != 1:
        fail(f"Cargo.lock has {len(versions)} registry versions of {crate}", 1)
    return versions[0]


def copy_tree(src, dst, ignore=None):
    """Mirrors `src` into `dst` with timestamps, so that an unchanged file does not make cargo
    rebuild; files a reused work directory kept from an older checkout are removed (a module
    moved from `x.rs` to `x/mod.rs` would otherwise be found twice)."""
    shutil.copytree(src, dst, dirs_exist_ok=True, copy_function=shutil.copy2,
                    ignore=ignore)
    for here, dirs, files in os.walk(dst, topdown=True):
        there = os.path.join(src, os.path.relpath(here, dst))
        skipped = set(ignore(there, dirs + files)) if ignore else set()
        for name in files:
            if name not in skipped and not os.path.exists(os.path.join(there, name)):
                os.remove(os.path.join(here, name))
        for name in list(dirs):
            if name in skipped:
                dirs.remove(name)
            elif not os.path.exists(os.path.join(there, name)):
                shutil.rmtree(os.path.join(here, name))
                dirs.remove(name)


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def prepare_workspace(cfg, work, target):
    ws = os.path.join(work, "ws")
    os.makedirs(ws, exist_ok=True)
    for rel in ["Cargo.lock", ".cargo/config.toml", "scripts/rustc-wrapper",
                "scripts/instrumented-crates"]:
        os.makedirs(os.path.dirname(os.path.join(ws, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(ws, rel))
    for rel in ["fuzzer", os.path.join("targets", target)]:
        top = os.path.join(ROOT, rel)
        # A build directory at the top of a crate, not the engine's `target` module.
        copy_tree(top, os.path.join(ws, rel),
                  lambda d, names, top=top: ["target"] if os.path.samefile(d, top) else [])
    manifest = open(os.path.join(ROOT, "Cargo.toml")).read()
    patch = "\n[patch.crates-io]\n" + "".join(
        f'{crate} = {{ path = "{os.path.join(work, "mutated", crate)}" }}\n'
        for crate in cfg["crates"])
    write_if_changed(os.path.join(ws, "Cargo.toml"), manifest + patch)
    return ws


def enabled_features(ws, crates):
    """Features cargo enables on each crate in this build, for the tool's cfg evaluation."""
    r = run(["cargo", "metadata", "--format-version", "1", "--offline"], cwd=ws,
            capture_output=True, text=True)
    if r.returncode != 0:
        r = run(["cargo", "metadata", "--format-version", "1"], cwd=ws, capture_output=True,
                text=True)
    if r.returncode != 0:
        fail(f"cargo metadata failed in {ws}:\n{r.stderr}", 1)
    meta = json.loads(r.stdout)
    names = {p["id"]: p["name"] for p in meta["packages"]}
    features = {}
    for node in meta["resolve"]["nodes"]:
        if names.get(node["id"]) in crates:
            features[names[node["id"]]] = node.get("features", [])
    return features


def restore_pristine(src, mutated):
    """Undoes the rewrite of files a previous selection mutated. A plain copy gives them a new
    modification time: restoring the registry's older one would let cargo keep the stale build."""
    for dirpath, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            original = os.path.join(dirpath, name)
            copy = os.path.join(mutated, os.path.relpath(original, src))
            if not os.path.exists(copy) or open(copy, "rb").read() != open(original, "rb").read():
                shutil.copy(original, copy)


def select_files(crate_dir, crate, globs):
    files = []
    for pattern in globs:
        head, _, rest = pattern.partition("/")
        if head != crate:
            continue
        matches = glob.glob(os.path.join(crate_dir, rest), recursive=True)
        for path in sorted(matches):
            rel = os.path.relpath(path, crate_dir)
            if not rel.endswith(".rs") or not os.path.isfile(path):
                continue
            if any(fnmatch.fnmatch("/" + rel, p) for p in TEST_FILES):
                continue
            if rel not in files:
                files.append(rel)
    return files


def build_tool(work):
    r = run(["cargo", "build", "--release", "--quiet", "--manifest-path",
             os.path.join(SCHEMATA, "Cargo.toml")],
            env={**os.environ, "CARGO_TARGET_DIR": os.path.join(work, "tool-target")})
    if r.returncode != 0:
        fail("cannot build scripts/mutation/schemata", 1)
    return os.path.join(work, "tool-target/release/bonsai-schemata")


def generate(tool, work, cfg, files, features):
    """Runs the tool on every crate, ids continuing from one crate to the next."""
    first = 1
    manifests = {}
    for crate in cfg["crates"]:
        out = os.path.join(work, "manifests", f"{crate}.json")
        exclude = os.path.join(work, "exclude", f"{crate}.txt")
        cmd = [tool, "--from", os.path.join(work, "src", crate),
               "--to", os.path.join(work, "mutated", crate), "--root", cfg["root"][crate],
               "--first-id", str(first), "--manifest", out, "--exclude", exclude,
               "--features", ",".join(features.get(crate, []))] + files[crate]
        r = run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"bonsai-schemata failed on {crate}:\n{r.stderr}", 1)
        manifests[crate] = json.load(open(out))
        first = manifests[crate]["last_id"] + 1
    return manifests


def blame(message, work, manifests):
    """The mutant ids a compiler error belongs to: the innermost branch, else site, else
    function region of a mutated file that contains one of its spans."""
    spans = []

    def collect(span):
        while span:
            spans.append(span)
            exp = span.get("expansion")
            span = exp.get("span") if exp else None

    for span in message.get("spans", []):
        if span.get("is_primary"):
            collect(span)
    for child in message.get("children", []):
        for span in child.get("spans", []):
            if span.get("is_primary"):
                collect(span)
    for span in spans:
        path = os.path.realpath(span["file_name"]) if os.path.isabs(span["file_name"]) else None
        for crate, manifest in manifests.items():
            base = os.path.realpath(os.path.join(work, "mutated", crate))
            rel = None
            if path and path.startswith(base + os.sep):
                rel = os.path.relpath(path, base)
            elif not path and span["file_name"] in manifest["regions"]:
                rel = span["file_name"]
            if rel not in manifest["regions"]:
                continue
            at = span["byte_start"]
            for kind in ("branch", "site", "function"):
                inside = [r for r in manifest["regions"][rel]
                          if r["kind"] == kind and r["start"] <= at < max(r["end"], r["start"] + 1)]
                if inside:
                    best = min(inside, key=lambda r: r["end"] - r["start"])
                    return crate, best["ids"]
    return None, []


def compile_errors(cmd, ws, env):
    r = run(cmd, cwd=ws, env=env, capture_output=True, text=True)
    errors = []
    for line in r.stdout.splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        if msg.get("reason") == "compiler-message" and msg["message"]["level"] == "error":
            errors.append(msg["message"])
    if r.returncode != 0 and not errors:
        fail(f"{' '.join(cmd)} failed without a compiler error:\n{r.stderr[-4000:]}", 1)
    return errors


def build(opts, work, cfg, target):
    """Builds the target against the mutated crates, dropping the mutants that do not compile
    until it builds: `cargo check` finds them (no code generation), then one release build."""
    versions = {c: locked_version(c) for c in cfg["crates"]}
    for crate, version in versions.items():
        src = os.path.join(work, "src", crate)
        stamp = src + ".version"
        if os.path.isdir(src) and (not os.path.exists(stamp) or open(stamp).read() != version):
            # The workspace moved to another release of the crate: start its copies over.
            shutil.rmtree(src)
            shutil.rmtree(os.path.join(work, "mutated", crate), ignore_errors=True)
            for stale in ("exclude/files.json", f"exclude/{crate}.txt"):
                if os.path.exists(os.path.join(work, stale)):
                    os.remove(os.path.join(work, stale))
        if not os.path.isdir(src):
            shutil.copytree(registry_dir(crate, version), src + ".tmp", dirs_exist_ok=True)
            os.replace(src + ".tmp", src)
            write_if_changed(stamp, version)
        mutated = os.path.join(work, "mutated", crate)
        if not os.path.isdir(mutated):
            copy_tree(src, mutated)
    os.makedirs(os.path.join(work, "manifests"), exist_ok=True)
    os.makedirs(os.path.join(work, "exclude"), exist_ok=True)
    globs = opts["files"] or cfg["files"]
    files = {c: select_files(os.path.join(work, "src", c), c, globs) for c in cfg["crates"]}
    if not any(files.values()):
        fail(f"--files matches no Rust source of {', '.join(cfg['crates'])}")
    # A different file set gives different ids: start the exclusions over.
    selection = json.dumps(files, sort_keys=True)
    selection_path = os.path.join(work, "exclude", "files.json")
    if not os.path.exists(selection_path) or open(selection_path).read() != selection:
        for crate in cfg["crates"]:
            path = os.path.join(work, "exclude", f"{crate}.txt")
            if os.path.exists(path):
                os.remove(path)
            restore_pristine(os.path.join(work, "src", crate), os.path.join(work, "mutated", crate))
        write_if_changed(selection_path, selection)
    ws = prepare_workspace(cfg, work, target)
    tool = build_tool(work)
    features = enabled_features(ws, cfg["crates"])
    env = {**os.environ, "CARGO_TARGET_DIR": os.path.join(work, "target"),
           # Generated code is full of parentheses and the crates' own lint levels (naga
           # forbids unsafe code) must not decide which mutants are viable.
           "RUSTFLAGS": "--cap-lints=allow"}
    binary = "bonsai-" + target
    rounds = 0
    for phase in ("check", "build"):
        while True:
            manifests = generate(tool, work, cfg, files, features)
            cmd = ["cargo", phase, "--release", "--message-format=json", "-p", cfg["package"]]
            if phase == "build":
                cmd += ["--bin", binary]
            started = time.time()
            log(f"[build] cargo {phase} with "
                f"{sum(len(m['mutants']) - len(m['excluded']) for m in manifests.values())} mutants ...")
            errors = compile_errors(cmd, ws, env)
            log(f"[build] cargo {phase}: {len(errors)} errors, {time.time() - started:.0f} s")
            if not errors:
                break
            rounds += 1
            dropped = {}
            unattributed = []
            for message in errors:
                crate, ids = blame(message, work, manifests)
                if ids:
                    dropped.setdefault(crate, set()).update(ids)
                else:
                    unattributed.append(message.get("rendered") or message.get("message"))
            if not dropped:
                fail("the mutated build fails with errors that no mutant explains:\n"
                     + "\n".join(unattributed[:5]), 1)
            for crate, ids in dropped.items():
                path = os.path.join(work, "exclude", f"{crate}.txt")
                old = set(open(path).read().split()) if os.path.exists(path) else set()
                new = old | {str(i) for i in ids}
                with open(path, "w") as f:
                    f.write("\n".join(sorted(new, key=int)) + "\n")
            if rounds > 25:
                fail("the mutated build still fails after 25 rounds of dropping mutants", 1)
    built = os.path.join(work, "target/release", binary)
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    exe = os.path.join(bindir, binary)
    shutil.copy2(built, exe + ".tmp")
    os.replace(exe + ".tmp", exe)
    digest = hashlib.sha256(open(exe, "rb").read()).hexdigest()[:16]
    return exe, digest, manifests


# ---------------------------------------------------------------------------------------------
# Corpora


def corpus_files(path):
    manifest = os.path.join(path, "manifest.json")
    if os.path.isfile(manifest):
        try:
            data = json.load(open(manifest))
        except ValueError:
            data = {}
        if data.get("format") == "bonsai-regression-corpus":
            return [os.path.join(path, i["file"]) for i in data["inputs"]]
    queue = os.path.join(path, "queue")
    if os.path.isdir(queue):
        return sorted(os.path.join(queue, f) for f in os.listdir(queue) if f.endswith(".txt"))
    skip = (".choices", ".meta", ".json")
    return sorted(os.path.join(path, f) for f in os.listdir(path)
                  if not f.startswith(".") and not f.endswith(skip)
                  and os.path.isfile(os.path.join(path, f)))


def normalize(work, name, path):
    """The corpus as NNNNNN.txt files under a content hash: the cache key of its results."""
    files = corpus_files(path)
    if not files:
        fail(f"{name}: no inputs in {path}")
    h = hashlib.sha256()
    texts = []
    for f in files:
        data = open(f, "rb").read()
        texts.append((os.path.relpath(f, path), data))
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    digest = h.hexdigest()[:16]
    out = os.path.join(work, "corpora", digest)
    if not os.path.isdir(out):
        tmp = out + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        for i, (_, data) in enumerate(texts):
            with open(os.path.join(tmp, f"{i:06}.txt"), "wb") as f:
                f.write(data)
        with open(os.path.join(tmp, "names.json"), "w") as f:
            json.dump({f"{i:06}.txt": rel for i, (rel, _) in enumerate(texts)}, f)
        os.replace(tmp, out)
    return digest, out


# ---------------------------------------------------------------------------------------------
# Running


def signature(result):
    text = "\0".join([result["verdict"], result.get("message", ""), result.get("output") or ""])
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:20]


class Runner:
    def __init__(self, exe, target, timeout):
        self.exe = exe
        self.target = target
        self.timeout_ms = str(max(1, int(timeout * 1000)))

    def replay(self, directory, mutant=None, trace=False, stop=None):
        """Streams (name, result, reached ids) per input; `stop(name, result)` returning true
        ends the replay early. Returns the list and whether the replay ran to its end."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("BONSAI_MUTANT", "BONSAI_MUTANT_TRACE")}
        if mutant is not None:
            env["BONSAI_MUTANT"] = str(mutant)
        if trace:
            env["BONSAI_MUTANT_TRACE"] = "1"
        cmd = [self.exe, "replay", "--target", self.target, "--json", "--output",
               "--timeout-ms", self.timeout_ms, directory]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
        results = []
        reached = set()
        stopped = False
        complete = False
        for line in proc.stdout:
            if line.startswith(b"@bonsai-mutant "):
                reached.add(int(line.split()[1]))
                continue
            if not line.startswith(b"{"):
                continue
            item = json.loads(line)
            if "total" in item:
                complete = True
                continue
            result = {"verdict": item["verdict"], "message": item.get("message", ""),
                      "output": item.get("output")}
            results.append((item["name"], result, reached))
            reached = set()
            if stop and stop(item["name"], result):
                stopped = True
                os.killpg(proc.pid, signal.SIGKILL)
                break
        proc.stdout.close()
        stderr = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        code = proc.wait()
        if not stopped and (code != 0 or not complete):
            return results, False, stderr.strip()[-500:] or f"exit status {code}"
        return results, True, ""


def link_dir(directory, corpus_dir, names):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for name in names:
        os.symlink(os.path.join(corpus_dir, name), os.path.join(directory, name))


def reference(runner, corpus_dir, cache):
    """The unmutated binary's result per input, and which mutation points it reaches (a
    traced run); a second, untraced run marks inputs whose result is not reproducible."""
    if os.path.exists(cache):
        return json.load(open(cache))
    traced, ok, why = runner.replay(corpus_dir, trace=True)
    if not ok:
        fail(f"the unmutated binary failed on {corpus_dir}: {why}", 1)
    again, ok, why = runner.replay(corpus_dir)
    if not ok:
        fail(f"the unmutated binary failed on {corpus_dir}: {why}", 1)
    second = {name: signature(r) for name, r, _ in again}
    inputs = {}
    for name, result, reached in traced:
        inputs[name] = {"sig": signature(result), "verdict": result["verdict"],
                        "reached": sorted(reached), "stable": second.get(name) == signature(result)}
    traced_any = any(i["reached"] for i in inputs.values())
    data = {"inputs": inputs, "traced": traced_any}
    tmp = cache + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, cache)
    return data


def run_mutant(runner, mutant, ref, corpus_dir, scratch):
    """Whether some input of the corpus tells the mutant from the original. Inputs that never
    reach the mutant's point behave identically and are skipped; the replay stops at the
    first difference. A difference that involves a timeout must repeat in a run of that
    input alone, so that a loaded machine cannot kill a mutant."""
    names = [n for n, i in sorted(ref["inputs"].items()) if i["stable"]
             and (not ref["traced"] or mutant in i["reached"])]
    started = time.time()
    outcome = {"killed": False, "ran": 0, "reached": len(names)}
    while names:
        differs = {}

        def stop(name, result):
            expected = ref["inputs"][name]
            if signature(result) != expected["sig"]:
                differs["name"] = name
                differs["result"] = result
                return True
            return False

        link_dir(scratch, corpus_dir, names)
        results, ok, why = runner.replay(scratch, mutant=mutant, stop=stop)
        outcome["ran"] += len(results)
        if not ok:
            outcome.update(killed=True, input=results[-1][0] if results else names[0],
                           why=f"replay failed: {why}")
            break
        if not differs:
            break
        name = differs["name"]
        result = differs["result"]
        timeout = "timeout" in (result["verdict"], ref["inputs"][name]["verdict"])
        if timeout:
            link_dir(scratch, corpus_dir, [name])
            again, ok, _ = runner.replay(scratch, mutant=mutant)
            if ok and again and signature(again[0][1]) == ref["inputs"][name]["sig"]:
                names = names[names.index(name) + 1:]
                continue
        outcome.update(killed=True, input=name,
                       why=f"{ref['inputs'][name]['verdict']} -> {result['verdict']}"
                           f" {result['message'][:120]}")
        break
    shutil.rmtree(scratch, ignore_errors=True)
    outcome["seconds"] = round(time.time() - started, 3)
    return outcome


def main(argv):
    opts = parse_args(argv)
    target = opts["target"]
    cfg = TARGETS[target]
    work = os.path.abspath(opts["work"] or os.path.join(
        os.environ.get("TMPDIR", "/tmp"), f"bonsai-mutation-{target}"))
    if os.path.commonpath([work, ROOT]) == ROOT:
        fail("--work must lie outside the repository (it holds registry code and builds)")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    exe, build_id, manifests = build(opts, work, cfg, target)
    t_build = time.time() - t0
    mutants = {}
    unviable = 0
    for crate, m in manifests.items():
        excluded = set(m["excluded"])
        unviable += len(excluded)
        for mu in m["mutants"]:
            if mu["id"] not in excluded:
                mutants[mu["id"]] = {**mu, "crate": crate}
    total = sum(len(m["mutants"]) for m in manifests.values())
    files = sum(len(m["files"]) for m in manifests.values())
    viable = sorted(mutants)
    sample = sorted(random.Random(opts["seed"]).sample(viable, min(opts["mutants"], len(viable))))
    log(f"[build] {total} mutants in {files} files; {unviable} unviable; binary {build_id} "
        f"({t_build:.0f} s)")

    runner = Runner(exe, target, opts["timeout"])
    # Results depend on the binary and on the per-input budget, which can turn a slow input
    # into a timeout.
    run_id = f"{build_id}-t{runner.timeout_ms}"
    corpora = []
    t1 = time.time()
    for name, path in opts["corpora"]:
        digest, corpus_dir = normalize(work, name, path)
        results = os.path.join(work, "results", run_id, digest)
        os.makedirs(results, exist_ok=True)
        ref = reference(runner, corpus_dir, os.path.join(results, "reference.json"))
        unstable = sum(1 for i in ref["inputs"].values() if not i["stable"])
        if not ref["traced"]:
            log(f"[{name}] no mutation point reported reached: every input runs for every mutant")
        log(f"[{name}] {len(ref['inputs'])} inputs, {unstable} not reproducible (left out)")
        corpora.append({"name": name, "dir": corpus_dir, "results": results, "ref": ref})
    t_ref = time.time() - t1

    # Each run links the inputs that reach its mutant into a directory of its own: on a disk
    # busy with builds that took seconds per corpus, in memory it takes milliseconds.
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else work
    scratch_root = os.path.join(base, f"bonsai-mutation-{target}-{os.getpid()}")
    tasks = [(m, c) for m in sample for c in corpora]
    lock = threading.Lock()
    done = [0]
    t2 = time.time()

    def task(item):
        mutant, corpus = item
        cache = os.path.join(corpus["results"], f"m{mutant}.json")
        if os.path.exists(cache):
            outcome = json.load(open(cache))
        else:
            scratch = os.path.join(scratch_root, f"{corpus['name']}-{mutant}")
            outcome = run_mutant(runner, mutant, corpus["ref"], corpus["dir"], scratch)
            with open(cache + ".tmp", "w") as f:
                json.dump(outcome, f)
            os.replace(cache + ".tmp", cache)
        with lock:
            done[0] += 1
            if done[0] % 20 == 0 or done[0] == len(tasks):
                log(f"[mutants] {done[0]}/{len(tasks)} runs, {time.time() - t2:.0f} s")
        return mutant, corpus["name"], outcome

    with ThreadPoolExecutor(max_workers=opts["jobs"]) as pool:
        outcomes = list(pool.map(task, tasks))
    t_mut = time.time() - t2
    shutil.rmtree(scratch_root, ignore_errors=True)

    killed = {c["name"]: 0 for c in corpora}
    reached_any = set()
    ran = {c["name"]: 0 for c in corpora}
    survivors = {c["name"]: [] for c in corpora}
    for mutant, name, outcome in outcomes:
        ran[name] += outcome["ran"]
        if outcome["reached"]:
            reached_any.add(mutant)
        if outcome["killed"]:
            killed[name] += 1
        else:
            mu = mutants[mutant]
            survivors[name].append(f"{mutant}\t{mu['crate']}/{mu['file']}:{mu['line']}:"
                                   f"{mu['column']}\t{mu['original']} -> {mu['replacement'] or '(deleted)'}")
    report_dir = os.path.join(work, "results", run_id)
    for name, lines in survivors.items():
        with open(os.path.join(report_dir, f"survivors-{name}.tsv"), "w") as f:
            f.write("\n".join(lines) + "\n")
    k = len(sample)
    print(f"{target}: {total} mutants in {files} files, {unviable} unviable (did not compile), "
          f"{len(viable)} viable")
    print(f"sampled {k} viable mutants (seed {opts['seed']}); {len(reached_any)} reached by "
          f"some input")
    for c in corpora:
        n = c["name"]
        inputs = len(c["ref"]["inputs"])
        print(f"{n}: {inputs} inputs, killed {killed[n]} of {k}, mutation score "
              f"{100.0 * killed[n] / max(k, 1):.1f}% ({ran[n]} input runs)")
    print(f"wall time: build {t_build:.0f} s, reference runs {t_ref:.0f} s, mutants "
          f"{t_mut:.0f} s; survivors in {report_dir}/survivors-NAME.tsv")
    print(json.dumps({
        "target": target, "mutants": total, "viable": len(viable), "unviable": unviable,
        "sampled": k, "seed": opts["seed"], "reached": len(reached_any), "killed": killed,
        "score": {n: round(100.0 * v / max(k, 1), 2) for n, v in killed.items()},
        "inputs": {c["name"]: len(c["ref"]["inputs"]) for c in corpora},
        "seconds": {"build": round(t_build), "reference": round(t_ref), "mutants": round(t_mut)},
    }))
