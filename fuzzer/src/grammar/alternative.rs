//! One right-hand side of a rule.

use super::Symbol;
use crate::diagnostic::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    pub symbols: Vec<Symbol>,
    pub span: Span,
}
