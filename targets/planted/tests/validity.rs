//! End to end: `bonsai-planted validity` measures a target whose inputs abort, overflow the
//! stack and hang, and counts those faults instead of dying of them.

mod common;

use common::{FAULTS_GRAMMAR, bonsai, bonsai_with_backtraces, grammar_path};

/// A grammar whose inputs abort, panic, overflow the stack and hang (the process died with exit
/// 134 and no output on the first abort, before each input ran in its own child): every input is
/// counted and the abort is named. The faults are drawn from a grammar of them rather than found
/// among random programs, so that the test does not depend on what one seed generates.
#[test]
fn faults_of_the_target_are_counted_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = dir.path().join("faults.ebnf");
    std::fs::write(&grammar, FAULTS_GRAMMAR).unwrap();
    let output = bonsai(&[
        "validity",
        grammar.to_str().unwrap(),
        "--target",
        "planted",
        "--bounds",
        "1,1,1",
        "--count",
        "60",
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
        stdout.starts_with("60 inputs from "),
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
        60,
        "{stdout}"
    );
}

/// With `RUST_BACKTRACE=1`, every fault printed a full backtrace (700 lines for 20): the
/// faults are counted and described in the report, and the terminal gets nothing else.
#[test]
fn faults_leave_the_terminal_quiet_even_with_backtraces_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = dir.path().join("faults.ebnf");
    std::fs::write(&grammar, FAULTS_GRAMMAR).unwrap();
    let output = bonsai_with_backtraces(&[
        "validity",
        grammar.to_str().unwrap(),
        "--target",
        "planted",
        "--bounds",
        "1,1,1",
        "--count",
        "15",
        "--messages",
        "15",
        "--timeout-ms",
        "100",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    for fault in [
        "panic: planted panic",
        "aborted",
        "overflowed its stack",
        "timeout:",
    ] {
        assert!(stdout.contains(fault), "{fault} missing in: {stdout}");
    }
    assert_eq!(stderr, "", "nothing but the report");
}

/// `--explain` names, under each refusal, the grammar's alternative behind it as written in the
/// file: the planted checker refuses a program that reads a variable before assigning it, and
/// only programs that read a variable (`expr = ID`) can be refused that way.
#[test]
fn explain_names_the_alternative_behind_each_refusal() {
    let grammar = grammar_path();
    let output = bonsai(&[
        "validity",
        grammar.to_str().unwrap(),
        "--target",
        "planted",
        "--bounds",
        "2,3,3",
        "--count",
        "300",
        "--seed",
        "1",
        "--explain",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let refusal = lines
        .iter()
        .position(|l| l.contains("is read before it is assigned"))
        .unwrap_or_else(|| panic!("no read-before-assignment refusal: {stdout}"));
    let first = lines[refusal + 1].trim();
    assert!(first.starts_with("in 100% of these, "), "{stdout}");
    assert!(
        first.ends_with(&format!("{}:11: expr = ID", grammar.display())),
        "{stdout}"
    );
}
