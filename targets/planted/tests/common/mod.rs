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

/// Runs `bonsai fuzz` on the planted grammar and returns its `--json` summary.
pub fn fuzz(out: &Path, extra: &[&str]) -> Value {
    let grammar = grammar_path();
    let mut args = vec![
        "fuzz",
        "--target",
        "planted",
        "--grammar",
        grammar.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = bonsai(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "fuzz failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON summary ({e}): {stdout}"))
}
