//! Which alternatives wait on which rules: the grammar's references turned around, for the
//! worklist fixpoints (nullable rules, heights, minimal yields).
//!
//! Each of those facts of an alternative depends on its symbols in the same way: a terminal,
//! an optional and a repetition that may be empty contribute a constant, a rule and a
//! repetition of at least one item contribute the rule's own value. Sweeping every rule until
//! nothing changes costs one sweep per step of the longest chain, quadratic on a chain of
//! rules; instead each alternative counts the rule values it still waits for, and a rule that
//! becomes final visits only the alternatives that use it. Every reference is then visited
//! once, and the work is linear in the grammar's size.

use super::work;
use crate::grammar::{Grammar, Symbol};

pub(super) struct Dependents {
    /// Per rule: where its alternatives start in the flat numbering used below; one more
    /// entry at the end.
    pub alternative_start: Vec<u32>,
    /// Per flat alternative: the rule it belongs to.
    pub rule_of: Vec<u32>,
    /// Per flat alternative: how many of its symbols wait on a rule's value.
    pub waiting: Vec<u32>,
    /// Per rule: its range in `uses`; one more entry at the end.
    use_start: Vec<u32>,
    /// Per reference to a rule, grouped by that rule: (flat alternative, items), where
    /// `items` is how many copies of the rule the symbol holds at least (1 for a plain
    /// reference, `min` for a repetition).
    uses: Vec<(u32, u32)>,
}

/// The rule a symbol's value depends on, with how many copies of it the symbol holds at
/// least; `None` when the symbol's contribution is a constant.
pub(super) fn dependency(symbol: &Symbol) -> Option<(usize, u32)> {
    match *symbol {
        Symbol::Rule(r) => Some((r.index(), 1)),
        Symbol::Repeat { body, min, .. } if min > 0 => Some((body.index(), min)),
        Symbol::Terminal(_) | Symbol::Optional(_) | Symbol::Repeat { .. } => None,
    }
}

impl Dependents {
    pub fn new(grammar: &Grammar) -> Self {
        let rules = grammar.rules.len();
        let mut alternative_start = Vec::with_capacity(rules + 1);
        let mut rule_of = Vec::new();
        let mut waiting = Vec::new();
        let mut use_start = vec![0u32; rules + 1];
        for (r, rule) in grammar.rules.iter().enumerate() {
            alternative_start.push(rule_of.len() as u32);
            for alt in &rule.alternatives {
                work::step(alt.symbols.len() as u64 + 1);
                rule_of.push(r as u32);
                let mut count = 0;
                for (dep, _) in alt.symbols.iter().filter_map(dependency) {
                    use_start[dep + 1] += 1;
                    count += 1;
                }
                waiting.push(count);
            }
        }
        alternative_start.push(rule_of.len() as u32);
        for r in 0..rules {
            use_start[r + 1] += use_start[r];
        }
        let mut uses = vec![(0, 0); use_start[rules] as usize];
        let mut fill = use_start.clone();
        for (r, rule) in grammar.rules.iter().enumerate() {
            for (a, alt) in rule.alternatives.iter().enumerate() {
                let flat = alternative_start[r] + a as u32;
                for (dep, items) in alt.symbols.iter().filter_map(dependency) {
                    uses[fill[dep] as usize] = (flat, items);
                    fill[dep] += 1;
                }
            }
        }
        Self {
            alternative_start,
            rule_of,
            waiting,
            use_start,
            uses,
        }
    }

    /// The references to `rule`: (flat alternative, items).
    pub fn uses(&self, rule: usize) -> &[(u32, u32)] {
        let range = self.use_start[rule] as usize..self.use_start[rule + 1] as usize;
        work::step(range.len() as u64 + 1);
        &self.uses[range]
    }

    /// (rule, alternative index) of a flat alternative.
    pub fn locate(&self, flat: u32) -> (usize, usize) {
        let r = self.rule_of[flat as usize] as usize;
        (r, (flat - self.alternative_start[r]) as usize)
    }
}
