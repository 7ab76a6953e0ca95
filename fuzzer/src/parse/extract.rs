//! From a recognized chart to one derivation, in the shape the sampler builds.
//!
//! Extraction walks each production right to left, the way Earley charts are read back: for
//! the last symbol it picks a start `k` such that the symbol derives `k..end` and the item
//! with the dot before that symbol is in the set at `k`. That item's presence proves that the
//! rest of the production derives the rest of the span, so every choice made this way leads
//! to a complete derivation and nothing is ever re-parsed. Ambiguity therefore costs nothing
//! beyond the choice itself. The choice is deterministic:
//!
//! - the last symbol takes the longest span available (the smallest `k`), so a tokenizer's
//!   longest-match reading wins, and binary operators associate to the right;
//! - among productions with the same span, the earliest alternative of the grammar wins;
//! - an empty span takes the nullable nonterminal's least-height empty derivation, and a
//!   repetition item is never empty when the repetition's span is not.
//!
//! The one place a choice can fail is a cycle (`a = b; b = a | "x"` can derive `a` from `a`
//! over the same span): extraction refuses to re-enter a nonterminal over the span it is
//! already deriving and backtracks to the next candidate. Other grammars never backtrack.
//!
//! Nodes are produced in mirrored pre-order (each node, then its children last to first) and
//! turned around when the [`DerivationTree`] is built.

use super::chart::Chart;
use super::input::{ParseInput, marker};
use super::pool_renamer::PoolRenamer;
use super::scanner::{Scanner, char_before};
use super::table::{Next, Origin, ParseTable};
use crate::grammar::{Grammar, Terminal, TerminalId};
use crate::tree::{DerivationTree, NodeKind};

/// Deepest nesting of grammar rules extracted; deeper inputs are rejected rather than risk
/// the stack (the sampler that replays the tree recurses as deep).
pub const MAX_NESTING: usize = 2_000;

/// Why an attempt did not produce a derivation.
enum Stuck {
    /// This candidate leads into a cycle; try the next.
    Backtrack,
    /// Give up on the whole input.
    Abort(String),
}

#[derive(Clone, Copy, Debug)]
struct Record {
    kind: NodeKind,
    children: u32,
    /// For a pool word that is not a value: its span, renamed when the tree is built.
    unknown: Option<(u32, u32)>,
}

#[derive(Clone, Copy, Debug)]
enum Choice {
    Value(u32),
    Unknown,
    Production(u32),
    End,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    start: u32,
    choice: Choice,
}

pub(crate) struct Extractor<'a> {
    grammar: &'a Grammar,
    table: &'a ParseTable,
    scanner: &'a Scanner<'a>,
    chart: &'a Chart,
    input: &'a ParseInput,
    units: &'a [u8],
    records: Vec<Record>,
    /// Records receiving children: the innermost open node.
    parents: Vec<u32>,
    /// (nonterminal, start, end) of every derivation being extracted, outermost first.
    ancestors: Vec<(u32, u32, u32)>,
    /// Candidates of all open steps, stacked.
    candidates: Vec<Candidate>,
    steps: usize,
    step_limit: usize,
}

impl<'a> Extractor<'a> {
    pub fn new(
        table: &'a ParseTable,
        scanner: &'a Scanner<'a>,
        chart: &'a Chart,
        input: &'a ParseInput,
    ) -> Self {
        let n = input.units.len();
        Self {
            grammar: scanner.grammar(),
            table,
            scanner,
            chart,
            input,
            units: &input.units,
            records: Vec::with_capacity(n),
            parents: Vec::new(),
            ancestors: Vec::new(),
            candidates: Vec::new(),
            steps: 0,
            step_limit: 1_000 * (n + 1) + 1_000_000,
        }
    }

    /// The derivation of the whole input, which the chart must have accepted.
    pub fn extract(mut self, renamer: &mut PoolRenamer) -> Result<DerivationTree, String> {
        let root = self.table.root;
        let production = self.table.nonterminal(root).productions.start;
        let n = self.units.len() as u32;
        match self.nonterminal(root, production, 0, n) {
            Ok(()) => {}
            Err(Stuck::Abort(message)) => return Err(message),
            Err(Stuck::Backtrack) => {
                return Err("no derivation of the input avoids a cycle of the grammar".into());
            }
        }
        let mut tree = DerivationTree::new();
        let records = std::mem::take(&mut self.records);
        renamer.collect_known(&records_pool_values(&records, self.grammar));
        build(&records, self.units, self.grammar, renamer, &mut tree)?;
        Ok(tree)
    }

    fn nonterminal(&mut self, nt: u32, production: u32, start: u32, end: u32) -> Result<(), Stuck> {
        if self.ancestors.len() >= MAX_NESTING {
            return Err(Stuck::Abort(format!(
                "the input nests deeper than {MAX_NESTING} grammar rules"
            )));
        }
        self.steps += 1;
        if self.steps > self.step_limit {
            return Err(Stuck::Abort(
                "the input is too ambiguous to pick a derivation in reasonable time".into(),
            ));
        }
        let kind = match self.table.nonterminal(nt).origin {
            Origin::Rule(rule) => Some(NodeKind::Rule {
                rule,
                alternative: self.table.productions[production as usize].alternative,
            }),
            Origin::Optional(body) => Some(NodeKind::Optional { body }),
            Origin::Repeat { body, .. } => Some(NodeKind::Repeat { body }),
            Origin::Root | Origin::Star(_) | Origin::Upto(..) => None,
        };
        let saved_len = self.records.len();
        let parent = self.parents.last().copied();
        let saved_children = parent.map(|p| self.records[p as usize].children);
        if let Some(kind) = kind {
            self.push(kind, None);
            self.parents.push(saved_len as u32);
        }
        self.ancestors.push((nt, start, end));
        let origin = self.table.nonterminal(nt).origin;
        let result = if start == end && origin != Origin::Root {
            self.empty_children(production)
        } else if matches!(origin, Origin::Star(_)) {
            self.star(production, start, end)
        } else {
            self.production(production, start, end)
        };
        self.ancestors.pop();
        if kind.is_some() {
            self.parents.pop();
        }
        if result.is_ok()
            && let Origin::Repeat {
                max: Some(max),
                min,
                ..
            } = self.table.nonterminal(nt).origin
        {
            let items = self.records[saved_len].children;
            if items > max.max(min) {
                return Err(Stuck::Abort(format!(
                    "a repetition has {items} items where at most {max} are allowed"
                )));
            }
        }
        if result.is_err() {
            self.records.truncate(saved_len);
            if let (Some(p), Some(children)) = (parent, saved_children) {
                self.records[p as usize].children = children;
            }
        }
        result
    }

    fn push(&mut self, kind: NodeKind, unknown: Option<(u32, u32)>) {
        if let Some(&p) = self.parents.last() {
            self.records[p as usize].children += 1;
        }
        self.records.push(Record {
            kind,
            children: 0,
            unknown,
        });
    }

    /// Children of an empty derivation, last first.
    fn empty_children(&mut self, production: u32) -> Result<(), Stuck> {
        let p = &self.table.productions[production as usize];
        let (first, len) = (p.first_dot, p.len);
        for position in (0..len).rev() {
            let Next::Nonterminal(child) = self.table.dots[(first + position) as usize].next else {
                unreachable!("an empty production holds only nullable nonterminals");
            };
            let empty = self.table.nonterminal(child).empty_production;
            let at = self.ancestors.last().map_or(0, |a| a.1);
            self.nonterminal(child, empty, at, at)?;
        }
        Ok(())
    }

    fn production(&mut self, production: u32, start: u32, end: u32) -> Result<(), Stuck> {
        let len = self.table.productions[production as usize].len;
        let mut cur = end;
        for position in (0..len).rev() {
            cur = self.step(production, position, start, cur, false)?;
        }
        Ok(())
    }

    /// `Star → Star body` read as a loop, so that a long list does not nest the extraction.
    fn star(&mut self, production: u32, start: u32, end: u32) -> Result<(), Stuck> {
        let after_star = self.table.productions[production as usize].first_dot + 1;
        let complete = self.table.end_dot(production);
        let skippable = self.table.dots[after_star as usize].skippable;
        let mut cur = end;
        loop {
            let k = self.step(production, 1, start, cur, true)?;
            // Where did the items before this one end? At or before `k`, across whitespace.
            let mut e = k;
            loop {
                if self
                    .chart
                    .contains(self.table, e as usize, after_star, start)
                {
                    if e == start {
                        return Ok(());
                    }
                    if self.chart.contains(self.table, e as usize, complete, start) {
                        cur = e;
                        break;
                    }
                }
                if skippable && e > start && self.input.is_space(e as usize - 1) {
                    e -= 1;
                } else {
                    return Err(Stuck::Backtrack);
                }
            }
        }
    }

    /// Extracts the symbol at `position` of `production`, which ends at or (across
    /// whitespace) before `cur`; returns where it starts.
    fn step(
        &mut self,
        production: u32,
        position: u32,
        start: u32,
        cur: u32,
        nonempty: bool,
    ) -> Result<u32, Stuck> {
        let first = self.table.productions[production as usize].first_dot;
        let before = first + position;
        let after = before + 1;
        let symbol = self.table.dots[before as usize].next;
        let skippable = self.table.dots[after as usize].skippable;
        // Only a first symbol that starts a token can begin after the production's start.
        let skippable_first = self.table.dots[before as usize].skippable;
        let base = self.candidates.len();
        let mut e = cur;
        loop {
            if e == cur || self.chart.contains(self.table, e as usize, after, start) {
                self.candidates.truncate(base);
                self.collect(symbol, start, e);
                let mut c = base;
                while c < self.candidates.len() {
                    let candidate = self.candidates[c];
                    c += 1;
                    // A production's first dot is in the set where it started: it was predicted
                    // there, as every completed item's production was.
                    let predicted = position == 0 && candidate.start == start;
                    if (nonempty && candidate.start == e)
                        || (position == 0 && candidate.start != start && !skippable_first)
                        || (!predicted
                            && !self.chart.contains(
                                self.table,
                                candidate.start as usize,
                                before,
                                start,
                            ))
                        || self.is_cycle(symbol, candidate.start, e)
                    {
                        continue;
                    }
                    match self.child(symbol, candidate, e) {
                        Ok(()) => {
                            self.candidates.truncate(base);
                            return Ok(candidate.start);
                        }
                        Err(Stuck::Backtrack) => {}
                        Err(abort) => {
                            self.candidates.truncate(base);
                            return Err(abort);
                        }
                    }
                }
            }
            if skippable && e > start && self.input.is_space(e as usize - 1) {
                e -= 1;
            } else {
                break;
            }
        }
        self.candidates.truncate(base);
        Err(Stuck::Backtrack)
    }

    fn is_cycle(&self, symbol: Next, start: u32, end: u32) -> bool {
        let Next::Nonterminal(nt) = symbol else {
            return false;
        };
        start != end
            && self
                .ancestors
                .iter()
                .rev()
                .take_while(|a| a.1 == start && a.2 == end)
                .any(|a| a.0 == nt)
    }

    fn child(&mut self, symbol: Next, candidate: Candidate, end: u32) -> Result<(), Stuck> {
        match (symbol, candidate.choice) {
            (Next::Terminal(terminal), Choice::Value(value)) => {
                self.push(NodeKind::Terminal { terminal, value }, None);
                Ok(())
            }
            (Next::Terminal(terminal), Choice::Unknown) => {
                self.push(
                    NodeKind::Terminal { terminal, value: 0 },
                    Some((candidate.start, end)),
                );
                Ok(())
            }
            (Next::Nonterminal(nt), Choice::Production(production)) => {
                if candidate.start == end {
                    let empty = self.table.nonterminal(nt).empty_production;
                    self.nonterminal(nt, empty, end, end)
                } else {
                    self.nonterminal(nt, production, candidate.start, end)
                }
            }
            _ => Ok(()),
        }
    }

    /// Candidate starts of `symbol` ending at `end`, most preferred first.
    fn collect(&mut self, symbol: Next, start: u32, end: u32) {
        let base = self.candidates.len();
        let units = self.units;
        let e = end as usize;
        match symbol {
            Next::End => {
                if e == units.len() {
                    self.candidates.push(Candidate {
                        start: end,
                        choice: Choice::End,
                    });
                }
            }
            Next::Terminal(t) => self.collect_terminal(t, e),
            Next::Nonterminal(nt) => {
                let dots = self.table.nonterminal(nt).dots.clone();
                for item in self.chart.not_waiting(e, dots.clone()) {
                    let dot = self.table.dot(item.dot);
                    if dot.next == Next::Complete
                        && dots.contains(&item.dot)
                        && item.origin >= start
                    {
                        self.candidates.push(Candidate {
                            start: item.origin,
                            choice: Choice::Production(dot.production),
                        });
                    }
                }
            }
            Next::Complete => {}
        }
        if self.candidates.len() - base > 1 {
            let mut kept = base;
            for c in base..self.candidates.len() {
                if self.candidates[c].start >= start {
                    self.candidates[kept] = self.candidates[c];
                    kept += 1;
                }
            }
            self.candidates.truncate(kept);
            self.candidates[base..].sort_by_key(|c| {
                (
                    c.start,
                    match c.choice {
                        Choice::Production(p) => p,
                        _ => 0,
                    },
                )
            });
        } else if self.candidates.len() > base && self.candidates[base].start < start {
            self.candidates.truncate(base);
        }
    }

    fn collect_terminal(&mut self, t: TerminalId, e: usize) {
        let units = self.units;
        let mut push = |start: usize, choice| {
            self.candidates.push(Candidate {
                start: start as u32,
                choice,
            })
        };
        match self.grammar.terminal(t) {
            Terminal::Literal(s) => {
                if units[..e].ends_with(s.as_bytes()) {
                    push(e - s.len(), Choice::Value(0));
                }
            }
            Terminal::Class(class) => {
                if let Some((c, len)) = char_before(units, e)
                    && let Some(offset) = class.offset_of(c)
                {
                    push(e - len, Choice::Value(offset));
                }
            }
            Terminal::Layout(token) => {
                if e > 0 && units[e - 1] == marker(*token) {
                    push(e - 1, Choice::Value(0));
                }
            }
            Terminal::Pool(pool) => {
                let mut found = Vec::new();
                self.scanner
                    .pool_values_ending_at(*pool, units, e, &mut found);
                for (start, value) in found {
                    self.candidates.push(Candidate {
                        start,
                        choice: Choice::Value(value),
                    });
                }
                if let Some(starts) = self.chart.unknown_words.get(&(*pool, e as u32)) {
                    for &s in starts {
                        self.candidates.push(Candidate {
                            start: s,
                            choice: Choice::Unknown,
                        });
                    }
                }
            }
        }
    }
}

fn records_pool_values(
    records: &[Record],
    grammar: &Grammar,
) -> Vec<(crate::grammar::PoolId, u32)> {
    records
        .iter()
        .filter(|r| r.unknown.is_none())
        .filter_map(|r| match r.kind {
            NodeKind::Terminal { terminal, value } => match grammar.terminal(terminal) {
                Terminal::Pool(p) => Some((*p, value)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Turns mirrored pre-order records into the tree, children in their real order, renaming
/// unknown pool words in the order they occur in the text.
fn build(
    records: &[Record],
    units: &[u8],
    grammar: &Grammar,
    renamer: &mut PoolRenamer,
    tree: &mut DerivationTree,
) -> Result<(), String> {
    if records.is_empty() {
        return Ok(());
    }
    // Subtree sizes: walking backwards, a record's children are the last finished subtrees.
    let mut size = vec![0u32; records.len()];
    let mut finished: Vec<u32> = Vec::new();
    for r in (0..records.len()).rev() {
        let mut total = 1;
        for _ in 0..records[r].children {
            total += finished.pop().unwrap_or(0);
        }
        size[r] = total;
        finished.push(total);
    }
    let mut children = Vec::new();
    emit(
        0,
        records,
        &size,
        units,
        grammar,
        renamer,
        tree,
        &mut children,
    )
}

#[allow(clippy::too_many_arguments)]
fn emit(
    r: usize,
    records: &[Record],
    size: &[u32],
    units: &[u8],
    grammar: &Grammar,
    renamer: &mut PoolRenamer,
    tree: &mut DerivationTree,
    children: &mut Vec<u32>,
) -> Result<(), String> {
    let record = records[r];
    let kind = match (record.kind, record.unknown) {
        (NodeKind::Terminal { terminal, .. }, Some((start, end))) => {
            let Terminal::Pool(pool) = grammar.terminal(terminal) else {
                unreachable!("only pool words are unknown");
            };
            let word = String::from_utf8_lossy(&units[start as usize..end as usize]);
            let value = renamer.rename(grammar, *pool, &word)?;
            NodeKind::Terminal { terminal, value }
        }
        (kind, _) => kind,
    };
    let node = tree.open(kind, 0);
    let base = children.len();
    let mut child = r + 1;
    for _ in 0..record.children {
        children.push(child as u32);
        child += size[child] as usize;
    }
    let end = children.len();
    for i in (base..end).rev() {
        let c = children[i] as usize;
        emit(c, records, size, units, grammar, renamer, tree, children)?;
    }
    children.truncate(base);
    tree.close(node, 0);
    Ok(())
}
