//! What `campaign::run` returns.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::fuzz::Summary;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignSummary {
    pub dir: PathBuf,
    pub top: String,
    pub nodes: usize,
    pub done: usize,
    /// Nodes that failed in this session; their successors did not run.
    pub failed: Vec<String>,
    /// Stopped by Ctrl-C or SIGTERM; `--resume` continues.
    pub interrupted: bool,
    /// Wall time of this session.
    pub elapsed_secs: f64,
    /// Wall time of all nodes over all sessions (the CPU time the campaign cost, one core
    /// per node).
    pub node_secs: f64,
    /// The top node's fuzz summary once it is done: the campaign's result.
    pub top_summary: Option<Summary>,
}
