//! The bounds a given derivation tree needs: how seeds parsed from text get theirs.

use super::DepthTracker;
use crate::bounds::Bounds;
use crate::grammar::{Grammar, Terminal};
use crate::tree::{DerivationTree, NodeKind};

impl Bounds {
    /// The smallest bounds under which the sampler can build `tree`: one more than the largest
    /// pool index, the most items of any repetition with more than its minimum (see
    /// [`Self::item_limit`]: n caps the whole count, never below the minimum), and the tree's
    /// nesting depth (each at least 1). A tree that comes from a parser rather than from the
    /// sampler needs these stored with its choices, or its replay may be out of bounds.
    pub fn required_by(grammar: &Grammar, tree: &DerivationTree) -> Bounds {
        let idents = tree
            .nodes()
            .iter()
            .filter_map(|node| match node.kind {
                NodeKind::Terminal { terminal, value } => {
                    matches!(grammar.terminal(terminal), Terminal::Pool(_)).then_some(value + 1)
                }
                _ => None,
            })
            .max()
            .unwrap_or(1);
        let items = tree
            .repetitions(grammar)
            .filter(|&(count, min, _)| count > min)
            .map(|(count, _, _)| count)
            .max()
            .unwrap_or(1);
        Bounds {
            idents: idents.max(1),
            items: items.max(1),
            depth: DepthTracker::depth_of(grammar, tree).max(1),
        }
    }
}
