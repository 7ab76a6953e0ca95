//! The parent's derivation tree, replayed once and shared by the structure-aware mutators.

use std::cell::RefCell;
use std::rc::Rc;

use libafl_bolts::rands::Rand;

use super::ReplayedMutant;
use crate::choice::Replay;
use crate::grammar::{Grammar, Symbol};
use crate::sampler::{Bounds, MinimalDerivations, Sample, Sampler};
use crate::text::Renderer;
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
    /// Renders parents and the shrink mutator's mutants: built once, since building one per
    /// text (what `text::render_into` does) cost more than rendering a small tree.
    renderer: Renderer<'static>,
    valid: bool,
    /// The parent's nodes each [`Pick`] chooses among, computed when first asked for: a
    /// parent has tens of children in a row, and scanning its tree for every child was 1.5%
    /// of a starlark run's first window (4% of what the loop spends beyond the bare target).
    pub(super) picks: [Option<Vec<NodeId>>; Pick::COUNT],
    /// Where a mutator that replayed its mutant leaves the replay for the harness.
    replayed: ReplayedMutant,
}

/// Which of a parent's nodes a structure-aware mutator chooses among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Rule nodes that own a choice (splice replaces one with a donor's subtree of the rule).
    Rules,
    /// Nodes other than terminals that own a choice (regenerate and shrink).
    NonTerminals,
    /// Repetitions whose span starts with their count choice, so that the items start one
    /// choice later (the repetition mutators, which edit the count).
    CountedRepetitions,
}

impl Pick {
    const COUNT: usize = 3;

    /// The nodes of `tree` this pick chooses among, in tree order.
    fn nodes(self, tree: &DerivationTree) -> Vec<NodeId> {
        match self {
            Pick::Rules => nodes_with_choices(tree, |k| matches!(k, NodeKind::Rule { .. })),
            Pick::NonTerminals => {
                nodes_with_choices(tree, |k| !matches!(k, NodeKind::Terminal { .. }))
            }
            Pick::CountedRepetitions => {
                let mut nodes = nodes_with_choices(tree, |k| matches!(k, NodeKind::Repeat { .. }));
                nodes.retain(|&id| {
                    let node = tree.node(id);
                    tree.children(id).next().is_none_or(|first| {
                        tree.node(first).choices_start == node.choices_start + 1
                    })
                });
                nodes
            }
        }
    }
}

/// The nodes `pick` chooses among, from lists that [`ParentTrees::picked`] filled.
pub(super) fn picked_in(picks: &[Option<Vec<NodeId>>; Pick::COUNT], pick: Pick) -> &[NodeId] {
    picks[pick as usize].as_deref().unwrap_or_default()
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
            renderer: Renderer::new(grammar),
            valid: false,
            picks: Default::default(),
            replayed: ReplayedMutant::default(),
        }
    }

    /// Mutants replayed here are handed to `replayed`, which the harness reads (see
    /// [`ReplayedMutant`]).
    pub fn handing_to(mut self, replayed: ReplayedMutant) -> Self {
        self.replayed = replayed;
        self
    }

    /// Hands `sample`, the replay of the mutant about to run, to the harness.
    pub fn hand_over(&mut self, sample: &mut Sample) {
        self.replayed.hand_over(sample);
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
            self.renderer
                .render_into(&self.parent.tree, &mut self.parent_text);
            self.valid = true;
            self.picks = Default::default();
        }
        &self.parent
    }

    /// The tree `choices` replay to, and its nodes that `pick` chooses among.
    pub fn picked<R: Rand>(
        &mut self,
        choices: &[u32],
        rng: &mut R,
        pick: Pick,
    ) -> (&Sample, &[NodeId]) {
        self.parent(choices, rng);
        let list = &mut self.picks[pick as usize];
        if list.is_none() {
            *list = Some(pick.nodes(&self.parent.tree));
        }
        (&self.parent, picked_in(&self.picks, pick))
    }

    /// Renders `tree` (of this grammar) into `out`.
    pub fn render_into(&self, tree: &DerivationTree, out: &mut String) {
        self.renderer.render_into(tree, out);
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

    /// As [`Self::sample`], stopping once node `node`'s subtree is complete
    /// ([`Sampler::sample_through`](crate::sampler::Sampler::sample_through)).
    pub fn sample_through<R: Rand>(
        &mut self,
        recorded: &[u32],
        rng: &mut R,
        out: &mut Sample,
        node: NodeId,
    ) {
        self.sampler
            .borrow_mut()
            .sample_through(recorded, rng, out, node);
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

    /// Each pick's list is the parent's own, also after the parent changed: a list kept from
    /// the last parent would hand a mutator nodes of another tree.
    #[test]
    fn each_pick_lists_the_current_parents_nodes() {
        let grammar: &'static Grammar = Box::leak(Box::new(
            Grammar::from_text("g", "s = e* ; e = \"(\" s \")\" | \"x\" | \"y\" ;").unwrap(),
        ));
        let bounds = Bounds::new(1, 3, 5).unwrap();
        let mut trees = ParentTrees::new(grammar, bounds).unwrap();
        let mut rng = StdRand::with_seed(3);
        let mut sampler = Sampler::new(grammar, bounds).unwrap();
        let mut parents: Vec<Sample> = Vec::new();
        while parents.len() < 6 {
            let mut sample = Sample::default();
            sampler.generate(&mut rng, &mut sample);
            if parents.iter().all(|p| p.tree.len() != sample.tree.len()) {
                parents.push(sample);
            }
        }
        // Every pick of every parent, each parent after another, twice round.
        for round in 0..2 {
            for parent in &parents {
                for pick in [Pick::Rules, Pick::NonTerminals, Pick::CountedRepetitions] {
                    let (sample, list) = trees.picked(parent.choices.as_slice(), &mut rng, pick);
                    assert_eq!(sample.choices, parent.choices);
                    assert_eq!(list, pick.nodes(&parent.tree), "round {round}, {pick:?}");
                    for &id in list {
                        assert!(id.index() < parent.tree.len());
                    }
                }
            }
        }
        let repeats = parents
            .iter()
            .map(|p| Pick::CountedRepetitions.nodes(&p.tree).len())
            .sum::<usize>();
        assert!(repeats > 0, "some parent has a repetition to pick");
    }
}
