//! Fault records: the kinds of faults, a saved fault, the buckets seen so far and their log.
//! Below both `feedback`, which decides what a new fault is, and `corpus`, which writes and
//! reads them, so that neither depends on the other for these types.

#[allow(clippy::module_inception)]
mod fault;
mod kind;
mod log;
mod seen;

pub use fault::{Fault, one_recursion};
pub use kind::FaultKind;
pub use log::{BucketLine, FaultLog};
pub use seen::{BucketKey, BucketStats, KnownRecursion, SeenFaults, Sighting, unix_now};
