//! `bonsai coverage GRAMMAR INPUT...`: how well a set of inputs covers the grammar, per
//! criterion, with what no input produced.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Failure;
use super::load::load_grammar;
use crate::coverage::{Criterion, CriterionReport, Requirements, Tally};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::parse::{ParseOptions, Parser, with_large_stack};
use crate::sampler::replay_strict;

#[derive(Args)]
pub struct CoverageArgs {
    /// The grammar file (any format `bonsai import` reads).
    grammar: PathBuf,
    /// Text files, `.choices` files, or directories of them (a fuzzing output, a campaign, an
    /// exported corpus), searched recursively. A text file next to a `.choices` file of the same
    /// name is read through its choices, which say exactly how it was derived.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Comma-separated criteria: symbol, rule, cdrc, kpath:K.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "symbol,rule,cdrc,kpath:1,kpath:2,kpath:3"
    )]
    criteria: Vec<Criterion>,
    /// Missing items shown per criterion (all of them with --json).
    #[arg(long, value_name = "N", default_value_t = 10)]
    show: usize,
    /// One JSON object: the inputs read and refused, and per criterion the counts and every
    /// missing item.
    #[arg(long)]
    json: bool,
}

/// An input that could not be read as a derivation of the grammar, with the reason.
struct Refused(Diagnostic);

pub fn run(args: CoverageArgs) -> Result<(), Failure> {
    let (grammar, analysis) = load_grammar(&args.grammar)?;
    let mut files = Vec::new();
    for input in &args.inputs {
        collect_inputs(input, &mut files)?;
    }
    if files.is_empty() {
        return Err(Diagnostic::error(
            "no inputs found: give text files, .choices files or directories holding them",
        )
        .into());
    }
    let (tally, refused) = with_large_stack(|| {
        let parser = Parser::new(&grammar);
        let mut tally = Tally::new(&args.criteria);
        let mut refused = Vec::new();
        for file in &files {
            match derivation(&grammar, &parser, file) {
                Ok(tree) => tally.add(&tree),
                Err(Refused(why)) => refused.push(why),
            }
        }
        (tally, refused)
    });
    let requirements = Requirements::new(&grammar, &analysis);
    let reports: Vec<CriterionReport> = args
        .criteria
        .iter()
        .map(|&c| CriterionReport::new(&grammar, &requirements, &tally, c))
        .collect();
    if args.json {
        let summary = serde_json::json!({
            "grammar": args.grammar,
            "inputs": tally.trees(),
            "refused": refused.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
            "criteria": reports,
        });
        println!("{summary}");
    } else {
        for why in &refused {
            eprintln!("{why}");
        }
        println!(
            "{} inputs read{}",
            tally.trees(),
            if refused.is_empty() {
                String::new()
            } else {
                format!(", {} refused (not counted; see above)", refused.len())
            }
        );
        for report in &reports {
            print!("{}", report.text(args.show));
        }
    }
    Ok(())
}

/// The derivation tree of one input: replayed from its choices, or parsed from its text.
fn derivation(
    grammar: &Grammar,
    parser: &Parser<'_>,
    file: &Path,
) -> Result<crate::tree::DerivationTree, Refused> {
    if file.extension().is_some_and(|e| e == "choices") {
        let saved = crate::choice::SavedChoices::read(file).map_err(Refused)?;
        if saved.grammar != grammar.fingerprint() {
            return Err(Refused(
                Diagnostic::error("made with another grammar (its fingerprint differs)")
                    .in_file(file),
            ));
        }
        return replay_strict(grammar, saved.bounds, saved.choices.as_slice())
            .map(|sample| sample.tree)
            .map_err(|e| {
                Refused(Diagnostic::error(format!("does not replay: {e}")).in_file(file))
            });
    }
    let bytes = std::fs::read(file)
        .map_err(|e| Refused(Diagnostic::error(format!("cannot read: {e}")).in_file(file)))?;
    parser
        .parse_bytes(&bytes, ParseOptions::default())
        .map(|parsed| parsed.tree)
        .map_err(|e| Refused(e.diagnostic(file, &String::from_utf8_lossy(&bytes))))
}

/// Files the engine writes beside inputs, which are not inputs themselves.
const NOT_INPUTS: &[&str] = &[
    "meta", "json", "csv", "log", "md", "html", "svg", "lock", "out", "ebnf", "g4",
];

/// Adds `path`'s inputs to `files`: the file itself, or a directory's files recursively in
/// name order, leaving out hidden files, the engine's records and any text file that has a
/// `.choices` twin.
fn collect_inputs(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), Diagnostic> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(path))?;
    if !meta.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Diagnostic::error(format!("cannot list: {e}")).in_file(path))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in &entries {
        let name = entry.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.as_deref().is_none_or(|n| n.starts_with('.')) {
            continue;
        }
        if entry.is_dir() {
            collect_inputs(entry, files)?;
            continue;
        }
        let extension = entry.extension().map(|e| e.to_string_lossy().into_owned());
        if extension
            .as_deref()
            .is_some_and(|e| NOT_INPUTS.contains(&e))
        {
            continue;
        }
        let is_choices = extension.as_deref() == Some("choices");
        if !is_choices && entry.with_extension("choices").exists() {
            continue;
        }
        files.push(entry.clone());
    }
    Ok(())
}
