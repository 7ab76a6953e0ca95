//! The binary must carry coverage counters for the example compiler: without them every input looks alike
//! to the fuzzer. Counts differ between debug and release builds, so the bound is loose; it
//! still fails when the crates drop out of scripts/instrumented-crates.

use std::path::Path;

use bonsai::target::query_instrumented;

#[test]
fn the_binary_reports_itself_instrumented() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-example"));
    let counters = query_instrumented(binary, "example").unwrap_or_else(|e| panic!("{e}"));
    assert!(counters >= 100, "only {counters} edge counters");
}

/// `targets --target` credits every counter to a crate, and says that only the harness is
/// counted: here the toy compiler lives in the harness crate, and nothing else is instrumented.
#[test]
fn the_counters_are_listed_per_crate() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .args(["targets", "--target", "example"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let total = bonsai::target::parse_instrumented_report(&stdout, "example").unwrap();
    let per_crate: Vec<(String, usize)> = stdout
        .lines()
        .skip(1)
        .map(|line| {
            let count = line
                .split_whitespace()
                .find_map(|word| word.parse().ok())
                .unwrap_or_else(|| panic!("no count in {line:?}"));
            (line.trim().to_string(), count)
        })
        .collect();
    assert_eq!(
        per_crate.iter().map(|(_, c)| c).sum::<usize>(),
        total,
        "{stdout}"
    );
    let own = per_crate
        .iter()
        .find(|(line, _)| line.starts_with("bonsai_target_example "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(own.1 >= 100, "{stdout}");
    assert!(
        !stdout.contains("\n  bonsai ") && !stdout.contains("libafl"),
        "the engine is not instrumented: {stdout}"
    );
    assert!(
        stderr.contains("only the harness crate bonsai_target_example has edge counters"),
        "{stderr}"
    );
}
