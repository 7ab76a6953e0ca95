//! Which alternatives can still be completed, given the rules that have reached the depth
//! bound on the current path.
//!
//! If a rule B can be completed at all without the saturated rules S, it can be completed with
//! every rule occurring at most once more on each path (cut out any repeated occurrence and the
//! tree only gets shallower). So "B is completable within the depth bound" is exactly "B is
//! productive in the grammar without S": a plain productivity fixpoint, cached per S. The
//! sampler therefore never starts a subtree it cannot finish within the bounds, and needs no
//! backtracking.

use std::collections::HashMap;

use fixedbitset::FixedBitSet;

use crate::analysis::Heights;
use crate::grammar::Grammar;

pub struct Feasibility {
    by_saturated: HashMap<FixedBitSet, usize>,
    heights: Vec<Heights>,
}

impl Feasibility {
    pub fn new(grammar: &Grammar) -> Self {
        let empty = FixedBitSet::with_capacity(grammar.rules.len());
        let heights = vec![Heights::compute(grammar, &empty)];
        let mut by_saturated = HashMap::new();
        by_saturated.insert(empty, 0);
        Self {
            by_saturated,
            heights,
        }
    }

    /// The slot of the heights computed with `saturated` forbidden.
    pub fn slot(&mut self, grammar: &Grammar, saturated: &FixedBitSet) -> usize {
        if let Some(&slot) = self.by_saturated.get(saturated) {
            return slot;
        }
        let slot = self.heights.len();
        self.heights.push(Heights::compute(grammar, saturated));
        self.by_saturated.insert(saturated.clone(), slot);
        slot
    }

    pub fn heights(&self, slot: usize) -> &Heights {
        &self.heights[slot]
    }
}
