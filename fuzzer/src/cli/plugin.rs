//! Forwarding `--target NAME` to the binary `bonsai-NAME` that has that target linked in.
//!
//! Target crates depend on the engine library, so the engine's own binary cannot link them.
//! Instead each target builds `bonsai-NAME`, which runs this same command line with its target,
//! and any binary that receives `--target` for a target it lacks hands the whole command over.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;

pub use crate::target::LinkedTarget;

const PREFIX: &str = "bonsai-";

/// The value of `--target NAME` or `--target=NAME` among the arguments, if any.
///
/// By hand, not with clap: the scan must read command lines this binary cannot parse, such
/// as `bonsai baseline-nautilus --target T` (a command only the target binaries have), and
/// clap cannot pick one option out of them. With `ignore_errors` it stops at the first
/// option it does not know (`fuzz --grammar G --target T` yields nothing), and a catch-all
/// positional that takes `--` values swallows `--target` too.
pub fn requested_target(args: &[OsString]) -> Option<String> {
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        let arg = arg.to_string_lossy();
        if arg == "--" {
            break;
        }
        if arg == "--target" {
            return iter.next().map(|v| v.to_string_lossy().into_owned());
        }
        if let Some(value) = arg.strip_prefix("--target=") {
            return Some(value.to_string());
        }
    }
    None
}

fn executable_name(target: &str) -> String {
    format!("{PREFIX}{target}{}", std::env::consts::EXE_SUFFIX)
}

/// Directories searched for target binaries: the running binary's own directory first (where
/// cargo puts every workspace binary), then `PATH`, then the binary `cargo bonsai build` made
/// in the repository around the current directory (`bonsai/target/bin`).
fn search_path() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(dir);
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    if let Ok(here) = std::env::current_dir() {
        let built = |dir: &Path| {
            dir.join(crate::cargo_bonsai::HARNESS_DIR)
                .join(crate::cargo_bonsai::BIN_DIR)
        };
        dirs.extend(here.ancestors().map(built).filter(|d| d.is_dir()));
    }
    dirs
}

pub fn find(target: &str) -> Option<PathBuf> {
    let name = executable_name(target);
    search_path()
        .into_iter()
        .map(|dir| dir.join(&name))
        .find(|p| p.is_file())
}

/// Names of all target binaries on the search path, sorted and deduplicated.
pub fn available() -> Vec<String> {
    let mut names: Vec<String> = search_path()
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name
                .strip_suffix(std::env::consts::EXE_SUFFIX)
                .unwrap_or(&name);
            let target = stem.strip_prefix(PREFIX)?;
            let plain = !target.is_empty() && !target.contains('.') && !target.contains('-');
            (plain && entry.path().is_file()).then(|| target.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Replaces this process with `bonsai-TARGET`, passing the arguments on unchanged.
pub fn forward(target: &str, args: &[OsString]) -> Diagnostic {
    let Some(binary) = find(target) else {
        let known = available();
        return Diagnostic::error(format!(
            "unknown target '{target}': no {} next to this binary or on PATH{}. Targets are built \
             with `cargo build --release --workspace` in Bonsai's workspace, or with `cargo bonsai \
             build --release` in your crate's",
            executable_name(target),
            if known.is_empty() {
                String::new()
            } else {
                format!(" (available: {})", known.join(", "))
            }
        ));
    };
    exec(&binary, &args[1..])
}

#[cfg(unix)]
fn exec(binary: &Path, args: &[OsString]) -> Diagnostic {
    use std::os::unix::process::CommandExt;
    let err = std::process::Command::new(binary)
        .args(args.iter().map(OsString::as_os_str))
        .exec();
    Diagnostic::error(format!("cannot run target binary: {err}")).in_file(binary)
}

#[cfg(not(unix))]
fn exec(binary: &Path, args: &[OsString]) -> Diagnostic {
    match std::process::Command::new(binary)
        .args(args.iter().map(OsString::as_os_str))
        .status()
    {
        Ok(status) => std::process::exit(status.code().unwrap_or(2)),
        Err(err) => Diagnostic::error(format!("cannot run target binary: {err}")).in_file(binary),
    }
}

/// The target linked into this binary, when it is the one `name`s: a command that runs a
/// target cannot forward to another binary once its arguments are parsed.
pub fn linked_named(linked: Option<LinkedTarget>, name: &str) -> Result<LinkedTarget, Diagnostic> {
    linked
        .filter(|t| t.name == name)
        .ok_or_else(|| Diagnostic::error(format!("target '{name}' is not linked into this binary")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter()
            .map(OsStr::new)
            .map(OsStr::to_os_string)
            .collect()
    }

    #[test]
    fn finds_the_target_flag_in_both_spellings() {
        assert_eq!(
            requested_target(&args(&["bonsai", "fuzz", "--target", "x"])),
            Some("x".into())
        );
        assert_eq!(
            requested_target(&args(&["bonsai", "fuzz", "--target=y", "-v"])),
            Some("y".into())
        );
        assert_eq!(
            requested_target(&args(&["bonsai", "generate", "g.ebnf"])),
            None
        );
        assert_eq!(
            requested_target(&args(&["bonsai", "x", "--", "--target", "z"])),
            None
        );
    }
}
