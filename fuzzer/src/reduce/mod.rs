//! Reduction: the smallest input that keeps a criterion (the same crash, at least the same
//! coverage, a synthetic property), by grammar-aware hierarchical delta debugging on derivation
//! trees and by character-level delta debugging on text.
//!
//! Beside the pipeline: it uses the sampler (replay and minimal derivations), choice sequences,
//! trees and the layout pass, and asks a [`Criterion`] through a [`Judge`] that caches and
//! counts. The criteria that run a target ([`SameCoverage`], [`SameCrash`]) do so in a forked
//! child per candidate (`replay::ForkedRunner`); [`queue_reduction`] reduces a whole fuzzing queue.

mod candidate;
mod contains;
mod criterion;
pub mod ddmin;
mod error;
mod hdd;
mod judge;
mod places;
pub mod queue_reduction;
mod reproducer;
mod same_coverage;
mod same_crash;
mod splice;
mod strategy;

pub use candidate::Candidate;
pub use contains::ContainsText;
pub use criterion::{Criterion, OnDerivation};
pub use ddmin::{ddmin, reduce_text};
pub use error::{CriterionRefusal, ReductionError, ReproducerError};
pub use hdd::{Hdd, HddOptions};
pub use judge::Judge;
pub use places::Places;
pub use reproducer::{Reproducer, choices_of_text, reduce_recorded};
pub use same_coverage::{SameCoverage, covers};
pub use same_crash::SameCrash;
pub use strategy::{Reduced, Strategy, UnknownReducer};
