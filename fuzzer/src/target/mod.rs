//! Stage 7: the target. The public API a user implements to fuzz their own compiler, and the
//! check that it was built with coverage instrumentation.

mod instrumentation;
#[allow(clippy::module_inception)]
mod target;
mod validity;
mod verdict;

pub use instrumentation::{
    edge_counters, instrumented_report, parse_instrumented_report, query_instrumented,
    require_instrumented,
};
pub use target::Target;
pub use validity::{
    Crash, MessageTally, StageTally, UNSTAGED, Validity, panic_message, split_stage,
};
pub use verdict::Verdict;

/// Defines `main` for a target binary `bonsai-<name>`: the full Bonsai command line with one
/// target linked in.
///
/// ```ignore
/// bonsai::target_main!("mycompiler", my_crate::MyCompiler::new());
/// ```
#[macro_export]
macro_rules! target_main {
    ($name:expr, $make:expr) => {
        fn main() -> ::std::process::ExitCode {
            $crate::cli::run_with(::std::option::Option::Some($crate::cli::LinkedTarget {
                name: $name,
                make: || ::std::boxed::Box::new($make),
            }))
        }
    };
}
