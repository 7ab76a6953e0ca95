//! Shared by the target crates' `repeatable` tests (included with `#[path]`): a target's
//! coverage of an input must repeat, across replay processes and across forked runs in one
//! process. A reducer that meets coverage changing from run to run keeps inputs whole, and
//! every replayed figure wobbles.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Runs `binary replay ARGS --json` and returns its per-input lines and its total.
pub fn replay(binary: &str, args: &[&str]) -> (Vec<Value>, Value) {
    let output = Command::new(binary)
        .arg("replay")
        .args(args)
        .arg("--json")
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("the target binary runs");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let total = lines.pop().expect("a total line");
    assert!(
        output.status.success(),
        "replay {args:?} failed ({}): {total}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    (lines, total)
}

/// Replays `dir` in two processes, the second running every input twice: every input must
/// cover the same number of edges, and add the same new ones, in both processes, and no edge
/// may come and go between the two runs of the second.
pub fn assert_corpus_replays_identically(binary: &str, target: &str, grammar: &Path, dir: &Path) {
    let args = [
        "--target",
        target,
        "--grammar",
        grammar.to_str().unwrap(),
        dir.to_str().unwrap(),
    ];
    let (first, first_total) = replay(binary, &args);
    let mut twice = args.to_vec();
    twice.extend(["--repeat", "2"]);
    let (second, second_total) = replay(binary, &twice);
    assert!(!first.is_empty(), "no inputs in {}", dir.display());
    let differing: Vec<String> = first
        .iter()
        .zip(&second)
        .filter(|(a, b)| a["edges"] != b["edges"] || a["new_edges"] != b["new_edges"])
        .map(|(a, b)| format!("{}: {} vs {} edges", a["name"], a["edges"], b["edges"]))
        .collect();
    assert!(
        differing.is_empty(),
        "{} of {} inputs covered other edges in a second replay: {differing:?}",
        differing.len(),
        first.len()
    );
    assert_eq!(
        first_total["total"]["edges"],
        second_total["total"]["edges"]
    );
    assert_eq!(
        second_total["total"]["unstable_inputs"], 0,
        "{second_total}"
    );
}

/// Runs the one input `file` (with its `.choices` sibling if it has one) `runs` times in
/// forked children of one process: no edge may come and go.
pub fn assert_input_repeats(binary: &str, target: &str, grammar: &Path, file: &Path, runs: u32) {
    let dir = tempfile::tempdir().unwrap();
    let name = file.file_name().unwrap();
    std::fs::copy(file, dir.path().join(name)).unwrap();
    let runs = runs.to_string();
    let (lines, total) = replay(
        binary,
        &[
            "--target",
            target,
            "--grammar",
            grammar.to_str().unwrap(),
            "--repeat",
            &runs,
            dir.path().to_str().unwrap(),
        ],
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0]["edges"].as_u64().unwrap() > 100, "{lines:?}");
    assert_eq!(lines[0]["unstable_edges"], 0, "{lines:?}");
    assert_eq!(total["total"]["unstable_inputs"], 0);
}

/// `count` inputs generated from `grammar` (bounds 3,3,3, `seed`) as `.choices` files in a new
/// directory.
pub fn generated_inputs(binary: &str, grammar: &Path, count: u32, seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(binary)
        .args(["generate", grammar.to_str().unwrap(), "--bounds", "3,3,3"])
        .args(["--count", &count.to_string(), "--seed", &seed.to_string()])
        .args(["--save-choices", "--out", dir.path().to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// The check for a target without a committed corpus: 150 generated inputs replay identically
/// in two processes, and the largest of them in ten forked runs.
pub fn assert_generated_inputs_repeat(binary: &str, target: &str, grammar: &Path) {
    let inputs = generated_inputs(binary, grammar, 150, 11);
    assert_corpus_replays_identically(binary, target, grammar, inputs.path());
    let largest = std::fs::read_dir(inputs.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .max_by_key(|p| (std::fs::metadata(p).unwrap().len(), p.clone()))
        .unwrap();
    assert_input_repeats(
        binary,
        target,
        grammar,
        &largest.with_extension("choices"),
        10,
    );
}
