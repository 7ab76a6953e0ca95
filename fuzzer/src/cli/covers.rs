//! `bonsai covers --target T ORIGINAL CANDIDATE`: whether CANDIDATE keeps the criterion
//! `bonsai reduce --criterion coverage` keeps for ORIGINAL, as an exit code, so that an
//! external reducer (picireny, whose test command must exit 0 for an interesting candidate)
//! reduces under exactly Bonsai's criterion.
//!
//! Each call starts afresh: the original is run twice (`SameCoverage::of_input` requires only
//! the edges both runs hit) and the candidate once, each in a forked child. Nothing is cached
//! between calls, so a reducer that calls it once per test pays the original's two runs every
//! time; what it decides is the same as a `bonsai reduce` test would.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::{Failure, LinkedTarget};
use crate::diagnostic::Diagnostic;
use crate::reduce::{Candidate, Criterion, SameCoverage};
use crate::replay::ForkedRunner;
use crate::target::require_instrumented;

#[derive(Args)]
pub struct CoversArgs {
    /// The target to run (the binary bonsai-TARGET).
    #[arg(long, value_name = "TARGET")]
    target: String,
    /// The input whose coverage must be kept.
    original: PathBuf,
    /// The input to judge.
    candidate: PathBuf,
    /// Per-run timeout of the target in milliseconds; a candidate that times out fails.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
}

/// Exit 0 when the candidate covers every edge the original covers and runs normally, 1 when
/// not, 2 when an input cannot be read or the original itself does not run normally.
pub fn run(args: CoversArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let target = super::plugin::linked_named(linked, &args.target)?;
    require_instrumented(target.name)?;
    if args.timeout_ms == 0 {
        return Err(Diagnostic::error("--timeout-ms must be at least 1").into());
    }
    let original = read_text(&args.original)?;
    let candidate = read_text(&args.candidate)?;
    let runner = ForkedRunner::new(target, Duration::from_millis(args.timeout_ms))
        .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
    let mut criterion = SameCoverage::of_input(runner, &original)
        .map_err(|why| Diagnostic::error(why.to_string()).in_file(&args.original))?;
    if criterion.holds(&Candidate::text(&candidate)) {
        Ok(())
    } else {
        Err(Failure::Negative(format!(
            "{}: does not keep the coverage of {} ({} edges, all to be hit without a fault)",
            args.candidate.display(),
            args.original.display(),
            criterion.required().len()
        )))
    }
}

fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path)
        .map_err(|e| Diagnostic::error(format!("cannot read input: {e}")).in_file(path))?;
    String::from_utf8(bytes)
        .map_err(|e| Diagnostic::error(format!("input is not UTF-8 text: {e}")).in_file(path))
}
