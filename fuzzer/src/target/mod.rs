//! Stage 7: the target. The public API a user implements to fuzz their own compiler, and the
//! check that it was built with coverage instrumentation.

pub mod emergency_heap;
pub mod fixed_heap;
mod instrumentation;
mod linked;
pub mod memory_limit;
pub mod repeatable_random;
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
/// lets `bonsai fuzz --mem-limit` tell out-of-memory from other crashes and lets forked runs
/// use the fixed heap (a crate that needs its own global allocator writes this `main` by hand
/// and goes without both). And `getrandom` returns fixed bytes ([`repeatable_random`]), so
/// hash maps are seeded the same in every run.
///
/// ```ignore
/// bonsai::target_main!("mycompiler", my_crate::MyCompiler::new());
/// ```
#[macro_export]
macro_rules! target_main {
    ($name:expr, $make:expr) => {
        #[global_allocator]
        static BONSAI_MEMORY_LIMIT: $crate::target::MemoryLimit = $crate::target::MemoryLimit;

        /// Fixed bytes for every caller, the standard library's hash seeds above all: see
        /// `bonsai::target::repeatable_random`.
        ///
        /// # Safety
        /// As `getrandom(2)`: `buffer` is valid for `len` bytes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn getrandom(
            buffer: *mut ::std::ffi::c_void,
            len: usize,
            _flags: ::std::ffi::c_uint,
        ) -> isize {
            // SAFETY: forwarded with the caller's guarantee.
            unsafe { $crate::target::repeatable_random::fill(buffer.cast(), len) }
        }

        fn main() -> ::std::process::ExitCode {
            $crate::cli::run_with(::std::option::Option::Some($crate::cli::LinkedTarget {
                name: $name,
                make: || ::std::boxed::Box::new($make),
            }))
        }
    };
}
