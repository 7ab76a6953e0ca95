//! A target compiled into the running binary.

use super::Target;

/// What a target binary hands the engine: the target's name and how to make a fresh instance
/// (the fuzzer makes a new one after the target panicked, since a panic may leave it broken).
#[derive(Clone, Copy)]
pub struct LinkedTarget {
    /// The name `--target` selects it by; also recorded in output manifests.
    pub name: &'static str,
    /// Makes a fresh instance; called at start and again after a panic.
    pub make: fn() -> Box<dyn Target>,
}
