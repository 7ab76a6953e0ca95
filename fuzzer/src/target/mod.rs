//! The target. The public API a user implements to fuzz their own compiler (with the oracles
//! that check its answers), and the check that it was built with coverage instrumentation.

mod answer;
mod crate_counters;
mod differential;
pub mod emergency_heap;
pub mod fixed_heap;
mod instrumentation;
mod linked;
pub mod memory_limit;
pub mod pc_table;
pub mod repeatable_random;
mod round_trip;
mod stack;
#[allow(clippy::module_inception)]
mod target;
mod validity;
mod verdict;
mod violation;

pub use answer::{Answers, CannotCompare, CompareByValue, Comparison, different_answers};
pub use crate_counters::{
    STANDARD_LIBRARY, crate_counters, crate_of, describe as describe_crate_counters,
    function_start, harness_only_warning, warn_if_only_the_harness_is_counted,
};
pub use differential::differential;
pub use instrumentation::{
    InstrumentationError, edge_counters, instrumented_report, parse_instrumented_report,
    query_instrumented, require_instrumented,
};
pub use linked::LinkedTarget;
pub use memory_limit::MemoryLimit;
pub use round_trip::round_trip;
pub use stack::{DEFAULT_TARGET_STACK, set_target_stack, target_stack};
pub use target::Target;
pub use validity::{
    Crash, MessageTally, OverRepresented, RuleAlternative, StageTally, UNSTAGED, ValidityReport,
    panic_message, split_stage, used_alternatives,
};
pub use verdict::Verdict;
pub use violation::{Oracle, Violation, refusal_stage};
