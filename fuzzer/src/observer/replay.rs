//! What the last execution replayed to: the harness writes it, feedbacks read it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use libafl::observers::Observer;
use libafl_bolts::{Error, Named};
use serde::{Deserialize, Serialize};

use crate::choice::OwnWords;
use crate::sampler::Sample;

/// The verdict class of one execution; the message of `Invalid` is not kept because nothing
/// downstream needs it on the hot path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExecutionClass {
    Valid,
    Invalid,
    Reject,
    /// The text was longer than the run's length limit, so the target was not run.
    TooLong,
    /// The target did not return (crash or timeout), or nothing ran yet.
    #[default]
    Unknown,
}

/// The harness's record of one execution.
///
/// The harness replays a mutant in repairing mode, which turns raw mutated values into the
/// decisions actually taken. Only that normalized sequence may be saved (it replays strictly to
/// the saved text), so the feedbacks that save an input take it from here rather than from
/// the mutant LibAFL passed in. Keeping the sample here also means each execution samples once.
#[derive(Debug, Default)]
pub struct LastExecution {
    pub sample: Sample,
    /// The executed input's own words, which the text says and a saved entry must keep.
    pub words: OwnWords,
    pub text: String,
    pub validity: ExecutionClass,
    /// How long the target ran (wall time, the sampling and rendering before it excluded):
    /// what the slow-path criterion weighs against the text's length. Zero when the run does
    /// not time its target (`--keep-slow false`).
    pub target_time: std::time::Duration,
}

/// Shares the harness's [`LastExecution`] with the feedbacks through LibAFL's observer tuple.
///
/// The record itself lives outside the observer (the harness owns a handle too), so the
/// observer serializes to nothing.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ReplayObserver {
    #[serde(skip)]
    replay: Rc<RefCell<LastExecution>>,
}

impl ReplayObserver {
    pub const NAME: &'static str = "replay";

    pub fn new(replay: Rc<RefCell<LastExecution>>) -> Self {
        Self { replay }
    }

    pub fn replay(&self) -> std::cell::Ref<'_, LastExecution> {
        self.replay.borrow()
    }
}

impl Named for ReplayObserver {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed(ReplayObserver::NAME);
        &NAME
    }
}

impl<I, S> Observer<I, S> for ReplayObserver {
    fn pre_exec(&mut self, _state: &mut S, _input: &I) -> Result<(), Error> {
        self.replay.borrow_mut().validity = ExecutionClass::Unknown;
        Ok(())
    }
}
