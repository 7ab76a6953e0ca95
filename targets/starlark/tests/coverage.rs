//! A run's own edge count is what its corpus reproduces. starlark-rust's constructor registers
//! a whole standard library (about 320 edges in a release build): before the counters were
//! cleared after the target was built, a run credited those edges to its first input and
//! reported them, though replaying its corpus, input by input in fresh processes, never
//! reaches them. Without the clearing this test saw 16551 run edges against 15609 replayed
//! (a debug build has more counters).

use std::process::Command;

use serde_json::Value;

fn bonsai(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_bonsai-starlark"))
        .args(args)
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("bonsai-starlark runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_runs_edges_are_the_edges_its_corpus_replays_to() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let grammar = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grammars/starlark.ebnf");
    let summary = bonsai(&[
        "fuzz",
        "--target",
        "starlark",
        "--grammar",
        grammar,
        "--bounds",
        "2,2,2",
        "--execs",
        "300",
        "--seed",
        "1",
        "--timeout-ms",
        "5000",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let summary: Value = serde_json::from_str(summary.lines().last().unwrap()).unwrap();
    let replayed = bonsai(&[
        "replay",
        "--target",
        "starlark",
        "--json",
        out.to_str().unwrap(),
    ]);
    let total: Value = serde_json::from_str(replayed.lines().last().unwrap()).unwrap();
    let run = summary["edges"].as_i64().unwrap();
    let replay = total["total"]["edges"].as_i64().unwrap();
    // Starlark's coverage of an input varies a little between processes; the constructor's
    // edges made a gap ten times this tolerance.
    assert!(
        (run - replay).abs() <= 80,
        "the run reports {run} edges, its corpus replays to {replay}"
    );
}
