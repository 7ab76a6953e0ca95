//! The analysis' fixpoints as they were first written: sweep every rule until nothing changes.
//! Simple enough to trust, and quadratic on a chain of rules, so only tests use them, as the
//! reference the worklists and component closures must agree with on random grammars.

use fixedbitset::FixedBitSet;

use super::first_follow::add_edge;
use super::min_yield::{symbol_yield, tokens};
use super::nullable::symbol_is_nullable;
use super::work;
use super::{Direction, Heights, MinYield, NO_YIELD, TerminalSets, UNREACHABLE_HEIGHT};
use crate::grammar::{Grammar, Symbol};

pub fn nullable_rules(grammar: &Grammar) -> FixedBitSet {
    let mut nullable = FixedBitSet::with_capacity(grammar.rules.len());
    loop {
        let mut changed = false;
        for (r, rule) in grammar.rules.iter().enumerate() {
            if !nullable.contains(r)
                && rule.alternatives.iter().any(|alt| {
                    work::step(alt.symbols.len() as u64 + 1);
                    alt.symbols
                        .iter()
                        .all(|s| symbol_is_nullable(grammar, s, &nullable))
                })
            {
                nullable.insert(r);
                changed = true;
            }
        }
        if !changed {
            return nullable;
        }
    }
}

pub fn heights(grammar: &Grammar, forbidden: &FixedBitSet) -> Heights {
    let mut rule = vec![UNREACHABLE_HEIGHT; grammar.rules.len()];
    let mut alternative: Vec<Vec<u32>> = grammar
        .rules
        .iter()
        .map(|r| vec![UNREACHABLE_HEIGHT; r.alternatives.len()])
        .collect();
    loop {
        let mut changed = false;
        for (r, def) in grammar.rules.iter().enumerate() {
            for (a, alt) in def.alternatives.iter().enumerate() {
                work::step(alt.symbols.len() as u64 + 1);
                let height = alt
                    .symbols
                    .iter()
                    .map(|s| match *s {
                        Symbol::Rule(b)
                        | Symbol::Repeat {
                            body: b, min: 1.., ..
                        } => rule[b.index()],
                        _ => 0,
                    })
                    .max()
                    .unwrap_or(0)
                    .saturating_add(1);
                if height < alternative[r][a] {
                    alternative[r][a] = height;
                    changed = true;
                }
                if !forbidden.contains(r) && height < rule[r] {
                    rule[r] = height;
                }
            }
        }
        if !changed {
            return Heights { rule, alternative };
        }
    }
}

/// Rule and alternative yields (the terminal lengths and best alternatives follow from them).
pub fn min_yields(
    grammar: &Grammar,
    forbidden: &FixedBitSet,
    token_weight: u64,
    terminal: &[u64],
) -> (Vec<u64>, Vec<Vec<u64>>) {
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
                work::step(alt.symbols.len() as u64 + 1);
                let mut total = 0u64;
                for symbol in &alt.symbols {
                    let len = symbol_yield(symbol, terminal, &rule);
                    let weight = token_weight.saturating_mul(tokens(grammar, r, symbol));
                    total = total.saturating_add(len).saturating_add(weight);
                }
                if total < alternative[r][a] {
                    alternative[r][a] = total;
                    changed = true;
                }
                if total < rule[r] && !forbidden.contains(r) {
                    rule[r] = total;
                }
            }
        }
        if !changed {
            return (rule, alternative);
        }
    }
}

pub fn terminal_sets(
    grammar: &Grammar,
    nullable: &FixedBitSet,
    direction: Direction,
) -> TerminalSets {
    let width = grammar.terminals.len() + 1;
    let sequences: Vec<Vec<Vec<Symbol>>> = grammar
        .rules
        .iter()
        .map(|rule| {
            rule.alternatives
                .iter()
                .map(|alt| match direction {
                    Direction::Forward => alt.symbols.clone(),
                    Direction::Backward => alt.symbols.iter().rev().copied().collect(),
                })
                .collect()
        })
        .collect();
    let mut edge = vec![FixedBitSet::with_capacity(width); grammar.rules.len()];
    loop {
        let mut changed = false;
        for (r, alts) in sequences.iter().enumerate() {
            for symbols in alts {
                work::step(symbols.len() as u64 + 1);
                let mut acc = FixedBitSet::with_capacity(width);
                for symbol in symbols {
                    add_edge(grammar, symbol, &edge, &mut acc);
                    if !symbol_is_nullable(grammar, symbol, nullable) {
                        break;
                    }
                }
                if !acc.is_subset(&edge[r]) {
                    edge[r].union_with(&acc);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut neighbour = vec![FixedBitSet::with_capacity(width); grammar.rules.len()];
    let mut terminal_neighbour = vec![FixedBitSet::with_capacity(width); grammar.terminals.len()];
    neighbour[grammar.start.index()].insert(grammar.terminals.len());
    loop {
        let mut changed = false;
        for (r, alts) in sequences.iter().enumerate() {
            for symbols in alts {
                work::step(symbols.len() as u64 + 1);
                let mut after = neighbour[r].clone();
                for symbol in symbols.iter().rev() {
                    let mut target = after.clone();
                    if let Symbol::Repeat { body, max, .. } = *symbol
                        && max.is_none_or(|m| m > 1)
                    {
                        target.union_with(&edge[body.index()]);
                    }
                    let set = match *symbol {
                        Symbol::Terminal(t) => &mut terminal_neighbour[t.index()],
                        Symbol::Rule(b) | Symbol::Optional(b) | Symbol::Repeat { body: b, .. } => {
                            &mut neighbour[b.index()]
                        }
                    };
                    if !target.is_subset(set) {
                        set.union_with(&target);
                        changed = true;
                    }
                    let mut first = FixedBitSet::with_capacity(width);
                    add_edge(grammar, symbol, &edge, &mut first);
                    if symbol_is_nullable(grammar, symbol, nullable) {
                        after.union_with(&first);
                    } else {
                        after = first;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    TerminalSets {
        edge,
        neighbour,
        terminal_neighbour,
    }
}

/// The yields [`MinYield::compute_weighted`] would give if it still swept.
pub fn min_yield(grammar: &Grammar, forbidden: &FixedBitSet, token_weight: u64) -> MinYield {
    let terminal = MinYield::compute_weighted(grammar, forbidden, token_weight).terminal;
    let (rule, alternative) = min_yields(grammar, forbidden, token_weight, &terminal);
    let best_alternative = alternative
        .iter()
        .zip(&rule)
        .map(|(alts, &least)| alts.iter().position(|&y| y == least && y != NO_YIELD))
        .collect();
    MinYield {
        rule,
        alternative,
        best_alternative,
        terminal,
        token_weight,
    }
}
