//! Why a text was rejected, and where.

use std::fmt;
use std::path::Path;

use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// A rejection at a byte offset of the text. The message names what was found and what the
/// grammar would have accepted there, so that a user can fix a seed without reading the
/// grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the parsed text of the first position no parse survives.
    pub offset: usize,
    /// What was found at `offset` and what the grammar expected there, for the user.
    pub message: String,
}

impl ParseError {
    pub(crate) fn at(offset: usize, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }

    /// One-based line and column (in characters) in `text`.
    pub fn line_col(&self, text: &str) -> (usize, usize) {
        SourceFile::new("", text).line_col(self.offset)
    }

    /// The error located in a file, printed as `file:line:col: error: ...`.
    pub fn diagnostic(&self, path: &Path, text: &str) -> Diagnostic {
        SourceFile::new(path, text).error(Span::new(self.offset, self.offset + 1), &self.message)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}
