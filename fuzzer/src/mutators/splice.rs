//! Splice in a subtree of the same rule from another corpus entry.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId};
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::{HasCorpus, HasRand};
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::nodes_with_choices;
use super::{Mutation, SharedTrees, record, replace_span};
use crate::choice::ChoiceInput;
use crate::sampler::Sample;
use crate::tree::NodeKind;

/// Replaces a subtree of rule R with the span of a subtree of rule R from a random other
/// corpus entry. Choices carry only decisions, never positions, so a span cut out of one
/// derivation of R replays as a derivation of R anywhere R occurs; where the new position is
/// deeper than the donor's, repairing replay closes it within the depth bound.
///
/// Donor trees are kept per corpus entry (corpus entries never change), so a donor is often
/// replayed once rather than once per splice.
pub struct SpliceMutator {
    trees: SharedTrees,
    donors: HashMap<CorpusId, Sample, ahash::RandomState>,
    donor_bytes: usize,
    budget: usize,
}

/// Bytes of donor trees and choices kept at most; beyond that the cache starts over. Donors are
/// drawn uniformly from the whole corpus, so the cache's hit rate is about its share of the
/// corpus whatever its size, while its memory is every client's: 1,024 starlark donors held
/// 30 MB of a 160 MB fuzzing process (a heap profile, `docs/results/issue-35-soak.md`). A
/// replay costs tens of microseconds, and splice is one mutator in seven.
const DONOR_CACHE_BYTES: usize = 4 << 20;

/// Heap bytes a cached donor holds.
fn donor_bytes(donor: &Sample) -> usize {
    donor.tree.len() * size_of::<crate::tree::Node>() + donor.choices.len() * size_of::<u32>()
}

impl SpliceMutator {
    /// A splice mutator over the shared parent; donor trees are replayed lazily and cached.
    pub fn new(trees: SharedTrees) -> Self {
        Self {
            trees,
            donors: HashMap::default(),
            donor_bytes: 0,
            budget: DONOR_CACHE_BYTES,
        }
    }

    /// Keeps about `bytes` of donors instead of [`DONOR_CACHE_BYTES`].
    pub fn with_donor_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// Heap bytes of the donors cached now.
    pub fn cached_donor_bytes(&self) -> usize {
        self.donor_bytes
    }
}

impl Named for SpliceMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("splice");
        &NAME
    }
}

impl<S: HasRand + HasMetadata + HasCorpus<ChoiceInput>> Mutator<ChoiceInput, S> for SpliceMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let count = state.corpus().count();
        if count < 2 {
            return Ok(MutationResult::Skipped);
        }
        // Entries are never removed from the in-memory corpus, so ids are 0..count.
        let donor_id = CorpusId(state.rand_mut().below_or_zero(count));
        let mut trees = self.trees.borrow_mut();
        if self.donor_bytes >= self.budget {
            self.donors = HashMap::default();
            self.donor_bytes = 0;
        }
        let donor = match self.donors.entry(donor_id) {
            Entry::Occupied(cached) => cached.into_mut(),
            Entry::Vacant(slot) => {
                let choices = state.corpus().cloned_input_for_id(donor_id)?.choices;
                let mut donor = Sample::default();
                trees.sample(choices.as_slice(), state.rand_mut(), &mut donor);
                donor.tree.shrink_to_fit();
                donor.choices.0.shrink_to_fit();
                self.donor_bytes += donor_bytes(&donor);
                slot.insert(donor)
            }
        };
        let donor = &*donor;
        if donor.choices == input.choices {
            return Ok(MutationResult::Skipped);
        }
        let rng = state.rand_mut();
        let parent = trees.parent(input.choices.as_slice(), rng);
        let candidates = nodes_with_choices(&parent.tree, |k| matches!(k, NodeKind::Rule { .. }));
        for _ in 0..4 {
            let Some(&node) = rng.choose(&candidates) else {
                return Ok(MutationResult::Skipped);
            };
            let picked = *parent.tree.node(node);
            let NodeKind::Rule { rule, .. } = picked.kind else {
                continue;
            };
            let (start, end) = (picked.choices_start as usize, picked.choices_end as usize);
            let old = &parent.choices.as_slice()[start..end];
            let donors = nodes_with_choices(
                &donor.tree,
                |k| matches!(k, NodeKind::Rule { rule: r, .. } if *r == rule),
            );
            let donor_spans: Vec<(usize, usize)> = donors
                .iter()
                .map(|&d| {
                    let n = donor.tree.node(d);
                    (n.choices_start as usize, n.choices_end as usize)
                })
                .filter(|&(s, e)| &donor.choices.as_slice()[s..e] != old)
                .collect();
            let Some(&(ds, de)) = rng.choose(&donor_spans) else {
                continue;
            };
            let middle = &donor.choices.as_slice()[ds..de];
            input.choices.0 = replace_span(parent.choices.as_slice(), start, end, middle);
            drop(trees);
            record(state, Mutation::Splice);
            return Ok(MutationResult::Mutated);
        }
        Ok(MutationResult::Skipped)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
