//! Which rules can derive the empty word.

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, Symbol, Terminal};

pub fn nullable_rules(grammar: &Grammar) -> FixedBitSet {
    let mut nullable = FixedBitSet::with_capacity(grammar.rules.len());
    loop {
        let mut changed = false;
        for (r, rule) in grammar.rules.iter().enumerate() {
            if nullable.contains(r) {
                continue;
            }
            if rule.alternatives.iter().any(|alt| {
                alt.symbols
                    .iter()
                    .all(|s| symbol_is_nullable(grammar, s, &nullable))
            }) {
                nullable.insert(r);
                changed = true;
            }
        }
        if !changed {
            return nullable;
        }
    }
}

/// INDENT and DEDENT render no text of their own, but they are tokens a parser sees, so they
/// are not nullable.
pub fn symbol_is_nullable(grammar: &Grammar, symbol: &Symbol, nullable: &FixedBitSet) -> bool {
    match *symbol {
        Symbol::Terminal(t) => matches!(grammar.terminal(t), Terminal::Literal(s) if s.is_empty()),
        Symbol::Rule(r) => nullable.contains(r.index()),
        Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => true,
        Symbol::Repeat { body, .. } => nullable.contains(body.index()),
    }
}
