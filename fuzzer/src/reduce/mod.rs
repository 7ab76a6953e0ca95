//! Reduction: the smallest input that keeps a criterion (the same crash, at least the same
//! coverage, a synthetic property), by grammar-aware hierarchical delta debugging on derivation
//! trees and by character-level delta debugging on text.
//!
//! Beside the pipeline: it uses the sampler (replay and minimal derivations), choice sequences,
//! trees and the layout pass, and asks a [`Criterion`] through a [`Judge`] that caches and
//! counts. A criterion that runs a target is one more `impl Criterion`.

mod candidate;
mod contains;
mod criterion;
pub mod ddmin;
mod error;
mod hdd;
mod judge;
mod places;
mod splice;
mod strategy;

pub use candidate::Candidate;
pub use contains::ContainsText;
pub use criterion::{Criterion, OnDerivation};
pub use ddmin::{ddmin, reduce_text};
pub use error::ReductionError;
pub use hdd::{Hdd, HddOptions};
pub use judge::Judge;
pub use places::Places;
pub use strategy::{Reduced, Strategy};
