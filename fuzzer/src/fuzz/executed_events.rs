//! The event manager of a multi-core run's client, sending each new entry as it was run and
//! marking and timing what it receives.
//!
//! LibAFL sends another client the input the loop handed to the executor. For Bonsai that is
//! not the entry: the harness draws fresh choices where a sequence runs out (a generated
//! input is an empty sequence), and the feedback saves the sequence the execution consumed.
//! Sent as handed over, a generated input would be sampled afresh by every receiver, each
//! drawing another program. The entry's own sequence replays to the same text everywhere.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::HasMetadata;
use serde::{Deserialize, Serialize};

use libafl::events::{
    AwaitRestartSafe, Event, EventFirer, EventManagerId, EventReceiver, EventRestarter,
    EventWithStats, HasEventManagerId, ProgressReporter, SendExiting,
};
use libafl_bolts::Error;

use crate::choice::ChoiceInput;
use crate::observer::LastExecution;
use crate::provenance::{LastMutation, Mutation};
use crate::sampler::Bounds;

pub(super) struct SendsExecuted<'a, EM> {
    inner: &'a mut EM,
    replay: Rc<RefCell<LastExecution>>,
    bounds: Bounds,
    /// When the batch of received events being handled now began to arrive.
    receiving_since: Option<Instant>,
}

/// State metadata: what receiving other clients' entries cost this client: how many arrived,
/// and the seconds from the first event of each batch to the end of the batch (decoding,
/// running each input again, saving what is new). Divided, the cost of one shared entry.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Received {
    pub entries: u64,
    pub seconds: f64,
}
libafl_bolts::impl_serdeany!(Received);

impl<'a, EM> SendsExecuted<'a, EM> {
    pub(super) fn new(
        inner: &'a mut EM,
        replay: Rc<RefCell<LastExecution>>,
        bounds: Bounds,
    ) -> Self {
        Self {
            inner,
            replay,
            bounds,
            receiving_since: None,
        }
    }
}

impl<EM, S> EventFirer<ChoiceInput, S> for SendsExecuted<'_, EM>
where
    EM: EventFirer<ChoiceInput, S>,
{
    fn fire(&mut self, state: &mut S, mut event: EventWithStats<ChoiceInput>) -> Result<(), Error> {
        if let Event::NewTestcase { input, .. } = event.event_mut() {
            let replay = self.replay.borrow();
            *input = ChoiceInput::new(replay.sample.choices.clone(), self.bounds)
                .with_words(replay.words.clone());
        }
        self.inner.fire(state, event)
    }

    fn should_send(&self) -> bool {
        self.inner.should_send()
    }
}

impl<EM, S> EventRestarter<S> for SendsExecuted<'_, EM>
where
    EM: EventRestarter<S>,
{
    fn on_restart(&mut self, state: &mut S) -> Result<(), Error> {
        self.inner.on_restart(state)
    }
}

impl<EM, S> EventReceiver<ChoiceInput, S> for SendsExecuted<'_, EM>
where
    EM: EventReceiver<ChoiceInput, S>,
    S: HasMetadata,
{
    fn try_receive(
        &mut self,
        state: &mut S,
    ) -> Result<Option<(EventWithStats<ChoiceInput>, bool)>, Error> {
        let now = Instant::now();
        let received = self.inner.try_receive(state)?;
        match (&received, self.receiving_since) {
            (Some((event, _)), since) if matches!(event.event(), Event::NewTestcase { .. }) => {
                state.metadata_or_insert_with(Received::default).entries += 1;
                self.receiving_since = since.or(Some(now));
                // The loop runs it next: the entry it may become says where it came from.
                *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
                    mutation: Mutation::Import,
                    existing: None,
                    repair: false,
                };
            }
            (None, Some(since)) => {
                state.metadata_or_insert_with(Received::default).seconds +=
                    since.elapsed().as_secs_f64();
                self.receiving_since = None;
            }
            _ => {}
        }
        Ok(received)
    }

    fn on_interesting(
        &mut self,
        state: &mut S,
        event: EventWithStats<ChoiceInput>,
    ) -> Result<(), Error> {
        self.inner.on_interesting(state, event)
    }
}

impl<EM, S> ProgressReporter<S> for SendsExecuted<'_, EM>
where
    EM: ProgressReporter<S>,
{
    fn maybe_report_progress(
        &mut self,
        state: &mut S,
        monitor_timeout: Duration,
    ) -> Result<(), Error> {
        self.inner.maybe_report_progress(state, monitor_timeout)
    }

    fn report_progress(&mut self, state: &mut S) -> Result<(), Error> {
        self.inner.report_progress(state)
    }
}

impl<EM: SendExiting> SendExiting for SendsExecuted<'_, EM> {
    fn send_exiting(&mut self) -> Result<(), Error> {
        self.inner.send_exiting()
    }

    fn on_shutdown(&mut self) -> Result<(), Error> {
        self.inner.on_shutdown()
    }
}

impl<EM: AwaitRestartSafe> AwaitRestartSafe for SendsExecuted<'_, EM> {
    fn await_restart_safe(&mut self) {
        self.inner.await_restart_safe();
    }
}

impl<EM: HasEventManagerId> HasEventManagerId for SendsExecuted<'_, EM> {
    fn mgr_id(&self) -> EventManagerId {
        self.inner.mgr_id()
    }
}
