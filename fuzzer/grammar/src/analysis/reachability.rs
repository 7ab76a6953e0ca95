//! Which rules and pools can occur in some derivation from the start rule.

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, Symbol, Terminal};

/// Rules and pools reachable from the start rule, by a depth-first walk over alternatives.
pub struct Reachability {
    /// Rule ids (by index) that occur in some derivation from the start rule.
    pub rules: FixedBitSet,
    /// Pool ids (by index) some reachable rule draws a value from.
    pub pools: FixedBitSet,
}

impl Reachability {
    /// Walks every alternative of every reachable rule once; unproductive alternatives count too,
    /// since reachability is about the grammar text, not about what the sampler can finish.
    pub fn compute(grammar: &Grammar) -> Self {
        let mut rules = FixedBitSet::with_capacity(grammar.rules.len());
        let mut pools = FixedBitSet::with_capacity(grammar.pools.len());
        let mut stack = vec![grammar.start];
        rules.insert(grammar.start.index());
        while let Some(r) = stack.pop() {
            for alt in &grammar.rule(r).alternatives {
                for symbol in &alt.symbols {
                    if let Symbol::Terminal(t) = symbol
                        && let Terminal::Pool(p) = grammar.terminal(*t)
                    {
                        pools.insert(p.index());
                    }
                    if let Some(next) = Grammar::referenced_rule(symbol)
                        && !rules.put(next.index())
                    {
                        stack.push(next);
                    }
                }
            }
        }
        Self { rules, pools }
    }
}
