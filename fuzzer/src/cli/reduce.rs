//! `bonsai reduce`: the smallest input that keeps a criterion.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, ValueEnum};

use super::load::load_grammar;
use super::seed::{Fidelity, read_seed, with_large_stack};
use super::{Failure, LinkedTarget};
use crate::choice::SavedChoices;
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::parse::{ParseOptions, Parser};
use crate::reduce::{ContainsText, Hdd, Judge, Reduced, ReductionError, Strategy, ddmin};
use crate::sampler::Bounds;

#[derive(Args)]
pub struct ReduceArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// The input: a `.choices` file (from `generate --save-choices`, `parse --to-choices` or a
    /// corpus), or any other file, read as text and parsed with the grammar (ddmin alone needs
    /// no parse).
    input: PathBuf,
    /// Bounds M,N,D to replay and reduce the input under; by default the bounds it was
    /// recorded with, or for text the smallest it fits. Reduction only removes, so larger
    /// bounds matter only where hoisting needs a context that the depth bound forbids.
    #[arg(long, value_name = "M,N,D")]
    bounds: Option<Bounds>,
    /// Keep only inputs that contain TEXT; repeat to require several.
    #[arg(long, value_name = "TEXT")]
    contains: Vec<String>,
    /// Keep what the target does with the input: at least the same coverage, or the same
    /// crash. Needs --target.
    #[arg(long, value_enum, requires = "target")]
    criterion: Option<TargetCriterion>,
    /// The target that --criterion runs (the binary bonsai-TARGET).
    #[arg(long, value_name = "TARGET", requires = "criterion")]
    target: Option<String>,
    /// hdd keeps a sentence of the grammar; ddmin (lines, then characters) and hdd+ddmin
    /// find smaller texts that may lie outside it.
    #[arg(long, default_value = "hdd", value_name = "hdd|ddmin|hdd+ddmin")]
    reducer: Strategy,
    /// Stop after this many runs of the criterion, keeping the smallest input found so far.
    #[arg(long, value_name = "N")]
    max_tests: Option<u64>,
    /// Write the reduced text here instead of to stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Also write the reduced choice sequence, which replays to the reduced text (only while
    /// the result is a derivation of the grammar).
    #[arg(long, value_name = "FILE.choices")]
    save_choices: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TargetCriterion {
    /// The reduced input covers at least the edges the original covers.
    Coverage,
    /// The reduced input crashes the target with the same signature.
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
}

pub fn run(args: ReduceArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    if args.contains.is_empty() && args.criterion.is_none() {
        return Err(Diagnostic::error(
            "no criterion to keep: give --contains TEXT, or --target T --criterion coverage|crash",
        )
        .into());
    }
    if let Some(criterion) = args.criterion {
        // Forwarding guarantees the target is linked when --target was given.
        let name = linked.map_or("?", |t| t.name);
        return Err(Diagnostic::error(format!(
            "--criterion {} on target '{name}' needs the fuzzing loop's executor (running an \
             input, reading its edges, classifying its crash), which this build does not have \
             yet; use --contains meanwhile",
            criterion
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string())
        ))
        .into());
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
    let outcome = with_large_stack(|| reduce(&grammar, &args, input))?;
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
    if outcome.exhausted {
        eprintln!(
            "stopped at --max-tests {}: the result may not be minimal",
            args.max_tests.unwrap_or_default()
        );
    }
    Ok(())
}

fn reduce(grammar: &Grammar, args: &ReduceArgs, input: Input) -> Result<Outcome, Diagnostic> {
    let criterion = ContainsText::new(args.contains.iter().cloned());
    let mut judge = Judge::new(criterion.clone());
    if let Some(max) = args.max_tests {
        judge = judge.with_max_tests(max);
    }
    let (before, saved, original) = match input {
        Input::Text(text) if args.reducer == Strategy::Ddmin => {
            let reduced = ddmin::reduce_text(&text, &mut judge)
                .map_err(|e| refused(e, &args.input, &criterion, &text))?;
            return Ok(Outcome {
                before: text.len(),
                reduced: Reduced {
                    text: reduced,
                    derivation: None,
                },
                tests: judge.tests(),
                cached: judge.cached(),
                exhausted: judge.exhausted(),
            });
        }
        Input::Text(text) => {
            let parser = Parser::new(grammar);
            let seed =
                read_seed(&parser, text.as_bytes(), ParseOptions::default()).map_err(|e| {
                    let mut diagnostic = e.diagnostic(&args.input, &text);
                    diagnostic.message.push_str(
                        " (HDD reduces sentences of the grammar; --reducer ddmin reduces any text)",
                    );
                    diagnostic
                })?;
            if seed.fidelity == Fidelity::Layout {
                eprintln!(
                    "note: {} is reduced as the grammar lays it out; only whitespace differs",
                    args.input.display()
                );
            }
            (text.len(), seed.saved, seed.text)
        }
        Input::Choices(saved) => {
            if saved.grammar != grammar.fingerprint() {
                tracing::warn!(
                    "{} was recorded with a different grammar than {}; its replay may not be the \
                     input it was",
                    args.input.display(),
                    args.grammar.display()
                );
            }
            let bounds = args.bounds.unwrap_or(saved.bounds);
            let original = Hdd::new(grammar, bounds)?
                .replay(saved.choices.as_slice())
                .map_err(|e| {
                    Diagnostic::error(format!("{e} (bounds {bounds})")).in_file(&args.input)
                })?;
            (original.len(), saved, original)
        }
    };
    let bounds = args.bounds.unwrap_or(saved.bounds);
    let mut hdd = Hdd::new(grammar, bounds)?;
    let reduced = args
        .reducer
        .reduce(&mut hdd, saved.choices.as_slice(), &mut judge)
        .map_err(|e| refused(e, &args.input, &criterion, &original))?;
    match (&args.save_choices, &reduced.derivation) {
        (Some(path), Some(derivation)) => SavedChoices {
            grammar: grammar.fingerprint(),
            bounds,
            choices: derivation.choices.clone(),
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
    })
}

fn read_input(path: &Path) -> Result<Input, Diagnostic> {
    if path.extension().is_some_and(|e| e == "choices") {
        return SavedChoices::read(path).map(Input::Choices);
    }
    let bytes = std::fs::read(path)
        .map_err(|e| Diagnostic::error(format!("cannot read input: {e}")).in_file(path))?;
    String::from_utf8(bytes)
        .map(Input::Text)
        .map_err(|e| Diagnostic::error(format!("input is not UTF-8 text: {e}")).in_file(path))
}

fn refused(error: ReductionError, path: &Path, criterion: &ContainsText, text: &str) -> Diagnostic {
    let message = match error {
        ReductionError::NotInteresting => {
            let missing: Vec<String> = criterion
                .missing(text)
                .map(|needle| format!("'{needle}'"))
                .collect();
            format!(
                "the input does not satisfy the criterion to begin with: it lacks {}",
                missing.join(", ")
            )
        }
        other => other.to_string(),
    };
    Diagnostic::error(message).in_file(path)
}
