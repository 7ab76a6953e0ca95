//! Stage 3: the bounded sampler of the Bonsai paper, driven by a choice sequence.

mod bounds;
mod depth;
mod feasibility;
mod minimal;
mod out_of_bounds;
#[allow(clippy::module_inception)]
mod sampler;
mod steps;

pub use bounds::Bounds;
pub use depth::{DepthTracker, Entered};
pub use feasibility::Feasibility;
pub use minimal::MinimalDerivations;
pub use out_of_bounds::{Bound, OutOfBounds};
pub use sampler::{Sample, Sampler};
