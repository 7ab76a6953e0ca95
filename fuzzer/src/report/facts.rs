//! The figures of a report, read from a campaign's (or a run's) files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::analysis::Analysis;
use crate::corpus::{EntryFile, OutDir};
use crate::coverage::{Criterion, CriterionReport, Requirements, collect_inputs, tally_files};
use crate::diagnostic::Diagnostics;
use crate::fuzz::{COVERAGE_CSV, CoveragePoint, read_coverage};
use crate::layout::{CRASHES_DIR, HANGS_DIR};
use crate::regression::{CORPUS_MANIFEST, CorpusManifest, NodeSource, Source};

/// What one lattice node (or the single run) did.
#[derive(Clone, Debug, Default)]
pub struct NodeFacts {
    /// The lattice's name for the node (`m1-n2-d3-r`).
    pub name: String,
    /// The node's bounds as `M,N,D`; empty when neither manifest records them.
    pub bounds: String,
    /// Whether the node kept only valid inputs (the lattice's `-r` nodes).
    pub valid_only: bool,
    /// From `campaign.json`; `done` for a single run with a summary.
    pub state: String,
    /// Seconds of fuzzing: the campaign's count, else the coverage log's last line, else the
    /// summary.
    pub secs: f64,
    /// Seconds after the campaign's creation at which the node started (0 if unknown).
    pub start_offset: f64,
    /// Executions, from the coverage log's last line or else the summary; 0 if neither exists.
    pub execs: u64,
    /// Edges covered, from the same source as `execs`.
    pub edges: u64,
    /// Complete entries of the node's queue.
    pub queue: usize,
    /// Queue entries whose metadata says valid.
    pub valid: usize,
    /// Entries in `crashes/`, out-of-memory inputs included.
    pub crashes: usize,
    /// Entries in `hangs/`.
    pub hangs: usize,
    /// Distinct inputs of the top node's queue that this node found first.
    pub contributed: usize,
    /// The node's coverage log, with points that go back in time dropped; empty when unreadable.
    pub coverage: Vec<CoveragePoint>,
    /// The nodes whose queues seed this one, from `campaign.json`; empty for a single run.
    pub predecessors: Vec<String>,
}

/// One bug (a fault bucket of `triage`), over the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultFacts {
    /// Its smallest reproducer, relative to the report's directory, and its size.
    pub file: String,
    /// See `file`.
    pub size: usize,
    /// The kind's word (`panic`, `crash`, `stack-overflow`, `timeout`, `oom`).
    pub kind: String,
    /// What the bucket was computed from, in words.
    pub location: String,
    /// Faulting executions in the bucket, and the nodes or clients that hit it.
    pub count: u64,
    /// See `count`.
    pub seen_by: Vec<String>,
    /// Seconds from the run's first fault to this bucket's first.
    pub first_after: f64,
    /// The first frames of its stack.
    pub frames: Vec<String>,
    /// The one-line description of its smallest saved input.
    pub message: String,
    /// Whether a rerun did not fault again.
    pub flaky: bool,
}

/// Everything a report shows.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The campaign directory or fuzzing output reported on; file paths in the report are relative
    /// to it.
    pub dir: PathBuf,
    /// Whether `dir` is a campaign (several lattice nodes) rather than one fuzzing output.
    pub campaign: bool,
    /// The target's name; empty when nothing records it.
    pub target: String,
    /// The grammar file as the campaign or run named it.
    pub grammar: String,
    /// The bounds of the top node (a campaign's largest), as `M,N,D`.
    pub max_bounds: String,
    /// Every node in lattice order, predecessors first.
    pub nodes: Vec<NodeFacts>,
    /// Index of the top node in `nodes`.
    pub top: usize,
    /// Sizes in bytes of the distinct inputs of the top node's queue.
    pub top_sizes: Vec<usize>,
    /// The exported corpus, when there is one, and its path relative to `dir`.
    pub corpus: Option<(CorpusManifest, String)>,
    /// The run's faults, one per bug, by first sighting.
    pub faults: Vec<FaultFacts>,
    /// How the exported corpus (or, without one, the top node's queue) covers the grammar;
    /// `None` when the grammar file cannot be loaded from here (a note says why).
    pub grammar_coverage: Option<GrammarCoverage>,
    /// Problems met while reading (a torn coverage log, an unreadable corpus manifest): the
    /// report is written anyway and says what is missing.
    pub notes: Vec<String>,
}

/// The grammar coverage of the inputs a campaign leaves for its users.
#[derive(Clone, Debug)]
pub struct GrammarCoverage {
    /// What was measured: the exported corpus or the top node's queue, relative to the report.
    pub of: String,
    /// Inputs read as derivations.
    pub inputs: usize,
    /// Inputs that could not be (made with another grammar, damaged), with the reason.
    pub refused: Vec<String>,
    /// Rule, CDRC and k-path coverage for k = 1, 2, 3.
    pub criteria: Vec<CriterionReport>,
}

/// The criteria a report shows: the ones that name what a corpus lacks in a user's terms.
const REPORTED: [Criterion; 5] = [
    Criterion::Rule,
    Criterion::Cdrc,
    Criterion::KPath(1),
    Criterion::KPath(2),
    Criterion::KPath(3),
];

/// Loads the grammar the campaign named (as given, else relative to the campaign directory)
/// and measures `inputs`, a directory of saved inputs.
fn grammar_coverage(dir: &Path, grammar: &str, inputs: &Path) -> Result<GrammarCoverage, String> {
    let named = PathBuf::from(grammar);
    let path = if named.is_file() {
        named
    } else {
        dir.join(&named)
    };
    let imported = crate::import::load(&path).map_err(|e| {
        format!("grammar coverage not measured: the grammar {grammar} does not load from here: {e}")
    })?;
    let grammar = imported.grammar;
    let analysis = Analysis::new(&grammar);
    let mut files = Vec::new();
    collect_inputs(inputs, &mut files).map_err(|e| e.to_string())?;
    files.retain(|f| EntryFile::of(f) == Some(EntryFile::Choices));
    let (tally, refused) = tally_files(&grammar, &files, &REPORTED);
    let requirements = Requirements::new(&grammar, &analysis);
    Ok(GrammarCoverage {
        of: inputs
            .strip_prefix(dir)
            .unwrap_or(inputs)
            .display()
            .to_string(),
        inputs: tally.trees(),
        refused: refused.iter().map(|d| d.to_string()).collect(),
        criteria: REPORTED
            .iter()
            .map(|&c| CriterionReport::new(&grammar, &requirements, &tally, c))
            .collect(),
    })
}

impl Facts {
    /// Reads everything a report needs from `dir`, a campaign directory or a single fuzzing output.
    /// Only a missing or unreadable campaign or manifest is an error; damaged logs and an
    /// unreadable corpus become `notes`.
    pub fn gather(dir: &Path) -> Result<Facts, Diagnostics> {
        let source = Source::open(dir)?;
        let finders = source.finders();
        let mut notes = Vec::new();
        let top_entries = source.top().queue();
        let mut distinct = HashSet::new();
        let top_texts: Vec<&str> = top_entries
            .iter()
            .map(|e| e.text.as_str())
            .filter(|t| distinct.insert(*t))
            .collect();
        let created = source.campaign.as_ref().map(|c| c.created_unix);
        let mut nodes = Vec::new();
        for node in &source.nodes {
            let contributed = if source.campaign.is_some() {
                top_texts
                    .iter()
                    .filter(|t| finders.get(**t) == Some(&node.name))
                    .count()
            } else {
                top_texts.len()
            };
            nodes.push(NodeFacts::read(node, created, contributed, &mut notes));
        }
        let faults = faults(&source);
        let corpus_path = super::corpus_dir(dir);
        let corpus = exported_corpus(&corpus_path, &mut notes);
        let top = source.top();
        let (target, grammar) = match (&source.campaign, &top.fuzz) {
            (Some(c), _) => (c.target.clone(), c.grammar.display().to_string()),
            (None, Some(f)) => (f.target.clone(), f.grammar.display().to_string()),
            (None, None) => Default::default(),
        };
        let measured = if corpus.is_some() {
            corpus_path.clone()
        } else {
            top.dir.join(crate::layout::QUEUE_DIR)
        };
        let grammar_coverage = match grammar_coverage(dir, &grammar, &measured) {
            Ok(coverage) => Some(coverage),
            Err(why) => {
                notes.push(why);
                None
            }
        };
        Ok(Facts {
            dir: dir.to_path_buf(),
            campaign: source.campaign.is_some(),
            target,
            grammar,
            max_bounds: source
                .campaign
                .as_ref()
                .map(|c| c.max_bounds.clone())
                .unwrap_or_else(|| top.bounds().0),
            top: source.top,
            top_sizes: top_texts.iter().map(|t| t.len()).collect(),
            nodes,
            corpus,
            faults,
            grammar_coverage,
            notes,
        })
    }
}

impl NodeFacts {
    /// One node's figures from its files; `created` is the campaign's creation time (none for
    /// a single run), and a torn coverage log becomes a note.
    fn read(
        node: &NodeSource,
        created: Option<f64>,
        contributed: usize,
        notes: &mut Vec<String>,
    ) -> NodeFacts {
        let (bounds, valid_only) = node.bounds();
        let queue = node.queue();
        let coverage = forward_coverage(&node.dir.join(COVERAGE_CSV), notes);
        let last = coverage.last().copied();
        let summary = node.summary.as_ref();
        let out = OutDir {
            root: node.dir.clone(),
            resumed: true,
        };
        let campaign = node.campaign.as_ref();
        NodeFacts {
            name: node.name.clone(),
            bounds,
            valid_only,
            state: match campaign {
                Some(c) => c.state.word().into(),
                None if summary.is_some() => "done".into(),
                None => "interrupted".into(),
            },
            secs: campaign
                .map(|c| c.elapsed_secs)
                .filter(|s| *s > 0.0)
                .or(last.map(|p| p.secs))
                .or(summary.map(|s| s.elapsed_secs))
                .unwrap_or(0.0),
            start_offset: match (created, campaign.and_then(|c| c.started_unix)) {
                (Some(created), Some(started)) => (started - created).max(0.0),
                _ => 0.0,
            },
            execs: last
                .map(|p| p.execs)
                .or(summary.map(|s| s.execs))
                .unwrap_or(0),
            edges: last
                .map(|p| p.edges)
                .or(summary.map(|s| u64::from(s.edges)))
                .unwrap_or(0),
            queue: queue.len(),
            valid: queue.iter().filter(|e| e.meta.valid == Some(true)).count(),
            crashes: out.count(CRASHES_DIR),
            hangs: out.count(HANGS_DIR),
            contributed,
            coverage,
            predecessors: campaign.map(|c| c.predecessors.clone()).unwrap_or_default(),
        }
    }
}

/// A node's coverage log (empty if it has none, or a note if it is unreadable), without the
/// points that go back in time.
fn forward_coverage(path: &Path, notes: &mut Vec<String>) -> Vec<CoveragePoint> {
    let mut coverage = if path.is_file() {
        read_coverage(path).unwrap_or_else(|d| {
            notes.push(d.to_string());
            Vec::new()
        })
    } else {
        Vec::new()
    };
    // Logs of older builds restarted their clock after each crash; a curve only goes
    // forward in time.
    let mut latest = f64::NEG_INFINITY;
    coverage.retain(|p| {
        let forward = p.secs >= latest;
        latest = latest.max(p.secs);
        forward
    });
    coverage
}

/// The exported corpus's manifest, if `corpus_path` holds one; an unreadable one is a note, so
/// that the report is still written.
fn exported_corpus(
    corpus_path: &Path,
    notes: &mut Vec<String>,
) -> Option<(CorpusManifest, String)> {
    if !corpus_path.join(CORPUS_MANIFEST).is_file() {
        return None;
    }
    match CorpusManifest::load(corpus_path) {
        Ok(manifest) => Some((manifest, "corpus".to_string())),
        Err(d) => {
            notes.push(d.to_string());
            None
        }
    }
}

/// The run's faults as `bonsai faults` lists them: one per bucket over every node and client.
fn faults(source: &Source) -> Vec<FaultFacts> {
    let Ok(list) = crate::triage::gather(&source.root) else {
        return Vec::new();
    };
    let start = list
        .buckets
        .iter()
        .map(|b| b.first_seen)
        .fold(f64::INFINITY, f64::min);
    list.buckets
        .iter()
        .map(|bucket| {
            let (file, size) = bucket.reproducer();
            FaultFacts {
                file: file
                    .strip_prefix(&source.root)
                    .unwrap_or(file)
                    .to_string_lossy()
                    .into_owned(),
                size,
                kind: bucket.kind.to_string(),
                location: bucket.short_location(),
                count: bucket.count,
                seen_by: bucket.seen_by.clone(),
                first_after: bucket.first_seen - start,
                frames: bucket.frames.clone(),
                message: bucket.message.clone(),
                flaky: bucket.flaky,
            }
        })
        .collect()
}
