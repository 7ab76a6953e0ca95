//! Minimal derivation heights, optionally with some named rules forbidden.
//!
//! A rule is productive exactly when its height is finite, so this one fixpoint answers both
//! "can this rule derive a word?" and "which alternative closes the tree fastest?". The sampler
//! calls it with the rules that have reached the depth bound forbidden (see
//! `sampler::feasibility`).

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, Symbol};

pub const UNREACHABLE_HEIGHT: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heights {
    /// Per rule; [`UNREACHABLE_HEIGHT`] when the rule derives no word.
    pub rule: Vec<u32>,
    /// Per rule, per alternative; finite exactly when the alternative can be completed.
    pub alternative: Vec<Vec<u32>>,
}

impl Heights {
    /// Heights with the rules in `forbidden` (indexed by rule id) treated as underivable.
    pub fn compute(grammar: &Grammar, forbidden: &FixedBitSet) -> Self {
        let mut rule = vec![UNREACHABLE_HEIGHT; grammar.rules.len()];
        let mut alternative: Vec<Vec<u32>> = grammar
            .rules
            .iter()
            .map(|r| vec![UNREACHABLE_HEIGHT; r.alternatives.len()])
            .collect();
        loop {
            let mut changed = false;
            for (r, def) in grammar.rules.iter().enumerate() {
                // A forbidden rule gets alternative heights but no rule height: it may be the
                // rule being expanded right now, which must choose among its alternatives, but
                // it may not occur again below.
                let allowed = !forbidden.contains(r);
                for (a, alt) in def.alternatives.iter().enumerate() {
                    let mut height = 0u32;
                    for symbol in &alt.symbols {
                        height = height.max(symbol_height(symbol, &rule));
                    }
                    let height = height.saturating_add(1);
                    if height < alternative[r][a] {
                        alternative[r][a] = height;
                        changed = true;
                    }
                    if allowed && height < rule[r] {
                        rule[r] = height;
                    }
                }
            }
            if !changed {
                return Self { rule, alternative };
            }
        }
    }

    pub fn unrestricted(grammar: &Grammar) -> Self {
        Self::compute(grammar, &FixedBitSet::with_capacity(grammar.rules.len()))
    }

    pub fn is_productive(&self, rule: usize) -> bool {
        self.rule[rule] != UNREACHABLE_HEIGHT
    }

    pub fn symbol(&self, symbol: &Symbol) -> u32 {
        symbol_height(symbol, &self.rule)
    }
}

/// Height a symbol adds at minimum. An optional or a `*` can always be left empty.
fn symbol_height(symbol: &Symbol, rule: &[u32]) -> u32 {
    match *symbol {
        Symbol::Terminal(_) | Symbol::Optional(_) => 0,
        Symbol::Rule(r) => rule[r.index()],
        Symbol::Repeat { min: 0, .. } => 0,
        Symbol::Repeat { body, .. } => rule[body.index()],
    }
}
