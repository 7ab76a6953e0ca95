//! The binary must carry coverage counters for starlark-rust's own crates: without them every input looks alike
//! to the fuzzer. Counts differ between debug and release builds, so the bound is loose; it
//! still fails when the crates drop out of scripts/instrumented-crates.

use std::path::Path;

use bonsai::target::query_instrumented;

#[test]
fn the_binary_reports_itself_instrumented() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-starlark"));
    let counters = query_instrumented(binary, "starlark").unwrap_or_else(|e| panic!("{e}"));
    assert!(counters >= 40_000, "only {counters} edge counters");
}
