//! Delete or duplicate one item of a repetition.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::{Pick, symbol_of};
use super::{Mutation, SharedTrees, record};
use crate::choice::ChoiceInput;
use crate::grammar::{Grammar, Symbol};
use crate::sampler::{Bounds, Sample};
use crate::tree::NodeId;

/// Which way a [`RepetitionMutator`] changes a repetition's item count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionEdit {
    /// Remove one item; refused where it would go below the repetition's minimum.
    Delete,
    /// Copy one item next to itself; refused where the bound n or the maximum would be exceeded.
    Duplicate,
}

/// Edits a `*`/`+`/`{a,b}` node: its count choice (the number of items above the minimum)
/// goes down or up by one, and one item's span is cut out or copied next to itself. Items of
/// one repetition share their context, so every other item replays unchanged. Lists of
/// statements, arguments and fields are where compilers keep their interesting interactions,
/// and havoc alone almost never changes a count without scrambling the items after it.
pub struct RepetitionMutator {
    trees: SharedTrees,
    edit: RepetitionEdit,
}

impl RepetitionMutator {
    /// A mutator making `edit` on a random repetition of the shared parent's tree.
    pub fn new(trees: SharedTrees, edit: RepetitionEdit) -> Self {
        Self { trees, edit }
    }
}

/// The choices of `sample` with item `item` of the repetition node `repeat` deleted or
/// duplicated, or `None` where that would leave the repetition's range (fewer items than its
/// minimum, more than the bound n allows) or `repeat` has no count choice.
pub fn edit_item(
    grammar: &Grammar,
    bounds: Bounds,
    sample: &Sample,
    repeat: NodeId,
    item: usize,
    edit: RepetitionEdit,
) -> Option<Vec<u32>> {
    let tree = &sample.tree;
    let Some(Symbol::Repeat { min, max, .. }) = symbol_of(grammar, tree, repeat) else {
        return None;
    };
    let node = tree.node(repeat);
    let items: Vec<NodeId> = tree.children(repeat).collect();
    let count_at = node.choices_start as usize;
    let has_count = node.choices_end > node.choices_start
        && items
            .first()
            .is_none_or(|&first| tree.node(first).choices_start == node.choices_start + 1);
    if !has_count {
        return None;
    }
    let choices = sample.choices.as_slice();
    let extra = choices[count_at];
    let picked = tree.node(*items.get(item)?);
    let (start, end) = (picked.choices_start as usize, picked.choices_end as usize);
    let mut out = Vec::with_capacity(choices.len() + (end - start));
    out.extend_from_slice(&choices[..count_at]);
    match edit {
        RepetitionEdit::Delete => {
            if extra == 0 {
                return None;
            }
            out.push(extra - 1);
            out.extend_from_slice(&choices[count_at + 1..start]);
            out.extend_from_slice(&choices[end..]);
        }
        RepetitionEdit::Duplicate => {
            if extra + 1 > bounds.item_limit(min, max) - min {
                return None;
            }
            out.push(extra + 1);
            out.extend_from_slice(&choices[count_at + 1..end]);
            out.extend_from_slice(&choices[start..]);
        }
    }
    Some(out)
}

impl Named for RepetitionMutator {
    fn name(&self) -> &Cow<'static, str> {
        static DELETE: Cow<'static, str> = Cow::Borrowed("delete-item");
        static DUPLICATE: Cow<'static, str> = Cow::Borrowed("duplicate-item");
        match self.edit {
            RepetitionEdit::Delete => &DELETE,
            RepetitionEdit::Duplicate => &DUPLICATE,
        }
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for RepetitionMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let mut trees = self.trees.borrow_mut();
        let grammar = trees.grammar;
        let bounds = trees.bounds;
        let rng = state.rand_mut();
        let (parent, candidates) =
            trees.picked(input.choices.as_slice(), rng, Pick::CountedRepetitions);
        let tree = &parent.tree;
        let edited = (0..4).find_map(|_| {
            let &id = rng.choose(candidates)?;
            let items = tree.children(id).count();
            if items == 0 {
                return None;
            }
            let item = rng.below_or_zero(items);
            edit_item(grammar, bounds, parent, id, item, self.edit)
        });
        drop(trees);
        let Some(edited) = edited else {
            return Ok(MutationResult::Skipped);
        };
        input.choices.0 = edited;
        record(
            state,
            match self.edit {
                RepetitionEdit::Delete => Mutation::DeleteItem,
                RepetitionEdit::Duplicate => Mutation::DuplicateItem,
            },
        );
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
