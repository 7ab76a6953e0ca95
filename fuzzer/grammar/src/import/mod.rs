//! Grammars written for other tools: tree-sitter's `grammar.json`, ANTLR4 `.g4` files and
//! fuzzingbook's JSON dictionaries.
//!
//! Every importer builds the native syntax tree (`grammar::syntax`) with spans into the
//! foreign file and hands it to the native lowering. Imported regexes, pools, classes and
//! layout therefore behave exactly as if written natively, `bonsai grammar convert` can write
//! any of them out as native EBNF, and every error the lowering finds (an undefined symbol, a
//! bad regex) is located in the file the user gave.

mod antlr;
mod format;
mod fuzzingbook;
mod js_regex;
mod json_text;
mod narrow;
mod regex_text;
mod separator;
mod tree_sitter;

use std::path::Path;

pub use antlr::companion_files as antlr_companion_files;
pub use format::Format;
pub use tree_sitter::declaration_path as external_declaration_path;

use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile};
use crate::grammar::Grammar;
use crate::grammar::syntax::GrammarFile;

/// A grammar read from any supported format, with the warnings its import raised (an ignored
/// action, an external token with unknown text). The caller decides where warnings go.
pub struct Imported {
    /// The lowered grammar, as usable as a native one.
    pub grammar: Grammar,
    /// The format the file was read as, for messages.
    pub format: Format,
    /// What the import could not carry over exactly; empty for native grammars.
    pub warnings: Vec<Diagnostic>,
    /// External tokens of a tree-sitter grammar that neither a naming convention nor the
    /// user's declaration reads: alternatives that need them are never generated, and seeds
    /// that use them are refused.
    pub unread_externals: Vec<String>,
}

/// What a foreign importer produces before lowering.
struct Foreign {
    /// The grammar's own name where the format has one (tree-sitter's `name`).
    name: String,
    file: GrammarFile,
    warnings: Vec<Diagnostic>,
    unread_externals: Vec<String>,
}

/// Reads a grammar in any supported format, chosen by [`Format::detect`].
pub fn load(path: &Path) -> Result<Imported, Diagnostics> {
    let text = crate::grammar::read_grammar_file(path)?;
    from_source(&SourceFile::new(path, text))
}

/// [`load`] on text already read; the format is detected from `source`'s path and contents, and
/// every diagnostic is located in it.
pub fn from_source(source: &SourceFile) -> Result<Imported, Diagnostics> {
    let stem = source.path.file_stem().map_or_else(
        || "grammar".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let (format, foreign) = match format::detect(source)? {
        format::Detected::Native => {
            return Ok(Imported {
                grammar: Grammar::from_source(source)?,
                format: Format::Native,
                warnings: Vec::new(),
                unread_externals: Vec::new(),
            });
        }
        format::Detected::Antlr => (Format::Antlr, antlr::import(source)?),
        format::Detected::TreeSitter(json) => {
            (Format::TreeSitter, tree_sitter::import(source, &json)?)
        }
        format::Detected::Fuzzingbook(json) => (
            Format::Fuzzingbook,
            fuzzingbook::import(source, &json, stem.clone())?,
        ),
    };
    let name = if foreign.name.is_empty() {
        stem
    } else {
        foreign.name
    };
    let grammar = crate::grammar::lower::lower(foreign.file, source, name)?;
    Ok(Imported {
        grammar,
        format,
        warnings: foreign.warnings,
        unread_externals: foreign.unread_externals,
    })
}
