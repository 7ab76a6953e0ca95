//! Mutation, on choice sequences. Every mutator edits the sequence and leaves the
//! rest to the sampler, which replays the result in repairing mode: a mutant is therefore
//! always a derivation of the grammar within the bounds, and the saved form of it is the
//! sampler's normalized record.
//!
//! `havoc` is Zest's blind overwrite; the others are structure-aware and edit the choice span
//! of one subtree (`tree::Node::choices_start..choices_end`) of the parent's derivation,
//! which `parent` replays once per parent and shares between them.

mod donor;
mod havoc;
mod parent;
mod recursion;
mod regenerate;
mod repetition;
mod replayed;
mod shrink;
mod splice;
mod switched;

use libafl::HasMetadata;
use libafl_bolts::rands::Rand;

pub use crate::provenance::{LastMutation, Mutation};
pub use havoc::HavocMutator;
pub use parent::{ParentTrees, SharedSampler, SharedTrees, nodes_with_choices, symbol_of};
pub use recursion::{
    MAX_CHOICES as MAX_RECURSION_CHOICES, RecursionLevel, RecursionMutator, copies_within,
    nearest_recursions, pick_outer, recursions, repeat_recursion,
};
pub use regenerate::RegenerateMutator;
pub use repetition::{RepetitionEdit, RepetitionMutator, edit_item};
pub use replayed::ReplayedMutant;
pub use shrink::ShrinkMutator;
pub use splice::SpliceMutator;
pub use switched::{MUTATOR_NAMES, Switched};

pub(crate) fn record<S: HasMetadata>(state: &mut S, mutation: Mutation) {
    *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
        mutation,
        existing: None,
        repair: false,
    };
}

/// A draw from the geometric distribution on 1, 2, ... with the given mean, as Zest uses for
/// the number of overwrite rounds and their lengths.
pub(crate) fn geometric<R: Rand>(rng: &mut R, mean: f64) -> usize {
    let p = 1.0 / mean.max(1.0);
    if p >= 1.0 {
        return 1;
    }
    let u = rng.next_float().max(f64::MIN_POSITIVE);
    1 + (u.ln() / (1.0 - p).ln()).floor() as usize
}

/// `choices` with `start..end` replaced by `middle`.
pub fn replace_span(choices: &[u32], start: usize, end: usize, middle: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(choices.len() - (end - start) + middle.len());
    out.extend_from_slice(&choices[..start]);
    out.extend_from_slice(middle);
    out.extend_from_slice(&choices[end..]);
    out
}
