//! Bonsai campaigns: the whole lattice of fuzzers, run as child processes of this binary
//! (`bonsai fuzz` per node), resumable at any moment from what is on disk.
//!
//! `config` is what was asked, `state` is `campaign.json`, `worklist` starts ready nodes
//! and records their ends, `seed_merge` merges predecessors' queues, `node_dir` tidies what a kill left half-made, `runner` owns one child,
//! `progress` reads what a child has done, `view` draws the lattice, `log` is
//! `campaign.log` (`crate::dir_lock` keeps one campaign per directory), `signal` turns Ctrl-C into a
//! clean stop.

mod campaign_summary;
mod config;
mod log;
mod node_dir;
mod progress;
mod run;
mod runner;
pub mod seed_merge;
mod signal;
mod state;
mod view;
mod worklist;

pub use campaign_summary::CampaignSummary;
pub use config::{
    CampaignConfig, CampaignMode, DEFAULT_CORES_PER_NODE, NewCampaign, NodeBudget, default_jobs,
};
pub use run::run;
pub use state::{CampaignState, NodeState, STATE_FILE, load_state};
pub use worklist::{LOGS_DIR, NODES_DIR};
