//! Cover suites: for a grammar and a coverage criterion, a small set of short words that
//! together satisfy the criterion, each saved with the choices that replay it.
//!
//! The construction is the generic cover algorithm of Raselimo, Taljaard and Fischer: for each
//! requirement, the shortest embedding of its rule in a word of the start rule (`S ⇒* α X ω`,
//! [`crate::sampler::MinimalDerivations::context`]), the expansion the criterion asks for (one
//! production, or one production in one context), and shortest derivations for everything else
//! (`α θ ω ⇒* w`). One refinement: requirements are visited in grammar order, and one that an
//! earlier word already covers gets no word of its own, so the suite does not repeat itself.

mod heading;
mod path_production;
mod production;
mod route;
mod suite;

pub use path_production::{PathProducer, PathProductionError, WORD_BUDGET};
pub use production::CoverageProducer;
pub use suite::{CoverError, CoverSuite, CoverWord, Uncovered, cover};
