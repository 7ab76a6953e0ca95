//! Whether the code under test was compiled with coverage counters.
//!
//! A target crate built without `scripts/rustc-wrapper` (for example with a plain `rustc`, or
//! with its crate missing from `scripts/instrumented-crates`) still runs, but every input then
//! looks alike to the fuzzer and a campaign silently degrades to random testing. Commands that
//! rely on coverage therefore refuse to start on an uninstrumented target.

use crate::diagnostic::Diagnostic;

/// Number of 8-bit edge counters registered by instrumented code in this process.
pub fn edge_counters() -> usize {
    // SAFETY: the counter regions are registered by module constructors before `main` runs and
    // never change afterwards; this only reads their lengths.
    let maps = unsafe { &*libafl_targets::counters_maps_ptr() };
    maps.iter().map(|m| m.len()).sum()
}

/// Fails loudly when `target` has no instrumented code linked in.
pub fn require_instrumented(target: &str) -> Result<usize, Diagnostic> {
    match edge_counters() {
        0 => Err(Diagnostic::error(format!(
            "target '{target}' is not instrumented: no coverage counters are registered. Build it \
             from this workspace so that .cargo/config.toml applies scripts/rustc-wrapper, and list \
             its crates in scripts/instrumented-crates (then `cargo clean -p <crate>` and rebuild)"
        ))),
        n => Ok(n),
    }
}
