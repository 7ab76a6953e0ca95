//! What a campaign is asked to do: a new one, or a resumed one.

use std::path::PathBuf;
use std::time::Duration;

use crate::feedback::CoverageGrain;
use crate::fuzz::{Saturation, StopCondition};
use crate::sampler::Bounds;
use crate::target::LinkedTarget;

/// How long each node fuzzes: the first budget reached stops it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeBudget {
    /// Fixed wall time; always set, so that a node that never saturates still ends. With a
    /// campaign budget, the most any one node gets.
    pub time: Duration,
    /// Saturation: no new edge for this long.
    pub saturate_time: Option<Duration>,
    /// Saturation: no new edge for this many executions.
    pub saturate_execs: Option<u64>,
    /// A fixed number of executions (reproducible runs, tests).
    pub execs: Option<u64>,
}

impl NodeBudget {
    /// The node's run stops on whichever budget it reaches first.
    pub fn stop_condition(&self) -> StopCondition {
        StopCondition {
            time: Some(self.time),
            execs: self.execs,
            saturation: Saturation {
                time: self.saturate_time,
                execs: self.saturate_execs,
            },
        }
    }
}

/// A new campaign.
#[derive(Clone, Debug)]
pub struct NewCampaign {
    pub target: String,
    pub grammar: PathBuf,
    pub max_bounds: Bounds,
    pub budget: NodeBudget,
    /// Node-seconds for the whole lattice, shared out as nodes start (see
    /// `CampaignState::budget_secs`).
    pub total: Option<Duration>,
    pub jobs: usize,
    /// Cores per node (`bonsai fuzz --cores`); 1: single-core nodes.
    pub cores_per_node: usize,
    pub seed: u64,
    pub timeout_ms: u64,
    pub save_on: CoverageGrain,
    /// Runs of the target each node may spend trimming one new entry (`bonsai fuzz
    /// --trim-tests`).
    pub trim_tests: u64,
    /// `bonsai fuzz --grammar-feedback kpath:K` in every node.
    pub grammar_feedback: Option<usize>,
    /// The user's seed directories (see `CampaignState::seeds`).
    pub seeds: Vec<PathBuf>,
}

/// Either start `DIR` afresh or continue the campaign recorded in `DIR/campaign.json`.
#[derive(Clone, Debug)]
pub enum CampaignMode {
    New(Box<NewCampaign>),
    /// Resume; `jobs` overrides the recorded number of parallel nodes (a different machine).
    Resume {
        jobs: Option<usize>,
    },
}

#[derive(Clone)]
pub struct CampaignConfig {
    pub out: PathBuf,
    pub mode: CampaignMode,
    /// The campaign's target, linked into this binary; a resumed campaign must name it.
    pub target: LinkedTarget,
    /// The program started for each node on the node's configuration (`fuzz::spawn_child`):
    /// the running `bonsai-T` binary, which links the target.
    pub program: PathBuf,
    /// Show the lattice view (a live view on a terminal, log lines otherwise).
    pub show_progress: bool,
}

/// Measured on the README's campaign (docs/results/issue-17-many-cores.md, "Campaign: cores per node"): single-core
/// nodes side by side reach the top node's coverage sooner than nodes of two cores each.
pub const DEFAULT_CORES_PER_NODE: usize = 1;

/// One process per core by default: nodes are independent single-threaded fuzzers.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}
