//! `cargo bonsai build`: the harness built with SanitizerCoverage on exactly the crates
//! [`super::instrument`] lists, in the target directory of the list's crates from outside the
//! user's workspace, and linked to `bonsai/target/bin/` where the other subcommands (and
//! `bonsai`) find it.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::dependency_graph::DependencyGraph;
use super::harness::{BIN_DIR, Harness, cargo, cargo_metadata, member_crates};
use super::instrument::{ENGINE, configure, crate_list, fingerprint};
use crate::diagnostic::Diagnostic;

/// What a build made.
pub struct Built {
    /// The binary, in its target directory.
    pub binary: PathBuf,
    /// The crates instrumented.
    pub instrumented: Vec<String>,
    /// The crates the user's workspace members depend on directly, the engine's left out
    /// (empty when `cargo metadata` could not tell).
    pub direct_dependencies: Vec<String>,
}

/// Builds `harness` (`--release` when `release`), passing `cargo_args` on to `cargo build`.
pub fn build(harness: &Harness, release: bool, cargo_args: &[String]) -> Result<Built, Diagnostic> {
    let workspace = harness.dir.parent().unwrap_or(Path::new("."));
    let members = if workspace.join("Cargo.toml").is_file() {
        member_crates(&cargo_metadata(&workspace.join("Cargo.toml"), false)?)
    } else {
        Vec::new()
    };
    let (list, dropped) = crate_list(&members, &harness.instrument);
    if !dropped.is_empty() {
        eprintln!(
            "warning: not instrumenting the engine's crates {}: their own branches would flood \
             the coverage map",
            dropped.join(", ")
        );
    }
    if list.is_empty() {
        return Err(Diagnostic::error(
            "no crate to instrument: the workspace above the harness has no members, and \
             [package.metadata.bonsai] instrument adds none",
        )
        .in_file(&harness.dir.join("Cargo.toml")));
    }
    eprintln!("instrumenting: {}", list.join(", "));
    let graph = cargo_metadata(&harness.dir.join("Cargo.toml"), true)
        .ok()
        .map(|metadata| DependencyGraph::from_metadata(&metadata));
    let shared = match &graph {
        Some(graph) => shared_with_engine(&list, &graph.closure(&ENGINE)),
        None => outside_workspace(&list, &members),
    };
    let target_dir = target_base(harness).join(format!("instrumented-{}", fingerprint(&shared)));
    let self_exe = std::env::current_exe()
        .map_err(|e| Diagnostic::error(format!("cannot find this program's path: {e}")))?;
    let mut command = Command::new(cargo());
    command
        .arg("build")
        .arg("--manifest-path")
        .arg(harness.dir.join("Cargo.toml"))
        .args(release.then_some("--release"))
        .args(cargo_args)
        .env("CARGO_TARGET_DIR", &target_dir);
    configure(&mut command, &self_exe, &list);
    let status = command
        .status()
        .map_err(|e| Diagnostic::error(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Diagnostic::error(format!("cargo build failed ({status})"))
            .in_file(&harness.dir.join("Cargo.toml")));
    }
    let profile = if release { "release" } else { "debug" };
    let name = format!("bonsai-{}{}", harness.target, std::env::consts::EXE_SUFFIX);
    let binary = target_dir.join(profile).join(&name);
    if !binary.is_file() {
        return Err(Diagnostic::error(format!(
            "cargo built no {name}: is [[bin]] name = \"bonsai-{}\" still in the harness?",
            harness.target
        ))
        .in_file(&binary));
    }
    link(&binary, &harness.binary())?;
    let member_names: Vec<&str> = members.iter().map(String::as_str).collect();
    let direct_dependencies = graph
        .map(|graph| graph.direct_dependencies(&member_names, &ENGINE))
        .unwrap_or_default();
    Ok(Built {
        binary,
        instrumented: list,
        direct_dependencies,
    })
}

/// The crates of `list` that the engine's build compiles too (`engine`, its closure): what
/// names a list's target directory. A listed crate the engine uses changes the engine's
/// build when its instrumentation changes, so each such list builds the engine apart; any
/// other listed crate (a workspace member, a parser only the user's crates use) is rebuilt
/// in place with what depends on it, and the engine is built once for all of them.
fn shared_with_engine(list: &[String], engine: &std::collections::BTreeSet<String>) -> Vec<String> {
    list.iter()
        .filter(|name| engine.contains(*name))
        .cloned()
        .collect()
}

/// The crates of `list` that are not among the workspace's `members`: what names a list's
/// target directory when `cargo metadata` cannot tell what the engine uses. Such a crate may be a dependency of the engine or LibAFL, which would be
/// rebuilt each time it changed in place; the workspace's own crates change in place, and
/// lists that differ only in them share the engine and everything else no list instruments.
fn outside_workspace(list: &[String], members: &[String]) -> Vec<String> {
    list.iter()
        .filter(|name| !members.contains(name))
        .cloned()
        .collect()
}

/// `CARGO_TARGET_DIR` when the user set one (their builds go there), else the harness's own
/// `target/`; each set of listed crates from outside the workspace gets a directory below it.
fn target_base(harness: &Harness) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => harness.dir.join("target"),
    }
}

/// Points `at` (in `bonsai/target/bin/`) to `binary`, replacing an earlier link.
fn link(binary: &Path, at: &Path) -> Result<(), Diagnostic> {
    let fail =
        |e: std::io::Error| Diagnostic::error(format!("cannot link the binary: {e}")).in_file(at);
    crate::create_dir(at.parent().unwrap_or(Path::new(BIN_DIR)))?;
    if at.symlink_metadata().is_ok() {
        std::fs::remove_file(at).map_err(fail)?;
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(binary, at).map_err(fail)?;
    #[cfg(not(unix))]
    std::fs::copy(binary, at).map(|_| ()).map_err(fail)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lists_differing_only_in_workspace_crates_share_a_directory() {
        let members = strings(&["my_lang", "my_lang_cli"]);
        let named = |list: &[&str]| fingerprint(&outside_workspace(&strings(list), &members));
        assert_eq!(named(&["my_lang"]), named(&["my_lang", "my_lang_cli"]));
        assert_ne!(named(&["my_lang"]), named(&["my_lang", "serde_json"]));
        assert_eq!(
            outside_workspace(&strings(&["my_lang", "serde_json"]), &members),
            strings(&["serde_json"])
        );
    }

    #[test]
    fn only_crates_the_engine_uses_set_a_list_apart() {
        let engine: std::collections::BTreeSet<String> =
            strings(&["bonsai", "libafl", "serde_json"])
                .into_iter()
                .collect();
        let named = |list: &[&str]| fingerprint(&shared_with_engine(&strings(list), &engine));
        assert_eq!(named(&["my_lang"]), named(&["my_lang", "sqlparser"]));
        assert_ne!(named(&["my_lang"]), named(&["my_lang", "serde_json"]));
    }
}
