//! Stage 1: the grammar. Reads the native EBNF format (documented in `grammars/README.md`)
//! into a normalized [`Grammar`]: named rules first, then the groups that `( )`, `?`, `*`, `+`
//! and regex terminals lower to.

mod alternative;
mod depth_measure;
#[allow(clippy::module_inception)]
mod grammar;
mod layout;
mod lexer;
pub(crate) mod lower;
mod parser;
mod pool;
mod regex;
mod rule;
mod symbol;
pub(crate) mod syntax;
mod terminal;

use std::path::Path;

pub use alternative::Alternative;
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

impl Grammar {
    /// Reads and lowers a grammar file. Errors carry `file:line:col`.
    pub fn from_file(path: &Path) -> Result<Grammar, Diagnostics> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Diagnostic::error(format!("cannot read grammar: {e}")).in_file(path))?;
        Self::from_source(&SourceFile::new(path, text))
    }

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
