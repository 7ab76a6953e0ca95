//! Stage 7: the target. The public API a user implements to fuzz their own compiler.

#[allow(clippy::module_inception)]
mod target;
mod verdict;

pub use target::Target;
pub use verdict::Verdict;
