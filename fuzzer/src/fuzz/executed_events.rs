//! The event manager of a multi-core run's client, sending each new entry as it was run and
//! marking and timing what it receives.
//!
//! LibAFL sends another client the input the loop handed to the executor. For Bonsai that is
//! not the entry: the harness draws fresh choices where a sequence runs out (a generated
//! input is an empty sequence), and the feedback saves the sequence the execution consumed.
//! Sent as handed over, a generated input would be sampled afresh by every receiver, each
//! drawing another program. The entry's own sequence replays to the same text everywhere.
//!
//! Each entry also carries what its run covered (`feedback::ShippedRun`, in the event's
//! observer buffer, which LibAFL otherwise leaves empty here): a receiver whose own history
//! already holds all of it drops the entry unrun, since running it would only confirm that.

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
use crate::feedback::{CoverageHistory, ImportRule, ShippedRun, SlowPaths};
use crate::observer::LastExecution;
use crate::provenance::{LastMutation, Mutation};
use crate::sampler::Bounds;

pub(super) struct SendsExecuted<'a, EM> {
    inner: &'a mut EM,
    replay: Rc<RefCell<LastExecution>>,
    bounds: Bounds,
    /// When the batch of received events being handled now began to arrive.
    receiving_since: Option<Instant>,
    /// How received entries are judged before they are run.
    rule: ImportRule,
}

/// State metadata: what receiving other clients' entries cost this client: how many arrived,
/// and the seconds from the first event of each batch to the end of the batch (decoding,
/// running each input again, saving what is new). Divided, the cost of one shared entry.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Received {
    pub entries: u64,
    pub seconds: f64,
    /// Entries dropped unrun: what their sender's run covered was no news here.
    #[serde(default)]
    pub skipped: u64,
}
libafl_bolts::impl_serdeany!(Received);

impl<'a, EM> SendsExecuted<'a, EM> {
    pub(super) fn new(
        inner: &'a mut EM,
        replay: Rc<RefCell<LastExecution>>,
        bounds: Bounds,
        rule: ImportRule,
    ) -> Self {
        Self {
            inner,
            replay,
            bounds,
            receiving_since: None,
            rule,
        }
    }
}

impl<EM, S> EventFirer<ChoiceInput, S> for SendsExecuted<'_, EM>
where
    EM: EventFirer<ChoiceInput, S>,
    S: HasMetadata,
{
    fn fire(&mut self, state: &mut S, mut event: EventWithStats<ChoiceInput>) -> Result<(), Error> {
        if let Event::NewTestcase {
            input,
            observers_buf,
            ..
        } = event.event_mut()
        {
            let replay = self.replay.borrow();
            *input = ChoiceInput::new(replay.sample.choices.clone(), self.bounds)
                .with_words(replay.words.clone());
            *observers_buf = state
                .metadata_map_mut()
                .remove::<ShippedRun>()
                .and_then(|run| postcard::to_allocvec(&*run).ok());
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
        loop {
            let now = Instant::now();
            let mut received = self.inner.try_receive(state)?;
            let Some((event, _)) = &mut received else {
                if let Some(since) = self.receiving_since.take() {
                    state.metadata_or_insert_with(Received::default).seconds +=
                        since.elapsed().as_secs_f64();
                }
                return Ok(None);
            };
            let Event::NewTestcase { observers_buf, .. } = event.event_mut() else {
                return Ok(received);
            };
            self.receiving_since = self.receiving_since.or(Some(now));
            state.metadata_or_insert_with(Received::default).entries += 1;
            // LibAFL would read the buffer as this run's observers; it is ours.
            let shipped = observers_buf
                .take()
                .and_then(|buf| postcard::from_bytes::<ShippedRun>(&buf).ok());
            if let Some(run) = shipped
                && !self.rule.may_keep(
                    &run,
                    state.metadata::<CoverageHistory>().ok(),
                    state.metadata::<SlowPaths>().ok(),
                )
            {
                state.metadata_or_insert_with(Received::default).skipped += 1;
                continue;
            }
            // The loop runs it next: the entry it may become says where it came from.
            *state.metadata_or_insert_with(LastMutation::default) = LastMutation {
                mutation: Mutation::Import,
                existing: None,
                repair: false,
            };
            return Ok(received.map(|(event, _)| (event, false)));
        }
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
