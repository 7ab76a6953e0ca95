//! Everything one fuzzing run needs to know.

use std::path::PathBuf;
use std::time::Duration;

use super::stop::StopCondition;
use crate::feedback::{CoverageGrain, SaveCriteria};
use crate::sampler::Bounds;
use crate::schedule::{ChildrenRule, SchedulerKind};
use crate::target::LinkedTarget;

/// The longest text run by default. Under generous bounds the recursion mutator nests
/// blocks hundreds deep, and the renderer indents each level, so a few thousand choices can
/// render to megabytes: on oxc a tenth of the corpus was over 64 KB and the loop ran at half
/// speed. Like libFuzzer's `-max_len`, a ceiling the user can raise.
pub const DEFAULT_MAX_LEN: usize = 64 * 1024;
/// Default per-execution timeout. Compilers answer in microseconds to milliseconds; a second
/// is far beyond a legitimate run and short enough not to stall a campaign.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
/// Default memory limit for one execution of the target.
pub const DEFAULT_MEMORY_LIMIT: usize = 2 << 30;
/// Fresh inputs generated before mutation starts, when there are no seeds.
pub const DEFAULT_INITIAL_INPUTS: usize = 32;

/// One run of the fuzzer: the CLI builds it from flags, the lattice from its node.
#[derive(Clone)]
pub struct FuzzConfig {
    pub target: LinkedTarget,
    pub grammar: PathBuf,
    pub bounds: Bounds,
    pub criteria: SaveCriteria,
    /// Whether a new hit count of a known edge is enough to keep an input.
    pub grain: CoverageGrain,
    /// Directories of `.choices` files (or fuzzing outputs) to seed from, in order.
    pub seeds: Vec<PathBuf>,
    /// Also seed from the cover suite of this grammar coverage criterion (`bonsai cover`),
    /// built under the run's bounds.
    pub seed_cover: Option<crate::coverage::Criterion>,
    /// Also keep inputs that derive a k-path of the grammar no execution derived before, with
    /// this k (`--grammar-feedback kpath:K`).
    pub grammar_feedback: Option<usize>,
    /// The output directory; an earlier output of the same campaign is resumed.
    pub out: PathBuf,
    /// Seeds every random decision of the run (replay after a crash aside).
    pub seed: u64,
    pub stop: StopCondition,
    pub timeout: Duration,
    /// `None` disables the limit.
    pub memory_limit: Option<usize>,
    /// Texts longer than this many bytes are not run (see [`DEFAULT_MAX_LEN`]).
    pub max_len: usize,
    /// Also keep inputs that run much longer than their length predicts
    /// (`feedback::SlowPaths`): stepping stones towards super-linear hangs.
    pub keep_slow: bool,
    /// Run the target's oracles (`Target::check`) after each verdict. On by default; off to
    /// measure what they cost, or to fuzz for crashes alone.
    pub oracles: bool,
    /// The mutators switched on (names of [`crate::mutators::MUTATOR_NAMES`]); `None`: all.
    pub mutators: Option<Vec<String>>,
    pub scheduler: SchedulerKind,
    /// With the zest scheduler: how many children a parent gets per pick.
    pub children: ChildrenRule,
    /// With the zest scheduler: the share of picks that take the newest entry never picked.
    pub newest_first: f64,
    /// Fresh inputs generated when no seed was loaded.
    pub initial_inputs: usize,
    /// Show the status line (or periodic log lines when stderr is not a terminal).
    pub show_status: bool,
    /// Record this many executions and replay them through a bare loop at the end, to
    /// report the engine's overhead in the summary (`scripts/bench-overhead`).
    pub measure_overhead: Option<usize>,
    /// Executions to let pass before recording starts (see [`super::Recorder`]).
    pub measure_overhead_after: usize,
    /// Runs of the target each new crash may spend on its reduced reproducer
    /// (`crashes/NNNNNN.min.txt`) once the run has ended; 0 turns reduction off.
    pub reduce_crash_tests: u64,
    /// Runs of the target each new entry may spend on being trimmed (`trim`); 0 keeps
    /// entries as they were found.
    pub trim_tests: u64,
    /// Set in the clients of a multi-core run (see `fuzz::coordinator`).
    pub client: Option<super::ClientRole>,
}

impl FuzzConfig {
    pub fn new(target: LinkedTarget, grammar: PathBuf, bounds: Bounds, out: PathBuf) -> Self {
        Self {
            target,
            grammar,
            bounds,
            criteria: SaveCriteria::Zest,
            grain: CoverageGrain::HitCounts,
            seeds: Vec::new(),
            seed_cover: None,
            grammar_feedback: None,
            out,
            seed: 0,
            stop: StopCondition::default(),
            timeout: DEFAULT_TIMEOUT,
            memory_limit: Some(DEFAULT_MEMORY_LIMIT),
            max_len: DEFAULT_MAX_LEN,
            keep_slow: false,
            oracles: true,
            mutators: None,
            scheduler: SchedulerKind::Zest,
            children: ChildrenRule::Zest,
            newest_first: 0.0,
            initial_inputs: DEFAULT_INITIAL_INPUTS,
            show_status: false,
            measure_overhead: None,
            measure_overhead_after: 0,
            reduce_crash_tests: crate::triage::DEFAULT_CRASH_TESTS,
            trim_tests: 0,
            client: None,
        }
    }
}
