//! Feedback. Which executions are kept: `validity` applies Zest's save criteria to the
//! edge hits and verdicts, at the `coverage_grain` of new edges or new hit counts, and keeps
//! the runs that take much longer than their size predicts (`slow_paths`), and says with each entry a client sends what its run covered, so that
//! the other clients run only what they lack (`shipped_run`); `fault`
//! decides which crashes, hangs and out-of-memory inputs are new bugs or smaller reproducers
//! of known ones, using `describe` (one description of a fault wherever it was caught),
//! `signature` (the target's stack frames and the bucket of a fault), `stack_samples` (where
//! a hang spends its time), `panic_record` (panics caught in-process) and `wrong_answer` (an
//! oracle's violation, on its way from the harness to `fault`).

mod capture;
mod coverage_grain;
mod describe;
mod fault;
mod grammar_paths;
pub mod panic_record;
mod queue_paths;
mod shipped_run;
mod signature;
mod slow_paths;
pub mod stack_samples;
mod validity;
pub mod wrong_answer;

pub use capture::{prepare_capture, run_caught};
pub use coverage_grain::{CoverageGrain, UnknownGrain};
pub use describe::{Evidence, describe, describe_signal, record_target_stack};
pub use fault::{
    Fault, FaultFeedback, FaultKind, SeenFaults, Sighting, SlowTrimCandidates, describe_fault,
    fault_kind, flush_fault_log, note_fault, prepare_quiet_stderr, quiet_stderr, record_signal,
    restore_stderr,
};
pub use grammar_paths::GrammarPaths;
pub use queue_paths::{DEFAULT_QUEUE_PATHS_K, QueuePaths};
pub use shipped_run::{ImportRule, ShippedRun};
pub use signature::{
    Bucket, SHOWN_FRAMES, SampledCall, SampledStack, SymbolCache, bare_bucket, bucket,
    describe_frames, function_of, stack_addresses, target_frames, warm_symbol_cache,
};
pub use slow_paths::{RECORD_FACTOR, SLOW_FLOOR, SlowPaths};
pub use validity::{Contribution, CoverageHistory, Novelty, SaveCriteria, ValidityFeedback};
