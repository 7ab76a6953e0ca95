//! Poisoned pairs: token kinds that can never stand next to each other.
//!
//! (X, Y) is poisoned when X is not in precede(Y) or Y is not in follow(X). Both sets are
//! over-approximations where the grammar has unproductive or unreachable parts, and a larger
//! set only loses poisoned pairs, so every pair called poisoned here is one no word has.

use fixedbitset::FixedBitSet;

use super::token::{Kind, TokenGrammar};

/// For every kind, and for the beginning of input, which kinds (and the end of input) may
/// follow it: the complement of its poisoned pairs.
pub struct Pairs {
    /// Index `kinds` stands for the beginning (as a left side) or the end (as a right side).
    boundary: usize,
    compatible: Vec<FixedBitSet>,
}

impl Pairs {
    /// One set per kind: follow(X) minus the kinds Y whose precede set lacks X. The beginning
    /// of input may be followed by any kind whose precede set holds it, and by the end when
    /// the start rule derives the empty word.
    pub fn new(view: &TokenGrammar) -> Self {
        let boundary = view.kinds();
        let width = boundary + 1;
        let precedes =
            |x: usize, y: usize| y == boundary || view.backward.terminal_neighbour[y].contains(x);
        let mut compatible = Vec::with_capacity(width);
        for x in 0..boundary {
            let mut set = FixedBitSet::with_capacity(width);
            for y in view.forward.terminal_neighbour[x].ones() {
                if precedes(x, y) {
                    set.insert(y);
                }
            }
            compatible.push(set);
        }
        let mut first = FixedBitSet::with_capacity(width);
        for y in 0..boundary {
            if view.backward.terminal_neighbour[y].contains(boundary) {
                first.insert(y);
            }
        }
        if view.nullable.contains(view.grammar.start.index()) {
            first.insert(boundary);
        }
        compatible.push(first);
        Self {
            boundary,
            compatible,
        }
    }

    /// The index of the beginning (left) and end (right) of input.
    pub fn boundary(&self) -> usize {
        self.boundary
    }

    /// Whether no word has `x` right before `y`.
    pub fn poisoned(&self, x: Kind, y: Kind) -> bool {
        !self.compatible[x].contains(y)
    }

    /// Whether every pair of `left` × `right` is poisoned: the test of the rule mutations
    /// (follow(left) ∩ right = ∅ or left ∩ precede(right) = ∅, decided pair by pair) and of a
    /// junction whose two sides can each be read as several kinds.
    pub fn all_poisoned(&self, left: &FixedBitSet, right: &FixedBitSet) -> bool {
        left.ones().all(|x| self.compatible[x].is_disjoint(right))
    }

    /// Poisoned pairs among the kinds that occur as tokens (layout tokens included), and all
    /// such pairs, for the summary.
    pub fn count(&self, view: &TokenGrammar) -> (u64, u64) {
        let kinds: Vec<usize> = view.reachable_kinds.ones().collect();
        let mut poisoned = 0;
        for &x in &kinds {
            for &y in &kinds {
                if self.poisoned(x, y) {
                    poisoned += 1;
                }
            }
        }
        (poisoned, (kinds.len() * kinds.len()) as u64)
    }
}
