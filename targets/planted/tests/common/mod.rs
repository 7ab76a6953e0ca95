//! What the planted target's end-to-end tests share: where the repository and the grammar are,
//! and how to run the `bonsai-planted` binary. Each test file uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn grammar_path() -> PathBuf {
    root().join("grammars/planted.ebnf")
}

/// Runs `bonsai-planted` with quiet logs.
pub fn bonsai(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bonsai-planted"))
        .args(args)
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("bonsai-planted runs")
}

/// `bonsai-planted fuzz` on the planted grammar into `out`, with a `--json` summary and quiet
/// logs, not yet started.
pub fn fuzz_command(out: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bonsai-planted"));
    command
        .args(["fuzz", "--target", "planted", "--grammar"])
        .arg(grammar_path())
        .arg("--out")
        .arg(out)
        .arg("--json")
        .args(extra)
        .env("BONSAI_LOG", "warn");
    command
}

/// The `--json` summary on the last line of a fuzzing run's standard output.
pub fn summary_of(stdout: &[u8]) -> Value {
    let stdout = String::from_utf8_lossy(stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON summary ({e}): {stdout}"))
}

/// Runs `bonsai fuzz` on the planted grammar and returns its `--json` summary.
pub fn fuzz(out: &Path, extra: &[&str]) -> Value {
    let output = fuzz_command(out, extra)
        .output()
        .expect("bonsai-planted runs");
    assert!(
        output.status.success(),
        "fuzz failed: {}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    summary_of(&output.stdout)
}
