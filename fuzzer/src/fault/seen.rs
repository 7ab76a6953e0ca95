//! The fault buckets a fuzzing process has seen so far, and how often.

use std::collections::HashMap;

use libafl::HasMetadata;
use serde::{Deserialize, Serialize};

use super::{Fault, FaultKind, one_recursion};

/// A bucket: the kind and the signature of a fault. Equal keys are one bug.
pub type BucketKey = (FaultKind, u64);

/// What one fuzzing process knows of one bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BucketStats {
    /// Faulting executions that fell into the bucket, the first included.
    pub count: u64,
    /// When the first and the latest of them ran, in seconds since the Unix epoch: a campaign's
    /// nodes and clients are separate processes, and wall-clock times are what they share.
    pub first_seen: f64,
    /// See `first_seen`.
    pub last_seen: f64,
    /// The size in bytes of the smallest input seen in the bucket, the one saved.
    pub smallest: usize,
}

/// How a faulting execution relates to what was seen before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sighting {
    /// A bucket not seen before: its input is saved.
    New,
    /// A known bucket, with an input smaller than any seen in it: it replaces the saved one.
    Smaller,
    /// A known bucket, no smaller: counted only.
    Again,
}

/// The buckets seen so far. State metadata, so that it survives LibAFL's restarts (every hang
/// and crash restarts the fuzzing process); a resumed run seeds it from the saved entries and
/// from its `faults.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SeenFaults {
    /// Every bucket seen, with its statistics.
    pub buckets: HashMap<BucketKey, BucketStats>,
    /// Every faulting execution, duplicates included.
    pub occurrences: u64,
    /// Whether `buckets` changed since `faults.json` was last written, and when that was.
    pub unwritten: bool,
    /// See `unwritten`.
    pub written_at: f64,
    /// The buckets of stack overflows and hangs in a recursion, with the functions their
    /// recursions went through (every sighting's, together), so that another mix of the same
    /// recursion joins its bucket.
    #[serde(default)]
    pub recursions: Vec<KnownRecursion>,
}
libafl_bolts::impl_serdeany!(SeenFaults);

/// A bucket as a recursion: what a later fault of its kind is compared with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnownRecursion {
    /// The bucket's kind: a stack overflow and a hang are not one bug.
    pub kind: FaultKind,
    /// The bucket's signature: its first sighting's.
    pub signature: u64,
    /// Its first sighting's words.
    pub location: String,
    /// The functions of every recursion joined to it, sorted.
    pub functions: Vec<String>,
}

impl SeenFaults {
    /// Gives `state` an empty record unless it has one (a restarted process keeps its own).
    pub fn init<S: HasMetadata>(state: &mut S) {
        if !state.has_metadata::<SeenFaults>() {
            state.add_metadata(SeenFaults::default());
        }
    }

    /// Counts one faulting execution of `size` bytes at `now` in bucket `key`.
    pub fn see(&mut self, key: BucketKey, size: usize, now: f64) -> Sighting {
        self.occurrences += 1;
        self.unwritten = true;
        let stats = self.buckets.entry(key).or_insert(BucketStats {
            count: 0,
            first_seen: now,
            last_seen: now,
            smallest: usize::MAX,
        });
        let sighting = if stats.count == 0 {
            Sighting::New
        } else if size < stats.smallest {
            Sighting::Smaller
        } else {
            Sighting::Again
        };
        stats.count += 1;
        stats.last_seen = stats.last_seen.max(now);
        stats.first_seen = stats.first_seen.min(now);
        stats.smallest = stats.smallest.min(size);
        sighting
    }

    /// A bucket saved on disk before this process started (by an earlier run of the output
    /// directory, or another client): known, with the size of its saved input.
    pub fn know(&mut self, key: BucketKey, size: usize, found: f64) {
        let stats = self.buckets.entry(key).or_insert(BucketStats {
            count: 1,
            first_seen: found,
            last_seen: found,
            smallest: size,
        });
        stats.count = stats.count.max(1);
        stats.smallest = stats.smallest.min(size);
    }

    /// Puts a fault in a recursion (a stack overflow, a hang) into the bucket of a known
    /// recursion of its kind it is one with (`fault::one_recursion`), taking that bucket's
    /// signature and words; otherwise makes it known. Other faults are left as they are.
    pub fn join_recursion(&mut self, fault: &mut Fault) {
        if fault.recursion.is_empty() {
            return;
        }
        let of_kind = |known: &&KnownRecursion| known.kind == fault.kind;
        let at = (self.recursions.iter())
            .position(|known| of_kind(&known) && known.signature == fault.signature)
            .or_else(|| {
                (self.recursions.iter()).position(|known| {
                    of_kind(&known) && one_recursion(&known.functions, &fault.recursion)
                })
            });
        match at.map(|at| &mut self.recursions[at]) {
            Some(known) => {
                fault.signature = known.signature;
                fault.location.clone_from(&known.location);
                for function in &fault.recursion {
                    if let Err(at) = known.functions.binary_search(function) {
                        known.functions.insert(at, function.clone());
                    }
                }
            }
            None => self.recursions.push(KnownRecursion {
                kind: fault.kind,
                signature: fault.signature,
                location: fault.location.clone(),
                functions: fault.recursion.clone(),
            }),
        }
    }

    /// A bucket saved before this process started, with its words and recursion (outputs of
    /// earlier versions have none, and are not joined).
    pub fn know_recursion(&mut self, key: BucketKey, location: &str, functions: &[String]) {
        let mut functions = functions.to_vec();
        functions.sort();
        functions.dedup();
        let mut saved = Fault {
            kind: key.0,
            signature: key.1,
            message: String::new(),
            location: location.to_string(),
            frames: Vec::new(),
            recursion: functions,
            texts: Vec::new(),
        };
        self.join_recursion(&mut saved);
    }

    /// Whether `faults.json` is due: something changed, and either a bucket is new or smaller
    /// (`urgent`) or the last write is `every` seconds old. A bucket hit by every tenth input
    /// would otherwise rewrite the file thousands of times a second.
    pub fn due(&self, urgent: bool, now: f64, every: f64) -> bool {
        self.unwritten && (urgent || now - self.written_at >= every)
    }

    /// `faults.json` was written at `now`.
    pub fn mark_written(&mut self, now: f64) {
        self.unwritten = false;
        self.written_at = now;
    }
}

/// Seconds since the Unix epoch, as the bucket times are kept.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_new_once_then_smaller_only_below_its_smallest_input() {
        let mut seen = SeenFaults::default();
        let key = (FaultKind::Panic, 7);
        assert_eq!(seen.see(key, 100, 10.0), Sighting::New);
        assert_eq!(seen.see(key, 100, 11.0), Sighting::Again);
        assert_eq!(seen.see(key, 40, 12.0), Sighting::Smaller);
        assert_eq!(seen.see(key, 60, 13.0), Sighting::Again);
        assert_eq!(seen.see((FaultKind::Timeout, 7), 60, 14.0), Sighting::New);
        let stats = seen.buckets[&key];
        assert_eq!(
            (
                stats.count,
                stats.first_seen,
                stats.last_seen,
                stats.smallest
            ),
            (4, 10.0, 13.0, 40)
        );
        assert_eq!(seen.occurrences, 5);

        let mut resumed = SeenFaults::default();
        resumed.know(key, 40, 3.0);
        assert_eq!(resumed.see(key, 50, 20.0), Sighting::Again);
        assert_eq!(resumed.see(key, 39, 21.0), Sighting::Smaller);
    }

    #[test]
    fn a_stack_overflow_joins_the_bucket_of_a_recursion_it_shares_half_its_functions_with() {
        let overflow = Fault::stack_overflow;
        let mut seen = SeenFaults::default();
        let mut parens = overflow(1, &["expr", "paren", "unary"]);
        seen.join_recursion(&mut parens);
        assert_eq!(
            parens.signature, 1,
            "the first of a recursion keeps its bucket"
        );

        let mut calls = overflow(2, &["args", "call", "expr", "unary"]);
        seen.join_recursion(&mut calls);
        assert_eq!(calls.signature, 1);
        assert_eq!(calls.location, "recursion through expr, paren, unary");

        // Shares one function of three with the first recursion, but two with the joined one.
        let mut arguments = overflow(3, &["args", "call", "spread"]);
        seen.join_recursion(&mut arguments);
        assert_eq!(
            arguments.signature, 1,
            "the bucket grows with what joins it"
        );

        let mut scope = overflow(4, &["resolve_block", "resolve_stmt"]);
        seen.join_recursion(&mut scope);
        assert_eq!(
            scope.signature, 4,
            "another pass's recursion is another bug"
        );

        let mut hang = Fault {
            kind: FaultKind::Timeout,
            ..overflow(5, &["expr", "paren"])
        };
        seen.join_recursion(&mut hang);
        assert_eq!(hang.signature, 5, "a hang is not a stack overflow");
        let mut slower = Fault {
            kind: FaultKind::Timeout,
            ..overflow(6, &["expr"])
        };
        seen.join_recursion(&mut slower);
        assert_eq!(
            slower.signature, 5,
            "but joins a hang in the same recursion"
        );
        let mut panic = Fault {
            kind: FaultKind::Panic,
            recursion: Vec::new(),
            ..overflow(7, &[])
        };
        seen.join_recursion(&mut panic);
        assert_eq!(
            panic.signature, 7,
            "a fault with no recursion keeps its bucket"
        );
        assert_eq!(seen.recursions.len(), 3);
    }

    #[test]
    fn the_log_is_written_at_once_for_news_and_at_most_every_so_often_otherwise() {
        let mut seen = SeenFaults::default();
        assert!(!seen.due(true, 0.0, 2.0), "nothing to write");
        seen.see((FaultKind::Panic, 1), 5, 1.0);
        assert!(seen.due(true, 1.0, 2.0));
        seen.mark_written(1.0);
        seen.see((FaultKind::Panic, 1), 5, 1.5);
        assert!(!seen.due(false, 1.5, 2.0));
        assert!(seen.due(false, 3.0, 2.0));
    }
}
