//! The mutational stage: a parent's children, each mutated once and executed.

use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::corpus::HasCurrentCorpusId;
use libafl::executors::HasObservers;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::fuzzer::{Evaluator, ExecutesInput, HasScheduler};
use libafl::mutators::{MutationResult, Mutator};
use libafl::stages::{Restartable, Stage};
use libafl::state::{HasCorpus, HasExecutions, HasLastFoundTime, HasSolutions};
use libafl_bolts::Error;
use libafl_bolts::tuples::MatchNameRef;

use super::coverage_log::CoverageLog;
use super::status::Status;
use super::stop::Stop;
use super::trim::Trimmer;
use crate::choice::ChoiceInput;
use crate::schedule::Energy;

/// Like LibAFL's `StdMutationalStage`, with two differences that matter here: the number of
/// children comes from the scheduler's [`Energy`] (Zest's rule needs the parent's place in
/// the corpus), and the stop condition is checked before every child, so an execution budget
/// is exact and a time budget is kept to within one execution. A child that is kept is
/// trimmed at once, when the run trims.
pub struct ChildrenStage<M> {
    mutator: M,
    pub stop: Stop,
    pub status: Status,
    pub timeline: CoverageLog,
    pub trimmer: Option<Trimmer>,
    pub stopped: bool,
}

impl<M> ChildrenStage<M> {
    pub fn new(
        mutator: M,
        stop: Stop,
        status: Status,
        timeline: CoverageLog,
        trimmer: Option<Trimmer>,
    ) -> Self {
        Self {
            mutator,
            stop,
            status,
            timeline,
            trimmer,
            stopped: false,
        }
    }
}

impl<E, EM, M, S, Z> Stage<E, EM, S, Z> for ChildrenStage<M>
where
    E: HasObservers + HasInProcessHooks<ChoiceInput, S>,
    E::Observers: MatchNameRef,
    M: Mutator<ChoiceInput, S>,
    S: HasCorpus<ChoiceInput>
        + HasCurrentCorpusId
        + HasExecutions
        + HasMetadata
        + HasSolutions<ChoiceInput>
        + HasLastFoundTime,
    Z: Evaluator<E, EM, ChoiceInput, S>
        + ExecutesInput<E, EM, ChoiceInput, S>
        + HasScheduler<ChoiceInput, S>,
    Z::Scheduler: Energy<S>,
{
    fn perform(
        &mut self,
        fuzzer: &mut Z,
        executor: &mut E,
        state: &mut S,
        manager: &mut EM,
    ) -> Result<(), Error> {
        let Some(id) = state.current_corpus_id()? else {
            return Err(Error::illegal_state("no parent was scheduled"));
        };
        if let Some(trimmer) = self.trimmer.as_mut() {
            trimmer.trim_deferred(fuzzer, executor, state, manager)?;
        }
        let children = fuzzer.scheduler_mut().energy(state, id)?;
        let parent = state.corpus().cloned_input_for_id(id)?;
        for _ in 0..children {
            if self.stop.reached(state).is_some() {
                self.stopped = true;
                break;
            }
            let mut child = parent.clone();
            if self.mutator.mutate(state, &mut child)? == MutationResult::Skipped {
                continue;
            }
            let (_, added) = fuzzer.evaluate_input(state, executor, manager, &child)?;
            self.mutator.post_exec(state, added)?;
            if let (Some(id), Some(trimmer)) = (added, self.trimmer.as_mut()) {
                trimmer.trim(id, fuzzer, executor, state, manager)?;
            }
            self.status.tick(state);
            self.timeline.tick(state);
        }
        Ok(())
    }
}

/// A restart in the middle of a stage (after a crash) simply continues with the same parent:
/// its children are random, so nothing needs replaying.
impl<M, S> Restartable<S> for ChildrenStage<M> {
    fn should_restart(&mut self, _state: &mut S) -> Result<bool, Error> {
        Ok(true)
    }

    fn clear_progress(&mut self, _state: &mut S) -> Result<(), Error> {
        Ok(())
    }
}
