//! What `bonsai export` and `bonsai report` read: a campaign directory (`campaign.json` and
//! one fuzzing output per lattice node under `nodes/`) or a single fuzzing output.

use std::path::{Path, PathBuf};

use crate::campaign::{CampaignState, NODES_DIR, NodeState, STATE_FILE};
use crate::corpus::{EntryInfo, MANIFEST, Manifest, ParsedMeta, SUMMARY};
use crate::diagnostic::Diagnostic;
pub use crate::fs_util::read_json;
use crate::fuzz::Summary;
use crate::layout::QUEUE_DIR;

/// One fuzzing output: a lattice node of a campaign, or the whole of a single run.
#[derive(Clone, Debug)]
pub struct NodeSource {
    /// The lattice's name for the node (`m1-n2-d3-r`); for a single output, made from its bounds.
    pub name: String,
    /// The fuzzing output directory itself.
    pub dir: PathBuf,
    /// `fuzz.json`; `None` for a campaign node that has not started.
    pub fuzz: Option<Manifest>,
    /// `summary.json` of its last complete run.
    pub summary: Option<Summary>,
    /// From `campaign.json`, for a campaign node.
    pub campaign: Option<NodeState>,
}

/// One complete entry (its `.meta` written) of a queue.
#[derive(Clone, Debug)]
pub struct QueueEntry {
    /// The entry's `.txt` file.
    pub text_path: PathBuf,
    /// Where its `.choices` file belongs; the file itself may be missing.
    pub choices_path: PathBuf,
    /// The input as the target ran it.
    pub text: String,
    /// What its `.meta` line says (validity, edges).
    pub meta: ParsedMeta,
}

impl NodeSource {
    fn open(name: String, dir: PathBuf, campaign: Option<NodeState>) -> Result<Self, Diagnostic> {
        let manifest_path = dir.join(MANIFEST);
        let fuzz = if manifest_path.is_file() {
            Some(read_json::<Manifest>(
                &manifest_path,
                "a Bonsai fuzzing manifest",
            )?)
        } else {
            None
        };
        let summary_path = dir.join(SUMMARY);
        // A summary that cannot be read is a run that was killed while writing it; the
        // queue and the coverage log still tell the story.
        let summary = read_json::<Summary>(&summary_path, "a summary").ok();
        Ok(Self {
            name,
            dir,
            fuzz,
            summary,
            campaign,
        })
    }

    /// Complete queue entries in number order; unreadable ones are skipped.
    pub fn queue(&self) -> Vec<QueueEntry> {
        crate::corpus::EntryDir::new(self.dir.join(QUEUE_DIR))
            .complete()
            .into_iter()
            .filter_map(|entry| {
                let meta = EntryInfo::parse_line(&entry.read_meta().ok()?);
                let text = entry.read_text().ok()?;
                Some(QueueEntry {
                    choices_path: entry.choices_path(),
                    text_path: entry.text_path(),
                    text,
                    meta,
                })
            })
            .collect()
    }

    /// `bounds` and whether restricted, from `fuzz.json` or `campaign.json`.
    pub fn bounds(&self) -> (String, bool) {
        match (&self.fuzz, &self.campaign) {
            (Some(f), _) => (f.bounds.clone(), f.valid_only),
            (None, Some(c)) => (c.bounds.clone(), c.valid_only),
            (None, None) => (String::new(), false),
        }
    }
}

/// A campaign directory or a single fuzzing output, read.
#[derive(Clone, Debug)]
pub struct Source {
    /// The directory given by the user.
    pub root: PathBuf,
    /// `campaign.json`, read as it is; `None` for a single fuzzing output.
    pub campaign: Option<CampaignState>,
    /// In the order of `campaign.json` (the lattice order: predecessors first).
    pub nodes: Vec<NodeSource>,
    /// Index of the top node in `nodes`.
    pub top: usize,
}

impl Source {
    /// Reads a campaign directory (when it has `campaign.json`) or a single fuzzing output (when
    /// it has `fuzz.json`); anything else is an error. A node's unreadable summary is tolerated,
    /// since a run killed while writing it still left its queue.
    pub fn open(root: &Path) -> Result<Source, Diagnostic> {
        let campaign_path = root.join(STATE_FILE);
        if campaign_path.is_file() {
            // The campaign's own schema, read without `campaign::load_state`'s lattice checks:
            // export and report only read what the nodes left, whatever lattice made them.
            let campaign: CampaignState = read_json(&campaign_path, "a Bonsai campaign file")?;
            let mut nodes = Vec::new();
            for node in &campaign.nodes {
                let dir = root.join(NODES_DIR).join(&node.name);
                nodes.push(NodeSource::open(
                    node.name.clone(),
                    dir,
                    Some(node.clone()),
                )?);
            }
            let top = nodes
                .iter()
                .position(|n| n.name == campaign.top)
                .ok_or_else(|| {
                    Diagnostic::error(format!(
                        "the top node '{}' is not among the nodes",
                        campaign.top
                    ))
                    .in_file(&campaign_path)
                })?;
            return Ok(Source {
                root: root.to_path_buf(),
                campaign: Some(campaign),
                nodes,
                top,
            });
        }
        if root.join(MANIFEST).is_file() {
            let mut node = NodeSource::open(String::new(), root.to_path_buf(), None)?;
            let fuzz = node.fuzz.as_ref().expect("fuzz.json exists");
            node.name = node_name(&fuzz.bounds, fuzz.valid_only);
            return Ok(Source {
                root: root.to_path_buf(),
                campaign: None,
                nodes: vec![node],
                top: 0,
            });
        }
        Err(Diagnostic::error(format!(
            "neither a campaign directory ({STATE_FILE}) nor a fuzzing output ({MANIFEST})"
        ))
        .in_file(root))
    }

    /// The node whose queue export and report describe; for a single output, the only node.
    pub fn top(&self) -> &NodeSource {
        &self.nodes[self.top]
    }

    /// For each distinct queue text of a campaign, the first node in lattice order whose
    /// queue holds it: the node that found it (its successors inherit it as a seed). Empty
    /// for a single fuzzing output.
    pub fn finders(&self) -> std::collections::HashMap<String, String> {
        let mut found = std::collections::HashMap::new();
        if self.campaign.is_none() {
            return found;
        }
        for node in &self.nodes {
            for entry in node.queue() {
                found.entry(entry.text).or_insert_with(|| node.name.clone());
            }
        }
        found
    }

    /// The target's name as the campaign or the top node's manifest records it; `None` when the
    /// top node has not started.
    pub fn target(&self) -> Option<&str> {
        match &self.campaign {
            Some(c) => Some(&c.target),
            None => self.top().fuzz.as_ref().map(|f| f.target.as_str()),
        }
    }
}

/// The lattice's name for a node: `m1-n2-d3-r` for bounds `1,2,3` restricted to valid inputs.
pub fn node_name(bounds: &str, valid_only: bool) -> String {
    let parts: Vec<&str> = bounds.split(',').map(str::trim).collect();
    let kind = if valid_only { 'r' } else { 'u' };
    match parts.as_slice() {
        [m, n, d] => format!("m{m}-n{n}-d{d}-{kind}"),
        _ => format!("{bounds}-{kind}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_follow_the_lattice() {
        assert_eq!(node_name("1,2,3", true), "m1-n2-d3-r");
        assert_eq!(node_name("3,3,3", false), "m3-n3-d3-u");
    }

    #[test]
    fn a_broken_campaign_file_is_located() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(STATE_FILE), "{\n  \"target\": 3,\n}").unwrap();
        let error = Source::open(dir.path()).unwrap_err();
        let location = error.location.expect("located");
        assert_eq!(location.line, 2, "{}", error.message);
        let empty = tempfile::tempdir().unwrap();
        assert!(
            Source::open(empty.path())
                .unwrap_err()
                .message
                .contains("neither")
        );
    }
}
