//! Which crates `cargo bonsai build` instruments, and the rustc wrapper that does it.
//!
//! The list is the user's workspace members plus and minus `[package.metadata.bonsai]
//! instrument`, never the engine or LibAFL. RUSTFLAGS would instrument every crate, the
//! fuzzer's own included, so `cargo bonsai build` sets this binary as `RUSTC_WRAPPER` with the
//! list in [`LIST_VAR`] ([`configure`]), and the wrapper adds SanitizerCoverage to exactly
//! those crates.
//!
//! Cargo does not see what a wrapper adds, so the wrapper tells it: every crate it compiles
//! names, in the dep-info rustc writes for cargo, the variable [`crate_var`] that carries that
//! crate's own decision (`1`, or unset), as a crate that reads it with `option_env!` would.
//! Cargo keeps that value in the crate's fingerprint and rebuilds the crate, and what depends
//! on it, when the variable differs in a later build: a crate is never reused with another
//! list's instrumentation, and a crate no list instruments (the engine, LibAFL and their
//! dependencies) is built once for all the lists that share a target directory. Lists that
//! differ in crates from outside the user's workspace still build in target directories of
//! their own ([`fingerprint`]): such a crate can be a dependency of the engine or LibAFL
//! (serde_json is), and switching it back and forth in one directory would rebuild them every
//! time.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that carries the list to the wrapper (comma-separated crate names); its
/// presence is also what makes this binary act as the wrapper.
pub const LIST_VAR: &str = "CARGO_BONSAI_INSTRUMENT";

/// The start of [`crate_var`]'s names.
const CRATE_VAR_PREFIX: &str = "CARGO_BONSAI_SANCOV_";

/// The value of [`crate_var`] for a crate that is instrumented.
const ON: &str = "1";

/// What the dep-info of a crate compiled before this scheme lacks; part of [`fingerprint`], so
/// that no target directory of an earlier `cargo bonsai` is reused.
const LAYOUT: &str = "decisions in dep-info";

/// The SanitizerCoverage flags, the same as scripts/rustc-wrapper's: inline 8-bit edge
/// counters, and the PC table that credits each counter to its crate.
const SANCOV: [&str; 4] = [
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=3",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
];

/// Crates never instrumented, whatever the list says: the engine (with its grammar toolkit,
/// whose sampler and parser run on every input) and the fuzzing library, whose own branches
/// would flood the coverage map.
pub const ENGINE: [&str; 7] = [
    "bonsai",
    "bonsai_baseline",
    "bonsai_grammar",
    "libafl",
    "libafl_bolts",
    "libafl_targets",
    "libafl_core",
];

/// `members` with `extra`'s names added and its `-name`s removed, sorted; the engine's crates
/// are dropped and returned apart, for a warning.
pub fn crate_list(members: &[String], extra: &[String]) -> (Vec<String>, Vec<String>) {
    let mut list: Vec<String> = members.to_vec();
    for item in extra {
        let item = item.trim();
        match item.strip_prefix('-') {
            Some(removed) => {
                let removed = removed.replace('-', "_");
                list.retain(|c| *c != removed);
            }
            None => list.push(item.replace('-', "_")),
        }
    }
    list.sort();
    list.dedup();
    let dropped = list
        .iter()
        .filter(|c| ENGINE.contains(&c.as_str()))
        .cloned()
        .collect();
    list.retain(|c| !ENGINE.contains(&c.as_str()));
    (list, dropped)
}

/// A short stable name for a list (and the flags it is built with), for its target directory.
pub fn fingerprint(list: &[String]) -> String {
    let mut hasher = fnv::FnvHasher::default();
    std::hash::Hasher::write(&mut hasher, LAYOUT.as_bytes());
    std::hash::Hasher::write(&mut hasher, SANCOV.join(" ").as_bytes());
    for name in list {
        std::hash::Hasher::write(&mut hasher, name.as_bytes());
        std::hash::Hasher::write_u8(&mut hasher, 0);
    }
    format!("{:016x}", std::hash::Hasher::finish(&hasher))
}

/// The variable that says whether the crate `name` is instrumented: [`ON`] when it is, unset
/// when it is not. The wrapper names it in the crate's dep-info, so cargo rebuilds the crate
/// when it changes.
pub fn crate_var(name: &str) -> String {
    format!("{CRATE_VAR_PREFIX}{name}")
}

/// Makes `command`, a cargo build, compile through `wrapper` (this program) with exactly the
/// crates of `list` instrumented: the list for the wrapper, and each listed crate's
/// [`crate_var`] set while every other one is unset.
pub fn configure(command: &mut Command, wrapper: &Path, list: &[String]) {
    command
        .env("RUSTC_WRAPPER", wrapper)
        .env(LIST_VAR, list.join(","))
        // A workspace wrapper would run inside ours with its own idea of the flags.
        .env_remove("RUSTC_WORKSPACE_WRAPPER");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with(CRATE_VAR_PREFIX) {
            command.env_remove(key);
        }
    }
    for name in list {
        command.env(crate_var(name), ON);
    }
}

/// Acting as the rustc wrapper: cargo calls `cargo-bonsai RUSTC ARGS...`. Runs rustc with
/// the SanitizerCoverage flags added when the crate is on the list, records the decision in
/// the crate's dep-info (the module's documentation says why), and exits with rustc's status.
pub fn wrap(args: &[OsString], list: &str) -> ! {
    let listed: Vec<&str> = list.split(',').filter(|s| !s.is_empty()).collect();
    let (rustc, rest) = match args {
        [_, rustc, rest @ ..] => (rustc, rest),
        _ => fail(format!("{LIST_VAR} is set, but no rustc to wrap was given")),
    };
    let mut command = Command::new(rustc);
    command.args(rest);
    // Version queries, `--print`, proc-macros and build scripts: nothing to instrument.
    let Some(crate_name) = instrumentable(rest) else {
        exit_like(command)
    };
    let instrumented = listed.contains(&crate_name.as_str());
    let var = crate_var(&crate_name);
    let value = std::env::var(&var).ok();
    if value.as_deref() != instrumented.then_some(ON) {
        fail(format!(
            "{LIST_VAR} {} {crate_name}, but {var} is {}: `cargo bonsai build` sets both",
            if instrumented {
                "lists"
            } else {
                "does not list"
            },
            value.map_or_else(|| "unset".to_string(), |v| format!("{v:?}")),
        ));
    }
    if instrumented {
        command.args(SANCOV);
    }
    let Some(dep_info) = dep_info_path(rest, &crate_name) else {
        // No dep-info, so no fingerprint that could keep a stale decision.
        exit_like(command)
    };
    let status = command
        .status()
        .unwrap_or_else(|e| fail(format!("cannot run rustc: {e}")));
    if status.success()
        && let Err(e) = record(&dep_info, &var, value.as_deref())
    {
        fail(format!(
            "cannot record the instrumentation in {}: {e}",
            dep_info.display()
        ));
    }
    std::process::exit(status.code().unwrap_or(101))
}

/// The crate name of the rustc invocation `args` when it compiles a crate that can be
/// instrumented: not a proc-macro or a build script, which run inside the compiler, where no
/// coverage runtime exists.
fn instrumentable(args: &[OsString]) -> Option<String> {
    let crate_name = flag_value(args, "--crate-name")?;
    let proc_macro = flag_value(args, "--crate-type").is_some_and(|t| t == "proc-macro");
    (!proc_macro && !crate_name.starts_with("build_script_")).then_some(crate_name)
}

/// Whether the rustc invocation `args` compiles a listed crate that can be instrumented.
#[cfg(test)]
fn instruments(args: &[OsString], listed: &[&str]) -> bool {
    instrumentable(args).is_some_and(|name| listed.contains(&name.as_str()))
}

/// The value of `--flag VALUE` or `--flag=VALUE` in `args`, the first one.
fn flag_value(args: &[OsString], flag: &str) -> Option<String> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    args.iter().enumerate().find_map(|(i, arg)| {
        if arg == flag {
            args.get(i + 1).cloned()
        } else {
            arg.strip_prefix(flag)?
                .strip_prefix('=')
                .map(str::to_string)
        }
    })
}

/// The dep-info file the rustc invocation `args` writes, if it writes one: `--emit
/// dep-info=PATH`, or `--emit dep-info` in `--out-dir` named by the crate and `-C
/// extra-filename`, as cargo asks for it.
fn dep_info_path(args: &[OsString], crate_name: &str) -> Option<PathBuf> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut emits = Vec::new();
    let mut codegen = Vec::new();
    let mut out_dir = None;
    for (i, arg) in args.iter().enumerate() {
        let next = || args.get(i + 1).cloned();
        match arg.as_str() {
            "--emit" => emits.extend(next()),
            "-C" | "--codegen" => codegen.extend(next()),
            "--out-dir" => out_dir = next(),
            _ => {
                if let Some(value) = arg.strip_prefix("--emit=") {
                    emits.push(value.to_string());
                } else if let Some(value) = arg.strip_prefix("--out-dir=") {
                    out_dir = Some(value.to_string());
                } else if let Some(value) = arg
                    .strip_prefix("-C")
                    .or_else(|| arg.strip_prefix("--codegen="))
                    && !value.is_empty()
                {
                    codegen.push(value.to_string());
                }
            }
        }
    }
    let kind = emits
        .iter()
        .flat_map(|e| e.split(','))
        .find(|kind| *kind == "dep-info" || kind.starts_with("dep-info="))?;
    if let Some(path) = kind.strip_prefix("dep-info=") {
        return Some(PathBuf::from(path));
    }
    let extra = codegen
        .iter()
        .rev()
        .find_map(|c| c.strip_prefix("extra-filename="))
        .unwrap_or_default();
    Some(Path::new(out_dir.as_deref().unwrap_or(".")).join(format!("{crate_name}{extra}.d")))
}

/// Adds to the dep-info at `path` the line rustc writes for a variable the crate read:
/// `# env-dep:VAR=VALUE`, or `# env-dep:VAR` while it is unset.
fn record(path: &Path, var: &str, value: Option<&str>) -> std::io::Result<()> {
    let mut text = std::fs::read_to_string(path)?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&env_dep_line(var, value));
    std::fs::write(path, text)
}

fn env_dep_line(var: &str, value: Option<&str>) -> String {
    match value {
        Some(value) => format!("# env-dep:{var}={value}\n"),
        None => format!("# env-dep:{var}\n"),
    }
}

/// Ends the wrapper with `message` and status 2.
fn fail(message: String) -> ! {
    eprintln!("cargo-bonsai: {message}");
    std::process::exit(2);
}

#[cfg(unix)]
fn exit_like(mut command: Command) -> ! {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    eprintln!("cargo-bonsai: cannot run rustc: {error}");
    std::process::exit(2);
}

#[cfg(not(unix))]
fn exit_like(mut command: Command) -> ! {
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(2)),
        Err(error) => {
            eprintln!("cargo-bonsai: cannot run rustc: {error}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_list_adds_removes_and_never_takes_the_engine() {
        let (list, dropped) = crate_list(
            &strings(&["my_lang", "my_lang_cli"]),
            &strings(&["serde-json", "-my_lang_cli", "libafl", "_private"]),
        );
        assert_eq!(list, strings(&["_private", "my_lang", "serde_json"]));
        assert_eq!(dropped, strings(&["libafl"]));
    }

    #[test]
    fn the_fingerprint_follows_the_list() {
        let a = fingerprint(&strings(&["a", "b"]));
        assert_eq!(a, fingerprint(&strings(&["a", "b"])));
        assert_ne!(a, fingerprint(&strings(&["a"])));
        assert_ne!(a, fingerprint(&strings(&["ab"])));
    }

    #[test]
    fn only_listed_crates_that_can_run_are_instrumented() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        let listed = ["my_lang", "build_script_build", "my_macros"];
        assert!(instruments(
            &args(&["--crate-name", "my_lang", "--crate-type", "lib"]),
            &listed
        ));
        assert!(!instruments(
            &args(&["--crate-name", "serde", "--crate-type", "lib"]),
            &listed
        ));
        assert!(!instruments(
            &args(&["--crate-name", "my_macros", "--crate-type", "proc-macro"]),
            &listed
        ));
        assert!(!instruments(
            &args(&["--crate-name", "build_script_build"]),
            &listed
        ));
        assert!(!instruments(&args(&["-vV"]), &listed));
    }

    #[test]
    fn the_dep_info_is_found_where_cargo_asks_for_it() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        let cargo = args(&[
            "--crate-name",
            "my_lang",
            "--emit=dep-info,metadata,link",
            "-C",
            "opt-level=0",
            "-C",
            "extra-filename=-0123abcd",
            "--out-dir",
            "/t/debug/deps",
        ]);
        assert_eq!(
            dep_info_path(&cargo, "my_lang"),
            Some(PathBuf::from("/t/debug/deps/my_lang-0123abcd.d"))
        );
        let joined = args(&[
            "--emit",
            "link,dep-info",
            "-Cextra-filename=-9",
            "--out-dir=o",
        ]);
        assert_eq!(dep_info_path(&joined, "x"), Some(PathBuf::from("o/x-9.d")));
        let named = args(&["--emit=dep-info=/a/b.d,link", "--out-dir", "o"]);
        assert_eq!(dep_info_path(&named, "x"), Some(PathBuf::from("/a/b.d")));
        assert_eq!(
            dep_info_path(&args(&["--emit=link", "--out-dir", "o"]), "x"),
            None
        );
        assert_eq!(dep_info_path(&args(&["-vV"]), "x"), None);
    }

    #[test]
    fn the_decision_is_recorded_as_rustc_records_a_variable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.d");
        std::fs::write(&path, "/o/x.rmeta: src/lib.rs\n\nsrc/lib.rs:\n").unwrap();
        record(&path, &crate_var("x"), Some(ON)).unwrap();
        record(&path, &crate_var("y"), None).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "/o/x.rmeta: src/lib.rs\n\nsrc/lib.rs:\n\
             # env-dep:CARGO_BONSAI_SANCOV_x=1\n\
             # env-dep:CARGO_BONSAI_SANCOV_y\n"
        );
    }

    #[test]
    fn the_build_sets_exactly_the_listed_crates_variables() {
        let mut command = Command::new("cargo");
        configure(
            &mut command,
            Path::new("/bin/wrapper"),
            &strings(&["a", "b_c"]),
        );
        let envs: Vec<(String, Option<String>)> = command
            .get_envs()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.map(|v| v.to_string_lossy().into_owned()),
                )
            })
            .filter(|(k, _)| k.starts_with(CRATE_VAR_PREFIX) || k == LIST_VAR)
            .collect();
        let set = |k: &str, v: &str| (k.to_string(), Some(v.to_string()));
        assert_eq!(
            envs,
            [
                set("CARGO_BONSAI_INSTRUMENT", "a,b_c"),
                set("CARGO_BONSAI_SANCOV_a", "1"),
                set("CARGO_BONSAI_SANCOV_b_c", "1"),
            ]
        );
    }
}
