//! `bonsai reduce`: the smallest input that keeps a criterion.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::load::load_grammar;
use super::seed::{Fidelity, read_seed};
use super::{Failure, LinkedTarget};
use crate::choice::SavedChoices;
use crate::corpus::EntryFile;
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::parse::with_large_stack;
use crate::parse::{ParseOptions, Parser};
use crate::reduce::{
    Candidate, ContainsText, Criterion, CriterionRefusal, Hdd, Judge, Reduced, ReductionError,
    SameCoverage, SameCrash, Strategy, ddmin,
};
use crate::replay::ForkedRunner;
use crate::sampler::Bounds;
use crate::target::require_instrumented;

#[derive(Args)]
pub struct ReduceArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// The input: a `.choices` file, or any other file, read as text and parsed with the grammar.
    input: PathBuf,
    /// Bounds M,N,D to reduce under; by default the recorded ones, or for text the smallest it
    /// fits.
    #[arg(long, value_name = "M,N,D")]
    bounds: Option<Bounds>,
    /// Keep only inputs that contain TEXT; repeat to require several.
    #[arg(long, value_name = "TEXT")]
    contains: Vec<String>,
    /// Keep the target's coverage (at least) or its crash; needs --target.
    #[arg(long, value_enum, requires = "target")]
    criterion: Option<TargetCriterion>,
    /// The target that --criterion runs (the binary bonsai-TARGET), one forked child per test.
    #[arg(long, value_name = "TARGET", requires = "criterion")]
    target: Option<String>,
    /// Per-run timeout of the target in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
    /// hdd keeps a sentence of the grammar; ddmin and hdd+ddmin may find smaller texts outside it.
    #[arg(long, default_value = "hdd", value_name = "hdd|ddmin|hdd+ddmin")]
    reducer: Strategy,
    /// Stop after this many runs of the criterion, keeping the smallest input found so far.
    #[arg(long, value_name = "N")]
    max_tests: Option<u64>,
    /// Write the reduced text here instead of to stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Also write the reduced choice sequence (while the result is a derivation of the grammar).
    #[arg(long, value_name = "FILE.choices")]
    save_choices: Option<PathBuf>,
}

// The values' descriptions are plain comments: as doc comments, clap would print them
// under the option and turn all of --help into its long form. The book's page has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetCriterion {
    // The reduced input covers at least the edges the original covers.
    Coverage,
    // The reduced input crashes the target with the same signature.
    Crash,
}

/// What is being reduced.
enum Input {
    Choices(SavedChoices),
    Text(String),
}

/// A finished reduction, for the summary.
struct Outcome {
    /// Bytes of the input file's text (or, for a `.choices` file, of its replay).
    before: usize,
    reduced: Reduced,
    tests: u64,
    cached: u64,
    exhausted: bool,
    /// What a target criterion keeps, for the summary.
    kept: Option<String>,
}

pub fn run(args: ReduceArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    if args.contains.is_empty() && args.criterion.is_none() {
        return Err(Diagnostic::error(
            "no criterion to keep: give --contains TEXT, or --target T --criterion coverage|crash",
        )
        .into());
    }
    if args.criterion.is_some() && !args.contains.is_empty() {
        return Err(Diagnostic::error(
            "give either --contains or --criterion, not both: reduction keeps one criterion",
        )
        .into());
    }
    let target = match (&args.target, linked) {
        (Some(name), Some(linked)) if linked.name == name => Some(linked),
        (Some(name), _) => {
            return Err(Diagnostic::error(format!(
                "target '{name}' is not linked into this binary"
            ))
            .into());
        }
        (None, _) => None,
    };
    if let Some(target) = target {
        require_instrumented(target.name)?;
    }
    if args.timeout_ms == 0 {
        return Err(Diagnostic::error("--timeout-ms must be at least 1").into());
    }
    if args.save_choices.is_some() && args.reducer == Strategy::Ddmin {
        return Err(Diagnostic::error(
            "--save-choices needs a grammar-aware reducer: ddmin alone edits text, not choices",
        )
        .into());
    }
    let (grammar, _analysis) = load_grammar(&args.grammar)?;
    let input = read_input(&args.input)?;
    let started = Instant::now();
    // Replay, parsing and HDD recurse as deep as the input nests.
    let outcome = with_large_stack(|| reduce(&grammar, &args, input, target))?;
    match &args.out {
        Some(path) => crate::write_atomic(path, outcome.reduced.text.as_bytes())?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(outcome.reduced.text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Diagnostic::error(format!("cannot write to stdout: {e}")))?;
        }
    }
    let (before, after) = (outcome.before, outcome.reduced.text.len());
    eprintln!(
        "reduced {before} to {after} bytes ({:.1}% smaller) with {} in {} tests ({} answered \
         from cache), {:.2} s",
        100.0 * before.saturating_sub(after) as f64 / before.max(1) as f64,
        args.reducer,
        outcome.tests,
        outcome.cached,
        started.elapsed().as_secs_f64()
    );
    if let Some(kept) = &outcome.kept {
        eprintln!("kept: {kept}");
    }
    if outcome.exhausted {
        eprintln!(
            "stopped at --max-tests {}: the result may not be minimal",
            args.max_tests.unwrap_or_default()
        );
    }
    Ok(())
}

/// The criterion a reduction keeps.
enum Keep {
    Contains(ContainsText),
    Coverage(SameCoverage),
    Crash(SameCrash),
}

impl Criterion for Keep {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        match self {
            Keep::Contains(c) => c.holds(candidate),
            Keep::Coverage(c) => c.holds(candidate),
            Keep::Crash(c) => c.holds(candidate),
        }
    }
}

impl Keep {
    /// Builds the criterion for `original`, the text reduction starts from; a target
    /// criterion runs it once (twice for coverage) to learn what to keep.
    fn new(
        args: &ReduceArgs,
        target: Option<LinkedTarget>,
        original: &str,
    ) -> Result<Keep, Diagnostic> {
        let (Some(criterion), Some(target)) = (args.criterion, target) else {
            return Ok(Keep::Contains(ContainsText::new(
                args.contains.iter().cloned(),
            )));
        };
        let runner = ForkedRunner::new(target, Duration::from_millis(args.timeout_ms))
            .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
        let refused =
            |why: CriterionRefusal| Diagnostic::error(why.to_string()).in_file(&args.input);
        Ok(match criterion {
            TargetCriterion::Coverage => {
                Keep::Coverage(SameCoverage::of_input(runner, original).map_err(refused)?)
            }
            TargetCriterion::Crash => {
                Keep::Crash(SameCrash::of_input(runner, original).map_err(refused)?)
            }
        })
    }

    /// What is kept, for the summary line.
    fn describe(&self) -> Option<String> {
        match self {
            Keep::Contains(_) => None,
            Keep::Coverage(c) => Some(format!("{} edges of the original", c.required().len())),
            Keep::Crash(c) => Some(format!(
                "{} with signature {:016x} ({})",
                c.fault().kind,
                c.fault().signature,
                c.fault().message
            )),
        }
    }
}

fn reduce(
    grammar: &Grammar,
    args: &ReduceArgs,
    input: Input,
    target: Option<LinkedTarget>,
) -> Result<Outcome, Diagnostic> {
    // First the text reduction starts from, and its derivation when a grammar-aware reducer
    // needs one.
    let (before, saved, original) = match input {
        Input::Text(text) if args.reducer == Strategy::Ddmin => (text.len(), None, text),
        Input::Text(text) => {
            let parser = Parser::new(grammar);
            let seed = read_seed(&parser, text.as_bytes(), ParseOptions::keeping_words()).map_err(
                |e| {
                    let mut diagnostic = e.diagnostic(&args.input, &text);
                    diagnostic.message.push_str(
                        " (HDD reduces sentences of the grammar; --reducer ddmin reduces any text)",
                    );
                    diagnostic
                },
            )?;
            match seed.fidelity {
                Fidelity::Layout => eprintln!(
                    "note: {} is reduced as the grammar lays it out; only whitespace differs",
                    args.input.display()
                ),
                Fidelity::Comments => eprintln!(
                    "note: {} is reduced without its comments, as the grammar lays it out",
                    args.input.display()
                ),
                Fidelity::Exact | Fidelity::Renamed => {}
            }
            (text.len(), Some(seed.saved), seed.text)
        }
        Input::Choices(saved) => {
            if saved.check_grammar(grammar.fingerprint()).is_err() {
                tracing::warn!(
                    "{} was recorded with a different grammar than {}; its replay may not be the \
                     input it was",
                    args.input.display(),
                    args.grammar.display()
                );
            }
            let bounds = args.bounds.unwrap_or(saved.bounds);
            let original = Hdd::new(grammar, bounds)?
                .with_words(saved.words.clone())
                .replay(saved.choices.as_slice())
                .map_err(|e| {
                    Diagnostic::error(format!("{e} (bounds {bounds})")).in_file(&args.input)
                })?;
            (original.len(), Some(saved), original)
        }
    };
    let keep = Keep::new(args, target, &original)?;
    let kept = keep.describe();
    let mut judge = Judge::new(keep);
    if let Some(max) = args.max_tests {
        judge = judge.with_max_tests(max);
    }
    let Some(saved) = saved else {
        let reduced = ddmin::reduce_text(&original, &mut judge)
            .map_err(|e| refused(e, &args.input, judge.criterion(), &original))?;
        return Ok(Outcome {
            before,
            reduced: Reduced {
                text: reduced,
                derivation: None,
            },
            tests: judge.tests(),
            cached: judge.cached(),
            exhausted: judge.exhausted(),
            kept,
        });
    };
    let bounds = args.bounds.unwrap_or(saved.bounds);
    let mut hdd = Hdd::new(grammar, bounds)?.with_words(saved.words.clone());
    let reduced = args
        .reducer
        .reduce(&mut hdd, saved.choices.as_slice(), &mut judge)
        .map_err(|e| refused(e, &args.input, judge.criterion(), &original))?;
    match (&args.save_choices, &reduced.derivation) {
        (Some(path), Some(derivation)) => SavedChoices {
            grammar: grammar.fingerprint(),
            bounds,
            choices: derivation.choices.clone(),
            words: saved.words.clone(),
        }
        .write(path)?,
        (Some(path), None) => eprintln!(
            "warning: {} not written: ddmin left the grammar, so the result has no choice \
             sequence",
            path.display()
        ),
        (None, _) => {}
    }
    Ok(Outcome {
        before,
        reduced,
        tests: judge.tests(),
        cached: judge.cached(),
        exhausted: judge.exhausted(),
        kept,
    })
}

fn read_input(path: &Path) -> Result<Input, Diagnostic> {
    if EntryFile::of(path) == Some(EntryFile::Choices) {
        return SavedChoices::read(path).map(Input::Choices);
    }
    let bytes = std::fs::read(path)
        .map_err(|e| Diagnostic::error(format!("cannot read input: {e}")).in_file(path))?;
    String::from_utf8(bytes)
        .map(Input::Text)
        .map_err(|e| Diagnostic::error(format!("input is not UTF-8 text: {e}")).in_file(path))
}

fn refused(error: ReductionError, path: &Path, criterion: &Keep, text: &str) -> Diagnostic {
    let message = match (error, criterion) {
        (ReductionError::NotInteresting, Keep::Contains(contains)) => {
            let missing: Vec<String> = contains
                .missing(text)
                .map(|needle| format!("'{needle}'"))
                .collect();
            format!(
                "the input does not satisfy the criterion to begin with: it lacks {}",
                missing.join(", ")
            )
        }
        (ReductionError::NotInteresting, _) => "the target behaves differently on the input \
             when it is run again (a flaky target?): nothing to keep"
            .to_string(),
        (other, _) => other.to_string(),
    };
    Diagnostic::error(message).in_file(path)
}
