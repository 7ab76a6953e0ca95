//! Reducing every input of a fuzzing queue, each keeping the coverage it contributes: the
//! "reduce" half of the fuzz-then-reduce baseline that Bonsai fuzzing is compared with.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ahash::AHashSet;
use libafl_bolts::rands::{Rand, StdRand};
use serde::Serialize;

use super::{Hdd, Judge, Reproducer, SameCoverage, Strategy, reduce_recorded};
use crate::choice::SavedChoices;
use crate::corpus::{
    Durability, EntryContent, EntryDir, EntryFile, EntryInfo, MANIFEST, Manifest, StoredEntry,
};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::layout::QUEUE_DIR;
use crate::parse::Parser;
use crate::replay::ForkedRunner;
use crate::target::LinkedTarget;

/// How to reduce a corpus.
#[derive(Clone, Copy, Debug)]
pub struct CorpusOptions {
    /// The reducers applied to each input.
    pub strategy: Strategy,
    /// Runs of the target per input at most; the smallest input found so far is kept.
    pub max_tests_per_input: u64,
    /// Per-run timeout of the target.
    pub timeout: Duration,
    /// Reduce only every K-th input (1: all of them). The whole queue is still replayed, so a
    /// sampled input keeps exactly what it contributed to the whole queue, and the sample's
    /// sizes estimate the full reduction's in 1/K of its time: an uncapped HDD reduction of a
    /// 10-minute starlark queue (5,000 inputs, about 3 s each) takes hours.
    pub sample_every: usize,
}

/// What a corpus reduction did; also written to `OUT/reduction.json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CorpusReduction {
    /// The strategy's name as `--reducer` spells it (`hdd`, `ddmin`, `hdd+ddmin`).
    pub reducer: String,
    /// Inputs of the original queue.
    pub inputs: usize,
    /// Inputs written to the reduced queue.
    pub written: usize,
    /// Reduced inputs left out because an earlier one reduced to the same text.
    pub duplicates: usize,
    /// Inputs copied unreduced: unreadable, or not reproducible in a fresh process.
    pub unreduced: usize,
    /// Runs of the target, reduction and measurement included.
    pub tests: u64,
    /// Wall-clock seconds of the whole reduction (it runs on one core: CPU time too).
    pub seconds: f64,
    /// Bytes of the reduced inputs before and after (with a sample, of the sample only).
    pub bytes_before: usize,
    /// Bytes of the same inputs after reduction.
    pub bytes_after: usize,
    /// Every how many inputs one was reduced (1: all).
    pub sample_every: usize,
    /// Inputs reduced so far: all of them, or the sample.
    pub sampled: usize,
    /// CPU seconds (this process and its forked runs) of replaying the whole queue to find
    /// what each input contributed, and of everything so far.
    pub measure_cpu_seconds: f64,
    /// CPU seconds of everything so far, the measurement included.
    pub cpu_seconds: f64,
    /// False while the reduction runs: the summary is rewritten after every input, so a
    /// reduction stopped at a deadline still says what it did.
    pub finished: bool,
}

/// One input of the queue, replayed.
struct Original {
    number: String,
    saved: SavedChoices,
    text: String,
}

/// Reduces every input of `queue` (a fuzzing output's `queue/`) into `out/queue/`, with
/// `out/fuzz.json` copied from `manifest` so that `bonsai replay` and `--seeds` read it as a
/// fuzzing output, and `out/reduction.json`.
///
/// The criterion is the paper's: a reduced input must keep what got the original saved during
/// fuzzing. The queue is replayed in order (the order the fuzzer saved it in); an input must
/// keep the edges no earlier input covered, and an input that was the first valid one to cover
/// some edges must stay valid and keep those. An input that adds no edge at all on replay
/// (Zest also saves new hit counts of known edges) must keep every edge it covers: the
/// conservative choice, since hit counts are not compared. Edges are those two runs of the
/// original agree on, so that nondeterministic coverage cannot make an input fail its own
/// criterion. A reduced input keeps its original
/// number, so `out/queue/000042.txt` is the reduction of `queue/000042.txt`.
pub fn reduce_corpus(
    grammar: &Grammar,
    manifest: &Manifest,
    queue: &Path,
    out: &Path,
    target: LinkedTarget,
    options: CorpusOptions,
) -> Result<CorpusReduction, Diagnostic> {
    let started = Instant::now();
    if crate::fs_util::has_entries(out) {
        return Err(Diagnostic::error(
            "the output directory exists and is not empty; choose a new one",
        )
        .in_file(out));
    }
    let originals = read_queue(grammar, queue)?;
    let out_queue = create_output(out, manifest)?;
    let mut runner = ForkedRunner::new(target, options.timeout)
        .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
    let requirements = requirements(&mut runner, &originals);

    let mut summary = CorpusReduction {
        reducer: options.strategy.to_string(),
        inputs: originals.len(),
        tests: 2 * originals.len() as u64,
        sample_every: options.sample_every.max(1),
        ..CorpusReduction::default()
    };
    let reducer = InputReducer {
        grammar,
        options,
        parser: (options.strategy != Strategy::Hdd).then(|| Parser::new(grammar)),
    };
    let mut written = AHashSet::new();
    summary.measure_cpu_seconds = cpu_seconds();
    let sampled = sample(&originals, requirements, summary.sample_every);
    let summary_path = out.join("reduction.json");
    for (original, requirement) in sampled {
        summary.sampled += 1;
        summary.bytes_before += original.text.len();
        let new_edges = requirement.edges.len() as u32;
        let (reduced, tests);
        (runner, reduced, tests) = reducer.reduce(runner, original, requirement);
        summary.tests += tests;
        let (text, choices) = match reduced {
            Some(r) => (r.text, r.choices),
            None => {
                summary.unreduced += 1;
                (original.text.clone(), Some(original.saved.clone()))
            }
        };
        if !written.insert(text.clone()) {
            summary.duplicates += 1;
            continue;
        }
        let outcome = runner.run(text.as_bytes());
        summary.tests += 1;
        let info = EntryInfo {
            text: text.clone(),
            valid: outcome.is_valid(),
            edges: outcome.edges.len() as u32,
            new_edges,
            parent: original.number.parse().ok(),
            mutator: format!("reduce-{}", options.strategy),
            found_at: started.elapsed().as_secs_f64(),
            ..EntryInfo::default()
        };
        write_entry(&out_queue, &original.number, &info, choices.as_ref())?;
        summary.bytes_after += text.len();
        summary.written += 1;
        if summary.sample_every > 1 {
            write_summary(&mut summary, started, &summary_path)?;
        }
    }
    summary.finished = true;
    write_summary(&mut summary, started, &summary_path)?;
    Ok(summary)
}

/// What an input must keep through its reduction, from replaying the whole queue in order.
struct Requirement {
    /// The edges no earlier input covered (with `must_be_valid`, also those it was the first
    /// valid input to cover); every edge it covers if it added none.
    edges: Vec<u32>,
    /// Whether it was the first valid input to cover some edges.
    must_be_valid: bool,
    /// Whether both of its runs ran normally: a faulting input says nothing about what it
    /// covers, and is kept as it is.
    ran: bool,
}

/// `out/queue/` and `out/fuzz.json`, the manifest that makes `out` read as a fuzzing output.
fn create_output(out: &Path, manifest: &Manifest) -> Result<PathBuf, Diagnostic> {
    let out_queue = out.join(QUEUE_DIR);
    crate::create_dir(&out_queue)?;
    let json = serde_json::to_string_pretty(manifest).expect("plain data serializes");
    crate::write_atomic(&out.join(MANIFEST), format!("{json}\n").as_bytes())?;
    Ok(out_queue)
}

/// Every `every`-th original with its requirement, shuffled when that is a sample (see
/// [`shuffle`]).
fn sample(
    originals: &[Original],
    requirements: Vec<Requirement>,
    every: usize,
) -> Vec<(&Original, Requirement)> {
    let mut sampled: Vec<_> = originals.iter().zip(requirements).step_by(every).collect();
    if every > 1 {
        shuffle(&mut sampled);
    }
    sampled
}

/// Each original's requirement, the queue replayed in the order the fuzzer saved it (two runs
/// per input).
fn requirements(runner: &mut ForkedRunner, originals: &[Original]) -> Vec<Requirement> {
    let mut covered = AHashSet::new();
    let mut covered_valid = AHashSet::new();
    let mut requirements = Vec::with_capacity(originals.len());
    for original in originals {
        let mut outcome = runner.run(original.text.as_bytes());
        // Only the edges two runs agree on: a target whose coverage varies from run to run
        // (hash seeds, caches) would otherwise fail its own criterion and stay unreduced.
        let again = runner.run(original.text.as_bytes());
        outcome
            .edges
            .retain(|e| again.edges.binary_search(e).is_ok());
        // A run that faulted (a timeout on a loaded machine, too) says nothing about what the
        // input covers: such an input is kept as it is.
        let ran = outcome.outcome.ran_normally() && again.outcome.ran_normally();
        let mut required: Vec<u32> = outcome
            .edges
            .iter()
            .copied()
            .filter(|e| covered.insert(*e))
            .collect();
        let mut valid_new = Vec::new();
        if outcome.is_valid() {
            valid_new = outcome
                .edges
                .iter()
                .copied()
                .filter(|e| covered_valid.insert(*e))
                .collect();
        }
        let must_be_valid = !valid_new.is_empty();
        required.extend(valid_new);
        if required.is_empty() {
            required = outcome.edges.clone();
        }
        requirements.push(Requirement {
            edges: required,
            must_be_valid,
            ran,
        });
    }
    requirements
}

/// What every input's reduction shares: the grammar, the options and, unless the strategy is
/// HDD alone, the parser that recovers the choices of a text ddmin edited.
struct InputReducer<'g> {
    grammar: &'g Grammar,
    options: CorpusOptions,
    parser: Option<Parser<'g>>,
}

impl InputReducer<'_> {
    /// Reduces one original under its requirement; `None` where it is kept unreduced. The
    /// runner goes into the criterion and comes back with the tests it ran, so that one forked
    /// runner serves the whole queue.
    fn reduce(
        &self,
        runner: ForkedRunner,
        original: &Original,
        requirement: Requirement,
    ) -> (ForkedRunner, Option<Reproducer>, u64) {
        let criterion =
            SameCoverage::requiring(runner, requirement.edges, requirement.must_be_valid);
        let mut judge = Judge::new(criterion).with_max_tests(self.options.max_tests_per_input);
        let reduced = if requirement.ran {
            reduce_recorded(
                self.grammar,
                &original.saved,
                self.options.strategy,
                &mut judge,
                self.parser.as_ref(),
            )
            .map_err(|why| {
                tracing::warn!("{}: kept unreduced: {why}", original.number);
            })
            .ok()
        } else {
            None
        };
        let tests = judge.tests();
        (judge.into_criterion().into_runner(), reduced, tests)
    }
}

/// Writes a reduced input under its original's number.
fn write_entry(
    out_queue: &Path,
    number: &str,
    info: &EntryInfo,
    choices: Option<&SavedChoices>,
) -> Result<(), Diagnostic> {
    let choices = choices.map(|c| c.to_bytes());
    let meta = info.to_text();
    let content = EntryContent {
        choices: choices.as_deref(),
        text: info.text.as_bytes(),
        meta: Some(meta.as_bytes()),
    };
    StoredEntry::named(out_queue, number).write_all(content, Durability::Unsynced)
}

fn write_summary(
    summary: &mut CorpusReduction,
    started: Instant,
    path: &Path,
) -> Result<(), Diagnostic> {
    summary.seconds = started.elapsed().as_secs_f64();
    summary.cpu_seconds = cpu_seconds();
    let json = serde_json::to_string_pretty(summary).expect("plain data serializes");
    crate::write_atomic(path, format!("{json}\n").as_bytes())
}

/// A sample is reduced in a seeded random order, so that the inputs a reduction stopped at a
/// deadline got through are a random sample too, not the oldest part of the queue (whose
/// inputs are smaller than the later ones).
fn shuffle<T>(items: &mut [T]) {
    let mut rand = StdRand::with_seed(0xB025_A100);
    for i in (1..items.len()).rev() {
        let j = rand.below(NonZeroUsize::new(i + 1).expect("i + 1 > 0"));
        items.swap(i, j);
    }
}

/// User and system CPU seconds of this process and of the children it waited for (every
/// forked run).
fn cpu_seconds() -> f64 {
    let seconds = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut usage) } != 0 {
            return 0.0;
        }
        let time = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        time(usage.ru_utime) + time(usage.ru_stime)
    };
    seconds(libc::RUSAGE_SELF) + seconds(libc::RUSAGE_CHILDREN)
}

/// The queue's inputs in file order, replayed strictly under their recorded bounds.
fn read_queue(grammar: &Grammar, queue: &Path) -> Result<Vec<Original>, Diagnostic> {
    let paths = EntryDir::new(queue)
        .files_of(EntryFile::Choices)
        .map_err(|e| Diagnostic::error(format!("cannot read the queue: {e}")).in_file(queue))?;
    let mut originals = Vec::with_capacity(paths.len());
    for path in paths {
        let number = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let saved = SavedChoices::read(&path)?;
        if let Err(other) = saved.check_grammar(grammar.fingerprint()) {
            return Err(
                Diagnostic::error(format!("{other} than the fuzzing output's own")).in_file(&path),
            );
        }
        let text = Hdd::new(grammar, saved.bounds)?
            .replay(saved.choices.as_slice())
            .map_err(|e| Diagnostic::error(e.to_string()).in_file(&path))?;
        originals.push(Original {
            number,
            saved,
            text,
        });
    }
    Ok(originals)
}
