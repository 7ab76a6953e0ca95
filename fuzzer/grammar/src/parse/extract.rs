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
//!   longest-match reading wins; a rule's own binary operators (`expr "+" expr`) group to
//!   the left all the same, since the table leaves no other reading of their chains (see
//!   `table`);
//! - among productions with the same span, the earliest alternative of the grammar wins;
//! - an empty span takes the nullable nonterminal's least-height empty derivation, and a
//!   repetition item is never empty when the repetition's span is not.
//!
//! Extraction runs twice at most. The first, strict pass only accepts a derivation the layout
//! pass could have printed: two tokens that touch must be tokens the renderer would not have
//! separated (so `**` is one token, not `*` `*`, and `pass` is not `p as s`), and a line break
//! is never skipped where the grammar's NEWLINE could read it. A failed choice backtracks to
//! the next candidate, and failures are remembered per (nonterminal, production, span), so the
//! search stays polynomial. Every generated text has such a derivation, so its round trip is
//! exact. Seeds written by hand often have none (`[1,2]` touches where the renderer writes
//! `[1, 2]`); they get the second, permissive pass, which takes the first derivation.
//!
//! The other place a choice can fail is a cycle (`a = b; b = a | "x"` can derive `a` from `a`
//! over the same span): extraction refuses to re-enter a nonterminal over the span it is
//! already deriving and backtracks to the next candidate. Other grammars never backtrack.
//!
//! Nodes are produced in mirrored pre-order (each node, then its children last to first) and
//! turned around when the [`DerivationTree`] is built.

use super::chart::Chart;
use super::input::{ParseInput, marker};
use super::pool_renamer::PoolRenamer;
use ahash::AHashSet;

use super::scanner::{Scanner, char_at, char_before};
use super::table::{Next, Origin, ParseTable};
use crate::grammar::{Grammar, LayoutToken, Separator, Terminal, TerminalId};
use crate::text::needs_space;
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
    /// The first pass: only derivations the renderer could have printed.
    strict: bool,
    /// Strict pass: (nonterminal, production, start, end) that have no such derivation.
    failed: AHashSet<(u32, u32, u32, u32)>,
    /// Grammars with NEWLINE but no indentation read line breaks as NEWLINE tokens.
    newline_token: bool,
    /// Whether the part extracted last (the right neighbour of the next one) begins with
    /// GLUE.
    starts_with_glue: bool,
    has_glue: bool,
}

impl<'a> Extractor<'a> {
    pub fn new(
        table: &'a ParseTable,
        scanner: &'a Scanner<'a>,
        chart: &'a Chart,
        input: &'a ParseInput,
        strict: bool,
    ) -> Self {
        let n = input.units.len();
        let grammar = scanner.grammar();
        Self {
            grammar,
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
            strict,
            failed: AHashSet::new(),
            starts_with_glue: false,
            has_glue: grammar
                .terminals
                .contains(&Terminal::Layout(LayoutToken::Glue)),
            newline_token: !scanner.indented()
                && grammar
                    .terminals
                    .contains(&Terminal::Layout(LayoutToken::Newline)),
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
        let key = (nt, production, start, end);
        if self.strict && self.failed.contains(&key) {
            return Err(Stuck::Backtrack);
        }
        let kind = match self.table.nonterminal(nt).origin {
            Origin::Rule(rule) | Origin::Operand(rule) => Some(NodeKind::Rule {
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
        } else if matches!(
            origin,
            Origin::Star(_)
                | Origin::Repeat {
                    min: 0,
                    max: None,
                    ..
                }
        ) {
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
        if let Err(Stuck::Backtrack) = result
            && self.strict
        {
            self.failed.insert(key);
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
            match self.table.dots[(first + position) as usize].next {
                Next::Nonterminal(child) => {
                    let empty = self.table.nonterminal(child).empty_production;
                    let at = self.ancestors.last().map_or(0, |a| a.1);
                    self.nonterminal(child, empty, at, at)?;
                }
                // Only zero-width terminals (GLUE) occur in an empty production.
                Next::Terminal(terminal) => {
                    self.push(NodeKind::Terminal { terminal, value: 0 }, None)
                }
                Next::Complete | Next::End => {}
            }
        }
        Ok(())
    }

    fn production(&mut self, production: u32, start: u32, end: u32) -> Result<(), Stuck> {
        let p = &self.table.productions[production as usize];
        let (first, len) = (p.first_dot, p.len);
        let mut cur = end;
        let mut token_at_cur = false;
        self.starts_with_glue = false;
        for position in (0..len).rev() {
            let k = self.step(production, position, start, cur, false, token_at_cur)?;
            token_at_cur =
                k < cur && self.table.dots[(first + position) as usize].next != Next::End;
            cur = k;
        }
        Ok(())
    }

    /// `Star → Star body` read as a loop, so that a long list does not nest the extraction.
    fn star(&mut self, production: u32, start: u32, end: u32) -> Result<(), Stuck> {
        let after_star = self.table.productions[production as usize].first_dot + 1;
        let complete = self.table.end_dot(production);
        let skippable = self.table.dots[after_star as usize].skippable;
        let lhs = self.table.productions[production as usize].lhs;
        // Items are tokens or hold tokens, so the renderer separates touching items.
        let check_touch = self.strict && !self.table.nonterminal(lhs).token;
        let mut cur = end;
        let mut touch = false;
        self.starts_with_glue = false;
        loop {
            let k = self.step(production, 1, start, cur, true, touch)?;
            // Where did the items before this one end? At or before `k`, across whitespace;
            // touching `k` comes last when the renderer would have separated there.
            let bad_touch = check_touch && !self.starts_with_glue && self.touches_badly(k as usize);
            let ends_at = |this: &Self, e: u32| {
                this.chart
                    .contains(this.table, e as usize, after_star, start)
                    && (e == start || this.chart.contains(this.table, e as usize, complete, start))
            };
            let mut found = None;
            let mut e = k;
            loop {
                if (e != k || !bad_touch) && ends_at(self, e) {
                    found = Some(e);
                    break;
                }
                if skippable && e > start && self.may_skip(e as usize - 1) {
                    e -= 1;
                } else {
                    break;
                }
            }
            if found.is_none() && bad_touch && ends_at(self, k) {
                found = Some(k);
            }
            match found {
                Some(e) if e == start => return Ok(()),
                Some(e) => {
                    touch = e == k;
                    cur = e;
                }
                None => return Err(Stuck::Backtrack),
            }
        }
    }

    /// Extracts the symbol at `position` of `production`, which ends at or (across
    /// whitespace) before `cur`; returns where it starts. `token_at_cur` says that the next
    /// symbol of the production is a non-empty part starting at `cur`.
    fn step(
        &mut self,
        production: u32,
        position: u32,
        start: u32,
        cur: u32,
        nonempty: bool,
        token_at_cur: bool,
    ) -> Result<u32, Stuck> {
        let first = self.table.productions[production as usize].first_dot;
        let before = first + position;
        let after = before + 1;
        let symbol = self.table.dots[before as usize].next;
        let skippable = self.table.dots[after as usize].skippable;
        // Only a first symbol that starts a token can begin after the production's start.
        let skippable_first = self.table.dots[before as usize].skippable;
        let lhs = self.table.productions[production as usize].lhs;
        let in_token = self.table.nonterminal(lhs).token;
        // A token follows at `cur` directly: the renderer separates the two unless GLUE joins
        // them or they are pieces of one lexical token.
        let check_touch = self.strict && token_at_cur && !in_token;
        let base = self.candidates.len();
        let mut e = cur;
        let right_glued = self.starts_with_glue;
        loop {
            let touching = e == cur && check_touch && self.touches_badly(cur as usize);
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
                        || (self.strict
                            && position == 0
                            && candidate.start != start
                            && !(start..candidate.start).all(|p| self.may_skip(p as usize)))
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
                    let first_record = self.records.len();
                    let parent = self.parents.last().copied();
                    let saved_children = parent.map(|p| self.records[p as usize].children);
                    match self.child(symbol, candidate, e) {
                        Ok(()) => {
                            // GLUE at the end of this part or the start of the next one
                            // joins the two tokens, wherever it sits in their subtrees.
                            if touching
                                && !right_glued
                                && !(self.has_glue && self.edge_is_glue(first_record, false))
                            {
                                self.records.truncate(first_record);
                                if let (Some(p), Some(children)) = (parent, saved_children) {
                                    self.records[p as usize].children = children;
                                }
                                continue;
                            }
                            self.starts_with_glue = self.has_glue
                                && (candidate.start < e && self.edge_is_glue(first_record, true)
                                    || (candidate.start == e && right_glued));
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
            if skippable && e > start && self.may_skip(e as usize - 1) {
                e -= 1;
            } else {
                break;
            }
        }
        self.candidates.truncate(base);
        Err(Stuck::Backtrack)
    }

    /// Whether the first (`leftmost`) or last leaf in text order of the records from `first`
    /// on is GLUE. Records are in mirrored pre-order, so the last leaf in text order is the
    /// first terminal record and the first leaf is the last one.
    fn edge_is_glue(&self, first: usize, leftmost: bool) -> bool {
        let records = &self.records[first..];
        let terminal = |r: &Record| match r.kind {
            NodeKind::Terminal { terminal, .. } => Some(terminal),
            _ => None,
        };
        let edge = if leftmost {
            records.iter().rev().find_map(terminal)
        } else {
            records.iter().find_map(terminal)
        };
        edge.is_some_and(|t| self.grammar.terminal(t) == &Terminal::Layout(LayoutToken::Glue))
    }

    /// Whether the unit at `position` may be skipped as whitespace: in the strict pass, a line
    /// break that the grammar's NEWLINE could read may not.
    fn may_skip(&self, position: usize) -> bool {
        self.input.is_space(position)
            && !(self.strict && self.newline_token && self.units[position] == b'\n')
    }

    /// Whether a token starting at `position` touches the previous token where the layout
    /// pass would have put a separator between them.
    fn touches_badly(&self, position: usize) -> bool {
        let (Some((prev, _)), Some((next, _))) = (
            char_before(self.units, position),
            char_at(self.units, position),
        ) else {
            return false;
        };
        // A skipped space follows; a token may well end in one (a string's content).
        if next.is_whitespace() {
            return false;
        }
        match &self.grammar.layout.separator {
            Separator::Auto => needs_space(prev, next, false),
            Separator::Text(separator) => !separator.is_empty(),
        }
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
                // An empty derivation starts where it ends: its items are virtual (see
                // `Chart`), and the parent's item before it decides whether it is possible.
                let nonterminal = self.table.nonterminal(nt);
                if nonterminal.nullable {
                    self.candidates.push(Candidate {
                        start: end,
                        choice: Choice::Production(nonterminal.empty_production),
                    });
                }
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
            Terminal::Layout(LayoutToken::Newline) if !self.scanner.indented() => {
                if units[..e].ends_with(b"\r\n") {
                    push(e - 2, Choice::Value(0));
                } else if units[..e].ends_with(b"\n") {
                    push(e - 1, Choice::Value(0));
                }
            }
            Terminal::Layout(token) => match marker(*token) {
                Some(byte) if e > 0 && units[e - 1] == byte => push(e - 1, Choice::Value(0)),
                Some(_) => {}
                None => push(e, Choice::Value(0)),
            },
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
