//! The interface between the engine and a system under test.

use super::{Verdict, Violation};

/// A system under test, run in-process. Its name on the command line (`--target NAME`) is
/// given once, to `target_main!`.
///
/// Implementations should be deterministic: the same input gives the same verdict and the same
/// coverage. Panics, aborts, stack overflows and hangs inside `run` are the engine's business:
/// they are caught, saved with their reproducer, and fuzzing goes on.
pub trait Target {
    /// Runs one input through the system under test.
    fn run(&mut self, input: &[u8]) -> Verdict;

    /// The target's observable output for `input`, stored by `bonsai export --golden` so that a
    /// corpus doubles as golden tests. Defaults to the verdict and its message.
    fn output(&mut self, input: &[u8]) -> String {
        match self.run(input) {
            Verdict::Valid => "valid".to_string(),
            Verdict::Invalid(reason) => format!("invalid: {reason}"),
            Verdict::Reject => "reject".to_string(),
        }
    }

    /// Checks the target's answer for `input` (its `verdict` from [`Target::run`]) against an
    /// oracle: a round trip through the target's printer ([`round_trip`](super::round_trip)),
    /// a second implementation ([`differential`](super::differential)). A violation is a fault
    /// of its own kind, saved, bucketed and reduced like a crash; fuzzing goes on. Panics in
    /// here are the target's, as in `run`. Defaults to no oracle.
    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let _ = (input, verdict);
        None
    }
}
