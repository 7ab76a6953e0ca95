//! `scripts/import-table`, issue 13's measurement, on a few files of the one row every
//! machine that builds Bonsai has (tree-sitter-python is a dev-dependency, Python runs the
//! script): the row's counts add up and name the files' fate; bad flags exit 2.

use std::path::PathBuf;
use std::process::{Command, Output};

fn script(args: &[&str]) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/import-table");
    Command::new("python3")
        .arg(path)
        .args(args)
        .env("BONSAI_BIN", env!("CARGO_BIN_EXE_bonsai"))
        .output()
        .expect("python3 runs (scripts/import-table needs it)")
}

#[test]
fn a_small_python_row_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let output = script(&["--rows", "python-ts", "--sample", "12", "--out", out]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let row = stdout
        .lines()
        .find(|l| l.starts_with("python-ts "))
        .unwrap_or_else(|| panic!("no python-ts row: {stdout}"));
    if row.contains("skipped") {
        return; // no tree-sitter-python in this registry: said so, nothing to check
    }
    let numbers: Vec<usize> = row
        .split_whitespace()
        .skip(1)
        .map(|n| n.trim_end_matches('%').parse::<f64>().unwrap() as usize)
        .collect();
    let [
        files,
        real,
        exact,
        own,
        layout,
        renamed,
        rejected,
        _share,
        load_own,
        load_readme,
        changed,
    ] = numbers[..]
    else {
        panic!("{row}");
    };
    assert_eq!(files, 12, "{row}");
    assert!(real <= files, "{row}");
    assert_eq!(exact + layout + renamed + rejected, real, "{row}");
    assert!(own <= exact, "{row}");
    // Every imported file replays under the bounds its import reported, and its replay means
    // what the file does.
    assert_eq!(load_own, exact + layout, "{row}");
    assert!(load_readme <= load_own, "{row}");
    assert_eq!(changed, 0, "{row}");
    let plain =
        std::fs::read_to_string(dir.path().join("python-ts/plain/import-report.txt")).unwrap();
    // One line per file after the `#` header lines (the summary, and the grammar's external
    // tokens without a reading where it has some).
    let files_listed = plain.lines().filter(|l| !l.starts_with('#')).count();
    assert_eq!(files_listed, real, "{plain}");
}

#[test]
fn bad_flags_exit_2() {
    for args in [
        &["--sample", "many"][..],
        &["--frobnicate", "1"],
        &["--rows"],
    ] {
        let output = script(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("import-table: "), "{stderr}");
        assert!(!stderr.contains("Traceback"), "{stderr}");
    }
}
