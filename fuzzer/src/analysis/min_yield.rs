//! The shortest word of every rule and alternative, in characters.
//!
//! Growth control, reduction (replace a subtree by its minimal yield) and the systematic cover
//! criteria all complete partial derivations with the shortest possible text.

use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

pub const NO_YIELD: u64 = u64::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinYield {
    /// Per rule; [`NO_YIELD`] for unproductive rules.
    pub rule: Vec<u64>,
    pub alternative: Vec<Vec<u64>>,
    /// Per rule, the alternative that reaches the minimum (first one on ties).
    pub best_alternative: Vec<Option<usize>>,
}

impl MinYield {
    pub fn compute(grammar: &Grammar) -> Self {
        let terminal_len: Vec<u64> = grammar
            .terminals
            .iter()
            .map(|t| match t {
                Terminal::Literal(s) => s.chars().count() as u64,
                Terminal::Class(_) => 1,
                Terminal::Pool(p) => grammar.pools[p.index()]
                    .values
                    .iter()
                    .map(|v| v.chars().count() as u64)
                    .min()
                    .unwrap_or(NO_YIELD),
                Terminal::Layout(LayoutToken::Newline) => 1,
                Terminal::Layout(_) => 0,
            })
            .collect();
        let mut rule = vec![NO_YIELD; grammar.rules.len()];
        let mut alternative: Vec<Vec<u64>> = grammar
            .rules
            .iter()
            .map(|r| vec![NO_YIELD; r.alternatives.len()])
            .collect();
        loop {
            let mut changed = false;
            for (r, def) in grammar.rules.iter().enumerate() {
                for (a, alt) in def.alternatives.iter().enumerate() {
                    let mut total = 0u64;
                    for symbol in &alt.symbols {
                        let len = match *symbol {
                            Symbol::Terminal(t) => terminal_len[t.index()],
                            Symbol::Rule(b) => rule[b.index()],
                            Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => 0,
                            Symbol::Repeat { body, min, .. } => {
                                rule[body.index()].saturating_mul(min as u64)
                            }
                        };
                        total = total.saturating_add(len);
                    }
                    if total < alternative[r][a] {
                        alternative[r][a] = total;
                        changed = true;
                    }
                    if total < rule[r] {
                        rule[r] = total;
                    }
                }
            }
            if !changed {
                // Chosen only now: during the fixpoint a later alternative can reach the
                // minimum first, before an earlier one that ties with it has been computed.
                let best_alternative = alternative
                    .iter()
                    .zip(&rule)
                    .map(|(alts, &least)| alts.iter().position(|&y| y == least && y != NO_YIELD))
                    .collect();
                return Self {
                    rule,
                    alternative,
                    best_alternative,
                };
            }
        }
    }
}
