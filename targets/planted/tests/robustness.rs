//! The hostile-user suite (scripts/robustness) in its short form, on every test run: mutated
//! grammars, bad command lines and damaged fuzzing outputs must each end in exit code 0, 1 or 2
//! with a message, never a panic, a signal or a hang. The full form (450 grammars) is run by
//! hand; its figures are in docs/results/.

use std::path::Path;
use std::process::Command;

#[test]
fn the_short_robustness_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let keep = tempfile::tempdir().unwrap();
    let output = Command::new(root.join("scripts/robustness"))
        .args(["--grammars", "40", "--seed", "1", "--keep"])
        .arg(keep.path())
        .env("BONSAI_BIN", env!("CARGO_BIN_EXE_bonsai-planted"))
        .output()
        .expect("python3 runs scripts/robustness");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Every category ran: the table lists each with no failure.
    for category in [
        "grammars",
        "command lines",
        "outputs: resume",
        "outputs: export",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(category))
            .unwrap_or_else(|| panic!("no {category} line: {stdout}"));
        assert!(line.trim_end().ends_with(" 0"), "{line}");
    }
}
