//! First, follow, last and precede sets over terminals.
//!
//! Last and precede are first and follow of the mirrored grammar, so one computation, run in
//! both directions, gives all four. Negative suites need them: a terminal Y that can never
//! follow X makes the pair (X, Y) poisoned.

use fixedbitset::FixedBitSet;

use super::components::strongly_connected;
use super::nullable::symbol_is_nullable;
use super::work;
use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

/// Which way [`TerminalSets::compute`] reads alternatives: forwards for first and follow,
/// backwards (the mirrored grammar) for last and precede.
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
    /// Both fixpoints are unions that flow along a graph: a rule's first set takes in those of
    /// the rules that can begin it, a symbol's follow set those of the rules it can end. Each
    /// is solved by walking every alternative once to collect what it adds directly and which
    /// sets it takes in, then closing the sets over the graph's strongly connected components
    /// (see [`close_under_unions`]). The work is linear in the grammar's size times the
    /// length of a set, where sweeping until nothing changes took one sweep per step of the
    /// longest chain of rules.
    pub fn compute(grammar: &Grammar, nullable: &FixedBitSet, direction: Direction) -> Self {
        let width = grammar.terminals.len() + 1;
        let boundary = grammar.terminals.len();
        let rules = grammar.rules.len();
        let ordered = |symbols| in_reading_order(symbols, direction);

        // First (last): the terminals each rule can begin with directly, and the rules whose
        // first sets it takes in.
        let mut edge = vec![FixedBitSet::with_capacity(width); rules];
        let mut begins_with: Vec<Vec<usize>> = vec![Vec::new(); rules];
        for (r, rule) in grammar.rules.iter().enumerate() {
            for alt in &rule.alternatives {
                for symbol in ordered(&alt.symbols) {
                    work::step(1);
                    match symbol {
                        Symbol::Terminal(_) => add_edge(grammar, &symbol, &[], &mut edge[r]),
                        Symbol::Rule(b) | Symbol::Optional(b) | Symbol::Repeat { body: b, .. } => {
                            begins_with[r].push(b.index())
                        }
                    }
                    if !symbol_is_nullable(grammar, &symbol, nullable) {
                        break;
                    }
                }
            }
        }
        close_under_unions(&mut edge, &begins_with);

        // Follow (precede): what each symbol is directly followed by inside an alternative,
        // and the rules at whose end it can stand, whose follow sets it takes in.
        let mut neighbour = vec![FixedBitSet::with_capacity(width); rules];
        let mut terminal_neighbour =
            vec![FixedBitSet::with_capacity(width); grammar.terminals.len()];
        neighbour[grammar.start.index()].insert(boundary);
        let mut ends: Vec<Vec<usize>> = vec![Vec::new(); rules];
        let mut terminal_ends: Vec<(usize, usize)> = Vec::new();
        // What can follow the current position from inside the alternative, and whether
        // everything after it can be empty (then the rule's own follow set follows too).
        let mut after = FixedBitSet::with_capacity(width);
        for (r, rule) in grammar.rules.iter().enumerate() {
            for alt in &rule.alternatives {
                after.clear();
                let mut at_end = true;
                for symbol in ordered(&alt.symbols).rev() {
                    work::step(1);
                    let set = match symbol {
                        Symbol::Terminal(t) => {
                            if at_end {
                                terminal_ends.push((t.index(), r));
                            }
                            &mut terminal_neighbour[t.index()]
                        }
                        Symbol::Rule(b) | Symbol::Optional(b) | Symbol::Repeat { body: b, .. } => {
                            if at_end {
                                ends[b.index()].push(r);
                            }
                            &mut neighbour[b.index()]
                        }
                    };
                    set.union_with(&after);
                    // An item of a repetition can be followed by the next item.
                    if let Symbol::Repeat { body, max, .. } = symbol
                        && max.is_none_or(|m| m > 1)
                    {
                        set.union_with(&edge[body.index()]);
                    }
                    if !symbol_is_nullable(grammar, &symbol, nullable) {
                        after.clear();
                        at_end = false;
                    }
                    add_edge(grammar, &symbol, &edge, &mut after);
                }
            }
        }
        close_under_unions(&mut neighbour, &ends);
        for (t, r) in terminal_ends {
            work::step(1);
            terminal_neighbour[t].union_with(&neighbour[r]);
        }
        Self {
            edge,
            neighbour,
            terminal_neighbour,
        }
    }
}

/// An alternative's symbols in the order the direction reads them, without copying them.
fn in_reading_order(
    symbols: &[Symbol],
    direction: Direction,
) -> impl DoubleEndedIterator<Item = Symbol> + '_ {
    let len = symbols.len();
    let forward = direction == Direction::Forward;
    (0..len).map(move |i| symbols[if forward { i } else { len - 1 - i }])
}

/// Makes every set the union of itself and the sets of all nodes reachable from it through
/// `takes_in`. Within a strongly connected component all sets end up equal, so each component
/// is solved once: its members' own sets and the sets of the components it leads to, which
/// Tarjan's numbering has finished before it.
fn close_under_unions(sets: &mut [FixedBitSet], takes_in: &[Vec<usize>]) {
    let component = strongly_connected(takes_in);
    let count = component.iter().max().map_or(0, |&c| c + 1);
    let mut start = vec![0usize; count + 1];
    for &c in &component {
        start[c + 1] += 1;
    }
    for c in 0..count {
        start[c + 1] += start[c];
    }
    let mut members = vec![0usize; component.len()];
    let mut fill = start.clone();
    for (node, &c) in component.iter().enumerate() {
        members[fill[c]] = node;
        fill[c] += 1;
    }
    for c in 0..count {
        let members = &members[start[c]..start[c + 1]];
        let first = members[0];
        let mut union = std::mem::take(&mut sets[first]);
        for &m in members {
            if m != first {
                work::step(1);
                union.union_with(&sets[m]);
            }
            for &next in &takes_in[m] {
                work::step(1);
                if component[next] != c {
                    union.union_with(&sets[next]);
                }
            }
        }
        for &m in &members[1..] {
            work::step(1);
            sets[m].clone_from(&union);
        }
        sets[first] = union;
    }
}

/// GLUE never enters a set: it is not a token, so a terminal after it still meets the one
/// before it.
pub(super) fn add_edge(
    grammar: &Grammar,
    symbol: &Symbol,
    edge: &[FixedBitSet],
    acc: &mut FixedBitSet,
) {
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
