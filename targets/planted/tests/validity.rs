//! End to end: `bonsai-planted validity` measures a target whose inputs abort, overflow the
//! stack and hang, and counts those faults instead of dying of them.

mod common;

use common::{bonsai, grammar_path};

/// With seed 1, the first thousand inputs at bounds 2,3,4 include an abort (the process died
/// with exit 134 and no output before each input ran in its own child).
#[test]
fn faults_of_the_target_are_counted_not_fatal() {
    let grammar = grammar_path();
    let output = bonsai(&[
        "validity",
        grammar.to_str().unwrap(),
        "--target",
        "planted",
        "--bounds",
        "2,3,4",
        "--count",
        "1000",
        "--seed",
        "1",
        "--timeout-ms",
        "200",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.starts_with("1000 inputs from "),
        "every input is counted: {stdout}"
    );
    let count = |label: &str| -> u64 {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(label))
            .unwrap_or_else(|| panic!("no {label} row: {stdout}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let faults = count("crash");
    assert!(faults > 0, "{stdout}");
    assert!(
        stdout.contains("crash: the target aborted (signal 6)"),
        "the abort is named: {stdout}"
    );
    let invalid = count("invalid");
    assert_eq!(
        count("valid") + invalid + count("reject") + faults,
        1000,
        "{stdout}"
    );
}
