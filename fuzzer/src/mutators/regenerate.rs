//! Regenerate one subtree with fresh choices, keeping everything around it.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::Pick;
use super::{Mutation, SharedTrees, record, replace_span};
use crate::choice::ChoiceInput;
use crate::sampler::Sample;

/// Picks a subtree of the parent and draws it anew.
///
/// The choices before the subtree are replayed and the sampler continues with fresh draws
/// until the subtree is complete (the rest of that tree would be thrown away), so
/// the new subtree is sampled in exactly the parent's context (same depth counts, same growth
/// control) as node number k of the new tree: pre-order numbering and an identical prefix make
/// it the same node. Its new span is then spliced between the parent's prefix and suffix; the
/// suffix replays unchanged because a sibling's decisions do not depend on what precedes it.
pub struct RegenerateMutator {
    trees: SharedTrees,
    scratch: Sample,
}

impl RegenerateMutator {
    /// A regenerate mutator over the shared parent.
    pub fn new(trees: SharedTrees) -> Self {
        Self {
            trees,
            scratch: Sample::default(),
        }
    }
}

impl Named for RegenerateMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("regenerate");
        &NAME
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for RegenerateMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let mut trees = self.trees.borrow_mut();
        let rng = state.rand_mut();
        let (parent, candidates) = trees.picked(input.choices.as_slice(), rng, Pick::NonTerminals);
        let Some(&node) = rng.choose(candidates) else {
            return Ok(MutationResult::Skipped);
        };
        let picked = *parent.tree.node(node);
        let kind = picked.kind;
        let (start, end) = (picked.choices_start as usize, picked.choices_end as usize);
        let prefix = parent.choices.as_slice()[..start].to_vec();
        trees.sample_through(&prefix, rng, &mut self.scratch, node);
        let Some(fresh) = self.scratch.tree.nodes().get(node.index()) else {
            return Ok(MutationResult::Skipped);
        };
        if fresh.kind != kind || fresh.choices_start as usize != start {
            return Ok(MutationResult::Skipped);
        }
        let middle = &self.scratch.choices.as_slice()[start..fresh.choices_end as usize];
        if middle == &input.choices.as_slice()[start..end] {
            return Ok(MutationResult::Skipped);
        }
        input.choices.0 = replace_span(input.choices.as_slice(), start, end, middle);
        drop(trees);
        record(state, Mutation::Regenerate);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
