//! Fault records: the kinds of faults, a saved fault, the faults seen so far. Below both
//! `feedback`, which decides what a new fault is, and `corpus`, which writes and reads them,
//! so that neither depends on the other for these types.

#[allow(clippy::module_inception)]
mod fault;
mod kind;
mod seen;

pub use fault::Fault;
pub use kind::FaultKind;
pub use seen::SeenFaults;
