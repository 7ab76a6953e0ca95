//! What the planted target's end-to-end tests share: where the repository and the grammar are,
//! and how to run the `bonsai-planted` binary. Each test file uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

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

/// `bonsai fuzz` from the planted seeds (`tests/seeds`: an abort, a stack overflow, a hang) for
/// `execs` executions at bounds 2,3,4 and a 100 ms timeout; its `--json` summary.
pub fn fuzz_the_planted_seeds(out: &Path, execs: u32) -> Value {
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seeds");
    let execs = execs.to_string();
    fuzz(
        out,
        &[
            "--bounds",
            "2,3,4",
            "--execs",
            &execs,
            "--timeout-ms",
            "100",
            "--seeds",
            seeds.to_str().unwrap(),
        ],
    )
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

/// Live (not zombie) processes in process group `group`.
pub fn live_in_group(group: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split(' ').collect();
        // state, ppid, pgrp
        if fields.len() > 2 && fields[2] == group.to_string() && fields[0] != "Z" {
            out.push(pid);
        }
    }
    out
}

/// Waits until every process of `group` has ended (a killed run's children die with it).
pub fn wait_for_group_to_end(group: u32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let live = live_in_group(group);
        if live.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes {live:?} outlived the kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A grammar of one input per planted fault (panic, abort, stack overflow, hang) and a valid
/// one, so that a few runs meet every kind of fault.
pub const FAULTS_GRAMMAR: &str = "program = \"while 1 { if 1 { print 1; } }\" \
    | \"print (((1)));\" | \"if 1 { if 1 { let x = x * x; } }\" \
    | \"while 7 { let a = 1; }\" | \"print 1;\";\n";

/// Runs `bonsai-planted` as a user's shell would: with `RUST_BACKTRACE=1`, which asks every
/// panic for a backtrace, and without `BONSAI_LOG`.
pub fn bonsai_with_backtraces(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bonsai-planted"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .env_remove("BONSAI_LOG")
        .output()
        .expect("bonsai-planted runs")
}
