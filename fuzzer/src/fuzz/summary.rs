//! The result of a run, as printed by `--json` and stored in `OUT/summary.json`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

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
