//! What a client saw when it ran an entry it saved, sent to the other clients with the entry.
//!
//! Without it, every client runs every entry another client saved, to learn whether the entry
//! brings it anything. On a 16-core starlark run that took 15% of the clients' time, and most
//! of those runs bring nothing: with many clients, most edges are found by several of them. The
//! same binary on the same choices covers the same edges, so the sender's hit words answer the
//! question against the receiver's own history without a run; only entries that would be kept
//! are run (and then judged by the receiver's feedbacks as before).
//!
//! Only the words that were news to the sender travel, not the run's whole coverage. The
//! other words held nothing the sender lacked, and a receiver has seen what the sender had:
//! the sender's earlier entries reached it first (LLMP keeps one sender's messages in order),
//! and each was kept there or covered nothing new there. Judged by its news, a run is judged as
//! by its whole coverage (a property test in `validity` checks this), and the message is a few
//! words instead of hundreds. LLMP's broker keeps every page it forwards for the whole run, so
//! what a message weighs is shared memory for good: sent whole, the coverage made a two-client
//! starlark run's broker hold three to four times the pages.

use std::time::Duration;

use libafl::events::EventConfig;
use serde::{Deserialize, Serialize};

use super::{CoverageGrain, CoverageHistory, SaveCriteria, SlowPaths};
use crate::observer::HitWord;

/// The sender's view of one saved entry's run. State metadata only between the feedback that
/// keeps the entry and the event manager that sends it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShippedRun {
    /// The binary that ran it: hit words index the counters of one build only.
    pub build: EventConfig,
    /// The verdict was valid (else invalid: rejected runs are never kept).
    pub valid: bool,
    /// The run's hit words (each counter's hit-count class) that were news to the sender's
    /// history; all of them for an entry kept for something else (a time record, a repair).
    pub hits: Vec<HitWord>,
    /// The target's time: what the slow-path criterion weighs against the length.
    pub target_time: Duration,
    /// The text's length in bytes.
    pub text_len: usize,
}
libafl_bolts::impl_serdeany!(ShippedRun);

/// The receiver's side: the save criteria of the run, as far as they can be applied to a run
/// seen elsewhere.
#[derive(Clone, Debug)]
pub struct ImportRule {
    /// Zest's criteria or valid inputs only.
    pub criteria: SaveCriteria,
    /// New edges, or new hit-count classes too.
    pub grain: CoverageGrain,
    /// `--keep-slow`'s ceiling, when on.
    pub slow_ceiling: Option<Duration>,
    /// `--grammar-feedback` is on: whether a derivation's k-paths are new needs the tree,
    /// which only a run builds, so every entry is run.
    pub grammar_paths: bool,
    /// This binary (see [`ShippedRun::build`]).
    pub build: EventConfig,
}

impl ImportRule {
    /// Whether the receiver could keep the shipped entry, so that it must run it. False only
    /// when the run is known to bring nothing: the same build, and no edge or hit-count class
    /// new to `history` under the criteria, and no new time-per-byte record.
    pub fn may_keep(
        &self,
        run: &ShippedRun,
        history: Option<&CoverageHistory>,
        slow: Option<&SlowPaths>,
    ) -> bool {
        if self.grammar_paths || !run.build.match_with(&self.build) {
            return true;
        }
        let Some(history) = history else {
            return true;
        };
        let (all, by_valid) = history.peek(&run.hits, run.valid);
        if self.criteria.keeps(self.grain, run.valid, all, by_valid) {
            return true;
        }
        match self.slow_ceiling {
            Some(ceiling) if run.valid || self.criteria != SaveCriteria::ValidOnly => slow
                .cloned()
                .unwrap_or_default()
                .would_record(run.target_time, run.text_len, ceiling),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(index: u32, classes: u64) -> HitWord {
        HitWord { index, classes }
    }

    fn rule() -> ImportRule {
        ImportRule {
            criteria: SaveCriteria::Zest,
            grain: CoverageGrain::HitCounts,
            slow_ceiling: None,
            grammar_paths: false,
            build: EventConfig::from_build_id(),
        }
    }

    fn shipped(valid: bool, hits: Vec<HitWord>) -> ShippedRun {
        ShippedRun {
            build: EventConfig::from_build_id(),
            valid,
            hits,
            target_time: Duration::from_micros(50),
            text_len: 100,
        }
    }

    #[test]
    fn a_run_is_needed_only_for_what_the_history_lacks() {
        let mut history = CoverageHistory::new(64);
        history.record(&[word(0, 0x01), word(2, 0x0100)], true);
        let rule = rule();
        // Everything seen already, by a valid run: skip.
        assert!(!rule.may_keep(&shipped(true, vec![word(0, 0x01)]), Some(&history), None));
        // A new edge, or a new hit-count class of a known edge: run it.
        assert!(rule.may_keep(&shipped(false, vec![word(1, 0x01)]), Some(&history), None));
        assert!(rule.may_keep(&shipped(false, vec![word(0, 0x02)]), Some(&history), None));
        // At the grain of edges, a new class alone is nothing.
        let edges = ImportRule {
            grain: CoverageGrain::Edges,
            ..rule.clone()
        };
        assert!(!edges.may_keep(&shipped(false, vec![word(0, 0x02)]), Some(&history), None));
        // Peeking records nothing.
        assert!(rule.may_keep(&shipped(false, vec![word(1, 0x01)]), Some(&history), None));
    }

    #[test]
    fn valid_coverage_that_only_invalid_runs_had_is_run() {
        let mut history = CoverageHistory::new(64);
        history.record(&[word(0, 0x01)], false);
        let rule = rule();
        assert!(!rule.may_keep(&shipped(false, vec![word(0, 0x01)]), Some(&history), None));
        assert!(rule.may_keep(&shipped(true, vec![word(0, 0x01)]), Some(&history), None));
        let valid_only = ImportRule {
            criteria: SaveCriteria::ValidOnly,
            ..rule
        };
        assert!(valid_only.may_keep(&shipped(true, vec![word(0, 0x01)]), Some(&history), None));
        assert!(!valid_only.may_keep(&shipped(false, vec![word(5, 0x01)]), Some(&history), None));
    }

    #[test]
    fn what_the_receiver_cannot_judge_is_run() {
        let mut history = CoverageHistory::new(64);
        history.record(&[word(0, 0x01)], true);
        let seen = shipped(true, vec![word(0, 0x01)]);
        // Another build: its counters are other edges.
        let other = ShippedRun {
            build: EventConfig::from_name("another binary"),
            ..seen.clone()
        };
        assert!(rule().may_keep(&other, Some(&history), None));
        // k-paths of the grammar need the derivation.
        let paths = ImportRule {
            grammar_paths: true,
            ..rule()
        };
        assert!(paths.may_keep(&seen, Some(&history), None));
        // No history yet.
        assert!(rule().may_keep(&seen, None, None));
    }

    #[test]
    fn a_new_time_per_byte_record_is_run() {
        let mut history = CoverageHistory::new(64);
        history.record(&[word(0, 0x01)], true);
        let slow = ImportRule {
            slow_ceiling: Some(Duration::from_millis(250)),
            ..rule()
        };
        let mut run = shipped(true, vec![word(0, 0x01)]);
        run.target_time = Duration::from_millis(5);
        let mut records = SlowPaths::default();
        assert!(slow.may_keep(&run, Some(&history), Some(&records)));
        assert!(records.record(Duration::from_millis(50), 100, Duration::from_millis(250)));
        assert!(!slow.may_keep(&run, Some(&history), Some(&records)));
    }
}
