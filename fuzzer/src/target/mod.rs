//! Stage 7: the target. The public API a user implements to fuzz their own compiler, and the
//! check that it was built with coverage instrumentation.

pub mod emergency_heap;
mod instrumentation;
mod linked;
pub mod memory_limit;
#[allow(clippy::module_inception)]
mod target;
mod validity;
mod verdict;

pub use instrumentation::{
    edge_counters, instrumented_report, parse_instrumented_report, query_instrumented,
    require_instrumented,
};
pub use linked::LinkedTarget;
pub use memory_limit::MemoryLimit;
pub use target::Target;
pub use validity::{
    Crash, MessageTally, StageTally, UNSTAGED, Validity, panic_message, split_stage,
};
pub use verdict::Verdict;

/// Defines `main` for a target binary `bonsai-<name>`: the full Bonsai command line with one
/// target linked in. It also installs [`MemoryLimit`] as the global allocator, which is what
/// lets `bonsai fuzz --mem-limit` tell out-of-memory from other crashes (a crate that needs
/// its own global allocator writes this `main` by hand and goes without the limit).
///
/// ```ignore
/// bonsai::target_main!("mycompiler", my_crate::MyCompiler::new());
/// ```
#[macro_export]
macro_rules! target_main {
    ($name:expr, $make:expr) => {
        #[global_allocator]
        static BONSAI_MEMORY_LIMIT: $crate::target::MemoryLimit = $crate::target::MemoryLimit;

        fn main() -> ::std::process::ExitCode {
            $crate::cli::run_with(::std::option::Option::Some($crate::cli::LinkedTarget {
                name: $name,
                make: || ::std::boxed::Box::new($make),
            }))
        }
    };
}
