//! `bonsai negative GRAMMAR (--from DIR | --cover CRITERION) --ops word,rule [--max N] --out
//! DIR`: words outside the grammar's language, each with the place a correct parser must
//! reject it, mutated from positive words or derived through mutated rules.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Failure;
use super::load::load_grammar;
use crate::bounds::{Bounds, MAX_BOUND};
use crate::coverage::Criterion;
use crate::diagnostic::Diagnostic;
use crate::negative::{Operators, generate, write_suite};
use crate::parse::{Parser, with_large_stack};
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
    /// Operator families, comma-separated: word (token deletion, insertion, substitution,
    /// transposition of the positive words), rule (symbol deletion and insertion in rules).
    #[arg(long, value_name = "OPS", default_value = "word,rule", value_parser = parse_ops)]
    ops: Operators,
    /// At most this many negatives, split evenly among the operators.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max: usize,
    /// A new or empty directory for NNNN.txt and manifest.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
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

pub fn run(args: NegativeArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    if crate::fs_util::has_entries(&args.out) {
        return Err(Diagnostic::error(
            "the output directory is not empty; write the suite into a new directory",
        )
        .in_file(&args.out)
        .into());
    }
    let (trees, names) = match (&args.from, args.cover) {
        (Some(dir), _) => read_positives(&grammar, dir)?,
        (None, Some(criterion)) => {
            let bounds = Bounds::new(1, MAX_BOUND, MAX_BOUND)
                .map_err(|e| Diagnostic::error(format!("internal error: {e}")))?;
            let suite =
                with_large_stack(|| crate::cover::cover(&grammar, &analysis, criterion, bounds))
                    .map_err(|e| Diagnostic::error(e.to_string()))?;
            suite
                .words
                .into_iter()
                .enumerate()
                .map(|(i, word)| (word.tree, format!("{criterion} word {}", i + 1)))
                .unzip()
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
    println!(
        "{}: {} negatives in {}; {} positive words ({} left out); {} of {} token pairs poisoned",
        grammar.name,
        negatives.len(),
        args.out.display(),
        summary.positives.0,
        summary.positives.1,
        summary.poisoned_pairs.0,
        summary.poisoned_pairs.1,
    );
    for (name, count) in &summary.operators {
        println!(
            "    {name}: {} emitted, {} possible, {} undecidable (skipped)",
            count.emitted, count.possible, count.undecidable
        );
    }
    Ok(())
}

/// Every file of `dir`, in name order, parsed; a file that does not parse is not a positive
/// word, and is reported where it fails.
fn read_positives(
    grammar: &crate::grammar::Grammar,
    dir: &Path,
) -> Result<(Vec<DerivationTree>, Vec<String>), Failure> {
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
        for file in &files {
            let bytes = std::fs::read(file).map_err(|e| {
                Diagnostic::error(format!("cannot read the file: {e}")).in_file(file)
            })?;
            let text = String::from_utf8_lossy(&bytes);
            let parsed = parser.parse(&text).map_err(|e| e.diagnostic(file, &text))?;
            trees.push(parsed.tree);
            names.push(file.display().to_string());
        }
        Ok((trees, names))
    })
}
