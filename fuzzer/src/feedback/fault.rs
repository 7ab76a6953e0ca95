//! The objective: crashes, hangs and out-of-memory inputs, each distinct bug saved once.

use std::borrow::Cow;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

use libafl::HasMetadata;
use libafl::corpus::{Corpus, Testcase};
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::observers::ObserversTuple;
use libafl::state::HasCorpus;
use libafl_bolts::tuples::{Handle, Handled, MatchNameRef};
use libafl_bolts::{Error, Named};

use super::panic_record;
use super::signature::{SymbolCache, describe_frames, signature, target_frames};
use crate::choice::ChoiceInput;
use crate::corpus::EntryInfo;
pub use crate::fault::{Fault, FaultKind, SeenFaults};
use crate::observer::{EdgeObserver, ReplayObserver};
use crate::provenance::{LastMutation, Mutation};
use crate::sampler::Bounds;
use crate::target::memory_limit;

/// The fault the last execution ended in, described, when its kind and signature are new to
/// this run (`None` for a normal exit or a fault seen before); every faulting execution is
/// counted. The one place where Bonsai's loop and the Nautilus baseline decide what a new
/// fault is, so that the two save the same faults and their counts compare.
pub fn new_fault<S: HasMetadata>(state: &mut S, exit_kind: &ExitKind) -> Option<Fault> {
    restore_stderr();
    let kind = fault_kind(exit_kind)?;
    let fault = describe_fault(kind, state.metadata_or_insert_with(SymbolCache::default));
    let seen = state.metadata_or_insert_with(SeenFaults::default);
    seen.occurrences += 1;
    seen.signatures
        .insert((fault.kind, fault.signature))
        .then_some(fault)
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

/// Decides whether a faulting execution is a new bug, and describes it.
///
/// Why our own signature rather than LibAFL's `BacktraceObserver` + `NewHashFeedback`: that
/// observer hashes every return address of the stack, so the same panic reached with a
/// different recursion depth (every stack overflow, any recursive-descent parser) hashes
/// differently and is saved again and again. Function names of the top frames of the target
/// are stable across depths and rebuilds.
pub struct FaultFeedback {
    replay: Handle<ReplayObserver>,
    edges: Handle<EdgeObserver>,
    bounds: Bounds,
    started: Instant,
    pending: Option<Fault>,
}

impl FaultFeedback {
    /// A feedback reading the given observers; `started` is the campaign's start, from which a
    /// saved fault's time is measured.
    pub fn new(
        replay: &ReplayObserver,
        edges: &EdgeObserver,
        bounds: Bounds,
        started: Instant,
    ) -> Self {
        Self {
            replay: replay.handle(),
            edges: edges.handle(),
            bounds,
            started,
            pending: None,
        }
    }
}

/// The kind of fault an execution ended in, or `None` for a normal exit. Asked right after
/// the execution: a caught panic is told from a signal by the panic record the run left
/// behind, which [`describe_fault`] then takes.
pub fn fault_kind(exit_kind: &ExitKind) -> Option<FaultKind> {
    Some(match exit_kind {
        ExitKind::Crash if memory_limit::tripped() => FaultKind::OutOfMemory,
        ExitKind::Oom => FaultKind::OutOfMemory,
        ExitKind::Crash if panic_record::pending() => FaultKind::Panic,
        ExitKind::Crash => FaultKind::Crash,
        ExitKind::Timeout => FaultKind::Timeout,
        _ => return None,
    })
}

/// Describes the fault the last execution ended in: a panic from its record, anything else
/// from the stack the signal handler runs on and the signal the guard recorded. Shared by
/// every fuzzer that runs a target in-process (Bonsai's loop, the Nautilus baseline), so that
/// a fault gets the same signature on both sides of a comparison and "found the same bug"
/// means the same thing.
pub fn describe_fault(kind: FaultKind, cache: &mut SymbolCache) -> Fault {
    let caught = if kind == FaultKind::Panic {
        panic_record::take()
    } else {
        None
    };
    let (message, raw, location, frames) = match caught {
        Some(p) => {
            let message = match &p.location {
                Some(l) => format!("{} at {l}", p.message),
                None => p.message.clone(),
            };
            let frames = describe_frames(&p.addresses, cache);
            (message, Some(p.message), p.location, frames)
        }
        None => {
            let frames = target_frames(cache);
            let message = match kind {
                FaultKind::Timeout => "the target did not finish in time".to_string(),
                FaultKind::OutOfMemory => {
                    "the target allocated more than the memory limit".to_string()
                }
                _ => {
                    let signal = SIGNAL.swap(0, Ordering::SeqCst);
                    describe_signal((signal != 0).then_some(signal), &frames)
                }
            };
            (message, None, None, frames)
        }
    };
    Fault {
        kind,
        signature: signature(
            &kind.to_string(),
            location.as_deref(),
            raw.as_deref(),
            &frames,
        ),
        message,
        frames,
    }
}

/// The signal of the fault this process is handling, 0 when none was recorded. LibAFL passes
/// feedbacks an exit kind only; the fuzzing loop's signal guard, which sees every fault
/// signal before LibAFL's handler, records it here.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Records the signal of a fault about to be handled (async-signal-safe: one atomic store).
pub fn record_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::SeqCst);
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

/// What a fault that ended in `signal` is called, in `crashes/*.meta`, `replay`, `reduce` and
/// `validity` alike: the same bug must not be an abort in one and a segmentation fault in
/// another. A stack overflow is read off the stack (the same function over and over), since
/// its signal is an ordinary segmentation fault; `None` is a signal that was not recorded.
pub fn describe_signal(signal: Option<libc::c_int>, frames: &[String]) -> String {
    let function = |f: &String| f.split(" (").next().unwrap_or_default().to_string();
    let repeated = frames.len() >= 4 && frames.iter().all(|f| function(f) == function(&frames[0]));
    if repeated {
        return "the target overflowed its stack (or crashed in deep recursion)".to_string();
    }
    match signal {
        Some(libc::SIGABRT) => "the target aborted (signal 6)".to_string(),
        Some(libc::SIGSEGV) => {
            "the target crashed with a segmentation fault (signal 11)".to_string()
        }
        Some(other) => format!("the target crashed with signal {other}"),
        None => {
            "the target crashed with a signal (abort, segmentation fault or similar)".to_string()
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
        self.pending = new_fault(state, exit_kind);
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

    /// The signature of the panic `check_fails(message)` raises inside the target, as the
    /// fuzzing loop records and describes it.
    fn panic_signature(message: &str) -> u64 {
        panic_record::install();
        panic_record::set_in_target(true);
        let caught = std::panic::catch_unwind(|| check_fails(message));
        panic_record::set_in_target(false);
        assert!(caught.is_err());
        let fault = describe_fault(FaultKind::Panic, &mut SymbolCache::default());
        assert_eq!(fault.kind, FaultKind::Panic);
        assert!(fault.message.starts_with(message), "{}", fault.message);
        fault.signature
    }

    #[test]
    fn one_assertion_failing_for_two_reasons_is_two_faults() {
        let text = panic_signature("round trip changed the text of 'a' at 3");
        assert_eq!(
            text,
            panic_signature("round trip changed the text of 'bc' at 12"),
            "other values, the same reason"
        );
        assert_ne!(
            text,
            panic_signature("round trip changed the verdict of 'a' at 3")
        );
    }
}
