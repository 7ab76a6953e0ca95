//! The binary must carry coverage counters for the example compiler: without them every input looks alike
//! to the fuzzer. Counts differ between debug and release builds, so the bound is loose; it
//! still fails when the crates drop out of scripts/instrumented-crates.

use std::process::Command;

#[test]
fn the_binary_reports_itself_instrumented() {
    let out = Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .args(["targets", "--target", "example"])
        .output()
        .expect("bonsai-example runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counters: usize = stdout
        .strip_prefix("example: instrumented, ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected report: {stdout}"));
    assert!(counters >= 100, "only {counters} edge counters");
}
