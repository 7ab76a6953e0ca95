//! `bonsai replay`: run a corpus through the target and show what each input covers.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::load::load_grammar;
use super::{Failure, LinkedTarget};
use crate::corpus::{EntryFile, MANIFEST, Manifest, input_directory};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::layout::{CRASHES_DIR, HANGS_DIR, QUEUE_DIR};
use crate::regression::{CORPUS_MANIFEST, CorpusManifest};
use crate::replay::{ForkedRunner, input_text, list_inputs};
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ReplayArgs {
    /// The target to run (runs the binary bonsai-TARGET).
    #[arg(long)]
    target: String,
    /// The grammar of the .choices files; by default the one PATH's fuzz.json or manifest.json
    /// names.
    #[arg(long, value_name = "FILE")]
    grammar: Option<PathBuf>,
    /// Per-input timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// One JSON object per input and a total, instead of a table.
    #[arg(long)]
    json: bool,
    /// With --json, also each input's golden output (`Target::output`), as `output`.
    #[arg(long, requires = "json")]
    output: bool,
    /// With --json, also each input's covered edges, as `edge_ids`.
    #[arg(long, requires = "json")]
    edge_ids: bool,
    /// Run every input N times and report the edges not all runs hit (exit 1 if any).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// PATH is an exported corpus: compare it with its manifest; exit 1 if anything changed.
    #[arg(long, conflicts_with_all = ["grammar", "json"])]
    check: bool,
    /// A queue, crashes/ or hangs/ directory, a fuzzing output, an input file, or with --check a
    /// corpus.
    #[arg(value_name = "PATH")]
    dir: PathBuf,
}

/// What one input did.
#[derive(Clone, Debug, Serialize)]
pub struct InputReport {
    pub name: String,
    /// `valid`, `invalid`, `reject`, `panic`, `crash`, `timeout`, or `error` (for an input
    /// that could not be replayed).
    pub verdict: String,
    /// The target's message, the panic message, or why the input could not be replayed.
    pub message: String,
    pub edges: usize,
    /// Edges no input before it in the listing covered.
    pub new_edges: usize,
    /// The target's output, with `--output` (absent when the run panicked or died).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// With `--repeat`: edges some runs of this input hit and others did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unstable_edges: Option<usize>,
    /// With `--edge-ids`: the covered edges, ascending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_ids: Option<Vec<u32>>,
    /// For a fault: its bucket, as `bonsai fuzz` saves and `bonsai faults` lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<BucketReport>,
}

/// A fault's bucket in a replay's report.
#[derive(Clone, Debug, Serialize)]
pub struct BucketReport {
    /// `FaultKind`'s word.
    pub kind: String,
    /// 16 hex digits, as in `.meta` files.
    pub signature: String,
    /// What the bucket was computed from, in words.
    pub location: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReplayTotal {
    pub inputs: usize,
    pub valid: usize,
    pub faults: usize,
    pub edges: usize,
    /// With `--repeat`: inputs with unstable edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unstable_inputs: Option<usize>,
}

/// Each input runs in a forked child: an input that aborts, overflows the stack or hangs is
/// reported as such, instead of ending the replay, and coverage cannot leak between inputs.
pub fn run(args: ReplayArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let target = super::plugin::linked_named(linked, &args.target)?;
    require_instrumented(target.name)?;
    let single = args.dir.is_file();
    if !single && !args.dir.is_dir() {
        return Err(Diagnostic::error("no such file or directory")
            .in_file(&args.dir)
            .into());
    }
    if args.check {
        if single {
            return Err(Diagnostic::error(
                "--check needs an exported corpus directory, not a file",
            )
            .in_file(&args.dir)
            .into());
        }
        return check(&args.dir, &target, Duration::from_millis(args.timeout_ms));
    }
    let grammar = replay_grammar(&args, single)?;
    let inputs = if single {
        vec![args.dir.clone()]
    } else {
        list_inputs(&input_directory(&args.dir))?
    };
    if inputs
        .iter()
        .any(|p| EntryFile::of(p) == Some(EntryFile::Choices))
        && grammar.is_none()
    {
        return Err(Diagnostic::error(
            "replaying .choices files needs the grammar: pass --grammar (or replay a fuzzing output, whose fuzz.json names it)",
        )
        .in_file(&args.dir)
        .into());
    }
    let timeout = Duration::from_millis(args.timeout_ms.max(1));
    let mut runner = ForkedRunner::new(target, timeout)
        .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
    let mut covered = HashSet::new();
    let mut printer = Printer::new(args.json);
    let mut total = ReplayTotal {
        inputs: 0,
        valid: 0,
        faults: 0,
        edges: 0,
        unstable_inputs: (args.repeat > 1).then_some(0),
    };
    for path in &inputs {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let report = match input_text(path, grammar.as_ref()) {
            Ok(text) => replay_input(&mut runner, name, &text, &args, &mut covered),
            Err(error) => InputReport::unreadable(name, error.to_string()),
        };
        total.count(&report);
        printer.report(&report)?;
    }
    total.edges = covered.len();
    printer.total(&total)?;
    match total.unstable_inputs {
        Some(unstable) if unstable > 0 => Err(Failure::Negative(format!(
            "{unstable} of {} inputs covered different edges in {} runs",
            total.inputs, args.repeat
        ))),
        _ => Ok(()),
    }
}

/// The grammar the inputs' `.choices` files need: `--grammar`, else the one PATH's manifest
/// names (PATH's directory's, for a single file); `None` where nothing names one.
fn replay_grammar(args: &ReplayArgs, single: bool) -> Result<Option<Grammar>, Failure> {
    let home = if single {
        args.dir.parent().unwrap_or(Path::new("."))
    } else {
        &args.dir
    };
    let grammar_path = match &args.grammar {
        Some(path) => Some(path.clone()),
        // Another tool's manifest.json (`bonsai negative` writes one beside its texts) names
        // no grammar; texts replay without one, and `.choices` files say that they need it.
        None if home.join(CORPUS_MANIFEST).is_file() => match corpus_grammar(home) {
            Ok(path) => Some(path),
            Err(e) if e.message.starts_with("not a Bonsai corpus manifest") => {
                eprintln!("warning: {e}; its grammar is not used");
                None
            }
            Err(e) => return Err(e.into()),
        },
        None => manifest_grammar(home)?,
    };
    // Through the importer, as every command that takes a grammar: an ANTLR or tree-sitter
    // grammar (named by --grammar or by the run's fuzz.json) is not native EBNF.
    Ok(grammar_path
        .as_deref()
        .map(|path| load_grammar(path).map(|(grammar, _)| grammar))
        .transpose()?)
}

/// Runs one input (`--repeat` times) and reports it; `covered` gathers the edges of the
/// inputs before it, which its new edges are counted against.
fn replay_input(
    runner: &mut ForkedRunner,
    name: String,
    text: &str,
    args: &ReplayArgs,
    covered: &mut HashSet<u32>,
) -> InputReport {
    let outcome = if args.output {
        runner.run_with_output(text.as_bytes())
    } else {
        runner.run(text.as_bytes())
    };
    let unstable_edges =
        (args.repeat > 1).then(|| unstable_edges(runner, text, &outcome.edges, args.repeat));
    let new_edges = outcome.edges.iter().filter(|e| covered.insert(**e)).count();
    let bucket = outcome.fault.as_ref().map(|fault| BucketReport {
        kind: fault.kind.to_string(),
        signature: format!("{:016x}", fault.signature),
        location: fault.location.clone(),
    });
    let edge_ids = args.edge_ids.then(|| {
        let mut ids = outcome.edges.clone();
        ids.sort_unstable();
        ids
    });
    InputReport {
        name,
        verdict: outcome.outcome.to_string(),
        message: outcome.message,
        edges: outcome.edges.len(),
        new_edges,
        output: outcome.output,
        unstable_edges,
        edge_ids,
        bucket,
    }
}

/// The edges some of `repeat` runs of `text` hit and others did not, `first` being the edges
/// of the run already made.
fn unstable_edges(runner: &mut ForkedRunner, text: &str, first: &[u32], repeat: u32) -> usize {
    let mut union: HashSet<u32> = first.iter().copied().collect();
    let mut every = union.clone();
    for _ in 1..repeat {
        let again: HashSet<u32> = runner.run(text.as_bytes()).edges.into_iter().collect();
        every.retain(|e| again.contains(e));
        union.extend(again);
    }
    union.len() - every.len()
}

impl InputReport {
    /// An input that could not be replayed: unreadable, or its choices not those of the grammar.
    fn unreadable(name: String, message: String) -> Self {
        Self {
            name,
            verdict: "error".into(),
            message,
            edges: 0,
            new_edges: 0,
            output: None,
            unstable_edges: None,
            edge_ids: None,
            bucket: None,
        }
    }
}

impl ReplayTotal {
    /// Adds one input's report; the edges are counted apart, as their union.
    fn count(&mut self, report: &InputReport) {
        self.inputs += 1;
        self.valid += usize::from(report.verdict == "valid");
        self.faults += usize::from(matches!(
            report.verdict.as_str(),
            "panic" | "crash" | "stack-overflow" | "timeout"
        ));
        if let (Some(unstable), Some(n)) = (&mut self.unstable_inputs, report.unstable_edges) {
            *unstable += usize::from(n > 0);
        }
    }
}

/// Replays an exported corpus against its manifest: a regression test for a changed compiler.
fn check(dir: &Path, target: &LinkedTarget, timeout: Duration) -> Result<(), Failure> {
    if !dir.join(CORPUS_MANIFEST).is_file() {
        return Err(Diagnostic::error(format!(
            "--check needs an exported corpus (with {CORPUS_MANIFEST}); make one with `bonsai export`"
        ))
        .in_file(dir)
        .into());
    }
    let report = crate::regression::check(dir, target, timeout)?;
    for change in &report.changes {
        println!("{}", change.describe());
    }
    let changed: HashSet<&str> = report.changes.iter().map(|c| c.file.as_str()).collect();
    println!(
        "checked {} inputs: {} changed; {} edges covered (export: {})",
        report.inputs,
        changed.len(),
        report.edges,
        report.expected_edges
    );
    if report.changes.is_empty() {
        Ok(())
    } else {
        Err(Failure::Negative(format!(
            "{} of {} inputs changed since the export",
            changed.len(),
            report.inputs
        )))
    }
}

/// The grammar named by the `fuzz.json` of the fuzzing output `dir` is, or whose `queue/`,
/// `crashes/` or `hangs/` it is: a user replaying the crashes of a run should not have to
/// say which grammar the run used.
fn manifest_grammar(dir: &Path) -> Result<Option<PathBuf>, Diagnostic> {
    let inside = dir.file_name().is_some_and(|name| {
        [QUEUE_DIR, CRASHES_DIR, HANGS_DIR]
            .iter()
            .any(|n| name == *n)
    });
    let output = match dir.parent() {
        Some(parent) if inside && !dir.join(MANIFEST).is_file() => parent,
        _ => dir,
    };
    let path = output.join(MANIFEST);
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(&path))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Diagnostic::error(format!("not a Bonsai fuzzing manifest: {e}")).in_file(&path)
    })?;
    Ok(Some(manifest.grammar))
}

/// The grammar an exported corpus's `manifest.json` names. Export records it relative to the
/// directory it ran in (`grammars/starlark.ebnf`), so it is looked for there, from here, and
/// from each directory above the corpus (a corpus committed in a repository is replayed from
/// anywhere in it); of the files found, the one with the recorded fingerprint wins.
fn corpus_grammar(dir: &Path) -> Result<PathBuf, Diagnostic> {
    let manifest = CorpusManifest::load(dir)?;
    let named = &manifest.grammar;
    let mut candidates = vec![named.clone()];
    if named.is_relative() {
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        candidates.extend(absolute.ancestors().map(|a| a.join(named)));
    }
    let found: Vec<PathBuf> = candidates.into_iter().filter(|p| p.is_file()).collect();
    let matches = |path: &PathBuf| {
        crate::import::load(path).is_ok_and(|imported| {
            format!("{:016x}", imported.grammar.fingerprint()) == manifest.grammar_fingerprint
        })
    };
    if let Some(path) = found.iter().find(|p| matches(p)) {
        return Ok(path.clone());
    }
    match found.into_iter().next() {
        Some(path) => {
            eprintln!(
                "warning: {} is not the grammar the corpus was exported with (fingerprint {}); \
                 its .choices files will not replay",
                path.display(),
                manifest.grammar_fingerprint
            );
            Ok(path)
        }
        None => Err(Diagnostic::error(format!(
            "the corpus's grammar '{}' is not found here or in a directory above the corpus: \
             pass --grammar",
            named.display()
        ))
        .in_file(&dir.join(CORPUS_MANIFEST))),
    }
}

/// Prints each input's line as soon as it ran, flushed: a reader of `--json` can stop the
/// replay at the first line it cares about (scripts/mutation-score stops at the first
/// changed verdict), and lines a child process writes to the shared stdout stay next to the
/// input that caused them.
struct Printer {
    json: bool,
    out: std::io::Stdout,
}

impl Printer {
    fn new(json: bool) -> Self {
        Self {
            json,
            out: std::io::stdout(),
        }
    }

    fn write(&mut self, line: &str) -> Result<(), Failure> {
        let mut out = self.out.lock();
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| Diagnostic::error(format!("cannot write to stdout: {e}")).into())
    }

    fn report(&mut self, r: &InputReport) -> Result<(), Failure> {
        if self.json {
            return self.write(&serde_json::to_string(r).expect("plain data"));
        }
        let message = match (&r.bucket, r.message.is_empty()) {
            (Some(bucket), _) => format!("  {}  [{}]", r.message, bucket.location),
            (None, true) => String::new(),
            (None, false) => format!("  {}", r.message),
        };
        let unstable = match r.unstable_edges {
            Some(n) => format!("  unstable {n:>3}"),
            None => String::new(),
        };
        self.write(&format!(
            "{:<16} {:<8} edges {:>6}  new {:>5}{unstable}{message}",
            r.name, r.verdict, r.edges, r.new_edges
        ))
    }

    fn total(&mut self, total: &ReplayTotal) -> Result<(), Failure> {
        if self.json {
            return self.write(&serde_json::json!({ "total": total }).to_string());
        }
        let unstable = match total.unstable_inputs {
            Some(n) => format!(", {n} inputs with unstable edges"),
            None => String::new(),
        };
        self.write(&format!(
            "total: {} inputs ({} valid, {} faults), {} edges covered{unstable}",
            total.inputs, total.valid, total.faults, total.edges
        ))
    }
}
