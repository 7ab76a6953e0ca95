//! `scripts/compare-nautilus` decides whether issue 11's goals are met from its own statistics
//! (Mann-Whitney U, A12, time to coverage), written in plain Python. Its `--self-test` checks
//! them against hand-computed cases; running it here keeps a broken formula from reaching a
//! 75-minute measurement. Needs `python3`, as the script itself does.

use std::path::PathBuf;
use std::process::{Command, Output};

fn script(args: &[&str]) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/compare-nautilus");
    Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 runs (scripts/compare-nautilus needs it)")
}

#[test]
fn statistics_match_the_hand_computed_cases() {
    let output = script(&["--self-test"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("all statistics match"), "{stdout}");
}

#[test]
fn bad_flags_exit_2_before_anything_runs() {
    for args in [
        &["--reps", "0"][..],
        &["--time", "5 minutes"],
        &["--bounds", "3,3"],
        &["--frobnicate", "1"],
        &["--out"],
    ] {
        let output = script(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("compare-nautilus: "),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Traceback"), "{args:?}: {stderr}");
    }
}

/// `scripts/parent-share`, which issue 30's note reads the schedule's spread from, counts
/// parents and children as its hand-computed case says.
#[test]
fn parent_share_counts_the_children_of_each_parent() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/parent-share");
    let output = Command::new("python3")
        .arg(path)
        .arg("--self-test")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("self-test passed"),
        "{stdout}"
    );
}
