//! Whether the code under test was compiled with coverage counters.
//!
//! A target crate built without `cargo bonsai build` or `scripts/rustc-wrapper` (for example
//! with a plain `rustc`, or with its crate missing from `scripts/instrumented-crates`) still runs, but every input then
//! looks alike to the fuzzer and a campaign silently degrades to random testing. Commands that
//! rely on coverage therefore refuse to start on an uninstrumented target.

use std::path::Path;
use std::process::Command;

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
             with `cargo bonsai build` (your crate's own repository), or from Bonsai's workspace \
             so that .cargo/config.toml applies scripts/rustc-wrapper, with its crates listed in \
             scripts/instrumented-crates (then `cargo clean -p <crate>` and rebuild)"
        ))),
        n => Ok(n),
    }
}

/// The line `bonsai targets --target NAME` prints for an instrumented target.
pub fn instrumented_report(target: &str, counters: usize) -> String {
    format!("{target}: instrumented, {counters} edge counters")
}

/// The counter count in `stdout` of `targets --target NAME`, if it reports `target` as
/// instrumented.
pub fn parse_instrumented_report(stdout: &str, target: &str) -> Option<usize> {
    stdout.lines().find_map(|line| {
        line.strip_prefix(target)?
            .strip_prefix(": instrumented, ")?
            .strip_suffix(" edge counters")?
            .parse()
            .ok()
    })
}

/// Why a target binary's instrumentation could not be confirmed.
#[derive(Debug)]
pub enum InstrumentationError {
    /// The binary could not be started.
    CannotRun {
        /// The binary that was to be run.
        binary: std::path::PathBuf,
        /// Why starting it failed.
        error: std::io::Error,
    },
    /// It ran, and did not report the target as instrumented: what it printed.
    NotReported {
        /// The binary that was run.
        binary: std::path::PathBuf,
        /// The target it was asked about.
        target: String,
        /// How the binary exited.
        status: std::process::ExitStatus,
        /// Its standard output and error, for the user to see what went wrong.
        output: String,
    },
}

impl std::fmt::Display for InstrumentationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstrumentationError::CannotRun { binary, error } => {
                write!(f, "cannot run {}: {error}", binary.display())
            }
            InstrumentationError::NotReported {
                binary,
                target,
                status,
                output,
            } => write!(
                f,
                "{} does not report '{target}' as instrumented ({status}):\n{output}",
                binary.display()
            ),
        }
    }
}

impl std::error::Error for InstrumentationError {}

/// Asks a built target binary `bonsai-<target>` how many edge counters it carries, by running
/// its `targets --target <target>`: how a test or a script checks a target binary without
/// linking it.
pub fn query_instrumented(binary: &Path, target: &str) -> Result<usize, InstrumentationError> {
    let out = Command::new(binary)
        .args(["targets", "--target", target])
        .output()
        .map_err(|error| InstrumentationError::CannotRun {
            binary: binary.to_path_buf(),
            error,
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    match parse_instrumented_report(&stdout, target) {
        Some(counters) if out.status.success() => Ok(counters),
        _ => Err(InstrumentationError::NotReported {
            binary: binary.to_path_buf(),
            target: target.to_string(),
            status: out.status,
            output: format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_line_parses_back() {
        let line = instrumented_report("naga", 58488);
        assert_eq!(parse_instrumented_report(&line, "naga"), Some(58488));
        assert_eq!(
            parse_instrumented_report(&format!("x\n{line}\n"), "naga"),
            Some(58488)
        );
        assert_eq!(parse_instrumented_report(&line, "nag"), None);
        assert_eq!(
            parse_instrumented_report("naga: instrumented, many edge counters", "naga"),
            None
        );
    }

    #[test]
    fn querying_a_missing_binary_fails_with_its_path() {
        let error = query_instrumented(Path::new("/nonexistent/bonsai-x"), "x").unwrap_err();
        assert!(
            matches!(&error, InstrumentationError::CannotRun { binary, .. } if binary == Path::new("/nonexistent/bonsai-x")),
            "{error}"
        );
        assert!(
            error.to_string().contains("/nonexistent/bonsai-x"),
            "{error}"
        );
    }
}
