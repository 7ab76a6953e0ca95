//! Which importer reads a file. The extension decides where it can (`.g4` is ANTLR, `.ebnf`
//! and anything unknown are native); a `.json` file is looked at, since tree-sitter and
//! fuzzingbook both use JSON: tree-sitter's has `"name"` and `"rules"`, fuzzingbook's maps
//! `<nonterminal>` keys to expansions, bare or wrapped as `{"start", "grammar"}`.

use std::fmt;

use jsonc_parser::ast::Value;

use super::json_text;
use crate::diagnostic::{Diagnostic, SourceFile};

/// The grammar formats Bonsai reads; which one applies is decided per file by `detect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Bonsai's own EBNF, loaded without conversion.
    Native,
    /// An ANTLR4 `.g4` file.
    Antlr,
    /// A tree-sitter `grammar.json`.
    TreeSitter,
    /// A fuzzingbook grammar dictionary in JSON.
    Fuzzingbook,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Native => "native EBNF",
            Format::Antlr => "ANTLR4",
            Format::TreeSitter => "tree-sitter grammar.json",
            Format::Fuzzingbook => "fuzzingbook JSON",
        })
    }
}

pub(super) enum Detected<'a> {
    Native,
    Antlr,
    TreeSitter(Value<'a>),
    Fuzzingbook(Value<'a>),
}

pub(super) fn detect(source: &SourceFile) -> Result<Detected<'_>, Diagnostic> {
    let extension = source
        .path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("g4") => return Ok(Detected::Antlr),
        Some("json") => {}
        _ => return Ok(Detected::Native),
    }
    let value = json_text::parse(source)?;
    let Some(object) = value.as_object() else {
        return Err(source.error(
            json_text::span_of(&value),
            format!(
                "expected a grammar object, found {}",
                json_text::describe(&value)
            ),
        ));
    };
    if object.get("rules").is_some() && object.get("name").is_some() {
        return Ok(Detected::TreeSitter(value));
    }
    let angle = |key: &str| key.starts_with('<') && key.ends_with('>');
    let wrapped = object.get("grammar").is_some();
    if wrapped || object.properties.iter().any(|p| angle(p.name.as_str())) {
        return Ok(Detected::Fuzzingbook(value));
    }
    Err(source.error(
        json_text::span_of(&value),
        "not a grammar this tool reads: a tree-sitter grammar.json has \"name\" and \"rules\"; a fuzzingbook grammar maps \"<nonterminal>\" keys to lists of expansions (bare, or as {\"start\": ..., \"grammar\": {...}})",
    ))
}
