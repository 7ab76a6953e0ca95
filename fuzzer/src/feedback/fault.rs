//! The objective: crashes, hangs and out-of-memory inputs, each distinct bug saved once.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::Instant;

use libafl::HasMetadata;
use libafl::corpus::{Corpus, Testcase};
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::observers::ObserversTuple;
use libafl::state::HasCorpus;
use libafl_bolts::tuples::{Handle, Handled, MatchNameRef};
use libafl_bolts::{Error, Named};

use super::describe::{Evidence, describe};
use super::signature::{SymbolCache, stack_addresses};
use super::stack_samples;
use super::{panic_record, wrong_answer};
use crate::choice::ChoiceInput;
use crate::corpus::EntryInfo;
pub use crate::fault::{Fault, FaultKind, SeenFaults, Sighting};
use crate::fault::{FaultLog, unix_now};
use crate::observer::{EdgeObserver, ReplayObserver};
use crate::provenance::{LastMutation, Mutation};
use crate::sampler::Bounds;
use crate::target::memory_limit;

/// Seconds between two writes of `faults.json` when only counts changed.
const LOG_EVERY: f64 = 2.0;

/// The fault the last execution ended in, described and counted in its bucket, with how it
/// relates to what was seen before (`None` for a normal exit). `size` is the input's length in
/// bytes; `log`, where the process keeps its `faults.json`, is written when a bucket is new or
/// smaller and otherwise at most every [`LOG_EVERY`] seconds. The one place where Bonsai's
/// loop and the Nautilus baseline decide what a fault is, so that the two save the same
/// faults and their counts compare.
pub fn note_fault<S: HasMetadata>(
    state: &mut S,
    exit_kind: &ExitKind,
    size: usize,
    log: Option<&Path>,
) -> Option<(Fault, Sighting)> {
    restore_stderr();
    let kind = fault_kind(exit_kind)?;
    let mut fault = describe_fault(kind, state.metadata_or_insert_with(SymbolCache::default));
    let now = unix_now();
    let seen = state.metadata_or_insert_with(SeenFaults::default);
    seen.join_recursion(&mut fault);
    let sighting = seen.see((fault.kind, fault.signature), size, now);
    if let Some(log) = log
        && seen.due(sighting != Sighting::Again, now, LOG_EVERY)
    {
        match FaultLog::of(seen).write(log) {
            Ok(()) => seen.mark_written(now),
            Err(why) => tracing::warn!("{why}"),
        }
    }
    Some((fault, sighting))
}

/// Writes `log` now if anything in it changed (at the end of a run).
pub fn flush_fault_log<S: HasMetadata>(state: &mut S, log: &Path) {
    let now = unix_now();
    if let Ok(seen) = state.metadata_mut::<SeenFaults>()
        && seen.due(true, now, LOG_EVERY)
    {
        match FaultLog::of(seen).write(log) {
            Ok(()) => seen.mark_written(now),
            Err(why) => tracing::warn!("{why}"),
        }
    }
}

/// Texts that ran past the short timeout a trim gives its candidates (`fuzz::trim`). They are
/// not hangs: they were not shown to run past the user's timeout, so they are not saved as
/// such; but a trim that proposes one again (minimal derivations make the same small programs
/// over and over) skips it, since each costs a timeout and a restart. State metadata: the
/// timeout handler records into it just before the state is saved for the restart.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SlowTrimCandidates {
    texts: std::collections::BTreeSet<u64>,
    /// Trim candidates that timed out.
    pub count: u64,
}
libafl_bolts::impl_serdeany!(SlowTrimCandidates);

impl SlowTrimCandidates {
    fn key(text: &str) -> u64 {
        ahash::RandomState::with_seeds(1, 2, 3, 4).hash_one(text)
    }

    /// Remembers a candidate text that timed out, by hash, and counts it.
    pub fn record(&mut self, text: &str) {
        self.count += 1;
        self.texts.insert(Self::key(text));
    }

    /// Whether the text timed out before; a hash collision only skips one trim candidate.
    pub fn contains(&self, text: &str) -> bool {
        self.texts.contains(&Self::key(text))
    }
}

/// Decides whether a faulting execution is a new bug (a bucket not seen before) or a smaller
/// reproducer of a known one, and describes it.
///
/// Why our own buckets rather than LibAFL's `BacktraceObserver` + `NewHashFeedback`: that
/// observer hashes every return address of the stack, so the same panic reached with a
/// different recursion depth (every stack overflow, any recursive-descent parser) hashes
/// differently and is saved again and again, and a hang is wherever its timer landed.
pub struct FaultFeedback {
    replay: Handle<ReplayObserver>,
    edges: Handle<EdgeObserver>,
    bounds: Bounds,
    started: Instant,
    log: PathBuf,
    pending: Option<Fault>,
}

impl FaultFeedback {
    /// A feedback reading the given observers; `started` is the campaign's start, from which a
    /// saved fault's time is measured; `log` is this process's `faults.json`.
    pub fn new(
        replay: &ReplayObserver,
        edges: &EdgeObserver,
        bounds: Bounds,
        started: Instant,
        log: PathBuf,
    ) -> Self {
        Self {
            replay: replay.handle(),
            edges: edges.handle(),
            bounds,
            started,
            log,
            pending: None,
        }
    }
}

/// The kind of fault an execution ended in, or `None` for a normal exit. Asked right after
/// the execution: a caught panic is told from a signal by the panic record the run left
/// behind, which [`describe_fault`] then takes. A signal may still turn out to be a stack
/// overflow when it is described.
pub fn fault_kind(exit_kind: &ExitKind) -> Option<FaultKind> {
    Some(match exit_kind {
        ExitKind::Crash if memory_limit::tripped() => FaultKind::OutOfMemory,
        ExitKind::Oom => FaultKind::OutOfMemory,
        ExitKind::Crash if panic_record::pending() => FaultKind::Panic,
        ExitKind::Crash if let Some(wrong) = wrong_answer::pending() => wrong,
        ExitKind::Crash => FaultKind::Crash,
        ExitKind::Timeout => FaultKind::Timeout,
        _ => return None,
    })
}

/// Describes the fault the last execution of this process ended in: a panic from its record,
/// anything else from the stack the signal handler runs on, the signal and faulting address
/// the guard recorded, and the run's stack samples. Shared by every fuzzer that runs a target
/// in-process (Bonsai's loop, the Nautilus baseline).
pub fn describe_fault(kind: FaultKind, cache: &mut SymbolCache) -> Fault {
    let caught = if kind == FaultKind::Panic {
        panic_record::take()
    } else {
        None
    };
    let violation = if kind.is_wrong_answer() {
        wrong_answer::take()
    } else {
        None
    };
    let signal = SIGNAL.swap(0, Ordering::SeqCst);
    let fault_address = FAULT_ADDRESS.swap(0, Ordering::SeqCst);
    let samples = match kind {
        FaultKind::Timeout | FaultKind::OutOfMemory => stack_samples::taken(),
        _ => Vec::new(),
    };
    let addresses = match (&caught, &violation) {
        (Some(record), _) => record.addresses.clone(),
        // Seen after the target returned: the stack is the harness's.
        (None, Some(_)) => Vec::new(),
        (None, None) => stack_addresses(),
    };
    describe(
        &Evidence {
            kind,
            signal: (signal != 0).then_some(signal),
            fault_address,
            panic: caught
                .as_ref()
                .map(|p| (p.message.as_str(), p.location.as_deref())),
            violation: violation.as_ref(),
            addresses: &addresses,
            samples: &samples,
        },
        cache,
    )
}

/// The signal of the fault this process is handling, 0 when none was recorded. LibAFL passes
/// feedbacks an exit kind only; the fuzzing loop's signal guard, which sees every fault
/// signal before LibAFL's handler, records it here.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The faulting address of that signal (`si_addr`), 0 when none.
static FAULT_ADDRESS: AtomicUsize = AtomicUsize::new(0);

/// Records the signal of a fault about to be handled and its faulting address
/// (async-signal-safe: two atomic stores).
pub fn record_signal(signal: libc::c_int, address: usize) {
    SIGNAL.store(signal, Ordering::SeqCst);
    FAULT_ADDRESS.store(address, Ordering::SeqCst);
}

/// Standard error's own descriptor while LibAFL's crash handler runs with standard error on
/// /dev/null (-1: standard error is in place).
static STDERR_ASIDE: AtomicI32 = AtomicI32::new(-1);
/// An open /dev/null for [`quiet_stderr`] (-1: none), opened beforehand by
/// [`prepare_quiet_stderr`] so that the signal handler only duplicates descriptors.
static DEV_NULL: AtomicI32 = AtomicI32::new(-1);

/// Opens what [`quiet_stderr`] needs; call it in the fuzzing process, before any fault.
pub fn prepare_quiet_stderr() {
    if DEV_NULL.load(Ordering::SeqCst) >= 0 {
        return;
    }
    // SAFETY: a plain system call on a NUL-terminated path.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if null >= 0 {
        DEV_NULL.store(null, Ordering::SeqCst);
    }
}

/// Points standard error at /dev/null until [`restore_stderr`], keeping the real one aside.
/// LibAFL 0.16's crash handler writes `DEBUG: inproc_crash_handler enter` to it for every
/// fault, in every build and whatever the log settings: one line per abort or stack overflow
/// of a run, all of it already in the saved fault. The fault signal guard calls this before
/// LibAFL's handler, and [`new_fault`], the first of Bonsai's code that handler runs, puts
/// standard error back, so that nothing of Bonsai's own is lost. Async-signal-safe (`fcntl`,
/// `dup2`, `close`).
pub fn quiet_stderr() {
    let null = DEV_NULL.load(Ordering::SeqCst);
    if null < 0 || STDERR_ASIDE.load(Ordering::SeqCst) >= 0 {
        return;
    }
    // SAFETY: descriptor system calls; a failure leaves standard error as it was.
    unsafe {
        let aside = libc::fcntl(libc::STDERR_FILENO, libc::F_DUPFD_CLOEXEC, 3);
        if aside < 0 {
            return;
        }
        if libc::dup2(null, libc::STDERR_FILENO) < 0 {
            libc::close(aside);
            return;
        }
        STDERR_ASIDE.store(aside, Ordering::SeqCst);
    }
}

/// Puts standard error back after [`quiet_stderr`]; nothing when it is in place.
pub fn restore_stderr() {
    let aside = STDERR_ASIDE.swap(-1, Ordering::SeqCst);
    if aside >= 0 {
        // SAFETY: `aside` is the descriptor `quiet_stderr` duplicated standard error into.
        unsafe {
            libc::dup2(aside, libc::STDERR_FILENO);
            libc::close(aside);
        }
    }
}

impl Named for FaultFeedback {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("faults");
        &NAME
    }
}

impl<S: HasMetadata> StateInitializer<S> for FaultFeedback {
    fn init_state(&mut self, state: &mut S) -> Result<(), Error> {
        SeenFaults::init(state);
        Ok(())
    }
}

impl<EM, OT, S> Feedback<EM, ChoiceInput, OT, S> for FaultFeedback
where
    OT: ObserversTuple<ChoiceInput, S>,
    S: HasMetadata + HasCorpus<ChoiceInput>,
{
    fn is_interesting(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        _input: &ChoiceInput,
        observers: &OT,
        exit_kind: &ExitKind,
    ) -> Result<bool, Error> {
        memory_limit::disarm();
        let trimming = state
            .metadata::<LastMutation>()
            .is_ok_and(|m| m.mutation == Mutation::Trim);
        if trimming && *exit_kind == ExitKind::Timeout {
            restore_stderr();
            self.pending = None;
            if let Some(replay) = observers.get(&self.replay) {
                let text = &replay.replay().text;
                state
                    .metadata_or_insert_with(SlowTrimCandidates::default)
                    .record(text);
            }
            return Ok(false);
        }
        let size = observers
            .get(&self.replay)
            .map_or(0, |replay| replay.replay().text.len());
        self.pending = match note_fault(state, exit_kind, size, Some(&self.log)) {
            Some((fault, Sighting::New | Sighting::Smaller)) => Some(fault),
            _ => None,
        };
        Ok(self.pending.is_some())
    }

    fn append_metadata(
        &mut self,
        state: &mut S,
        _manager: &mut EM,
        observers: &OT,
        testcase: &mut Testcase<ChoiceInput>,
    ) -> Result<(), Error> {
        let replay = observers
            .get(&self.replay)
            .ok_or_else(|| Error::key_not_found("replay observer"))?
            .replay();
        *testcase.input_mut() = Some(
            ChoiceInput::new(replay.sample.choices.clone(), self.bounds)
                .with_words(replay.words.clone()),
        );
        let edges = observers
            .get(&self.edges)
            .map_or(0, EdgeObserver::edge_count);
        let parent = parent_number(state);
        let mutator = state
            .metadata::<LastMutation>()
            .map(|m| m.mutation.to_string())
            .unwrap_or_default();
        testcase.add_metadata(EntryInfo {
            text: replay.text.clone(),
            valid: false,
            edges,
            parent,
            mutator,
            found_at: self.started.elapsed().as_secs_f64(),
            fault: self.pending.take(),
            ..EntryInfo::default()
        });
        Ok(())
    }
}

/// The file number of the corpus entry being mutated, if any.
pub fn parent_number<S: HasCorpus<ChoiceInput>>(state: &S) -> Option<u32> {
    let id = (*state.corpus().current())?;
    let entry = state.corpus().get(id).ok()?;
    let entry = entry.try_borrow().ok()?;
    entry.metadata::<EntryInfo>().ok()?.number
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One check, failing with the message it is given: the same `panic!` location.
    fn check_fails(message: &str) {
        panic!("{message}");
    }

    /// Another check, at another location.
    fn other_check_fails(message: &str) {
        panic!("{message}");
    }

    /// The signature of the panic `check` raises inside the target, as the fuzzing loop
    /// records and describes it.
    fn panic_signature(check: fn(&str), message: &str) -> u64 {
        panic_record::install();
        panic_record::set_in_target(true);
        let caught = std::panic::catch_unwind(|| check(message));
        panic_record::set_in_target(false);
        assert!(caught.is_err());
        let fault = describe_fault(FaultKind::Panic, &mut SymbolCache::default());
        assert_eq!(fault.kind, FaultKind::Panic);
        assert!(fault.message.starts_with(message), "{}", fault.message);
        assert!(fault.location.contains("fault.rs:"), "{}", fault.location);
        fault.signature
    }

    #[test]
    fn one_check_is_one_bucket_whatever_its_message_names() {
        let quoted = panic_signature(check_fails, "round trip changed the text of 'a' at 3");
        assert_eq!(
            quoted,
            panic_signature(
                check_fails,
                "print of let bc = 12 did not parse: unexpected bc"
            ),
            "the input's words, quoted or not, and other reasons: one check"
        );
        assert_ne!(
            quoted,
            panic_signature(other_check_fails, "round trip changed")
        );
    }
}
