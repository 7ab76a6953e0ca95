//! The result of a run, as printed by `--json` and stored in `OUT/summary.json`.

use std::path::PathBuf;

use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::state::{HasCorpus, HasExecutions};
use serde::{Deserialize, Serialize};

use super::executed_events::Received;
use super::fuzz_loop::{RunProgress, State};
use super::prepared::Prepared;
use super::trim::TrimStats;
use crate::corpus::valid_entries;
use crate::feedback::{CoverageHistory, SaveCriteria, SeenFaults};
use crate::schedule::Ownership;

/// One line of JSON at the end of a run. Counts of faults are taken from the output
/// directory, so a resumed campaign reports everything it has found, not just this run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub target: String,
    pub bounds: String,
    pub valid_only: bool,
    /// Executions of the target in this run (seeds and generation included).
    pub execs: u64,
    pub execs_per_sec: f64,
    pub elapsed_secs: f64,
    /// Edges covered by the saved corpus's criteria (all inputs, or valid ones with
    /// `--valid-only`).
    pub edges: u32,
    pub edges_valid: u32,
    /// Counters in the target: the size of the coverage space.
    pub map_size: usize,
    /// Entries in memory at the end (the queue directory may hold more after a resume).
    pub corpus: usize,
    /// Share of valid inputs in the saved corpus, 0..1.
    pub valid_share: f64,
    /// Share of valid verdicts among the executions that got a verdict, 0..1.
    pub exec_valid_share: f64,
    pub favored: usize,
    pub crashes: usize,
    pub hangs: usize,
    pub ooms: usize,
    /// Round-trip and differential violations saved (`crashes/`, apart from the crashes).
    #[serde(default)]
    pub wrong_answers: usize,
    /// Faulting executions, duplicates included.
    pub fault_executions: u64,
    /// Inputs not run because their text was longer than `--max-len`.
    #[serde(default)]
    pub too_long: u64,
    /// Entries kept because their run set a record of time per byte (`--keep-slow`).
    #[serde(default)]
    pub slow_kept: u64,
    /// Process restarts after crashes and timeouts.
    pub restarts: u64,
    pub seeds_loaded: usize,
    pub seeds_skipped: usize,
    pub stop: String,
    pub out: PathBuf,
    /// What trimming new entries did (absent when it was off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<super::TrimStats>,
    /// Distinct k-paths of the grammar the queue's derivations hold (k as `--grammar-feedback`
    /// names it, else 2); absent in summaries of older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kpaths: Option<usize>,
    /// Present when the run measured the engine's overhead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<super::Overhead>,
    /// Entries received from other clients, and the seconds spent taking them in (running
    /// each again, saving what is new); absent for one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_secs: Option<f64>,
    /// Of the entries received, those dropped unrun because what the sender's run covered
    /// was nothing new to the receiver (`received` counts them too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_unrun: Option<u64>,
    /// Seconds spent after fuzzing on the faults: reducing each new bucket's reproducer and
    /// rerunning its hangs (`triage`); absent when nothing was to do or it was turned off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduce_secs: Option<f64>,
    /// The clients of a multi-core run (`--cores`); absent for one core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<usize>,
}

/// The run's summary from its state at the end, with the fault counts of its output directory.
pub(super) fn summarize(prepared: &Prepared, state: &State, stop: &str) -> Summary {
    let config = &prepared.config;
    let elapsed = prepared.started.elapsed();
    let execs = *state.executions();
    let history = state.metadata::<CoverageHistory>().ok();
    let corpus = state.corpus();
    let valid = valid_entries(corpus);
    let faults = prepared.out.fault_counts();
    let progress = state.metadata::<RunProgress>().cloned().unwrap_or_default();
    Summary {
        target: config.target.name.to_string(),
        bounds: config.bounds.to_string(),
        valid_only: config.criteria == SaveCriteria::ValidOnly,
        execs,
        execs_per_sec: execs as f64 / elapsed.as_secs_f64().max(1e-9),
        elapsed_secs: elapsed.as_secs_f64(),
        edges: history.map_or(0, |h| h.corpus_edges(config.criteria)),
        edges_valid: history.map_or(0, |h| h.valid_edges),
        map_size: prepared.map_size,
        corpus: corpus.count(),
        valid_share: valid as f64 / corpus.count().max(1) as f64,
        exec_valid_share: history
            .map_or(0.0, |h| h.valid_execs as f64 / h.judged_execs.max(1) as f64),
        favored: state
            .metadata::<Ownership>()
            .map_or(0, Ownership::favored_count),
        crashes: faults.crashes,
        hangs: faults.hangs,
        ooms: faults.ooms,
        wrong_answers: faults.wrong_answers,
        fault_executions: state.metadata::<SeenFaults>().map_or(0, |s| s.occurrences),
        too_long: history.map_or(0, |h| h.too_long),
        slow_kept: state
            .metadata::<crate::feedback::SlowPaths>()
            .map_or(0, |s| s.kept),
        restarts: progress.restarts,
        seeds_loaded: prepared.seeds.len(),
        seeds_skipped: prepared.seeds_skipped,
        stop: stop.to_string(),
        out: prepared.out.root.clone(),
        overhead: None,
        received: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0, |r| r.entries)),
        receive_secs: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0.0, |r| r.seconds)),
        received_unrun: config
            .client
            .map(|_| state.metadata::<Received>().map_or(0, |r| r.skipped)),
        clients: None,
        reduce_secs: None,
        kpaths: Some(
            state
                .metadata::<crate::feedback::QueuePaths>()
                .map_or(0, crate::feedback::QueuePaths::len),
        ),
        trim: (config.trim_tests > 0).then(|| TrimStats {
            timeouts: state
                .metadata::<crate::feedback::SlowTrimCandidates>()
                .map_or(0, |slow| slow.count),
            ..state.metadata::<TrimStats>().cloned().unwrap_or_default()
        }),
    }
}
