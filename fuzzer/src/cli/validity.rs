//! `bonsai validity`: what share of a grammar's inputs a target accepts, and where it refuses
//! the rest. The tool for tuning a grammar to a target before fuzzing with it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::load::load_grammar;
use super::{Failure, LinkedTarget};
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::grammar::Grammar;
use crate::replay::{Execution, ForkedRunner, Outcome};
use crate::sampler::Bounds;
use crate::target::{RuleAlternative, ValidityReport, Verdict};

#[derive(Args)]
pub struct ValidityArgs {
    /// The grammar file.
    grammar: PathBuf,
    /// The target to run the inputs on (its binary `bonsai-T` is used).
    #[arg(long)]
    target: String,
    /// Bounds M,N,D for generation.
    #[arg(long, value_name = "M,N,D", value_parser = Bounds::parse_arg)]
    bounds: Bounds,
    /// How many inputs to generate.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Random seed; the same seed gives the same inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many of the most frequent messages to show per stage.
    #[arg(long, default_value_t = 3)]
    messages: usize,
    /// Also print the first input that caused each message shown.
    #[arg(long)]
    examples: bool,
    /// Under each message shown, the rule alternatives common in inputs refused with it, rare in
    /// accepted ones.
    #[arg(long)]
    explain: bool,
    /// Per-input timeout in milliseconds (CPU time); an input that runs longer is a fault.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
}

pub fn run(args: ValidityArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let linked = super::plugin::linked_named(linked, &args.target)?;
    let (grammar, _analysis) = load_grammar(&args.grammar)?;
    // Each input in its own child, as replay runs them: an abort, a stack overflow or a hang
    // is a counted fault, not the end of the measurement (or a measurement that never ends).
    let mut runner = ForkedRunner::new(linked, Duration::from_millis(args.timeout_ms.max(1)))
        .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
    let validity = ValidityReport::measure_with(
        &grammar,
        args.bounds,
        args.count,
        args.seed,
        |_| true,
        |text| verdict(runner.run(text.as_bytes())),
    )?;
    // Alternatives are shown as written, so the file is read again (imports keep the foreign
    // file's positions, so this holds for every format).
    let source = args
        .explain
        .then(|| std::fs::read_to_string(&args.grammar).ok())
        .flatten()
        .map(|text| SourceFile::new(&args.grammar, text));
    let explainer = Explainer {
        grammar: &grammar,
        source: source.as_ref(),
    };
    let report = render(
        &validity,
        &args,
        linked.name,
        args.explain.then_some(&explainer),
    );
    // A reader that hangs up early (`| head`) has all it wanted: not an error.
    match std::io::stdout().lock().write_all(report.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Diagnostic::error(format!("cannot write to stdout: {e}")).into())
        }
        _ => Ok(()),
    }
}

/// A forked run as the verdict the target returned, or the fault it ended in.
fn verdict(run: Execution) -> Result<Verdict, String> {
    match run.outcome {
        Outcome::Valid => Ok(Verdict::Valid),
        Outcome::Invalid => Ok(Verdict::Invalid(run.message)),
        Outcome::Reject => Ok(Verdict::Reject),
        Outcome::Panic
        | Outcome::Crash
        | Outcome::StackOverflow
        | Outcome::Timeout
        | Outcome::RoundTrip
        | Outcome::Differential
        | Outcome::Error => {
            let message = run.fault.map_or(run.message, |f| f.message);
            Err(format!("{}: {message}", run.outcome))
        }
    }
}

/// What `--explain` needs to name a rule alternative: the grammar, and its file when readable.
struct Explainer<'a> {
    grammar: &'a Grammar,
    source: Option<&'a SourceFile>,
}

impl Explainer<'_> {
    /// `rule: alternative as written` with its line, e.g.
    /// `grammars/planted.ebnf:4: stmt = "while" expr "{" stmt* "}"`.
    fn describe(&self, (rule, alternative): RuleAlternative) -> String {
        let rule = self.grammar.rule(rule);
        let written = self.source.and_then(|source| {
            let span = rule.alternatives.get(alternative as usize)?.span;
            let text = source.text.get(span.start as usize..span.end as usize)?;
            let (line, _) = source.line_col(span.start as usize);
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(format!(
                "{}:{line}: {} = {}",
                source.path.display(),
                rule.name,
                text
            ))
        });
        written.unwrap_or_else(|| format!("{}, alternative {}", rule.name, alternative + 1))
    }
}

/// The report as text: totals, then each stage with its most frequent messages, then crashes.
fn render(
    validity: &ValidityReport,
    args: &ValidityArgs,
    target: &str,
    explainer: Option<&Explainer<'_>>,
) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "{} inputs from {} within ({}), seed {}, target {target}",
        validity.inputs,
        args.grammar.display(),
        args.bounds,
        args.seed,
    );
    let row = |out: &mut String, label: &str, n: u64| {
        let _ = writeln!(out, "{label:<24}{n:>8}{:>8.1}%", validity.percent(n));
    };
    row(&mut out, "valid", validity.valid);
    let invalid = validity.invalid.values().map(|t| t.count).sum();
    row(&mut out, "invalid", invalid);
    for (stage, tally) in &validity.invalid {
        row(&mut out, &format!("  {stage}"), tally.count);
        let mut messages: Vec<_> = tally.messages.iter().collect();
        messages.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        for (message, tally) in messages.into_iter().take(args.messages) {
            let _ = writeln!(out, "      {:>6}  {}", tally.count, shorten(message, 100));
            if args.examples {
                for line in tally.example.lines() {
                    let _ = writeln!(out, "              | {line}");
                }
            }
            if let Some(explainer) = explainer {
                let found = validity.over_represented(tally, 0.2, 3);
                if found.is_empty() {
                    let _ = writeln!(out, "              no rule alternative stands out");
                }
                for o in found {
                    let _ = writeln!(
                        out,
                        "              in {:.0}% of these, {:.0}% of valid inputs: {}",
                        100.0 * o.share_refused,
                        100.0 * o.share_valid,
                        shorten(&explainer.describe(o.alternative), 100)
                    );
                }
            }
        }
    }
    row(&mut out, "reject", validity.rejected);
    row(&mut out, "crash", validity.crashes.len() as u64);
    for crash in validity.crashes.iter().take(args.messages) {
        let _ = writeln!(
            out,
            "      input {}: {}\n{}",
            crash.index,
            crash.message,
            crash.input.trim_end()
        );
    }
    out
}

fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}
