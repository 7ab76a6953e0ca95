//! Which rules and pools can occur in some derivation from the start rule.

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, Symbol, Terminal};

pub struct Reachability {
    pub rules: FixedBitSet,
    pub pools: FixedBitSet,
}

impl Reachability {
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
