//! The choice sequence: the whole identity of a generated input.

use serde::{Deserialize, Serialize};

/// The integers a sampler consumed, one per decision it could not make alone: which
/// alternative, how many items, present or absent, which pool value, which character.
///
/// Sequences written by the sampler are normalized: every value is the decision itself (an
/// alternative index, an item count above the minimum, a pool index), never a raw random
/// number. That keeps saved files small (postcard writes small integers in one byte) and makes
/// two sequences equal exactly when they make the same decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChoiceSequence(pub Vec<u32>);

impl ChoiceSequence {
    /// The empty sequence: every decision will be drawn fresh.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of decisions, not bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no decision is recorded, as for an input whose grammar needs none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The decisions in the order the sampler made them.
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// Empties the sequence while keeping its allocation, for reuse as a cursor's output.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl From<Vec<u32>> for ChoiceSequence {
    fn from(values: Vec<u32>) -> Self {
        Self(values)
    }
}
