//! A fault described from what was caught, the same way wherever it was caught: in the fuzzing
//! loop (and the Nautilus baseline, which shares it) or in a forked child of
//! `replay::ForkedRunner` (replay, reduce, validity, export). The kind, the message and the
//! bucket must agree between them, or the fault a reduction keeps would not be the fault the
//! loop saved, and "both fuzzers found it" would mean nothing.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::signature::{
    SHOWN_FRAMES, SampledCall, SampledStack, SymbolCache, WALKED_FRAMES, bucket, describe_frames,
    is_deep_recursion,
};
use super::stack_samples::{Sample, entry_address, sample_at};
use crate::fault::{Fault, FaultKind};
use crate::target::{Violation, function_start};

/// What is known of a fault when it is caught.
#[derive(Clone, Copy, Debug)]
pub struct Evidence<'a> {
    /// As caught: a panic, a signal (`Crash`), a timeout or the memory limit. A signal becomes
    /// a stack overflow when the evidence says so.
    pub kind: FaultKind,
    /// The fault signal, when known.
    pub signal: Option<libc::c_int>,
    /// The faulting address of a segmentation fault, 0 when none is known.
    pub fault_address: usize,
    /// A panic's message and `file:line:col`.
    pub panic: Option<(&'a str, Option<&'a str>)>,
    /// A wrong answer, as its oracle saw it.
    pub violation: Option<&'a Violation>,
    /// Return addresses of the stack at the fault, innermost first.
    pub addresses: &'a [usize],
    /// The stack samples taken during the run (`stack_samples`).
    pub samples: &'a [Sample],
}

/// The fault, with its bucket.
pub fn describe(evidence: &Evidence<'_>, cache: &mut SymbolCache) -> Fault {
    let mut frames = describe_frames(evidence.addresses, cache);
    let kind = match evidence.kind {
        FaultKind::Crash if overflowed(evidence, &frames) => FaultKind::StackOverflow,
        kind => kind,
    };
    let samples: Vec<SampledStack> = match kind {
        // No sample (a run that ended before the timer's first tick): the stack it ended in
        // is one, so that it is bucketed by the same rules as a run with one sample.
        FaultKind::Timeout | FaultKind::OutOfMemory if evidence.samples.is_empty() => {
            vec![symbolized(&sample_at(evidence.addresses), cache)]
        }
        FaultKind::Timeout | FaultKind::OutOfMemory => evidence
            .samples
            .iter()
            .map(|sample| symbolized(sample, cache))
            .collect(),
        _ => Vec::new(),
    };
    if tracing::enabled!(tracing::Level::TRACE) {
        for (k, sample) in samples.iter().enumerate() {
            let calls: Vec<String> = sample
                .calls
                .iter()
                .filter(|call| !call.functions.is_empty())
                .map(|call| format!("{} {:?}", call.functions.join(" < "), call.entry))
                .collect();
            tracing::trace!("sample {k}: {}", calls.join(" | "));
        }
    }
    let location = match evidence.violation {
        Some(violation) => Some(violation.class.as_str()),
        None => evidence.panic.and_then(|(_, location)| location),
    };
    let found = bucket(kind, location, &frames, &samples);
    let message = match (kind, evidence.panic) {
        (FaultKind::Panic, Some((message, Some(location)))) => format!("{message} at {location}"),
        (FaultKind::Panic, Some((message, None))) => message.to_string(),
        (FaultKind::Panic, None) => "the target panicked".to_string(),
        (FaultKind::Crash, _) => describe_signal(evidence.signal),
        (FaultKind::StackOverflow, _) => {
            format!("the target overflowed its stack ({})", found.location)
        }
        (FaultKind::Timeout, _) => "the target did not finish in time".to_string(),
        (FaultKind::OutOfMemory, _) => {
            "the target allocated more than the memory limit".to_string()
        }
        (FaultKind::RoundTrip | FaultKind::Differential, _) => evidence.violation.map_or_else(
            || "the target gave a wrong answer".to_string(),
            |v| v.message.clone(),
        ),
    };
    frames.truncate(SHOWN_FRAMES);
    Fault {
        kind,
        signature: found.signature,
        message,
        location: found.location,
        frames,
        recursion: found.recursion,
        texts: evidence
            .violation
            .map(|v| v.texts.clone())
            .unwrap_or_default(),
    }
}

/// A sample's calls with their functions, and each entry counter kept only where it is the
/// entry of the call's own machine function (code without counters gets a neighbour's).
fn symbolized(sample: &Sample, cache: &mut SymbolCache) -> SampledStack {
    SampledStack {
        calls: sample
            .frames
            .iter()
            .map(|frame| {
                let functions = describe_frames(&[frame.address], cache);
                // A return address points past its call: one byte back is inside the caller.
                let own = function_start(frame.address.wrapping_sub(1));
                let entry = frame.entry.filter(|&(entry, _)| {
                    own.is_some()
                        && entry_address(entry).is_some_and(|pc| function_start(pc) == own)
                });
                let body = entry.map(|_| frame.body);
                SampledCall {
                    functions,
                    entry,
                    body,
                }
            })
            .collect(),
    }
}

/// Whether a signal was the target running out of stack: a segmentation fault (or bus error)
/// at the end of the stack the target runs on, or, where that stack is not known, one whose
/// stack is deeper than the walk and a recursion all along it.
fn overflowed(evidence: &Evidence<'_>, frames: &[String]) -> bool {
    let segfault = matches!(
        evidence.signal,
        None | Some(libc::SIGSEGV) | Some(libc::SIGBUS)
    );
    segfault
        && (at_stack_end(evidence.fault_address)
            || (evidence.addresses.len() >= WALKED_FRAMES && is_deep_recursion(frames)))
}

/// The lowest address of the stack the target runs on, 0 when not recorded.
static STACK_LOW: AtomicUsize = AtomicUsize::new(0);

/// Records the stack of the calling thread as the one the target runs on. Call it on that
/// thread before the first run: the main thread of a fuzzing process, the worker of a forked
/// child.
pub fn record_target_stack() {
    // SAFETY: `pthread_getattr_np` fills a zeroed attribute object, destroyed after use.
    unsafe {
        let mut attributes: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attributes) != 0 {
            return;
        }
        let mut low: *mut libc::c_void = std::ptr::null_mut();
        let mut size = 0usize;
        if libc::pthread_attr_getstack(&attributes, &mut low, &mut size) == 0 {
            STACK_LOW.store(low as usize, Ordering::Relaxed);
        }
        libc::pthread_attr_destroy(&mut attributes);
    }
}

/// Whether `address` lies at the low end of the target's stack: in its guard, or in the pages
/// just above or below it that a large frame steps over.
fn at_stack_end(address: usize) -> bool {
    let low = STACK_LOW.load(Ordering::Relaxed);
    const BELOW: usize = 1 << 20;
    const ABOVE: usize = 64 << 10;
    low != 0 && address != 0 && address >= low.saturating_sub(BELOW) && address < low + ABOVE
}

/// What a fault that ended in `signal` is called, in `crashes/*.meta`, `replay`, `reduce` and
/// `validity` alike: the same bug must not be an abort in one and a segmentation fault in
/// another. `None` is a signal that was not recorded.
pub fn describe_signal(signal: Option<libc::c_int>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segfault_at_the_end_of_the_recorded_stack_is_a_stack_overflow() {
        record_target_stack();
        let low = STACK_LOW.load(Ordering::Relaxed);
        assert_ne!(low, 0, "the test thread's stack is known");
        let evidence = |signal, address| Evidence {
            kind: FaultKind::Crash,
            signal: Some(signal),
            fault_address: address,
            panic: None,
            violation: None,
            addresses: &[],
            samples: &[],
        };
        let mut cache = SymbolCache::default();
        let overflow = describe(&evidence(libc::SIGSEGV, low - 100), &mut cache);
        assert_eq!(overflow.kind, FaultKind::StackOverflow);
        assert!(
            overflow.message.contains("overflowed its stack"),
            "{}",
            overflow.message
        );
        let null = describe(&evidence(libc::SIGSEGV, 8), &mut cache);
        assert_eq!(null.kind, FaultKind::Crash);
        assert!(null.message.contains("segmentation fault"));
        let abort = describe(&evidence(libc::SIGABRT, low - 100), &mut cache);
        assert_eq!(abort.kind, FaultKind::Crash, "an abort is not an overflow");
    }
}
