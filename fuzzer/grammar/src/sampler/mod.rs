//! The bounded sampler of the Bonsai paper, driven by a choice sequence.

mod depth;
mod feasibility;
mod minimal;
mod out_of_bounds;
mod required;
#[allow(clippy::module_inception)]
mod sampler;
mod saturated_cache;
mod steps;
mod strict;

pub use crate::bounds::Bounds;
pub use depth::{DepthTracker, Entered};
pub use feasibility::Feasibility;
pub use minimal::{MinimalDerivations, Step};
pub use out_of_bounds::{Bound, OutOfBounds};
pub use sampler::{Sample, Sampler};
pub use saturated_cache::CacheStats;
pub use strict::{StrictReplayError, replay_strict};
