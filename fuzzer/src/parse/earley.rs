//! The Earley recognizer: fills a [`Chart`] with every item that some parse of a prefix of the
//! input reaches.
//!
//! Sets are visited in increasing position order; scans push their results into a queue
//! ordered by position, so a token of any length (a literal, a pool value) is one step, and
//! positions inside tokens are never visited. Three things make it fast enough to read
//! megabytes: predictions copy a precomputed closure (`ParseTable::closure`), nullable
//! nonterminals are skipped at prediction time (Aycock and Horspool), so completion never
//! looks into the set being built, and completion finds waiting items by binary search in the
//! sorted, closed origin set. Repetitions are left-recursive after desugaring, which Earley
//! handles in linear time; right-recursive grammar rules are quadratic in their nesting (no
//! Leo items), which matters only for long right-recursive chains.

use ahash::AHashSet;

use super::chart::{Chart, Item};
use super::input::ParseInput;
use super::scan_queue::ScanQueue;
use super::scanner::Scanner;
use super::table::{NONE, Next, ParseTable};
use crate::grammar::Terminal;

/// More items than this and the input is refused instead of exhausting memory: a highly
/// ambiguous grammar can need a number of items quadratic in the input length.
pub(crate) const MAX_ITEMS: usize = 1 << 26;

pub(crate) struct Recognition {
    pub chart: Chart,
    pub accepted: bool,
    /// The chart outgrew [`MAX_ITEMS`] at this position.
    pub exhausted: Option<usize>,
}

pub(crate) fn recognize(
    table: &ParseTable,
    scanner: &Scanner<'_>,
    input: &ParseInput,
    rename: bool,
) -> Recognition {
    let units = &input.units[..];
    let n = units.len();
    let mut chart = Chart::new(n);
    let mut pending = ScanQueue::new();
    let mut arrived = Vec::new();
    let mut seen = Seen::new(table.dots.len());
    let mut predicted = vec![0u32; table.nonterminals.len()];
    let terminal_count = scanner_terminals(table);
    let mut scan_ends: Vec<Vec<u32>> = vec![Vec::new(); terminal_count];
    let mut scan_stamp = vec![0u32; terminal_count];
    let mut unknown = Vec::new();
    let mut accepted = false;
    let mut stamp = 0u32;
    let mut position = 0usize;

    loop {
        stamp += 1;
        let start = chart.items.len();
        seen.next_set();
        let mut add = |items: &mut Vec<Item>, dot: u32, origin: u32| {
            if seen.insert(dot, origin) {
                items.push(Item::new(table, dot, origin));
            }
        };
        arrived.clear();
        pending.take(position, &mut arrived);
        for &(dot, origin) in &arrived {
            add(&mut chart.items, dot, origin);
        }
        if position == 0 {
            predicted[table.root as usize] = stamp;
            for &dot in &table.closure[table.root as usize] {
                add(&mut chart.items, dot, 0);
            }
            for &nt in &table.closure_nonterminals[table.root as usize] {
                predicted[nt as usize] = stamp;
            }
        }
        let space_end = if input.is_space(position) {
            if table.whitespace_tokens {
                position + 1
            } else {
                let mut end = position;
                while input.is_space(end) {
                    end += 1;
                }
                end
            }
        } else {
            NONE as usize
        };

        let mut i = start;
        while i < chart.items.len() {
            let item = chart.items[i];
            i += 1;
            let dot = table.dots[item.dot as usize];
            match dot.next {
                Next::Complete => {
                    if (item.origin as usize) < position {
                        let lhs = table.productions[dot.production as usize].lhs;
                        for w in chart.waiting(item.origin as usize, lhs) {
                            let waiting = chart.items[w];
                            add(&mut chart.items, waiting.dot + 1, waiting.origin);
                        }
                    }
                }
                Next::Nonterminal(nt) => {
                    if predicted[nt as usize] != stamp {
                        for &m in &table.closure_nonterminals[nt as usize] {
                            predicted[m as usize] = stamp;
                        }
                        for &d in &table.closure[nt as usize] {
                            add(&mut chart.items, d, position as u32);
                        }
                    }
                    if table.nonterminals[nt as usize].nullable {
                        add(&mut chart.items, item.dot + 1, item.origin);
                    }
                }
                Next::Terminal(t) if !scanner.may_match(t, units.get(position).copied()) => {}
                Next::Terminal(t) => {
                    let t = t.index();
                    if scan_stamp[t] != stamp {
                        scan_stamp[t] = stamp;
                        scan_ends[t].clear();
                        unknown.clear();
                        scanner.scan(
                            crate::grammar::TerminalId(t as u32),
                            units,
                            position,
                            rename,
                            &mut scan_ends[t],
                            &mut unknown,
                        );
                        if let (false, Terminal::Pool(pool)) = (
                            unknown.is_empty(),
                            scanner
                                .grammar()
                                .terminal(crate::grammar::TerminalId(t as u32)),
                        ) {
                            for &end in &unknown {
                                chart
                                    .unknown_words
                                    .entry((*pool, end))
                                    .or_default()
                                    .push(position as u32);
                            }
                        }
                    }
                    for &end in &scan_ends[t] {
                        if end as usize == position {
                            add(&mut chart.items, item.dot + 1, item.origin);
                        } else {
                            pending.push(position, end as usize, item.dot + 1, item.origin);
                        }
                    }
                }
                Next::End => accepted |= position == n,
            }
            if dot.skippable && space_end != NONE as usize {
                pending.push(position, space_end, item.dot, item.origin);
            }
        }
        chart.close(position, start);
        if chart.items.len() > MAX_ITEMS {
            return Recognition {
                chart,
                accepted: false,
                exhausted: Some(position),
            };
        }
        match pending.next(position) {
            Some(next) => position = next,
            None => break,
        }
    }
    Recognition {
        chart,
        accepted,
        exhausted: None,
    }
}

fn scanner_terminals(table: &ParseTable) -> usize {
    table
        .dots
        .iter()
        .filter_map(|d| match d.next {
            Next::Terminal(t) => Some(t.index() + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Which items the current set already holds. Most dots occur with a single origin in a set,
/// so the first origin of each dot sits in a dense array stamped with the set's number (no
/// clearing between sets); only further origins of the same dot go to a hash set.
struct Seen {
    stamp: Vec<u32>,
    origin: Vec<u32>,
    current: u32,
    more: AHashSet<(u32, u32)>,
}

impl Seen {
    fn new(dots: usize) -> Self {
        Self {
            stamp: vec![0; dots],
            origin: vec![0; dots],
            current: 0,
            more: AHashSet::new(),
        }
    }

    fn next_set(&mut self) {
        self.current += 1;
        if !self.more.is_empty() {
            self.more.clear();
        }
    }

    /// Whether the item is new to the set.
    fn insert(&mut self, dot: u32, origin: u32) -> bool {
        let d = dot as usize;
        if self.stamp[d] != self.current {
            self.stamp[d] = self.current;
            self.origin[d] = origin;
            true
        } else if self.origin[d] == origin {
            false
        } else {
            self.more.insert((dot, origin))
        }
    }
}
