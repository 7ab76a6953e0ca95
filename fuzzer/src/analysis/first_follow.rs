//! First, follow, last and precede sets over terminals.
//!
//! Last and precede are first and follow of the mirrored grammar, so one computation, run in
//! both directions, gives all four. Negative suites need them: a terminal Y that can never
//! follow X makes the pair (X, Y) poisoned.

use fixedbitset::FixedBitSet;

use super::nullable::symbol_is_nullable;
use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// first and follow
    Forward,
    /// last and precede
    Backward,
}

/// Sets over terminal ids, with one extra bit (index `terminals.len()`) for the end of input
/// (forward) or its beginning (backward).
pub struct TerminalSets {
    /// per rule: terminals that can begin (forward) or end (backward) a word of the rule
    pub edge: Vec<FixedBitSet>,
    /// per rule: terminals that can come right after (forward) or right before (backward) it
    pub neighbour: Vec<FixedBitSet>,
    /// per terminal: the same, for terminals
    pub terminal_neighbour: Vec<FixedBitSet>,
}

impl TerminalSets {
    pub fn compute(grammar: &Grammar, nullable: &FixedBitSet, direction: Direction) -> Self {
        let width = grammar.terminals.len() + 1;
        let boundary = grammar.terminals.len();
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
        let mut terminal_neighbour =
            vec![FixedBitSet::with_capacity(width); grammar.terminals.len()];
        neighbour[grammar.start.index()].insert(boundary);
        loop {
            let mut changed = false;
            for (r, alts) in sequences.iter().enumerate() {
                for symbols in alts {
                    // Walk right to left, carrying what can follow the current position.
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
                            Symbol::Rule(b)
                            | Symbol::Optional(b)
                            | Symbol::Repeat { body: b, .. } => &mut neighbour[b.index()],
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
        Self {
            edge,
            neighbour,
            terminal_neighbour,
        }
    }
}

/// GLUE never enters a set: it is not a token, so a terminal after it still meets the one
/// before it.
fn add_edge(grammar: &Grammar, symbol: &Symbol, edge: &[FixedBitSet], acc: &mut FixedBitSet) {
    match *symbol {
        Symbol::Terminal(t) => {
            if *grammar.terminal(t) != Terminal::Layout(LayoutToken::Glue) {
                acc.insert(t.index())
            }
        }
        Symbol::Rule(r) | Symbol::Optional(r) | Symbol::Repeat { body: r, .. } => {
            acc.union_with(&edge[r.index()])
        }
    }
}
