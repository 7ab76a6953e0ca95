//! Replace a subtree by its minimal derivation.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::{ParentTrees, Pick, picked_in, symbol_of};
use super::{Mutation, SharedTrees, record, replace_span};
use crate::choice::ChoiceInput;
use crate::grammar::{RuleId, Symbol};
use crate::sampler::Sample;
use crate::tree::NodeKind;

/// Replaces one subtree's span by the choices of its minimal derivation, and keeps the mutant
/// only if its text is no longer than the parent's. The check matters where the depth bound
/// forbids the shortest alternative at that position and repairing replay picks another: the
/// mutator promises never to grow the input, which is what lets it drive a corpus towards
/// small inputs, the Bonsai goal.
pub struct ShrinkMutator {
    trees: SharedTrees,
    scratch: Sample,
    text: String,
    /// The named rules above the replaced node: where the depth bound stands there, which
    /// decides which minimal derivation replays unchanged.
    above: Vec<RuleId>,
    minimal: Vec<u32>,
}

impl ShrinkMutator {
    /// A shrink mutator over the shared parent; minimal derivations come from the cache the stage
    /// shares (`ParentTrees::minimal`).
    pub fn new(trees: SharedTrees) -> Self {
        Self {
            trees,
            scratch: Sample::default(),
            text: String::new(),
            above: Vec::new(),
            minimal: Vec::new(),
        }
    }
}

impl Named for ShrinkMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("shrink");
        &NAME
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for ShrinkMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let mut trees = self.trees.borrow_mut();
        let grammar = trees.grammar;
        let rng = state.rand_mut();
        trees.picked(input.choices.as_slice(), rng, Pick::NonTerminals);
        let ParentTrees {
            ref parent,
            ref mut minimal,
            ref picks,
            ..
        } = *trees;
        let candidates = picked_in(picks, Pick::NonTerminals);
        let mut mutant = None;
        for _ in 0..4 {
            let Some(&id) = rng.choose(candidates) else {
                break;
            };
            let node = *parent.tree.node(id);
            let symbol = match node.kind {
                NodeKind::Rule { rule, .. } => Some(Symbol::Rule(rule)),
                _ => symbol_of(grammar, &parent.tree, id),
            };
            let Some(symbol) = symbol else {
                continue;
            };
            parent.tree.named_ancestors(grammar, id, &mut self.above);
            self.minimal.clear();
            if minimal
                .symbol(&symbol, &self.above, &mut self.minimal)
                .is_none()
            {
                continue;
            }
            let (start, end) = (node.choices_start as usize, node.choices_end as usize);
            if self.minimal.as_slice() == &parent.choices.as_slice()[start..end] {
                continue;
            }
            mutant = Some(replace_span(
                parent.choices.as_slice(),
                start,
                end,
                &self.minimal,
            ));
            break;
        }
        let Some(mutant) = mutant else {
            return Ok(MutationResult::Skipped);
        };
        let parent_len = trees.parent_text().len();
        trees.sample(&mutant, rng, &mut self.scratch);
        trees.render_into(&self.scratch.tree, &mut self.text);
        if self.text.len() > parent_len {
            return Ok(MutationResult::Skipped);
        }
        input.choices = self.scratch.choices.clone();
        trees.hand_over(&mut self.scratch);
        drop(trees);
        record(state, Mutation::Shrink);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
