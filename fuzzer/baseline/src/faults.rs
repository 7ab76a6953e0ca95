//! The baseline's objective: each distinct fault saved once to `OUT/crashes/` or `OUT/hangs/`,
//! as Bonsai's loop saves its own.
//!
//! LibAFL's `CrashFeedback`/`TimeoutFeedback` keep every faulting input, duplicates included,
//! and only in memory, so a comparison could neither say which bugs the peer found nor check
//! whether Bonsai finds them too. This feedback decides as Bonsai's `FaultFeedback` does
//! (`feedback::note_fault`, bucketed in the same `SeenFaults` state metadata and logged to the
//! same `faults.json`), so a bucket means the same bug on both sides.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use libafl::HasMetadata;
use libafl::corpus::Testcase;
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::generators::NautilusContext;
use libafl::inputs::NautilusInput;
use libafl_bolts::{Error, Named};

use bonsai::corpus::{Durability, EntryContent, EntryDir, EntryInfo, FaultSlots, Slot};
use bonsai::feedback::{Fault, FaultKind, SeenFaults, Sighting, note_fault};
use bonsai::layout::{CRASHES_DIR, FAULTS_JSON, HANGS_DIR};

/// Decides whether a faulting execution is a new fault (a bucket not seen before) or a smaller
/// reproducer of a known one, and writes it as `NNNNNN.txt` + `NNNNNN.meta` (the `.meta`
/// line of Bonsai's own faults; there are no `.choices`, as Nautilus inputs are trees of its
/// own rules), one entry per bucket.
pub struct FaultStore {
    root: PathBuf,
    context: &'static NautilusContext,
    started: Instant,
    /// Next free numbers of `crashes/` and `hangs/`, read when the fuzzing process starts:
    /// a hang or crash is saved from inside LibAFL's signal handler, where listing a directory
    /// could re-enter the allocator the signal interrupted.
    next_crash: u32,
    next_hang: u32,
    /// Which entry holds each bucket, read when the fuzzing process starts.
    slots: FaultSlots,
    pending: Option<Fault>,
    text: Vec<u8>,
}

impl FaultStore {
    pub fn new(root: &Path, context: &'static NautilusContext, started: Instant) -> Self {
        Self {
            root: root.to_path_buf(),
            context,
            started,
            next_crash: EntryDir::new(root.join(CRASHES_DIR)).next_free_number(),
            next_hang: EntryDir::new(root.join(HANGS_DIR)).next_free_number(),
            slots: FaultSlots::scan(root),
            pending: None,
            text: Vec::new(),
        }
    }

    fn save(&mut self, fault: Fault, input: &NautilusInput) -> Result<(), String> {
        input.unparse(self.context, &mut self.text);
        let key = (fault.kind, fault.signature);
        let known = self.slots.get(key);
        if known.is_some_and(|slot| slot.size <= self.text.len()) {
            return Ok(());
        }
        let number = match known {
            Some(slot) => slot.number,
            None => {
                let next = match fault.kind {
                    FaultKind::Timeout => &mut self.next_hang,
                    _ => &mut self.next_crash,
                };
                *next += 1;
                *next - 1
            }
        };
        let entry = EntryDir::new(self.root.join(fault.kind.directory())).entry(number);
        let info = EntryInfo {
            number: Some(number),
            text: String::from_utf8_lossy(&self.text).into_owned(),
            mutator: "nautilus".into(),
            found_at: self.started.elapsed().as_secs_f64(),
            fault: Some(fault),
            ..EntryInfo::default()
        };
        // The `.meta` last: an entry whose metadata exists is complete.
        let meta = info.to_text();
        let content = EntryContent {
            choices: None,
            text: &self.text,
            meta: Some(meta.as_bytes()),
        };
        entry
            .replace(content, Durability::Synced)
            .map_err(|d| d.to_string())?;
        self.slots.offer(
            key,
            Slot {
                number,
                size: self.text.len(),
            },
        );
        Ok(())
    }
}

impl Named for FaultStore {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("baseline-faults");
        &NAME
    }
}

impl<S: HasMetadata> StateInitializer<S> for FaultStore {
    fn init_state(&mut self, state: &mut S) -> Result<(), Error> {
        SeenFaults::init(state);
        Ok(())
    }
}

impl<EM, OT, S: HasMetadata> Feedback<EM, NautilusInput, OT, S> for FaultStore {
    fn is_interesting(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        input: &NautilusInput,
        _observers: &OT,
        exit_kind: &ExitKind,
    ) -> Result<bool, Error> {
        if *exit_kind == ExitKind::Ok {
            self.pending = None;
            return Ok(false);
        }
        input.unparse(self.context, &mut self.text);
        let log = self.root.join(FAULTS_JSON);
        self.pending = match note_fault(state, exit_kind, self.text.len(), Some(&log)) {
            Some((fault, Sighting::New | Sighting::Smaller)) => Some(fault),
            _ => None,
        };
        Ok(self.pending.is_some())
    }

    fn append_metadata(
        &mut self,
        _state: &mut S,
        _manager: &mut EM,
        _observers: &OT,
        testcase: &mut Testcase<NautilusInput>,
    ) -> Result<(), Error> {
        let (Some(fault), Some(input)) = (self.pending.take(), testcase.input().as_ref()) else {
            return Ok(());
        };
        // This may run inside a signal handler, whose caller panics on an error: a fault that
        // cannot be written is reported and stays counted, and fuzzing goes on.
        if let Err(e) = self.save(fault, input) {
            tracing::warn!("cannot save a fault of the baseline: {e}");
        }
        Ok(())
    }
}

/// Buckets seen so far, `(crashes, hangs)`: out-of-memory inputs count as crashes, as
/// in Bonsai's `coverage.csv`.
pub fn fault_counts(seen: Option<&SeenFaults>) -> (u64, u64) {
    let Some(seen) = seen else {
        return (0, 0);
    };
    let hangs = seen
        .buckets
        .keys()
        .filter(|(kind, _)| *kind == FaultKind::Timeout)
        .count() as u64;
    (seen.buckets.len() as u64 - hangs, hangs)
}
