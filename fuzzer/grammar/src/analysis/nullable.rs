//! Which rules can derive the empty word.

use fixedbitset::FixedBitSet;

use super::dependents::Dependents;
use super::work;

use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

/// A worklist over [`Dependents`]: an alternative becomes nullable when the last rule it
/// waits for does, unless a terminal that is never empty blocks it.
pub fn nullable_rules(grammar: &Grammar) -> FixedBitSet {
    let dependents = Dependents::new(grammar);
    let mut waiting = dependents.waiting.clone();
    let mut nullable = FixedBitSet::with_capacity(grammar.rules.len());
    let mut blocked = FixedBitSet::with_capacity(waiting.len());
    let mut ready = Vec::new();
    for (r, rule) in grammar.rules.iter().enumerate() {
        for (a, alt) in rule.alternatives.iter().enumerate() {
            work::step(alt.symbols.len() as u64 + 1);
            let flat = dependents.alternative_start[r] as usize + a;
            if alt.symbols.iter().any(|s| {
                matches!(s, Symbol::Terminal(_)) && !symbol_is_nullable(grammar, s, &nullable)
            }) {
                blocked.insert(flat);
            } else if waiting[flat] == 0 && !nullable.put(r) {
                ready.push(r);
            }
        }
    }
    while let Some(rule) = ready.pop() {
        for &(flat, _) in dependents.uses(rule) {
            let flat = flat as usize;
            waiting[flat] -= 1;
            if waiting[flat] == 0 && !blocked.contains(flat) {
                let (owner, _) = dependents.locate(flat as u32);
                if !nullable.put(owner) {
                    ready.push(owner);
                }
            }
        }
    }
    nullable
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
