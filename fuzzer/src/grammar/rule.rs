//! A left-hand side with its alternatives.

use super::{Alternative, RuleId};
use crate::diagnostic::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// Written by the user; counts towards the depth bound.
    Named,
    /// A parenthesised group, an operand of `?`/`*`/`+`, or a piece of a regex terminal.
    /// Groups do not count towards the depth bound: a group only occurs inside its owner's
    /// right-hand side, so it can never nest deeper than the owner itself.
    Group { owner: RuleId },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: String,
    pub kind: RuleKind,
    /// Lexical rules (names starting with an upper-case letter, and all regex terminals)
    /// render as one token: the layout pass never puts anything between their pieces.
    pub lexical: bool,
    pub alternatives: Vec<Alternative>,
    pub span: Span,
}

impl Rule {
    pub fn is_named(&self) -> bool {
        self.kind == RuleKind::Named
    }
}
