//! Splice in a subtree of the same rule from another corpus entry.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use libafl::HasMetadata;
use libafl::corpus::{Corpus, CorpusId};
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::{HasCorpus, HasRand};
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::donor::DonorCache;
use super::parent::Pick;
use super::{Mutation, SharedTrees, record, replace_span};
use crate::choice::ChoiceInput;
use crate::observer::LastExecution;
use crate::sampler::Sample;
use crate::tree::NodeKind;

/// Replaces a subtree of rule R with the span of a subtree of rule R from a random other
/// corpus entry. Choices carry only decisions, never positions, so a span cut out of one
/// derivation of R replays as a derivation of R anywhere R occurs; where the new position is
/// deeper than the donor's, repairing replay closes it within the depth bound.
///
/// Donors are kept per corpus entry in a [`DonorCache`], so a donor drawn again while it is
/// cached is not replayed again, and a child the loop keeps is cached from its own run.
pub struct SpliceMutator {
    trees: SharedTrees,
    donors: DonorCache,
    /// The harness's record of the last execution: a child the loop keeps gives its donor from
    /// there ([`DonorCache::offer`]).
    last_execution: Option<Rc<RefCell<LastExecution>>>,
}

/// Bytes of donors kept at most; beyond that, donors drawn at random make room. The memory is
/// every client's: 1,024 starlark donors kept as whole trees held 30 MB of a 160 MB fuzzing
/// process (a heap profile, `docs/results/issue-35-soak.md`); kept as spans (`donor.rs`), the
/// same 4 MB hold about 1,300 (a 40-second queue of 2,577 entries took 7.9 MB).
const DONOR_CACHE_BYTES: usize = 4 << 20;

impl SpliceMutator {
    /// A splice mutator over the shared parent; donor trees are replayed lazily and cached.
    pub fn new(trees: SharedTrees) -> Self {
        Self {
            trees,
            donors: DonorCache::new(DONOR_CACHE_BYTES),
            last_execution: None,
        }
    }

    /// Takes each kept child's donor from `last_execution`, the harness's record of what it
    /// ran, instead of replaying the entry when it is first drawn.
    pub fn with_last_execution(mut self, last_execution: Rc<RefCell<LastExecution>>) -> Self {
        self.last_execution = Some(last_execution);
        self
    }

    /// Keeps about `bytes` of donors instead of [`DONOR_CACHE_BYTES`].
    pub fn with_donor_budget(mut self, bytes: usize) -> Self {
        self.donors = DonorCache::new(bytes);
        self
    }

    /// Heap bytes of the donors cached now.
    pub fn cached_donor_bytes(&self) -> usize {
        self.donors.bytes()
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
        let donor_id = self.donors.pick(state.rand_mut(), count);
        // A copy of the entry's choices (a few kilobytes), not a borrow: the state's generator
        // is needed below while the corpus would be borrowed.
        let entry = state.corpus().cloned_input_for_id(donor_id)?.choices;
        let mut trees = self.trees.borrow_mut();
        let donor = self.donors.get_or_replay(donor_id, entry.as_slice(), || {
            let mut donor = Sample::default();
            trees.sample(entry.as_slice(), state.rand_mut(), &mut donor);
            Ok::<_, Error>(donor)
        })?;
        let donor_choices = donor.choices(entry.as_slice());
        if donor_choices == input.choices.as_slice() {
            return Ok(MutationResult::Skipped);
        }
        let rng = state.rand_mut();
        let (parent, candidates) = trees.picked(input.choices.as_slice(), rng, Pick::Rules);
        for _ in 0..4 {
            let Some(&node) = rng.choose(candidates) else {
                return Ok(MutationResult::Skipped);
            };
            let picked = *parent.tree.node(node);
            let NodeKind::Rule { rule, .. } = picked.kind else {
                continue;
            };
            let (start, end) = (picked.choices_start as usize, picked.choices_end as usize);
            let old = &parent.choices.as_slice()[start..end];
            // A span past the donor's choices (never, while the cache checks what each donor
            // was made from) is passed over rather than indexed.
            let differing = || {
                donor
                    .spans_of(rule)
                    .filter(|&(s, e)| donor_choices.get(s..e).is_some_and(|span| span != old))
            };
            let count = differing().count();
            if count == 0 {
                continue;
            }
            let (ds, de) = differing().nth(rng.below_or_zero(count)).expect("counted");
            input.choices.0 = replace_span(
                parent.choices.as_slice(),
                start,
                end,
                &donor_choices[ds..de],
            );
            drop(trees);
            record(state, Mutation::Splice);
            return Ok(MutationResult::Mutated);
        }
        Ok(MutationResult::Skipped)
    }

    /// A child the loop kept (`id`) was the last execution: its donor is cached from that run.
    fn post_exec(&mut self, state: &mut S, id: Option<CorpusId>) -> Result<(), Error> {
        if let (Some(id), Some(last)) = (id, &self.last_execution) {
            let testcase = state.corpus().get(id)?.borrow();
            if let Some(entry) = testcase.input() {
                self.donors
                    .offer(id, &last.borrow().sample, entry.choices.as_slice());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use libafl::corpus::{InMemoryCorpus, Testcase};
    use libafl::state::StdState;
    use libafl_bolts::rands::StdRand;

    use super::*;
    use crate::mutators::ParentTrees;
    use crate::mutators::donor::tests::{bounds, grammar, samples};

    type State =
        StdState<InMemoryCorpus<ChoiceInput>, ChoiceInput, StdRand, InMemoryCorpus<ChoiceInput>>;

    /// A child the loop keeps was the harness's last execution: splice caches its donor from
    /// that run when the loop reports it kept (`post_exec`), and only when the run replayed the
    /// entry's very choices.
    #[test]
    fn a_kept_childs_donor_is_cached_from_its_own_run() {
        let bounds = bounds();
        let mut samples = samples(20);
        samples.sort_by_key(|s| std::cmp::Reverse(s.choices.as_slice().len()));
        samples.truncate(2);
        assert_ne!(samples[0].choices, samples[1].choices);
        let mut state = State::new(
            StdRand::with_seed(7),
            InMemoryCorpus::new(),
            InMemoryCorpus::new(),
            &mut (),
            &mut (),
        )
        .unwrap();
        for sample in &samples {
            let input = ChoiceInput::new(sample.choices.clone(), bounds);
            state.corpus_mut().add(Testcase::new(input)).unwrap();
        }
        let last = Rc::new(RefCell::new(LastExecution::default()));
        let mut splice = SpliceMutator::new(ParentTrees::new(grammar(), bounds).unwrap().shared())
            .with_last_execution(Rc::clone(&last));
        last.borrow_mut().sample = samples[0].clone();
        splice.post_exec(&mut state, Some(CorpusId(1))).unwrap();
        assert_eq!(
            splice.cached_donor_bytes(),
            0,
            "another run's tree was cached"
        );
        last.borrow_mut().sample = samples[1].clone();
        splice.post_exec(&mut state, None).unwrap();
        assert_eq!(
            splice.cached_donor_bytes(),
            0,
            "a child not kept was cached"
        );
        splice.post_exec(&mut state, Some(CorpusId(1))).unwrap();
        assert!(
            splice.cached_donor_bytes() > 0,
            "the kept child's donor was not cached"
        );
    }
}
