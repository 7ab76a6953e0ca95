//! `bonsai replay --edge-ids` and `scripts/edge-diff`, which answers "which edges does one
//! fuzzer's corpus cover that the other's never does, and from which input": two fabricated
//! "runs" of two fuzzers, one of which alone has a `while` loop.

mod common;

use common::{bonsai, root};

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn write_run(dir: &Path, run: &str, inputs: &[&str]) {
    let queue = dir.join(run).join("queue");
    std::fs::create_dir_all(&queue).unwrap();
    for (i, text) in inputs.iter().enumerate() {
        std::fs::write(queue.join(format!("{i:06}.txt")), text).unwrap();
    }
}

/// Edge ids of one text, from `bonsai replay --json --edge-ids`.
fn edge_ids(dir: &Path, text: &str) -> BTreeSet<u64> {
    let file = dir.join("one.txt");
    std::fs::write(&file, text).unwrap();
    let output = bonsai(&[
        "replay",
        "--target",
        "planted",
        "--json",
        "--edge-ids",
        file.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    let ids: Vec<u64> = first["edge_ids"]
        .as_array()
        .unwrap_or_else(|| panic!("no edge_ids: {first}"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(ids.len() as u64, first["edges"].as_u64().unwrap());
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "not ascending");
    ids.into_iter().collect()
}

#[test]
fn edge_ids_are_what_the_edge_count_counts_and_differ_by_construct() {
    let dir = tempfile::tempdir().unwrap();
    let plain = edge_ids(dir.path(), "let a = 1; print a;");
    let again = edge_ids(dir.path(), "let a = 1; print a;");
    let looped = edge_ids(dir.path(), "let a = 1; while a { print a; } print a;");
    assert_eq!(plain, again);
    assert!(!looped.is_subset(&plain), "a while loop covers nothing new");
}

#[test]
fn edge_diff_names_the_input_with_the_construct_only_one_side_has() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    write_run(&runs, "planted-a-1", &["let a = 1; print a;", "print 2;"]);
    write_run(
        &runs,
        "planted-a-2",
        &["print 3;", "let b = 1; while b { print b; } print b;"],
    );
    write_run(
        &runs,
        "planted-b-1",
        &["let a = 1; print a;", "print 2 + 3;"],
    );
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-planted"));
    let output = Command::new("python3")
        .arg(root().join("scripts/edge-diff"))
        .args(["--from", runs.to_str().unwrap(), "--target", "planted"])
        .args(["--a", "a", "--b", "b", "--min-runs", "1"])
        .env("BONSAI_BIN_DIR", binary.parent().unwrap())
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("a: 2 runs"), "{stdout}");
    assert!(stdout.contains("b: 1 runs"), "{stdout}");
    // The loop's edges come only from run a-2's second input, and the script shows its text.
    assert!(
        stdout.contains("planted-a-2/000001.txt"),
        "the while loop's input is not named: {stdout}"
    );
    assert!(stdout.contains("while b { print b; }"), "{stdout}");
    // Cached replays are reused: a second call runs no replay.
    for run in ["planted-a-1", "planted-a-2", "planted-b-1"] {
        assert!(runs.join(format!("{run}.edges.json")).is_file(), "{run}");
    }
    // A missing run set is a usage error, exit 2, before anything runs.
    let missing = Command::new("python3")
        .arg(root().join("scripts/edge-diff"))
        .args(["--from", runs.to_str().unwrap(), "--target", "planted"])
        .args(["--a", "zest"])
        .env("BONSAI_BIN_DIR", binary.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no planted-zest-N runs"));
}
