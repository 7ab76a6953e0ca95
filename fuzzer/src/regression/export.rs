//! `bonsai export`: the top node's queue as a regression corpus.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::export_input::{ExportInput, fault_inputs, read_inputs};
use super::manifest::{CORPUS_FORMAT, CORPUS_MANIFEST, CorpusEntry, CorpusManifest};
use super::source::Source;
use crate::corpus::Manifest;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::grammar::Grammar;
use crate::layout::{ENTRY_CHOICES, QUEUE_DIR};
use crate::replay::{Execution, ForkedRunner};
use crate::target::LinkedTarget;

/// What an export wrote.
#[derive(Clone, Debug)]
pub struct ExportSummary {
    /// The corpus directory written.
    pub out: PathBuf,
    /// Inputs written to the corpus.
    pub inputs: usize,
    /// Edges the corpus covers, as measured at export time.
    pub edges: usize,
    /// Inputs the target judged valid at export time.
    pub valid: usize,
    /// Inputs that panicked, crashed or timed out at export time.
    pub faults: usize,
    /// Files of an earlier export into the same directory that are gone now.
    pub removed: usize,
    /// Queue entries that could not be exported whole (or at all), one line each: a user
    /// must learn that the corpus is not the whole queue.
    pub notes: Vec<String>,
}

/// How an export runs and what it writes.
#[derive(Clone, Debug)]
pub struct ExportOptions<'a> {
    /// Record each input's output, for golden-file regression checks.
    pub golden: bool,
    /// Keep only the smallest inputs that together keep the queue's coverage.
    pub distill: bool,
    /// The grammar the `.choices` files are checked against; `None`: the one `fuzz.json` names.
    pub grammar: Option<&'a Path>,
    /// Per-input timeout of the runs.
    pub timeout: Duration,
}

impl Default for ExportOptions<'_> {
    fn default() -> Self {
        ExportOptions {
            golden: false,
            distill: false,
            grammar: None,
            timeout: crate::fuzz::DEFAULT_TIMEOUT,
        }
    }
}

/// Writes `out/NNNN.<ext>` and `NNNN.choices` for every distinct input in the queue of
/// `dir`'s top node (a campaign) or of `dir` (a fuzzing output), then for the minimal
/// reproducer of each of the run's faults (one per bug, over every node), and
/// `out/manifest.json`.
/// Every input is run once, in its own process, for its verdict, its edges and (with
/// `golden`) its output. `out` must be new, empty or an earlier export.
pub fn export(
    dir: &Path,
    out: &Path,
    target: &LinkedTarget,
    options: &ExportOptions,
) -> Result<ExportSummary, Diagnostics> {
    let source = Source::open(dir)?;
    let fuzz = top_fuzz_run(&source, dir, target)?;
    check_out_dir(out)?;
    let (entries, mut notes) = distinct_inputs(&source, &fuzz, options.grammar);
    let runs = run_inputs(&entries, target, options)?;
    let queue_inputs = entries.len();
    let (mut entries, mut runs) = if options.distill {
        distilled(entries, runs)
    } else {
        (entries, runs)
    };
    // Every bug of the run, by its minimal reproducer, after the queue's inputs.
    let grammar = checking_grammar(&fuzz, options.grammar);
    let (faults, fault_notes) = fault_inputs(dir, grammar.as_ref().map_err(|e| e.as_str()));
    notes.extend(fault_notes);
    let faults: Vec<ExportInput> = faults
        .into_iter()
        .filter(|f| entries.iter().all(|e| e.text != f.text))
        .collect();
    runs.extend(run_inputs(&faults, target, options)?);
    entries.extend(faults);
    crate::create_dir(out)?;
    let ext = natural_extension(&fuzz.grammar, &fuzz.target);
    let (inputs, edges, written) =
        write_inputs(out, &source, ext, &entries, &runs, options.golden)?;
    let manifest = CorpusManifest {
        format: CORPUS_FORMAT.to_string(),
        version: 1,
        target: fuzz.target.clone(),
        grammar: relative_to_current_dir(&fuzz.grammar),
        grammar_fingerprint: fuzz.grammar_fingerprint.clone(),
        bounds: fuzz.bounds.clone(),
        source: dir.to_path_buf(),
        golden: options.golden,
        distilled: options.distill,
        queue_inputs,
        edges,
        inputs,
    };
    let json = serde_json::to_string_pretty(&manifest).expect("plain data serializes");
    // The manifest is written last and synced: a reader sees the old corpus or the new one.
    crate::write_atomic(&out.join(CORPUS_MANIFEST), format!("{json}\n").as_bytes())?;
    let removed = remove_stale(out, &written);
    Ok(ExportSummary {
        out: out.to_path_buf(),
        inputs: manifest.inputs.len(),
        edges: manifest.edges,
        valid: runs
            .iter()
            .filter(|r| r.outcome == crate::replay::Outcome::Valid)
            .count(),
        faults: runs.iter().filter(|r| r.outcome.is_fault()).count(),
        removed,
        notes,
    })
}

/// The manifest of the run whose queue is exported: the top node's, which must have run and
/// with this target.
fn top_fuzz_run(
    source: &Source,
    dir: &Path,
    target: &LinkedTarget,
) -> Result<Manifest, Diagnostics> {
    let top = source.top();
    let Some(fuzz) = top.fuzz.clone() else {
        return Err(Diagnostic::error(format!(
            "the top node '{}' has not run yet: nothing to export",
            top.name
        ))
        .in_file(&top.dir)
        .into());
    };
    if fuzz.target != target.name {
        return Err(Diagnostic::error(format!(
            "this output was fuzzed with target '{}', not '{}'",
            fuzz.target, target.name
        ))
        .in_file(dir)
        .into());
    }
    Ok(fuzz)
}

/// The top queue's inputs, first of each text only, with a note for each entry that could not
/// be read whole.
fn distinct_inputs(
    source: &Source,
    fuzz: &Manifest,
    grammar: Option<&Path>,
) -> (Vec<ExportInput>, Vec<String>) {
    let grammar = checking_grammar(fuzz, grammar);
    let (entries, notes) = read_inputs(
        &source.top().dir.join(QUEUE_DIR),
        grammar.as_ref().map_err(|e| e.as_str()),
    );
    let mut seen = HashSet::new();
    let entries = entries
        .into_iter()
        .filter(|e| seen.insert(e.text.clone()))
        .collect();
    (entries, notes)
}

/// One forked run per input, with its output when the export is golden.
fn run_inputs(
    entries: &[ExportInput],
    target: &LinkedTarget,
    options: &ExportOptions,
) -> Result<Vec<Execution>, Diagnostics> {
    let mut runner = ForkedRunner::new(*target, options.timeout).map_err(|e| {
        Diagnostics(vec![Diagnostic::error(format!(
            "cannot set up the target's runs: {e}"
        ))])
    })?;
    Ok(entries
        .iter()
        .map(|e| {
            if options.golden {
                runner.run_with_output(e.text.as_bytes())
            } else {
                runner.run(e.text.as_bytes())
            }
        })
        .collect())
}

/// The inputs `distill` keeps, with their runs, in the order it keeps them.
fn distilled(
    entries: Vec<ExportInput>,
    runs: Vec<Execution>,
) -> (Vec<ExportInput>, Vec<Execution>) {
    let sizes: Vec<usize> = entries.iter().map(|e| e.text.len()).collect();
    let kept = super::distill::distill(&runs, &sizes);
    let mut entries: Vec<_> = entries.into_iter().map(Some).collect();
    let mut runs: Vec<_> = runs.into_iter().map(Some).collect();
    kept.iter()
        .map(|&i| (entries[i].take().unwrap(), runs[i].take().unwrap()))
        .unzip()
}

/// Writes each input (and its choices) under its number; the manifest's entries, the number
/// of distinct edges the inputs cover, and the names written.
fn write_inputs(
    out: &Path,
    source: &Source,
    ext: &str,
    entries: &[ExportInput],
    runs: &[Execution],
    golden: bool,
) -> Result<(Vec<CorpusEntry>, usize, HashSet<String>), Diagnostic> {
    let mut owners: HashMap<u32, usize> = HashMap::new();
    for run in runs {
        for edge in &run.edges {
            *owners.entry(*edge).or_default() += 1;
        }
    }
    let top = source.top();
    let finders = source.finders();
    let width = entries.len().to_string().len().max(4);
    let mut inputs = Vec::new();
    let mut written = HashSet::new();
    for (i, (entry, run)) in entries.iter().zip(runs).enumerate() {
        let file = format!("{:0width$}.{ext}", i + 1);
        crate::write_atomic_unsynced(&out.join(&file), entry.text.as_bytes())?;
        let choices = match &entry.choices {
            Some(bytes) => {
                let name = format!("{:0width$}.{ENTRY_CHOICES}", i + 1);
                crate::write_atomic_unsynced(&out.join(&name), bytes)?;
                written.insert(name.clone());
                Some(name)
            }
            None => None,
        };
        written.insert(file.clone());
        inputs.push(CorpusEntry {
            file,
            choices,
            size: entry.text.len(),
            verdict: run.outcome,
            message: run.message.clone(),
            node: source.campaign.as_ref().map(|_| {
                finders
                    .get(&entry.text)
                    .cloned()
                    .unwrap_or_else(|| top.name.clone())
            }),
            origin: entry
                .origin
                .strip_prefix(&source.root)
                .unwrap_or(&entry.origin)
                .to_string_lossy()
                .into_owned(),
            edges: run.edges.len(),
            unique_edges: run.edges.iter().filter(|e| owners[e] == 1).count(),
            output: run.output.clone().filter(|_| golden),
        });
    }
    Ok((inputs, owners.len(), written))
}

/// The grammar the queue's `.choices` files are checked against, or why there is none. A
/// grammar file edited since the run would fail every entry's check one by one; it is named
/// once instead.
fn checking_grammar(fuzz: &Manifest, given: Option<&Path>) -> Result<Grammar, String> {
    let path = given.unwrap_or(&fuzz.grammar);
    let grammar = crate::import::load(path)
        .map_err(|e| format!("the grammar {} does not load: {e}", path.display()))?
        .grammar;
    let fingerprint = format!("{:016x}", grammar.fingerprint());
    if fingerprint != fuzz.grammar_fingerprint {
        return Err(format!(
            "the grammar {} has fingerprint {fingerprint}, the run's was {}",
            path.display(),
            fuzz.grammar_fingerprint
        ));
    }
    Ok(grammar)
}

/// A corpus is committed next to the grammar it came from (`corpus/starlark/` beside
/// `grammars/starlark.ebnf`); the path in its manifest should hold in every clone, not only on
/// the machine that exported it.
fn relative_to_current_dir(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

/// Refuses to write into a directory that holds anything but an earlier export, so that a
/// typo never scatters files into (or deletes files from) someone's source tree.
fn check_out_dir(out: &Path) -> Result<(), Diagnostic> {
    let non_empty = crate::fs_util::has_entries(out);
    if !non_empty {
        if out.exists() && !out.is_dir() {
            return Err(Diagnostic::error("exists and is not a directory").in_file(out));
        }
        return Ok(());
    }
    if !out.join(CORPUS_MANIFEST).is_file() {
        return Err(Diagnostic::error(
            "the output directory is not empty and holds no exported corpus (manifest.json); \
             choose an empty or new directory",
        )
        .in_file(out));
    }
    CorpusManifest::load(out).map_err(|d| {
        Diagnostic::error(format!(
            "the output directory holds a manifest.json that is not an exported corpus ({}); \
             choose an empty or new directory",
            d.message
        ))
        .in_file(out)
    })?;
    Ok(())
}

/// Numbered inputs of an earlier export that this one did not write again.
fn remove_stale(out: &Path, written: &HashSet<String>) -> usize {
    let Ok(entries) = std::fs::read_dir(out) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let numbered = name
            .split_once('.')
            .is_some_and(|(stem, _)| !stem.is_empty() && stem.bytes().all(|b| b.is_ascii_digit()));
        if numbered && !written.contains(&name) && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The file extension editors and the target's own tools expect for its inputs.
pub fn natural_extension(grammar: &Path, target: &str) -> &'static str {
    let stem = grammar
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let known = |name: &str| match name {
        "starlark" | "star" | "bzl" => Some("star"),
        "wgsl" | "naga" => Some("wgsl"),
        "javascript" | "js" | "oxc" => Some("js"),
        "chocopy" | "python" => Some("py"),
        _ => None,
    };
    known(&stem).or_else(|| known(target)).unwrap_or("txt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_follow_the_language() {
        assert_eq!(
            natural_extension(Path::new("grammars/starlark.ebnf"), "x"),
            "star"
        );
        assert_eq!(natural_extension(Path::new("g/wgsl.ebnf"), "naga"), "wgsl");
        assert_eq!(natural_extension(Path::new("mine.ebnf"), "oxc"), "js");
        assert_eq!(
            natural_extension(Path::new("planted.ebnf"), "planted"),
            "txt"
        );
    }

    #[test]
    fn only_an_earlier_export_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_out_dir(&dir.path().join("new")).is_ok());
        std::fs::write(dir.path().join("main.rs"), "fn main() {}").unwrap();
        let refused = check_out_dir(dir.path()).unwrap_err();
        assert!(refused.message.contains("not empty"), "{}", refused.message);
        std::fs::write(dir.path().join(CORPUS_MANIFEST), "{}").unwrap();
        assert!(check_out_dir(dir.path()).is_err());
    }
}
