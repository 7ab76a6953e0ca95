//! `bonsai validity` on the example target, run as a user would: the binary prints the shares
//! and the refusals per stage, and a bad grammar path is a usage error.

use std::process::Command;

fn bonsai_example(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("bonsai-example runs")
}

#[test]
fn validity_reports_shares_per_stage() {
    let args = [
        "validity",
        "letcalc.ebnf",
        "--target",
        "example",
        "--bounds",
        "2,2,2",
        "--count",
        "300",
        "--seed",
        "1",
    ];
    let out = bonsai_example(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("300 inputs from letcalc.ebnf within (2,2,2), seed 1, target example"),
        "{stdout}"
    );
    let count = |label: &str| -> u64 {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(label))
            .unwrap_or_else(|| panic!("no {label} line in\n{stdout}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    assert_eq!(
        count("valid") + count("invalid") + count("reject") + count("crash"),
        300
    );
    assert!(count("valid") > 0, "{stdout}");
    assert!(
        stdout.contains("  scope "),
        "unbound names are refused by scope:\n{stdout}"
    );
    // The same seed gives the same report.
    assert_eq!(bonsai_example(&args).stdout, out.stdout);
}

#[test]
fn a_missing_grammar_is_a_usage_error() {
    let out = bonsai_example(&[
        "validity",
        "missing.ebnf",
        "--target",
        "example",
        "--bounds",
        "2,2,2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.ebnf"));
}
