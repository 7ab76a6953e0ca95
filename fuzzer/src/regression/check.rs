//! `bonsai replay --check`: rerun an exported corpus and list what changed since the export.

use std::path::Path;
use std::time::Duration;

use super::manifest::{CORPUS_MANIFEST, CorpusManifest};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::replay::{ForkedRunner, Outcome};
use crate::target::LinkedTarget;

/// One difference between the manifest and the target today.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The input's file, relative to the corpus directory.
    pub file: String,
    /// `verdict`, `message` or `output`.
    pub field: &'static str,
    /// The value the manifest recorded.
    pub expected: String,
    /// The value the target gives today.
    pub actual: String,
}

/// The result of `bonsai replay --check`: what changed, input by input, and the coverage then
/// and now.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Inputs rerun: every input the manifest lists.
    pub inputs: usize,
    /// Edges the corpus covers today, against the manifest's count.
    pub edges: usize,
    /// Edges the corpus covered at export time, from the manifest.
    pub expected_edges: usize,
    /// Every difference found, in manifest order; empty when nothing changed.
    pub changes: Vec<Change>,
}

/// Reruns every input of the corpus in `dir` (each in its own process) and compares its
/// verdict, message and, for a golden corpus, output with the manifest. A corrupt manifest, a
/// corpus of another target or a missing input is an error, not a change.
pub fn check(
    dir: &Path,
    target: &LinkedTarget,
    timeout: Duration,
) -> Result<CheckReport, Diagnostics> {
    let manifest = CorpusManifest::load(dir)?;
    if manifest.target != target.name {
        return Err(Diagnostic::error(format!(
            "this corpus was exported from target '{}', not '{}'",
            manifest.target, target.name
        ))
        .in_file(&dir.join(CORPUS_MANIFEST))
        .into());
    }
    let mut texts = Vec::new();
    let mut missing = Vec::new();
    for entry in &manifest.inputs {
        let path = dir.join(&entry.file);
        match std::fs::read(&path) {
            Ok(bytes) => texts.push(bytes),
            Err(e) => missing.push(Diagnostic::error(format!("cannot read: {e}")).in_file(&path)),
        }
    }
    if !missing.is_empty() {
        return Err(Diagnostics(missing));
    }
    let mut runner = ForkedRunner::new(*target, timeout).map_err(|e| {
        Diagnostics(vec![Diagnostic::error(format!(
            "cannot set up the target's runs: {e}"
        ))])
    })?;
    let mut report = CheckReport {
        inputs: manifest.inputs.len(),
        expected_edges: manifest.edges,
        ..CheckReport::default()
    };
    let mut covered = std::collections::HashSet::new();
    for (entry, text) in manifest.inputs.iter().zip(&texts) {
        let golden = manifest.golden && entry.output.is_some();
        let mut execute = || {
            if golden {
                runner.run_with_output(text)
            } else {
                runner.run(text)
            }
        };
        let mut run = execute();
        // A timeout that comes or goes may be the machine's load, not the compiler: it counts
        // only when a second run agrees.
        if (run.outcome == Outcome::Timeout) != (entry.verdict == Outcome::Timeout) {
            run = execute();
        }
        covered.extend(run.edges.iter().copied());
        let mut change = |field, expected: &str, actual: &str| {
            if expected != actual {
                report.changes.push(Change {
                    file: entry.file.clone(),
                    field,
                    expected: expected.to_string(),
                    actual: actual.to_string(),
                });
            }
        };
        change("verdict", entry.verdict.as_str(), run.outcome.as_str());
        change("message", &entry.message, &run.message);
        if golden {
            change(
                "output",
                entry.output.as_deref().unwrap_or_default(),
                run.output.as_deref().unwrap_or("(no output)"),
            );
        }
    }
    report.edges = covered.len();
    Ok(report)
}

impl Change {
    /// `0003.star: verdict: valid -> invalid`; for long texts, the first line that differs.
    pub fn describe(&self) -> String {
        if self.field != "output" {
            return format!(
                "{}: {}: {:?} -> {:?}",
                self.file, self.field, self.expected, self.actual
            );
        }
        let expected: Vec<&str> = self.expected.lines().collect();
        let actual: Vec<&str> = self.actual.lines().collect();
        let line = (0..expected.len().max(actual.len()))
            .find(|&i| expected.get(i) != actual.get(i))
            .unwrap_or(0);
        format!(
            "{}: output differs at line {}: {:?} -> {:?}",
            self.file,
            line + 1,
            expected.get(line).copied().unwrap_or("(end)"),
            actual.get(line).copied().unwrap_or("(end)")
        )
    }
}
