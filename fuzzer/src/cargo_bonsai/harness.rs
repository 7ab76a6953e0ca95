//! The harness crate `cargo bonsai init` makes (`bonsai/` in the user's repository), as the
//! other subcommands find and read it: its `[package.metadata.bonsai]` says the target's
//! name, its grammar and the crates to instrument besides the user's workspace members.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostic::Diagnostic;

/// The directory `cargo bonsai init` creates in the user's workspace root.
pub const HARNESS_DIR: &str = "bonsai";
/// Where `cargo bonsai build` links the last binary it built, whatever its instrumentation
/// and profile; `bonsai` looks here too (`cli::plugin`), so `bonsai targets` lists it.
pub const BIN_DIR: &str = "target/bin";

/// The harness crate, read.
#[derive(Clone, Debug)]
pub struct Harness {
    /// Its directory (`.../bonsai`).
    pub dir: PathBuf,
    /// The target's name: the binary is `bonsai-<target>`.
    pub target: String,
    /// The grammar, relative to `dir`.
    pub grammar: PathBuf,
    /// `instrument = [...]`: crate names to add, `-name` to leave out.
    pub instrument: Vec<String>,
    /// `call = "..."`: the user's function the harness calls, for exported fault tests.
    pub call: Option<String>,
}

impl Harness {
    /// The harness of the repository around `start`: `start` itself or an ancestor that is
    /// the harness, or holds it as `bonsai/`.
    pub fn find(start: &Path) -> Result<Harness, Diagnostic> {
        for dir in start.ancestors() {
            for candidate in [dir.to_path_buf(), dir.join(HARNESS_DIR)] {
                let manifest = candidate.join("Cargo.toml");
                let is_harness = std::fs::read_to_string(&manifest)
                    .is_ok_and(|text| text.contains("[package.metadata.bonsai]"));
                if is_harness {
                    return Harness::read(&candidate);
                }
            }
        }
        Err(Diagnostic::error(format!(
            "no Bonsai harness here or above (a {HARNESS_DIR}/Cargo.toml with \
             [package.metadata.bonsai]): run `cargo bonsai init` in your crate first"
        ))
        .in_file(start))
    }

    /// Reads `dir/Cargo.toml` through `cargo metadata`, which parses TOML for us.
    pub fn read(dir: &Path) -> Result<Harness, Diagnostic> {
        let manifest = dir.join("Cargo.toml");
        let metadata = cargo_metadata(&manifest, false)?;
        let package = metadata["packages"]
            .as_array()
            .and_then(|p| p.first())
            .ok_or_else(|| Diagnostic::error("no package in it").in_file(&manifest))?;
        let bonsai = &package["metadata"]["bonsai"];
        let field = |name: &str| {
            bonsai[name].as_str().map(str::to_string).ok_or_else(|| {
                Diagnostic::error(format!(
                    "[package.metadata.bonsai] needs `{name} = \"...\"`"
                ))
                .in_file(&manifest)
            })
        };
        let instrument = match &bonsai["instrument"] {
            Value::Null => Vec::new(),
            Value::Array(items) => items
                .iter()
                .map(|i| {
                    i.as_str().map(str::to_string).ok_or_else(|| {
                        Diagnostic::error(format!(
                            "[package.metadata.bonsai] instrument: {i} is not a crate name"
                        ))
                        .in_file(&manifest)
                    })
                })
                .collect::<Result<_, _>>()?,
            other => {
                return Err(Diagnostic::error(format!(
                    "[package.metadata.bonsai] instrument must be a list of crate names, not {other}"
                ))
                .in_file(&manifest));
            }
        };
        Ok(Harness {
            dir: dir.to_path_buf(),
            target: field("target")?,
            grammar: PathBuf::from(field("grammar")?),
            instrument,
            call: bonsai["call"].as_str().map(str::to_string),
        })
    }

    /// The binary `cargo bonsai build` linked last.
    pub fn binary(&self) -> PathBuf {
        self.dir.join(BIN_DIR).join(format!(
            "bonsai-{}{}",
            self.target,
            std::env::consts::EXE_SUFFIX
        ))
    }
}

/// `cargo metadata` of `manifest` as JSON (`--no-deps` unless `deps`); an error carries
/// cargo's own message.
pub fn cargo_metadata(manifest: &Path, deps: bool) -> Result<Value, Diagnostic> {
    let mut command = std::process::Command::new(cargo());
    command.args(["metadata", "--format-version", "1"]);
    if !deps {
        command.arg("--no-deps");
    }
    let output = command
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .map_err(|e| Diagnostic::error(format!("cannot run cargo: {e}")))?;
    if !output.status.success() {
        return Err(Diagnostic::error(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        ))
        .in_file(manifest));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| Diagnostic::error(format!("cargo metadata printed no JSON: {e}")))
}

/// The cargo that runs us (`CARGO`, which cargo sets for its subcommands), else `cargo`.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

/// The crate names (as rustc sees them) of the workspace members of `manifest`, except
/// proc-macros and build scripts, which run inside the compiler and cannot be instrumented.
pub fn member_crates(metadata: &Value) -> Vec<String> {
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut crates = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        if !members.contains(&package["id"].as_str().unwrap_or_default()) {
            continue;
        }
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .map(|k| k.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let linked = kinds.iter().any(|k| {
                matches!(
                    *k,
                    "lib" | "rlib" | "dylib" | "staticlib" | "cdylib" | "bin"
                )
            });
            if linked && let Some(name) = target["name"].as_str() {
                crates.push(name.replace('-', "_"));
            }
        }
    }
    crates.sort();
    crates.dedup();
    crates
}
