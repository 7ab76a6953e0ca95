//! Zest's overwrite havoc on the raw choices.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::{Mutation, geometric, record};
use crate::choice::ChoiceInput;

/// Zest's parameters: a geometric number of rounds (mean 8), each overwriting a contiguous run
/// (geometric length, mean 4) at a uniform offset with random values, or with zeros one time
/// in ten. Zeros are the first alternative, the absent optional and the smallest count, so
/// zero runs pull inputs towards small ones.
pub struct HavocMutator {
    /// Mean number of overwrite rounds per mutation (geometric; 8 in Zest).
    pub mean_rounds: f64,
    /// Mean length, in choices, of the run each round overwrites (geometric; 4 in Zest).
    pub mean_run: f64,
    /// Probability that a round writes zeros instead of random values, in `0.0..=1.0`.
    pub zero_probability: f64,
}

impl Default for HavocMutator {
    fn default() -> Self {
        Self {
            mean_rounds: 8.0,
            mean_run: 4.0,
            zero_probability: 0.1,
        }
    }
}

impl Named for HavocMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("havoc");
        &NAME
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for HavocMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let rng = state.rand_mut();
        let choices = &mut input.choices.0;
        if choices.is_empty() {
            // Nothing to overwrite: a random first decision, the rest drawn fresh on replay.
            choices.push(rng.next() as u32);
        } else {
            let rounds = geometric(rng, self.mean_rounds);
            for _ in 0..rounds {
                let offset = rng.below_or_zero(choices.len());
                let run = geometric(rng, self.mean_run);
                let zero = rng.coinflip(self.zero_probability);
                let end = (offset + run).min(choices.len());
                for value in &mut choices[offset..end] {
                    *value = if zero { 0 } else { rng.next() as u32 };
                }
            }
        }
        record(state, Mutation::Havoc);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
