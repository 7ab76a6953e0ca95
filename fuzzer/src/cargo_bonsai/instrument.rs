//! Which crates `cargo bonsai build` instruments, and the rustc wrapper that does it.
//!
//! The list is the user's workspace members plus and minus `[package.metadata.bonsai]
//! instrument`, never the engine or LibAFL. RUSTFLAGS would instrument every crate, the
//! fuzzer's own included, so `cargo bonsai build` sets this binary as `RUSTC_WRAPPER` with the
//! list in [`LIST_VAR`], and the wrapper adds SanitizerCoverage to exactly those crates. Cargo
//! does not see what a wrapper adds, so each list builds in a target directory of its own,
//! named by [`fingerprint`]: a changed list rebuilds, and an earlier one is still there.

use std::ffi::OsString;
use std::process::Command;

/// The variable that carries the list to the wrapper (comma-separated crate names); its
/// presence is also what makes this binary act as the wrapper.
pub const LIST_VAR: &str = "CARGO_BONSAI_INSTRUMENT";

/// The SanitizerCoverage flags, the same as scripts/rustc-wrapper's: inline 8-bit edge
/// counters, and the PC table that credits each counter to its crate.
const SANCOV: [&str; 4] = [
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=3",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
];

/// Crates never instrumented, whatever the list says: the engine and the fuzzing library,
/// whose own branches would flood the coverage map.
const ENGINE: [&str; 6] = [
    "bonsai",
    "bonsai_baseline",
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
    std::hash::Hasher::write(&mut hasher, SANCOV.join(" ").as_bytes());
    for name in list {
        std::hash::Hasher::write(&mut hasher, name.as_bytes());
        std::hash::Hasher::write_u8(&mut hasher, 0);
    }
    format!("{:016x}", std::hash::Hasher::finish(&hasher))
}

/// Acting as the rustc wrapper: cargo calls `cargo-bonsai RUSTC ARGS...`. Runs rustc with
/// the SanitizerCoverage flags added when the crate is on the list, and exits with its status.
pub fn wrap(args: &[OsString], list: &str) -> ! {
    let listed: Vec<&str> = list.split(',').filter(|s| !s.is_empty()).collect();
    let (rustc, rest) = match args {
        [_, rustc, rest @ ..] => (rustc, rest),
        _ => {
            eprintln!("cargo-bonsai: {LIST_VAR} is set, but no rustc to wrap was given");
            std::process::exit(2);
        }
    };
    let mut command = Command::new(rustc);
    command.args(rest);
    if instruments(rest, &listed) {
        command.args(SANCOV);
    }
    exit_like(command)
}

/// Whether the rustc invocation `args` compiles a listed crate that can be instrumented:
/// proc-macros and build scripts run inside the compiler, where no coverage runtime exists.
fn instruments(args: &[OsString], listed: &[&str]) -> bool {
    let value = |flag: &str| {
        args.windows(2)
            .find(|w| w[0] == flag)
            .map(|w| w[1].to_string_lossy().into_owned())
    };
    let Some(crate_name) = value("--crate-name") else {
        return false;
    };
    let proc_macro = value("--crate-type").is_some_and(|t| t == "proc-macro");
    !proc_macro && !crate_name.starts_with("build_script_") && listed.contains(&crate_name.as_str())
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
}
