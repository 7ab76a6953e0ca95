//! A left-hand side with its alternatives.

use super::{Alternative, RuleId};
use crate::diagnostic::Span;

/// Whether a rule was written by the user or made by lowering; only named rules count towards
/// the depth bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// Written by the user; counts towards the depth bound.
    Named,
    /// A parenthesised group, an operand of `?`/`*`/`+`, or a piece of a regex terminal.
    /// Groups do not count towards the depth bound: a group only occurs inside its owner's
    /// right-hand side, so it can never nest deeper than the owner itself.
    Group {
        /// The named rule whose right-hand side the group was lowered from.
        owner: RuleId,
    },
}

/// A rule of the normalized grammar with its alternatives in source order; an alternative's
/// index is what a choice sequence records for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The user's name, or for a group a name derived from its owner (`owner#n`), for messages.
    pub name: String,
    /// Named or group, and for a group the named rule it belongs to.
    pub kind: RuleKind,
    /// Lexical rules (names starting with an upper-case letter, and all regex terminals)
    /// render as one token: the layout pass never puts anything between their pieces.
    pub lexical: bool,
    /// The right-hand sides; a choice picks one by index.
    pub alternatives: Vec<Alternative>,
    /// Where the rule is defined in the grammar file; the default (empty) span when it was not read
    /// from one.
    pub span: Span,
}

impl Rule {
    /// Whether the user wrote this rule (as opposed to a group made by lowering).
    pub fn is_named(&self) -> bool {
        self.kind == RuleKind::Named
    }
}
