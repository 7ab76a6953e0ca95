//! The grammar coverage of the queue, for `coverage.csv`: the k-paths the derivations of the
//! kept inputs hold, counted as the queue grows, so a run's grammar coverage over time sits
//! beside its edges without deriving the whole queue again every second.

use serde::{Deserialize, Serialize};

use super::GrammarPaths;
use crate::tree::DerivationTree;

/// The k to log when `--grammar-feedback` does not name one: 2-paths (a parent and a child
/// symbol) tell constructs in contexts apart and stay few on every shipped grammar.
pub const DEFAULT_QUEUE_PATHS_K: usize = 2;

/// The k-paths (hashed) of every input kept in the queue so far. State metadata, so that a
/// restart goes on counting where it stopped.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct QueuePaths(GrammarPaths);
libafl_bolts::impl_serdeany!(QueuePaths);

impl QueuePaths {
    /// None yet, paths of `k` symbols.
    pub fn new(k: usize) -> Self {
        Self(GrammarPaths::new(k))
    }

    /// Adds the paths of a kept input's derivation.
    pub fn record(&mut self, tree: &DerivationTree) {
        self.0.record(tree);
    }

    /// Distinct paths the queue holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the queue holds no path yet.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
