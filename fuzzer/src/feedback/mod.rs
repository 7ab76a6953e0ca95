//! Feedback. Which executions are kept: `validity` applies Zest's save criteria to the
//! edge hits and verdicts, at the `coverage_grain` of new edges or new hit counts; `fault`
//! decides which crashes, hangs and out-of-memory inputs are new bugs, using `signature` (stack
//! frames, and a panic's location and normalised message) and `panic_record` (panics caught
//! in-process).

mod coverage_grain;
mod fault;
mod grammar_paths;
pub mod panic_record;
mod queue_paths;
mod signature;
mod validity;

pub use coverage_grain::{CoverageGrain, UnknownGrain};
pub use fault::{
    Fault, FaultFeedback, FaultKind, SeenFaults, SlowTrimCandidates, describe_fault,
    describe_signal, fault_kind, new_fault, prepare_quiet_stderr, quiet_stderr, record_signal,
    restore_stderr,
};
pub use grammar_paths::GrammarPaths;
pub use queue_paths::{DEFAULT_QUEUE_PATHS_K, QueuePaths};
pub use signature::{
    SymbolCache, describe_frames, normalise_message, signature, stack_addresses, target_frames,
    warm_symbol_cache,
};
pub use validity::{Contribution, CoverageHistory, Novelty, SaveCriteria, ValidityFeedback};
