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
//! Leo items), which matters only for long right-recursive chains. Ambiguous chains of binary
//! operators, cubic in general Earley, are left one reading by the table (see `table`).

use ahash::AHashSet;

use super::chart::{Chart, Item};
use super::input::ParseInput;
use super::scan_queue::ScanQueue;
use super::scanner::{Found, Scanner, SoftWord};
use super::table::{NONE, Next, ParseTable};
use crate::grammar::{PoolId, Terminal, TerminalId};

/// More items than this and the input is refused instead of exhausting memory: a highly
/// ambiguous grammar can need a number of items quadratic in the input length.
pub(crate) const MAX_ITEMS: usize = 1 << 26;

pub(crate) struct Recognition {
    pub chart: Chart,
    pub accepted: bool,
    /// The chart outgrew [`MAX_ITEMS`] at this position.
    pub exhausted: Option<usize>,
    /// Stretches skipped between tokens that hold a comment, for the extraction.
    pub comments: Vec<(usize, usize)>,
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
    let terminal_count = scanner_terminals(table);
    let mut state = State {
        seen: Seen::new(table.dots.len()),
        predicted: vec![0; table.nonterminals.len()],
        scan_ends: vec![Vec::new(); terminal_count],
        scan_stamp: vec![0; terminal_count],
        whole_ends: vec![Vec::new(); terminal_count],
        whole_stamp: vec![0; terminal_count],
        longest: vec![(0, 0); scanner.grammar().pools.len()],
        soft: vec![Vec::new(); terminal_count],
        deferred: Vec::new(),
        held_operators: Vec::new(),
        unknown: Vec::new(),
        accepted: false,
        skipped: false,
    };
    let mut stamp = 0u32;
    let mut position = 0usize;
    let mut comments = Vec::new();

    loop {
        stamp += 1;
        let start = chart.items.len();
        let predicted_start = chart.predicted.len();
        state.seen.next_set();
        arrived.clear();
        pending.take(position, &mut arrived);
        for &(dot, origin) in &arrived {
            if state.seen.insert(dot, origin) {
                chart.items.push(Item::new(table, dot, origin));
            }
        }
        // Where tokens may start with whitespace, it is skipped a unit at a time, so that a
        // token can take what it needs; a comment is skipped whole either way.
        let space_end = if table.whitespace_tokens {
            if input.is_space(position) {
                position + 1
            } else {
                input.comment_end(position).unwrap_or(NONE as usize)
            }
        } else {
            input.skip_layout(position).unwrap_or(NONE as usize)
        };
        state.skipped = false;
        let step = Step {
            table,
            scanner,
            units,
            position,
            space_end,
            rename,
            stamp,
        };
        if position == 0 {
            step.predict(table.root, &mut state, &mut chart, &mut pending);
        }

        let mut i = start;
        while i < chart.items.len() {
            let item = chart.items[i];
            i += 1;
            let dot = table.dots[item.dot as usize];
            match dot.next {
                Next::Complete => {
                    let lhs = table.productions[dot.production as usize].lhs;
                    let origin = item.origin as usize;
                    for w in chart.waiting(origin, lhs) {
                        let waiting = chart.items[w];
                        state.add(&mut chart, table, waiting.dot + 1, waiting.origin);
                    }
                    for p in chart.predicted_at(origin) {
                        let waiting = &table.closure_waiting[chart.predicted[p] as usize];
                        let low = waiting.partition_point(|&(w, _)| w < lhs);
                        for &(w, d) in &waiting[low..] {
                            if w != lhs {
                                break;
                            }
                            state.add(&mut chart, table, d + 1, item.origin);
                        }
                    }
                }
                Next::Nonterminal(nt) => {
                    if state.predicted[nt as usize] != stamp {
                        step.predict(nt, &mut state, &mut chart, &mut pending);
                    }
                    if table.nonterminals[nt as usize].nullable {
                        state.add(&mut chart, table, item.dot + 1, item.origin);
                    }
                }
                Next::Terminal(t) => {
                    let count = step.scan(t, dot.whole, &mut state, &mut chart);
                    for k in 0..count {
                        let end = state.ends(t, dot.whole)[k];
                        if end as usize == position {
                            state.add(&mut chart, table, item.dot + 1, item.origin);
                        } else {
                            step.advance(
                                t,
                                dot.operator,
                                end,
                                item.dot + 1,
                                item.origin,
                                &mut state,
                                &mut pending,
                            );
                        }
                    }
                    step.defer(t, dot.whole, item.dot + 1, item.origin, &mut state);
                }
                Next::End => state.accepted |= position == n,
            }
            if dot.skippable && space_end != NONE as usize {
                pending.push(position, space_end, item.dot, item.origin);
                state.skipped = true;
            }
        }
        step.settle_soft_words(&mut state, &mut chart, &mut pending);
        step.settle_operators(&mut state, &mut pending);
        // A stretch with a comment that an item skipped between tokens (never one inside a
        // lexical rule, such as a string's content): the extraction may skip it too.
        if state.skipped && (position..space_end).any(|p| !input.is_space(p)) {
            comments.push((position, space_end));
        }
        chart.close(position, start, predicted_start);
        if chart.items.len() > MAX_ITEMS {
            return Recognition {
                chart,
                accepted: false,
                exhausted: Some(position),
                comments,
            };
        }
        match pending.next(position) {
            Some(next) => position = next,
            None => break,
        }
    }
    Recognition {
        chart,
        accepted: state.accepted,
        exhausted: None,
        comments,
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

/// What the recognizer keeps across sets.
struct State {
    seen: Seen,
    /// Per nonterminal: the stamp of the last set whose closures include its prediction.
    predicted: Vec<u32>,
    /// Per terminal: its match ends at the current position, valid when `scan_stamp` is the
    /// set's stamp; several items often expect the same terminal.
    scan_ends: Vec<Vec<u32>>,
    scan_stamp: Vec<u32>,
    /// Per terminal: the ends of `scan_ends` that cut no word short, for dots where the
    /// terminal is a whole token (see `Dot::whole`); valid when `whole_stamp` is the set's.
    whole_ends: Vec<Vec<u32>>,
    whole_stamp: Vec<u32>,
    /// Per pool: (stamp, end) of the longest word of its language at the current position, or
    /// the position itself where none starts.
    longest: Vec<(u32, u32)>,
    unknown: Vec<u32>,
    /// Per pool terminal: its words here that are keywords but not reserved ones (see
    /// `Scanner::scan`); valid when `scan_stamp` is the set's.
    soft: Vec<Vec<SoftWord>>,
    /// Items that read such a word, held back until the set is complete: (word, dot, origin,
    /// pool).
    deferred: Vec<(SoftWord, u32, u32, PoolId)>,
    /// Items that read an operator where a longer one also matches, held back until the set
    /// is complete: (operator, end, dot, origin).
    held_operators: Vec<(TerminalId, u32, u32, u32)>,
    accepted: bool,
    /// An item of the current set skipped whitespace (and comments) to the next token.
    skipped: bool,
}

impl State {
    /// The ends `Step::scan` found for `terminal`, for a dot where it is a whole token or not.
    fn ends(&self, terminal: TerminalId, whole: bool) -> &[u32] {
        let t = terminal.index();
        if whole && self.whole_stamp[t] == self.scan_stamp[t] {
            &self.whole_ends[t]
        } else {
            &self.scan_ends[t]
        }
    }

    fn add(&mut self, chart: &mut Chart, table: &ParseTable, dot: u32, origin: u32) {
        if self.seen.insert(dot, origin) {
            chart.items.push(Item::new(table, dot, origin));
        }
    }
}

/// What is fixed while one set is built.
struct Step<'a, 'g> {
    table: &'a ParseTable,
    scanner: &'a Scanner<'g>,
    units: &'a [u8],
    position: usize,
    space_end: usize,
    rename: bool,
    stamp: u32,
}

impl Step<'_, '_> {
    /// Opens the closure of `nt` here: records it, and has its scanning, whitespace-skipping
    /// and end-of-input dots take effect, without storing its items (see `Chart`).
    fn predict(&self, nt: u32, state: &mut State, chart: &mut Chart, pending: &mut ScanQueue) {
        let table = self.table;
        for &m in &table.closure_nonterminals[nt as usize] {
            state.predicted[m as usize] = self.stamp;
        }
        chart.predicted.push(nt);
        let origin = self.position as u32;
        for &d in &table.closure_active[nt as usize] {
            let dot = table.dots[d as usize];
            match dot.next {
                Next::Terminal(t) => {
                    let count = self.scan(t, dot.whole, state, chart);
                    for k in 0..count {
                        let end = state.ends(t, dot.whole)[k];
                        // A zero-width match advances to a dot the closure already holds.
                        if end as usize != self.position {
                            self.advance(t, dot.operator, end, d + 1, origin, state, pending);
                        }
                    }
                    self.defer(t, dot.whole, d + 1, origin, state);
                }
                Next::End => state.accepted |= self.position == self.units.len(),
                _ => {}
            }
            if dot.skippable && self.space_end != NONE as usize {
                pending.push(self.position, self.space_end, d, origin);
                state.skipped = true;
            }
        }
    }

    /// How many matches `terminal` has here, where it is a whole token or not; their ends
    /// are in `state.ends(terminal, whole)`. Scanned once per set.
    fn scan(
        &self,
        terminal: TerminalId,
        whole: bool,
        state: &mut State,
        chart: &mut Chart,
    ) -> usize {
        let count = self.scan_all(terminal, state, chart);
        let pools = self.scanner.word_pools(terminal);
        if !whole || count == 0 || pools.is_empty() {
            return count;
        }
        let t = terminal.index();
        if state.whole_stamp[t] != self.stamp {
            state.whole_stamp[t] = self.stamp;
            let mut kept = std::mem::take(&mut state.whole_ends[t]);
            kept.clear();
            for k in 0..count {
                let end = state.scan_ends[t][k];
                if pools.iter().all(|&p| self.longest(p, state) == end) {
                    kept.push(end);
                }
            }
            state.whole_ends[t] = kept;
        }
        state.whole_ends[t].len()
    }

    /// Holds back the item (`dot`, `origin`) that reads the soft word found here for the pool
    /// `terminal`, if any, until [`Step::settle_soft_words`].
    fn defer(&self, terminal: TerminalId, whole: bool, dot: u32, origin: u32, state: &mut State) {
        let t = terminal.index();
        if state.scan_stamp[t] != self.stamp || state.soft[t].is_empty() {
            return;
        }
        let Terminal::Pool(pool) = *self.scanner.grammar().terminal(terminal) else {
            return;
        };
        for k in 0..state.soft[t].len() {
            let word = state.soft[t][k];
            // A value may cut a longer word short; an unknown word is the longest already.
            let cut = whole
                && !word.unknown
                && !self.scanner.word_pools(terminal).is_empty()
                && self.longest(pool, state) != word.end;
            if !cut {
                state.deferred.push((word, dot, origin, pool));
            }
        }
    }

    /// A keyword that is not reserved is a keyword only where the grammar expects it, as
    /// tree-sitter lexes its keywords: so a word equal to it is a pool's word here (to be
    /// renamed) only if no item of the complete set expects the keyword's literal. Python's
    /// `x.match` and `for _ in` read names; `match x:` and `case _:` keep their keywords,
    /// so no seed is renamed where the grammar reads its keyword.
    fn settle_soft_words(&self, state: &mut State, chart: &mut Chart, pending: &mut ScanQueue) {
        for (word, dot, origin, pool) in std::mem::take(&mut state.deferred) {
            if state.scan_stamp.get(word.keyword.index()) == Some(&self.stamp) {
                continue;
            }
            pending.push(self.position, word.end as usize, dot, origin);
            if word.unknown {
                let starts = chart.unknown_words.entry((pool, word.end)).or_default();
                if starts.last() != Some(&(self.position as u32)) {
                    starts.push(self.position as u32);
                }
            }
        }
    }

    /// Moves the item (`dot`, `origin`) over `terminal`'s match up to `end`, unless the
    /// terminal is an operator that a longer one matching here may take the place of: that
    /// is decided once the set is complete (see [`Step::settle_operators`]).
    #[allow(clippy::too_many_arguments)]
    fn advance(
        &self,
        terminal: TerminalId,
        operator: bool,
        end: u32,
        dot: u32,
        origin: u32,
        state: &mut State,
        pending: &mut ScanQueue,
    ) {
        if operator
            && self
                .scanner
                .longer_operators_here(terminal, self.units, self.position)
                .next()
                .is_some()
        {
            state.held_operators.push((terminal, end, dot, origin));
        } else {
            pending.push(self.position, end as usize, dot, origin);
        }
    }

    /// An operator is read where no longer operator that matches here is expected here, as
    /// tree-sitter's lexer takes the longest of the tokens valid in its state: `**` is one
    /// operator where an expression goes on, while `from ...x import y` reads three dots where
    /// only `.` is expected.
    fn settle_operators(&self, state: &mut State, pending: &mut ScanQueue) {
        for (terminal, end, dot, origin) in std::mem::take(&mut state.held_operators) {
            let longer_expected = self
                .scanner
                .longer_operators_here(terminal, self.units, self.position)
                .any(|longer| {
                    // A literal no dot of the table reads has no slot: never expected.
                    state.scan_stamp.get(longer.index()) == Some(&self.stamp)
                        && !state.scan_ends[longer.index()].is_empty()
                });
            if !longer_expected {
                pending.push(self.position, end as usize, dot, origin);
            }
        }
    }

    /// The end of the longest word of `pool`'s language here (the position if none).
    fn longest(&self, pool: PoolId, state: &mut State) -> u32 {
        let (stamp, end) = &mut state.longest[pool.index()];
        if *stamp != self.stamp {
            *stamp = self.stamp;
            *end = self
                .scanner
                .longest_word(pool, self.units, self.position)
                .unwrap_or(self.position) as u32;
        }
        *end
    }

    /// [`Step::scan`] for a piece of a token: every match.
    fn scan_all(&self, terminal: TerminalId, state: &mut State, chart: &mut Chart) -> usize {
        if !self
            .scanner
            .may_match(terminal, self.units.get(self.position).copied())
        {
            return 0;
        }
        let t = terminal.index();
        if state.scan_stamp[t] != self.stamp {
            state.scan_stamp[t] = self.stamp;
            state.scan_ends[t].clear();
            state.unknown.clear();
            state.soft[t].clear();
            self.scanner.scan(
                terminal,
                self.units,
                self.position,
                self.rename,
                Found {
                    ends: &mut state.scan_ends[t],
                    unknown: &mut state.unknown,
                    soft: &mut state.soft[t],
                },
            );
            if let (false, Terminal::Pool(pool)) = (
                state.unknown.is_empty(),
                self.scanner.grammar().terminal(terminal),
            ) {
                for &end in &state.unknown {
                    chart
                        .unknown_words
                        .entry((*pool, end))
                        .or_default()
                        .push(self.position as u32);
                }
            }
        }
        state.scan_ends[t].len()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Grammar;

    /// `expr = expr "+" expr | expr "*" expr | ...` reads every chain of operators in every
    /// way unless the table leaves one reading (see `table`): the chart then held items
    /// quadratic and took time cubic in the chain's length, and 64 KB did not finish.
    #[test]
    fn a_long_chain_of_binary_operators_keeps_a_linear_chart() {
        let grammar =
            Grammar::from_text("planted", include_str!("../../../../grammars/planted.ebnf"))
                .unwrap();
        let mut text = String::from("print 1");
        let mut i = 0;
        while text.len() < 64 << 10 {
            text.push_str(if i % 3 == 0 { " * " } else { " + " });
            text.push_str(&(i % 1000).to_string());
            i += 1;
        }
        text.push(';');
        let table = ParseTable::new(&grammar);
        let scanner = Scanner::new(&grammar, false);
        let input = ParseInput::plain(&text);
        let recognition = recognize(&table, &scanner, &input, false);
        assert!(recognition.accepted && recognition.exhausted.is_none());
        let per_byte = recognition.chart.items.len() as f64 / text.len() as f64;
        // About 6; a chart quadratic in the chain would hold thousands per byte.
        assert!(per_byte < 16.0, "{per_byte:.1} items per byte");
    }
}
