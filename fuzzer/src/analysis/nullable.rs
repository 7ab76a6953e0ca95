//! Which rules can derive the empty word.

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

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
/// are not nullable. GLUE is no token at all, only an instruction to the layout pass.
pub fn symbol_is_nullable(grammar: &Grammar, symbol: &Symbol, nullable: &FixedBitSet) -> bool {
    match *symbol {
        Symbol::Terminal(t) => match grammar.terminal(t) {
            Terminal::Literal(s) => s.is_empty(),
            Terminal::Layout(token) => *token == LayoutToken::Glue,
            Terminal::Class(_) | Terminal::Pool(_) => false,
        },
        Symbol::Rule(r) => nullable.contains(r.index()),
        Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => true,
        Symbol::Repeat { body, .. } => nullable.contains(body.index()),
    }
}
