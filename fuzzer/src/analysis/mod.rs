//! Stage 2: analysis. Facts about the grammar that every later stage relies on: which symbols
//! are usable, how fast each rule can close a tree, which terminals can meet.

mod cycles;
mod first_follow;
mod height;
mod min_context;
mod min_yield;
mod nullable;
mod reachability;

use fixedbitset::FixedBitSet;

pub use cycles::{Cycles, NOT_RECURSIVE};
pub use first_follow::{Direction, TerminalSets};
pub use height::{Heights, UNREACHABLE_HEIGHT};
pub use min_context::{ContextStep, MinContext};
pub use min_yield::{MinYield, NO_YIELD};
pub use nullable::{nullable_rules, symbol_is_nullable};
pub use reachability::Reachability;

use crate::diagnostic::{Diagnostic, Diagnostics, Span};
use crate::grammar::{Grammar, RuleId};

pub struct Analysis {
    pub reachability: Reachability,
    pub heights: Heights,
    pub nullable: FixedBitSet,
    /// first and follow
    pub forward: TerminalSets,
    /// last and precede
    pub backward: TerminalSets,
    pub min_yield: MinYield,
}

impl Analysis {
    pub fn new(grammar: &Grammar) -> Self {
        let nullable = nullable_rules(grammar);
        Self {
            reachability: Reachability::compute(grammar),
            heights: Heights::unrestricted(grammar),
            forward: TerminalSets::compute(grammar, &nullable, Direction::Forward),
            backward: TerminalSets::compute(grammar, &nullable, Direction::Backward),
            nullable,
            min_yield: MinYield::compute(grammar),
        }
    }

    pub fn first(&self, rule: RuleId) -> &FixedBitSet {
        &self.forward.edge[rule.index()]
    }

    pub fn follow(&self, rule: RuleId) -> &FixedBitSet {
        &self.forward.neighbour[rule.index()]
    }

    pub fn last(&self, rule: RuleId) -> &FixedBitSet {
        &self.backward.edge[rule.index()]
    }

    pub fn precede(&self, rule: RuleId) -> &FixedBitSet {
        &self.backward.neighbour[rule.index()]
    }

    /// Errors that make the grammar unusable, then warnings about dead parts of it.
    ///
    /// A grammar whose start rule derives no word is an error. An unproductive or unreachable
    /// rule elsewhere is only a warning: the sampler never chooses an alternative it cannot
    /// finish, so such a rule is dead weight, not a hazard.
    pub fn check(&self, grammar: &Grammar) -> Result<Vec<Diagnostic>, Diagnostics> {
        let locate = |span: Span, message: String, error: bool| match &grammar.origin {
            Some(src) if error => src.error(span, message),
            Some(src) => src.warning(span, message),
            None if error => Diagnostic::error(message),
            None => Diagnostic::warning(message),
        };
        let start = grammar.rule(grammar.start);
        if !self.heights.is_productive(grammar.start.index()) {
            let culprits: Vec<&str> = (0..grammar.named_rules)
                .filter(|&r| !self.heights.is_productive(r) && self.reachability.rules.contains(r))
                .map(|r| grammar.rules[r].name.as_str())
                .collect();
            return Err(locate(
                start.span,
                format!(
                    "the grammar cannot derive any word: the start rule '{}' never terminates (unproductive rules: {})",
                    start.name,
                    culprits.join(", ")
                ),
                true,
            )
            .into());
        }
        let mut warnings = Vec::new();
        for (r, rule) in grammar.rules.iter().enumerate().take(grammar.named_rules) {
            if !self.reachability.rules.contains(r) {
                warnings.push(locate(
                    rule.span,
                    format!(
                        "rule '{}' is unreachable from the start rule '{}'",
                        rule.name, start.name
                    ),
                    false,
                ));
            } else if !self.heights.is_productive(r) {
                warnings.push(locate(
                    rule.span,
                    format!(
                        "rule '{}' cannot derive any word and will never be chosen",
                        rule.name
                    ),
                    false,
                ));
            }
        }
        for (p, pool) in grammar.pools.iter().enumerate() {
            if !self.reachability.pools.contains(p) {
                warnings.push(locate(
                    pool.span,
                    format!("pool '{}' is never used", pool.name),
                    false,
                ));
            }
        }
        Ok(warnings)
    }
}
