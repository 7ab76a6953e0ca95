//! `bonsai negative GRAMMAR (--from DIR | --cover CRITERION) --ops word,rule [--max N] --out
//! DIR`: words outside the grammar's language, each with the place a correct parser must
//! reject it, mutated from positive words or derived through mutated rules.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::load::load_grammar;
use super::{Failure, LinkedTarget};
use crate::bounds::{Bounds, MAX_BOUND};
use crate::coverage::Criterion;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::negative::{Operators, generate, write_suite};
use crate::parse::{Parser, with_large_stack};
use crate::replay::{ForkedRunner, Outcome};
use crate::tree::DerivationTree;

#[derive(Args)]
pub struct NegativeArgs {
    /// The grammar file (any format `bonsai import` reads).
    grammar: PathBuf,
    /// Positive words to mutate: every file of this directory, each of which must parse.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with = "cover",
        required_unless_present = "cover"
    )]
    from: Option<PathBuf>,
    /// Positive words to mutate: the cover suite of this criterion (symbol, rule, cdrc, ...).
    #[arg(long, value_name = "CRITERION")]
    cover: Option<Criterion>,
    /// Operator families, comma-separated: word (token edits), rule (symbol edits in rules).
    #[arg(long, value_name = "OPS", default_value = "word,rule", value_parser = parse_ops)]
    ops: Operators,
    /// At most this many negatives, split evenly among the operators.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max: usize,
    /// A new or empty directory for NNNN.txt and manifest.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also run every negative through this target, and report its verdicts and faults.
    #[arg(long)]
    target: Option<String>,
    /// Per-input timeout in milliseconds (CPU time) with --target; longer is a hang.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    timeout_ms: u64,
}

fn parse_ops(text: &str) -> Result<Operators, String> {
    let mut ops = Operators {
        word: false,
        rule: false,
    };
    for part in text.split(',') {
        match part.trim() {
            "word" => ops.word = true,
            "rule" => ops.rule = true,
            other => {
                return Err(format!(
                    "unknown operator family '{other}'; known: word, rule"
                ));
            }
        }
    }
    Ok(ops)
}

pub fn run(args: NegativeArgs, linked: Option<LinkedTarget>) -> Result<(), Failure> {
    let linked = match &args.target {
        Some(name) => Some(super::plugin::linked_named(linked, name)?),
        None => None,
    };
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    if crate::fs_util::has_entries(&args.out) {
        return Err(Diagnostic::error(
            "the output directory is not empty; write the suite into a new directory",
        )
        .in_file(&args.out)
        .into());
    }
    let (trees, names, texts) = match (&args.from, args.cover) {
        (Some(dir), _) => read_positives(&grammar, dir)?,
        (None, Some(criterion)) => {
            let bounds = Bounds::new(1, MAX_BOUND, MAX_BOUND)
                .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?;
            let suite =
                with_large_stack(|| crate::cover::cover(&grammar, &analysis, criterion, bounds))
                    .map_err(|e| Diagnostic::error(e.to_string()))?;
            let mut trees = Vec::new();
            let mut names = Vec::new();
            let mut texts = Vec::new();
            for (i, word) in suite.words.into_iter().enumerate() {
                trees.push(word.tree);
                names.push(format!("{criterion} word {}", i + 1));
                texts.push(word.text);
            }
            (trees, names, texts)
        }
        (None, None) => {
            return Err(Diagnostic::error(
                "give the positive words: --from DIR or --cover CRITERION",
            )
            .into());
        }
    };
    let (negatives, summary) =
        with_large_stack(|| generate(&grammar, &analysis, &trees, &names, args.ops, args.max));
    crate::create_dir(&args.out)?;
    write_suite(&args.out, &grammar.name, &negatives, &summary)?;
    let mut report = format!(
        "{}: {} negatives in {}; {} positive words ({} left out); {} of {} token pairs poisoned\n",
        grammar.name,
        negatives.len(),
        args.out.display(),
        summary.positives.0,
        summary.positives.1,
        summary.poisoned_pairs.0,
        summary.poisoned_pairs.1,
    );
    for (name, count) in &summary.operators {
        report.push_str(&format!(
            "    {name}: {} emitted, {} possible, {} undecidable (skipped)\n",
            count.emitted, count.possible, count.undecidable
        ));
    }
    if let Some(linked) = linked {
        let mut runner =
            ForkedRunner::new(linked, Duration::from_millis(args.timeout_ms.max(1)))
                .map_err(|e| Diagnostic::error(format!("cannot set up the target's runs: {e}")))?;
        let mut findings = judge(&negatives, &mut runner, &args.out)?;
        report.push_str(&findings.summary(linked.name));
        report.push('\n');
        report.push_str(&judge_positives(
            &names,
            &texts,
            &mut runner,
            &mut findings.json,
        ));
        let text = serde_json::to_string_pretty(&findings.json)
            .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?;
        crate::write_atomic(&args.out.join("target.json"), text.as_bytes())?;
    }
    // A reader that hangs up early (`| head`) has all it wanted: not an error.
    match std::io::stdout().lock().write_all(report.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Diagnostic::error(format!("cannot write to stdout: {e}")).into())
        }
        _ => Ok(()),
    }
}

/// The positive side: words of the grammar the target refuses are where the target's
/// language is narrower than the grammar (or the grammar wider than the language). Adds them
/// to the report's JSON and returns the summary lines.
fn judge_positives(
    names: &[String],
    texts: &[String],
    runner: &mut ForkedRunner,
    json: &mut serde_json::Value,
) -> String {
    let mut refused = Vec::new();
    for (name, text) in names.iter().zip(texts) {
        let run = runner.run(text.as_bytes());
        if run.outcome != Outcome::Valid {
            let message = run.fault.map_or(run.message, |f| f.message);
            refused.push(serde_json::json!({
                "positive": name,
                "outcome": run.outcome.as_str(),
                "message": message,
            }));
        }
    }
    let mut out = format!(
        "    positive words refused: {} of {}",
        refused.len(),
        texts.len()
    );
    for entry in refused.iter().take(5) {
        out.push_str(&format!(
            "\n      {}: {} {}",
            entry["positive"].as_str().unwrap_or(""),
            entry["outcome"].as_str().unwrap_or(""),
            entry["message"].as_str().unwrap_or("")
        ));
    }
    out.push('\n');
    json["positives_refused"] = serde_json::Value::Array(refused);
    out
}

/// What the target made of the negatives.
struct Findings {
    /// Per operator, then per pair or rule relied on: how many negatives the target accepted.
    accepted: BTreeMap<(&'static str, String), Vec<usize>>,
    /// Refusals, by where the target's first `line:column` lies against the oracle's token.
    refused: BTreeMap<&'static str, usize>,
    /// Refusals by the stage the target names first in its message (`parse: ...`).
    stages: BTreeMap<String, usize>,
    /// Panics, crashes and hangs: the negative's number, the outcome and the message.
    faults: Vec<(usize, String, String)>,
    json: serde_json::Value,
}

impl Findings {
    fn summary(&self, target: &str) -> String {
        let mut out = format!(
            "target {target}: {} accepted, {} refused, {} faults",
            self.accepted.values().map(Vec::len).sum::<usize>(),
            self.refused.values().sum::<usize>(),
            self.faults.len()
        );
        for ((operator, relies_on), files) in &self.accepted {
            let first = files.first().map_or(0, |f| *f + 1);
            out.push_str(&format!(
                "\n    accepted {operator} x{} ({relies_on}), e.g. {first:04}.txt",
                files.len()
            ));
        }
        for (place, n) in &self.refused {
            out.push_str(&format!("\n    refused {place}: {n}"));
        }
        for (stage, n) in &self.stages {
            out.push_str(&format!("\n    refused by stage '{stage}': {n}"));
        }
        for (i, outcome, message) in &self.faults {
            out.push_str(&format!("\n    {outcome} on {:04}.txt: {message}", i + 1));
        }
        out
    }
}

/// Runs every negative; a fault's input is copied to `out/faults/` with its message.
fn judge(
    negatives: &[crate::negative::Negative],
    runner: &mut ForkedRunner,
    out: &Path,
) -> Result<Findings, Failure> {
    let mut findings = Findings {
        accepted: BTreeMap::new(),
        refused: BTreeMap::new(),
        stages: BTreeMap::new(),
        faults: Vec::new(),
        json: serde_json::Value::Null,
    };
    let mut entries = Vec::new();
    for (i, negative) in negatives.iter().enumerate() {
        let run = runner.run(negative.text.as_bytes());
        let source = SourceFile::new("", negative.text.as_str());
        let oracle = source.line_col(negative.token_offset);
        let mut place = None;
        match run.outcome {
            Outcome::Valid => findings
                .accepted
                .entry((negative.operator, negative.relies_on.clone()))
                .or_default()
                .push(i),
            Outcome::Invalid | Outcome::Reject => {
                let at = first_position(&run.message);
                let where_ = match at {
                    None => "without a position",
                    Some(at) if at == oracle => "at the oracle's token",
                    Some(at) if at < oracle => "before the oracle's token",
                    Some(_) => "after the oracle's token",
                };
                *findings.refused.entry(where_).or_default() += 1;
                let stage = run
                    .message
                    .split_once(':')
                    .map_or("(none)", |(stage, _)| stage)
                    .trim()
                    .to_string();
                *findings.stages.entry(stage).or_default() += 1;
                place = at.map(|(l, c)| format!("{l}:{c}"));
            }
            _ => {
                let message = run
                    .fault
                    .as_ref()
                    .map_or(run.message.clone(), |f| f.message.clone());
                let dir = out.join("faults");
                crate::create_dir(&dir)?;
                crate::write_atomic(
                    &dir.join(format!("{:04}.txt", i + 1)),
                    negative.text.as_bytes(),
                )?;
                crate::write_atomic(
                    &dir.join(format!("{:04}.message", i + 1)),
                    message.as_bytes(),
                )?;
                findings
                    .faults
                    .push((i, run.outcome.as_str().to_string(), message));
            }
        }
        entries.push(serde_json::json!({
            "file": format!("{:04}.txt", i + 1),
            "operator": negative.operator,
            "relies_on": negative.relies_on,
            "oracle": format!("{}:{}", oracle.0, oracle.1),
            "outcome": run.outcome.as_str(),
            "message": run.message,
            "target_position": place,
        }));
    }
    findings.json = serde_json::json!({ "runs": entries });
    Ok(findings)
}

/// The first `line:column` in a target's message, as compilers print them.
fn first_position(message: &str) -> Option<(usize, usize)> {
    let bytes = message.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            let line_end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if bytes.get(line_end) == Some(&b':') {
                let col_end = line_end
                    + 1
                    + bytes[line_end + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                if col_end > line_end + 1 {
                    let line = message[i..line_end].parse().ok()?;
                    let column = message[line_end + 1..col_end].parse().ok()?;
                    return Some((line, column));
                }
            }
            i = line_end;
        } else {
            i += 1;
        }
    }
    None
}

/// Positive words: their derivations, names and texts, in the same order.
type Positives = (Vec<DerivationTree>, Vec<String>, Vec<String>);

/// Every file of `dir`, in name order, parsed; a file that does not parse is not a positive
/// word, and is reported where it fails.
fn read_positives(grammar: &crate::grammar::Grammar, dir: &Path) -> Result<Positives, Failure> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Diagnostic::error(format!("cannot read the directory: {e}")).in_file(dir))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Diagnostic::error("no files to mutate in the directory")
            .in_file(dir)
            .into());
    }
    with_large_stack(|| {
        let parser = Parser::new(grammar);
        let mut trees = Vec::new();
        let mut names = Vec::new();
        let mut texts = Vec::new();
        for file in &files {
            let bytes = std::fs::read(file).map_err(|e| {
                Diagnostic::error(format!("cannot read the file: {e}")).in_file(file)
            })?;
            let text = String::from_utf8_lossy(&bytes);
            let parsed = parser.parse(&text).map_err(|e| e.diagnostic(file, &text))?;
            trees.push(parsed.tree);
            names.push(file.display().to_string());
            texts.push(text.into_owned());
        }
        Ok((trees, names, texts))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_read_as_compilers_print_them() {
        assert_eq!(
            first_position("parse: 1:12: expected a number"),
            Some((1, 12))
        );
        assert_eq!(first_position("error at 3:4"), Some((3, 4)));
        assert_eq!(first_position("took 12 ms: 5: no"), None);
        assert_eq!(first_position("no position"), None);
    }
}
