//! `scripts/pattern-density` prints how often constructs occur per 1000 characters of a corpus,
//! after an optional prologue marker: the figures docs/results/issue-11-fuzzing-power.md compares Bonsai's and
//! Nautilus's naga corpora by. Needs `python3`, as the script itself does.

use std::path::PathBuf;
use std::process::{Command, Output};

fn script(args: &[&str]) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/pattern-density");
    Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 runs (scripts/pattern-density needs it)")
}

#[test]
fn counts_matches_per_thousand_characters_after_the_prologue() {
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("queue");
    std::fs::create_dir(&queue).unwrap();
    // 40 counted characters after the marker in each file, 80 in all.
    std::fs::write(
        queue.join("000000.txt"),
        format!("x x x PROLOGUE{}", "x".repeat(40)),
    )
    .unwrap();
    std::fs::write(
        queue.join("000001.txt"),
        format!("PROLOGUE{}", "ab".repeat(20)),
    )
    .unwrap();
    std::fs::write(queue.join("000001.choices"), "not counted").unwrap();
    let out = dir.path().to_str().unwrap();
    let output = script(&[
        "--after",
        "PROLOGUE",
        "--pattern",
        "x=x",
        "--pattern",
        "ab=ab",
        out,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let row: Vec<&str> = stdout.lines().nth(1).unwrap().split_whitespace().collect();
    // files, chars per file, x per KB (40 / 80 chars), ab per KB (20 / 80 chars).
    assert_eq!(
        &row[row.len() - 4..],
        ["2", "40", "500.00", "250.00"],
        "{stdout}"
    );
}

#[test]
fn bad_flags_and_empty_directories_exit_2() {
    let empty = tempfile::tempdir().unwrap();
    let empty = empty.path().to_str().unwrap();
    for args in [
        &["--pattern", "bad=(", empty][..],
        &["--pattern", "nameless", empty],
        &["--pattern", "x=x"],
        &["--frobnicate", empty],
        &["--pattern", "x=x", empty],
    ] {
        let output = script(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}");
    }
}
