//! LibAFL's corpus-minimizing scheduler, as the baseline the Zest scheduler is measured
//! against (`--scheduler minimizer`).

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::schedulers::{IndexesLenTimeMinimizerScheduler, QueueScheduler, Scheduler};
use libafl::state::{HasCorpus, HasRand};
use libafl_bolts::Error;
use libafl_bolts::rands::Rand;
use libafl_bolts::tuples::MatchName;

use super::energy::Energy;
use crate::choice::ChoiceInput;
use crate::observer::EdgeObserver;

/// LibAFL's `StdMutationalStage` draws 1..=128 children per parent; the baseline keeps that.
pub const MINIMIZER_MAX_CHILDREN: usize = 128;

/// `IndexesLenTimeMinimizerScheduler` over a queue: AFL's favored set (for each edge, the
/// smallest, fastest entry covering it), with non-favored entries skipped 95% of the time.
pub struct MinimizerQueue {
    inner: IndexesLenTimeMinimizerScheduler<QueueScheduler, ChoiceInput, EdgeObserver>,
}

impl MinimizerQueue {
    pub fn new(edges: &EdgeObserver) -> Self {
        Self {
            inner: IndexesLenTimeMinimizerScheduler::non_metadata_removing(
                edges,
                QueueScheduler::new(),
            ),
        }
    }
}

impl<S> Scheduler<ChoiceInput, S> for MinimizerQueue
where
    S: HasCorpus<ChoiceInput> + HasMetadata + HasRand,
{
    fn on_add(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        self.inner.on_add(state, id)
    }

    fn on_evaluation<OT: MatchName>(
        &mut self,
        state: &mut S,
        input: &ChoiceInput,
        observers: &OT,
    ) -> Result<(), Error> {
        self.inner.on_evaluation(state, input, observers)
    }

    fn next(&mut self, state: &mut S) -> Result<CorpusId, Error> {
        self.inner.next(state)
    }

    fn set_current_scheduled(
        &mut self,
        state: &mut S,
        next: Option<CorpusId>,
    ) -> Result<(), Error> {
        self.inner.set_current_scheduled(state, next)
    }
}

impl<S: HasRand> Energy<S> for MinimizerQueue {
    fn energy(&mut self, state: &mut S, _id: CorpusId) -> Result<u64, Error> {
        Ok(1 + state.rand_mut().below_or_zero(MINIMIZER_MAX_CHILDREN) as u64)
    }
}
