//! The shortest context of a rule inside another: the least text around a hole.
//!
//! Hoisting in reduction replaces a node by one of its descendants. When the descendant's rule
//! differs from the node's, it needs a context: `if a * [x]: ...` (a `stmt`) can shrink to
//! `[x]` only as `[x] NEWLINE` through `simple_stmt` and the whole expression chain. The
//! shortest such context is a shortest-path problem over rules, solved here per hole rule by a
//! Bellman-Ford style fixpoint over [`MinYield`]: the cost of placing the hole through symbol
//! `i` of an alternative is the minimal yield of the other symbols plus the cost of the hole's
//! own context below.

use super::{MinYield, NO_YIELD};
use crate::grammar::{Grammar, RuleId, Symbol};

/// One step towards the hole: which alternative to take, and which of its symbols leads on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextStep {
    /// Index of the alternative to take in the current rule.
    pub alternative: u32,
    /// Index of the symbol in that alternative below which the hole lies.
    pub position: u32,
}

/// Shortest contexts of every rule around one hole rule.
#[derive(Clone, Debug)]
pub struct MinContext {
    hole: RuleId,
    /// Per rule: characters around the hole in its shortest context; [`NO_YIELD`] when the
    /// hole cannot occur below the rule; 0 for the hole rule itself.
    pub cost: Vec<u64>,
    /// Per rule: the first step of its shortest context; `None` for the hole rule and for
    /// rules the hole cannot occur below.
    pub step: Vec<Option<ContextStep>>,
}

impl MinContext {
    /// Shortest contexts of every rule around `hole`, by fixpoint iteration; costs are in
    /// characters as measured by `min_yield`, so pass the same yields the caller renders with.
    pub fn toward(grammar: &Grammar, min_yield: &MinYield, hole: RuleId) -> Self {
        let mut cost = vec![NO_YIELD; grammar.rules.len()];
        let mut step = vec![None; grammar.rules.len()];
        cost[hole.index()] = 0;
        loop {
            let mut changed = false;
            for (r, rule) in grammar.rules.iter().enumerate() {
                if r == hole.index() {
                    continue;
                }
                for (a, alt) in rule.alternatives.iter().enumerate() {
                    let yields: Vec<u64> = alt
                        .symbols
                        .iter()
                        .map(|s| min_yield.symbol_in(grammar, r, s))
                        .collect();
                    let total = yields.iter().fold(0u64, |t, &y| t.saturating_add(y));
                    for (i, symbol) in alt.symbols.iter().enumerate() {
                        let Some(inner) = Grammar::referenced_rule(symbol) else {
                            continue;
                        };
                        let below = cost[inner.index()];
                        if below == NO_YIELD || yields.contains(&NO_YIELD) {
                            continue;
                        }
                        // The others at their minimum; a repetition holding the hole has at
                        // least one item, the hole, and its other items at their minimum.
                        let around = total - yields[i];
                        let siblings = match *symbol {
                            Symbol::Repeat { min, .. } => min_yield
                                .symbol_in(grammar, r, &Symbol::Rule(inner))
                                .saturating_mul(u64::from(min.max(1) - 1)),
                            _ => 0,
                        };
                        let c = around.saturating_add(siblings).saturating_add(below);
                        if c < cost[r] {
                            cost[r] = c;
                            step[r] = Some(ContextStep {
                                alternative: a as u32,
                                position: i as u32,
                            });
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return Self { hole, cost, step };
            }
        }
    }

    /// The rule these contexts lead to; a walk following `step` stops when it reaches it.
    pub fn hole(&self) -> RuleId {
        self.hole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cheapest_way_down_to_the_hole() {
        let grammar = Grammar::from_text(
            "t",
            r#"%layout none; s = "long" x | "(" x ")" | y ; y = x "!" "!" ; x = "x" ;"#,
        )
        .unwrap();
        let id =
            |name: &str| RuleId(grammar.rules.iter().position(|r| r.name == name).unwrap() as u32);
        let context = MinContext::toward(&grammar, &MinYield::compute(&grammar), id("x"));
        assert_eq!(context.cost[id("x").index()], 0);
        assert_eq!(context.cost[id("y").index()], 2);
        // "(" x ")" costs 2 and comes before y's equal cost through the third alternative.
        assert_eq!(context.cost[id("s").index()], 2);
        assert_eq!(
            context.step[id("s").index()],
            Some(ContextStep {
                alternative: 1,
                position: 1
            })
        );
        let unrelated = MinContext::toward(&grammar, &MinYield::compute(&grammar), id("s"));
        assert_eq!(unrelated.cost[id("x").index()], NO_YIELD);
    }
}
