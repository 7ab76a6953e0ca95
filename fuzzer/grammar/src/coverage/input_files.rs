//! Reading a set of inputs as derivations: text files parsed, `.choices` files replayed.

use std::path::{Path, PathBuf};

use super::{Criterion, Tally};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::parse::{ParseOptions, Parser, with_large_stack};
use crate::sampler::replay_strict;
use crate::tree::DerivationTree;

/// Tallies `files` under `criteria`; the files that could not be read as derivations of
/// `grammar` come back with their located reasons, and count for nothing.
pub fn tally_files(
    grammar: &Grammar,
    files: &[PathBuf],
    criteria: &[Criterion],
) -> (Tally, Vec<Diagnostic>) {
    with_large_stack(|| {
        let parser = Parser::new(grammar);
        let mut tally = Tally::for_grammar(grammar, criteria);
        let mut refused = Vec::new();
        for file in files {
            match derivation(grammar, &parser, file) {
                Ok(tree) => tally.add(&tree),
                Err(why) => refused.push(why),
            }
        }
        (tally, refused)
    })
}

/// The derivation tree of one input: replayed from its choices, or parsed from its text.
pub fn derivation(
    grammar: &Grammar,
    parser: &Parser<'_>,
    file: &Path,
) -> Result<DerivationTree, Diagnostic> {
    if file.extension().is_some_and(|e| e == "choices") {
        let saved = crate::choice::SavedChoices::read(file)?;
        if saved.check_grammar(grammar.fingerprint()).is_err() {
            return Err(
                Diagnostic::error("made with another grammar (its fingerprint differs)")
                    .in_file(file),
            );
        }
        return replay_strict(grammar, saved.bounds, saved.choices.as_slice())
            .map(|sample| sample.tree)
            .map_err(|e| Diagnostic::error(format!("does not replay: {e}")).in_file(file));
    }
    let bytes = std::fs::read(file)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(file))?;
    parser
        .parse_bytes(&bytes, ParseOptions::keeping_words())
        .map(|parsed| parsed.tree)
        .map_err(|e| e.diagnostic(file, &String::from_utf8_lossy(&bytes)))
}

/// Files the engine writes beside inputs, which are not inputs themselves.
const NOT_INPUTS: &[&str] = &[
    "meta", "json", "csv", "log", "md", "html", "svg", "lock", "out", "ebnf", "g4",
];

/// Adds `path`'s inputs to `files`: the file itself, or a directory's files recursively in
/// name order, leaving out hidden files, the engine's records and any text file that has a
/// `.choices` twin.
pub fn collect_inputs(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), Diagnostic> {
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
