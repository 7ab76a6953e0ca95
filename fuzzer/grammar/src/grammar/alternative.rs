//! One right-hand side of a rule.

use super::Symbol;
use crate::diagnostic::Span;

/// One right-hand side: a sequence of symbols, derived left to right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The symbols in order; empty for an alternative that derives the empty word.
    pub symbols: Vec<Symbol>,
    /// Where the alternative is written in the grammar file; the default (empty) span when it was
    /// not read from one.
    pub span: Span,
}
