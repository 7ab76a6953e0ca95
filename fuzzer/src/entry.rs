//! The entry point of a target binary: the command line with one target linked in. Its own
//! module because it joins the two ends of the crate, the target API (`target`) and the
//! command line (`cli`), which otherwise know nothing of each other.

/// Defines `main` for a target binary `bonsai-<name>`: the full Bonsai command line with one
/// target linked in. It also installs [`MemoryLimit`](crate::target::MemoryLimit) as the global allocator, which is what
/// lets `bonsai fuzz --mem-limit` tell out-of-memory from other crashes and lets forked runs
/// use the fixed heap (a crate that needs its own global allocator writes this `main` by hand
/// and goes without both). And `getrandom` returns fixed bytes ([`repeatable_random`](crate::target::repeatable_random)), so
/// hash maps are seeded the same in every run.
///
/// Further arguments are [`ExtraCommand`](crate::cli::ExtraCommand)s from other crates, added
/// to this binary's command line; the targets in this repository add the Nautilus baseline.
///
/// ```ignore
/// bonsai::target_main!("mycompiler", my_crate::MyCompiler::new());
/// bonsai::target_main!("mycompiler", my_crate::MyCompiler::new(), bonsai_baseline::NAUTILUS);
/// ```
#[macro_export]
macro_rules! target_main {
    ($name:expr, $make:expr $(, $extra:expr)* $(,)?) => {
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
            $crate::cli::run_with(
                ::std::option::Option::Some($crate::cli::LinkedTarget {
                    name: $name,
                    make: || ::std::boxed::Box::new($make),
                }),
                &[$($extra),*],
            )
        }
    };
}
