//! The parent's derivation tree, replayed once and shared by the structure-aware mutators.

use std::cell::RefCell;
use std::rc::Rc;

use libafl_bolts::rands::Rand;

use crate::choice::Replay;
use crate::grammar::{Grammar, Symbol};
use crate::sampler::{Bounds, MinimalDerivations, Sample, Sampler};
use crate::text::render_into;
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// A stage mutates one parent many times in a row. Replaying the parent's choices into a tree
/// costs about as much as one execution's sampling, so the tree is kept until the parent
/// changes (compared by choices, which is exact and cheap next to a replay).
pub struct ParentTrees {
    /// The grammar every replay uses; `'static` because the fuzz loop leaks it for its whole run.
    pub grammar: &'static Grammar,
    /// The run's bounds: parents replay under them, and mutants must stay within them.
    pub bounds: Bounds,
    /// Shortest derivations under the bounds, for the shrink mutator; cached per set of
    /// saturated rules, so kept as long as the loop runs.
    pub minimal: MinimalDerivations<'static>,
    sampler: SharedSampler,
    pub(super) parent: Sample,
    parent_text: String,
    valid: bool,
}

/// The one [`ParentTrees`] the structure-aware mutators of a stage share; a stage runs on one
/// thread, so a `RefCell` suffices.
pub type SharedTrees = Rc<RefCell<ParentTrees>>;

/// A sampler that several owners on one thread use in turn (the harness and the mutators'
/// trees), each borrowing it for one sample: what it caches serves all of them.
pub type SharedSampler = Rc<RefCell<Sampler<'static>>>;

impl ParentTrees {
    /// Fails only when the sampler cannot be built for the grammar under `bounds`.
    pub fn new(
        grammar: &'static Grammar,
        bounds: Bounds,
    ) -> Result<Self, crate::diagnostic::Diagnostic> {
        let sampler = Rc::new(RefCell::new(Sampler::new(grammar, bounds)?));
        Ok(Self::sharing(grammar, bounds, sampler))
    }

    /// Trees replayed by `sampler`, which another owner (the harness) uses too. It must
    /// sample `grammar` under `bounds`.
    pub fn sharing(grammar: &'static Grammar, bounds: Bounds, sampler: SharedSampler) -> Self {
        debug_assert_eq!(sampler.borrow().bounds(), bounds);
        Self {
            grammar,
            bounds,
            minimal: MinimalDerivations::new(grammar, bounds),
            sampler,
            parent: Sample::default(),
            parent_text: String::new(),
            valid: false,
        }
    }

    /// Wraps the trees for sharing between the mutators of one stage.
    pub fn shared(self) -> SharedTrees {
        Rc::new(RefCell::new(self))
    }

    /// The tree `choices` replay to.
    pub fn parent<R: Rand>(&mut self, choices: &[u32], rng: &mut R) -> &Sample {
        if !self.valid || self.parent.choices.as_slice() != choices {
            let _ =
                self.sampler
                    .borrow_mut()
                    .sample(choices, Replay::Repair, rng, &mut self.parent);
            render_into(self.grammar, &self.parent.tree, &mut self.parent_text);
            self.valid = true;
        }
        &self.parent
    }

    /// The text of the last parent returned by [`Self::parent`].
    pub fn parent_text(&self) -> &str {
        &self.parent_text
    }

    /// Replays `recorded` (repairing, with fresh choices past its end) into `out`.
    pub fn sample<R: Rand>(&mut self, recorded: &[u32], rng: &mut R, out: &mut Sample) {
        let _ = self
            .sampler
            .borrow_mut()
            .sample(recorded, Replay::Repair, rng, out);
    }
}

/// Nodes of `tree` that own at least one choice and satisfy `keep`.
pub fn nodes_with_choices(
    tree: &DerivationTree,
    mut keep: impl FnMut(&NodeKind) -> bool,
) -> Vec<NodeId> {
    tree.nodes()
        .iter()
        .enumerate()
        .filter(|(_, n)| n.choices_end > n.choices_start && keep(&n.kind))
        .map(|(i, _)| NodeId(i as u32))
        .collect()
}

/// The grammar symbol that `node` instantiates in its parent rule's alternative, for nodes
/// below the root. Optional and repetition nodes need it for their ranges.
pub fn symbol_of(grammar: &Grammar, tree: &DerivationTree, node: NodeId) -> Option<Symbol> {
    let nodes = tree.nodes();
    let parent = (0..node.index()).rev().find(|&p| {
        nodes[p].end as usize > node.index() && matches!(nodes[p].kind, NodeKind::Rule { .. })
    })?;
    let NodeKind::Rule { rule, alternative } = nodes[parent].kind else {
        return None;
    };
    let position = tree
        .children(NodeId(parent as u32))
        .position(|c| c == node)?;
    grammar
        .rule(rule)
        .alternatives
        .get(alternative as usize)?
        .symbols
        .get(position)
        .copied()
}

#[cfg(test)]
mod tests {
    use libafl_bolts::rands::StdRand;

    use super::*;

    #[test]
    fn the_harness_meets_no_set_again_that_a_parent_replay_computed() {
        let grammar: &'static Grammar = Box::leak(Box::new(
            Grammar::from_text(
                "g",
                "s = e ; e = e \"+\" e | \"(\" e \")\" | \"[\" e \"]\" | \"x\" ;",
            )
            .unwrap(),
        ));
        let bounds = Bounds::new(1, 2, 6).unwrap();
        // Choices some other run recorded, with sets of saturated rules to compute.
        let mut rng = StdRand::with_seed(7);
        let mut recorded = Sample::default();
        let mut elsewhere = Sampler::new(grammar, bounds).unwrap();
        for _ in 0..200 {
            elsewhere.generate(&mut rng, &mut recorded);
            if elsewhere.cached().computed >= 1 {
                break;
            }
        }
        assert!(elsewhere.cached().computed >= 1, "{:?}", elsewhere.cached());
        let sampler: SharedSampler = Rc::new(RefCell::new(Sampler::new(grammar, bounds).unwrap()));
        let mut trees = ParentTrees::sharing(grammar, bounds, Rc::clone(&sampler));
        let computed = sampler.borrow().cached().computed;
        let parent = trees.parent(recorded.choices.as_slice(), &mut rng).clone();
        let after_parent = sampler.borrow().cached().computed;
        assert!(
            after_parent > computed,
            "the parent's replay used the shared sampler"
        );
        // The harness's turn: the same input executed, its sets found in the cache.
        let mut executed = Sample::default();
        sampler
            .borrow_mut()
            .sample(
                recorded.choices.as_slice(),
                Replay::Repair,
                &mut rng,
                &mut executed,
            )
            .unwrap();
        assert_eq!(executed.choices, parent.choices);
        assert_eq!(sampler.borrow().cached().computed, after_parent);
    }
}
