//! `campaign.json`: the campaign's configuration and every node's state. It is the only
//! record a resume needs, so it is rewritten atomically after every change of state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Location};
use crate::feedback::CoverageGrain;
use crate::fuzz::Summary;
use crate::lattice::{Lattice, Node};
use crate::sampler::Bounds;

pub const STATE_FILE: &str = crate::layout::CAMPAIGN_JSON;
/// The only schema version this build reads and writes.
pub const VERSION: u32 = 1;

/// Where a node is in its life. A node that was running when the campaign stopped is put
/// back to `Waiting`: its own queue seeds it when it runs again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeStatus {
    Waiting,
    Running,
    Done,
    Failed,
}

impl NodeStatus {
    /// The word `campaign.json` stores, for reports.
    pub fn word(self) -> &'static str {
        match self {
            NodeStatus::Waiting => "waiting",
            NodeStatus::Running => "running",
            NodeStatus::Done => "done",
            NodeStatus::Failed => "failed",
        }
    }
}

/// One lattice node's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeState {
    /// The node's folder name, `m1-n2-d3-r`.
    pub name: String,
    pub bounds: String,
    pub valid_only: bool,
    pub predecessors: Vec<String>,
    pub state: NodeStatus,
    /// How many times a fuzzing process was started for this node.
    pub attempts: u32,
    pub started_unix: Option<f64>,
    pub finished_unix: Option<f64>,
    /// Wall time spent on this node over all attempts; a resumed node gets the rest of its
    /// time budget.
    pub elapsed_secs: f64,
    /// Why the last finished run stopped: `time`, `saturated` or `execs`.
    pub stop: Option<String>,
    /// Under a campaign budget: the time this node was given when it first started.
    #[serde(default)]
    pub allotted_secs: Option<f64>,
    pub summary: Option<Summary>,
}

/// The whole of `campaign.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignState {
    pub version: u32,
    pub target: String,
    pub grammar: PathBuf,
    pub grammar_fingerprint: String,
    pub max_bounds: String,
    pub node_time_secs: f64,
    pub saturate_secs: Option<f64>,
    pub saturate_execs: Option<u64>,
    /// A fixed execution budget per node, when given (reproducible runs and tests).
    #[serde(default)]
    pub node_execs: Option<u64>,
    /// `--budget`: node-seconds for the whole lattice. Each node, as it starts, gets an even
    /// share of what is left (at most `node_time_secs`), so time a node did not use because it
    /// saturated goes to the nodes after it, the top node last.
    #[serde(default)]
    pub budget_secs: Option<f64>,
    pub jobs: usize,
    /// Cores each node fuzzes with; campaigns recorded before the option ran single-core
    /// nodes.
    #[serde(default = "one")]
    pub cores_per_node: usize,
    pub seed: u64,
    pub timeout_ms: u64,
    /// What new coverage keeps an input in every node. Campaigns recorded before the choice
    /// existed saved new hit counts.
    #[serde(default)]
    pub save_on: CoverageGrain,
    /// Runs of the target a node may spend trimming one new entry. Campaigns recorded before
    /// nodes trimmed did not (0), and resume that way.
    #[serde(default)]
    pub trim_tests: u64,
    /// Nodes also keep inputs for new k-paths of the grammar, with this k. Campaigns recorded
    /// before the option existed did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar_feedback: Option<usize>,
    /// The user's seed directories: each seed joins the seeds of every node whose bounds
    /// admit it. Campaigns recorded before the option existed had none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<PathBuf>,
    pub created_unix: f64,
    pub nodes: Vec<NodeState>,
    pub top: String,
}

impl CampaignState {
    /// Fresh node records for every node of `lattice`, in the lattice's order.
    pub fn nodes_of(lattice: &Lattice) -> Vec<NodeState> {
        lattice
            .nodes()
            .iter()
            .map(|node| NodeState {
                name: node.slug(),
                bounds: node.bounds.to_string(),
                valid_only: node.validity == crate::lattice::Restriction::Restricted,
                predecessors: lattice.predecessors(node).iter().map(Node::slug).collect(),
                state: NodeStatus::Waiting,
                attempts: 0,
                started_unix: None,
                finished_unix: None,
                elapsed_secs: 0.0,
                stop: None,
                allotted_secs: None,
                summary: None,
            })
            .collect()
    }

    pub fn node(&self, name: &str) -> Option<&NodeState> {
        self.nodes.iter().find(|n| n.name == name)
    }

    pub fn node_mut(&mut self, name: &str) -> Option<&mut NodeState> {
        self.nodes.iter_mut().find(|n| n.name == name)
    }

    pub fn count(&self, status: NodeStatus) -> usize {
        self.nodes.iter().filter(|n| n.state == status).count()
    }

    pub fn save(&self, dir: &Path) -> Result<(), Diagnostic> {
        let json = serde_json::to_string_pretty(self).expect("plain data serializes");
        crate::write_atomic(&dir.join(STATE_FILE), format!("{json}\n").as_bytes())
    }

    /// Checks what serde cannot: the version, the bounds, and that the nodes are exactly
    /// the lattice of `max_bounds` (a hand-edited or truncated file must not silently drop
    /// nodes from a campaign).
    fn validate(&self, path: &Path) -> Result<Lattice, Diagnostic> {
        let bad = |message: String| Diagnostic::error(message).in_file(path);
        if self.version != VERSION {
            return Err(bad(format!(
                "campaign.json version {} is not supported (this build reads version {VERSION})",
                self.version
            )));
        }
        let max: Bounds = self
            .max_bounds
            .parse()
            .map_err(|e| bad(format!("max_bounds: {e}")))?;
        Lattice::check_size(max).map_err(|e| bad(format!("max_bounds: {e}")))?;
        let lattice = Lattice::new(max);
        let expected: Vec<String> = lattice.nodes().iter().map(Node::slug).collect();
        let found: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        if expected != found {
            return Err(bad(format!(
                "the nodes do not form the lattice of max bounds {max}: expected {} nodes from {} to {}, found {}",
                expected.len(),
                expected.first().map_or("", String::as_str),
                expected.last().map_or("", String::as_str),
                found.len()
            )));
        }
        if self.top != lattice.top().slug() {
            return Err(bad(format!(
                "top is '{}', but the lattice's top is '{}'",
                self.top,
                lattice.top().slug()
            )));
        }
        if self.jobs == 0 {
            return Err(bad("jobs must be at least 1".into()));
        }
        Ok(lattice)
    }
}

/// Reads and checks `DIR/campaign.json`; parse errors carry line and column.
pub fn load_state(dir: &Path) -> Result<CampaignState, Diagnostic> {
    load_with_lattice(dir).map(|(state, _)| state)
}

pub(crate) fn load_with_lattice(dir: &Path) -> Result<(CampaignState, Lattice), Diagnostic> {
    let path = dir.join(STATE_FILE);
    if !dir.is_dir() {
        return Err(Diagnostic::error("campaign directory not found").in_file(dir));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Diagnostic::error(format!(
            "cannot read the campaign state ({e}); is this a `bonsai campaign` directory?"
        ))
        .in_file(&path)
    })?;
    let state: CampaignState = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("corrupt campaign state: {e}")).at(Location {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
        })
    })?;
    let lattice = state.validate(&path)?;
    Ok((state, lattice))
}

fn one() -> usize {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(max: &str) -> CampaignState {
        let lattice = Lattice::new(max.parse().unwrap());
        CampaignState {
            version: VERSION,
            target: "planted".into(),
            grammar: "g.ebnf".into(),
            grammar_fingerprint: "00".into(),
            max_bounds: max.into(),
            node_time_secs: 1.0,
            saturate_secs: None,
            saturate_execs: Some(10),
            node_execs: None,
            budget_secs: None,
            jobs: 1,
            cores_per_node: 1,
            seed: 0,
            timeout_ms: 100,
            save_on: CoverageGrain::Edges,
            trim_tests: 100,
            grammar_feedback: None,
            seeds: Vec::new(),
            created_unix: 0.0,
            nodes: CampaignState::nodes_of(&lattice),
            top: lattice.top().slug(),
        }
    }

    #[test]
    fn round_trips_and_uses_the_contract_names() {
        let dir = tempfile::tempdir().unwrap();
        let s = state("2,1,1");
        s.save(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(STATE_FILE)).unwrap();
        for key in [
            "\"version\": 1",
            "\"max_bounds\": \"2,1,1\"",
            "\"state\": \"waiting\"",
            "\"top\": \"m2-n1-d1-u\"",
            "\"name\": \"m1-n1-d1-r\"",
            "\"saturate_secs\": null",
            "\"save_on\": \"edges\"",
        ] {
            assert!(text.contains(key), "{key} missing in {text}");
        }
        assert_eq!(load_state(dir.path()).unwrap(), s);
    }

    #[test]
    fn a_campaign_recorded_before_the_grain_existed_resumes_saving_hit_counts() {
        let dir = tempfile::tempdir().unwrap();
        state("1,1,1").save(dir.path()).unwrap();
        let path = dir.path().join(STATE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let old = text.replace("  \"save_on\": \"edges\",\n", "");
        assert_ne!(old, text);
        std::fs::write(&path, old).unwrap();
        assert_eq!(
            load_state(dir.path()).unwrap().save_on,
            CoverageGrain::HitCounts
        );
    }

    #[test]
    fn a_status_word_is_what_campaign_json_stores() {
        for status in [
            NodeStatus::Waiting,
            NodeStatus::Running,
            NodeStatus::Done,
            NodeStatus::Failed,
        ] {
            let stored = serde_json::to_string(&status).unwrap();
            assert_eq!(stored, format!("\"{}\"", status.word()));
        }
    }

    #[test]
    fn a_campaign_recorded_before_nodes_trimmed_resumes_without_trimming() {
        let dir = tempfile::tempdir().unwrap();
        state("1,1,1").save(dir.path()).unwrap();
        let path = dir.path().join(STATE_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        let old = text.replace("  \"trim_tests\": 100,\n", "");
        assert_ne!(old, text);
        std::fs::write(&path, old).unwrap();
        assert_eq!(load_state(dir.path()).unwrap().trim_tests, 0);
    }

    #[test]
    fn corrupt_or_foreign_states_are_located_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(STATE_FILE), "{\n  \"version\": 1,\n  oops").unwrap();
        let e = load_state(dir.path()).unwrap_err();
        assert_eq!(e.location.as_ref().map(|l| l.line), Some(3), "{e}");

        let mut s = state("2,2,1");
        s.nodes.pop();
        s.save(dir.path()).unwrap();
        let e = load_state(dir.path()).unwrap_err();
        assert!(e.message.contains("lattice"), "{e}");

        // A hand-edited top is refused before its lattice is built.
        let mut s = state("1,1,1");
        s.max_bounds = "1000,1000,1000".into();
        s.save(dir.path()).unwrap();
        let e = load_state(dir.path()).unwrap_err();
        assert!(e.message.contains("2000000000 nodes"), "{e}");

        let missing = load_state(&dir.path().join("nope")).unwrap_err();
        assert!(missing.message.contains("not found"), "{missing}");
    }
}
