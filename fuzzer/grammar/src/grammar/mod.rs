//! The grammar. Reads the native EBNF format (documented in `grammars/README.md`)
//! into a normalized [`Grammar`]: named rules first, then the groups that `( )`, `?`, `*`, `+`
//! and regex terminals lower to.

mod alternative;
mod comment;
mod depth_measure;
#[allow(clippy::module_inception)]
mod grammar;
mod keywords;
mod layout;
mod lexer;
pub(crate) mod lower;
pub(crate) mod parser;
mod pool;
pub(crate) mod regex;
mod rule;
pub mod size;
mod symbol;
pub(crate) mod syntax;
mod terminal;

use std::path::Path;

pub use alternative::Alternative;
pub use comment::Comment;
pub use depth_measure::DepthMeasure;
pub use grammar::Grammar;
pub use layout::{Layout, Separator};
pub use lower::is_lexical_name;
pub use pool::{POOL_CAPACITY, Pool, shortlex_words};
pub use regex::MAX_REPETITION_COUNT;
pub use rule::{Rule, RuleKind};
pub use symbol::{PoolId, RuleId, Symbol, TerminalId};
pub use terminal::{CharClass, LayoutToken, Terminal};

use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile};

/// The largest grammar file read, in bytes: far above any real grammar (the largest shipped
/// one is under 100 KB), and a bound on what `grammar check /dev/zero` or a mistyped path to a
/// disk image reads before it is refused, instead of reading until memory runs out.
pub const MAX_GRAMMAR_BYTES: u64 = 64 << 20;

/// The text of a grammar file in any format, at most [`MAX_GRAMMAR_BYTES`] of it.
pub fn read_grammar_file(path: &Path) -> Result<String, Diagnostic> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| Diagnostic::error(format!("cannot read grammar: {e}")).in_file(path);
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_GRAMMAR_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_GRAMMAR_BYTES {
        return Err(Diagnostic::error(format!(
            "not read: a grammar file may hold at most {} MiB",
            MAX_GRAMMAR_BYTES >> 20
        ))
        .in_file(path));
    }
    String::from_utf8(bytes).map_err(|e| {
        Diagnostic::error(format!(
            "cannot read grammar: not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
        .in_file(path)
    })
}

impl Grammar {
    /// Reads and lowers a grammar file. Errors carry `file:line:col`.
    pub fn from_file(path: &Path) -> Result<Grammar, Diagnostics> {
        let text = read_grammar_file(path)?;
        Self::from_source(&SourceFile::new(path, text))
    }

    /// Parses and lowers already-read text; the diagnostics are located in `source`, and the
    /// grammar's name is the file stem of its path.
    pub fn from_source(source: &SourceFile) -> Result<Grammar, Diagnostics> {
        let file = parser::parse(source)?;
        let name = source.path.file_stem().map_or_else(
            || "grammar".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        lower::lower(file, source, name)
    }

    /// Parses grammar text given inline, as tests and examples do.
    pub fn from_text(name: &str, text: &str) -> Result<Grammar, Diagnostics> {
        Self::from_source(&SourceFile::new(format!("{name}.ebnf"), text))
    }
}
