//! k-path production: words that steer toward k-paths no earlier word derived, until every
//! feasible k-path is covered (the production algorithm of Havrikov and Zeller's k-path paper).
//!
//! A word is grown top down. At each rule the producer knows the path of symbols from the root
//! to it, so it can tell, for each alternative, how many uncovered k-paths that alternative
//! would continue or complete right here (a path running through the rule's last few
//! ancestors and on into one of the alternative's symbols) or start (a path beginning at one of
//! the symbols). It takes the alternative that serves the most; when none serves any, it heads
//! for the nearest rule where an uncovered path begins, and when none is reachable it closes
//! with a shortest derivation. Paths count as covered the moment the producer enters their last
//! symbol, so siblings chase different paths and one word packs many.
//!
//! Growth control: a word enters at most [`WORD_BUDGET`] symbols, and a rule that already
//! occurs d times on the path from the root (the depth bound) is not steered further; beyond
//! either, everything left open closes with shortest derivations, as the paper closes trees
//! once a size or depth threshold is passed. Without the depth limit, chasing 3-paths through
//! `func_body = (... | func_def)* stmt+` nested a new `def` for almost every path, and words
//! grew to 150 KB of indentation. What a word covered is then measured on its replayed tree, never trusted from the
//! bookkeeping. Should a word cover nothing new (the budget ran out before any chase ended),
//! the next word is the cover suite's shortest word for the first uncovered path, so every
//! word makes progress and production ends.
//!
//! The pool and repetition bounds are kept; depth steers but does not bound (a path whose only
//! embedding is deeper is still reached, by the suite's construction), and every word's
//! choices replay like any other input, as in [`super::CoverageProducer`].

use std::collections::{HashMap, HashSet};

use fast_rands::{Rand, StdRand};

use super::heading::{FAR, Heading};
use super::suite::word_for;
use crate::analysis::Analysis;
use crate::bounds::{Bounds, MAX_BOUND};
use crate::coverage::{Criterion, Element, Item, Required, Tally};
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::{MinimalDerivations, replay_strict};

/// Symbols one word may enter before the rest closes with shortest derivations. Large enough
/// that a word completes many chases of a few levels each, small enough that words stay
/// readable and a chase cannot grow a word without end.
pub const WORD_BUDGET: usize = 600;

/// Why no producer could be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathProductionError {
    /// k is 0 or above [`Criterion::MAX_K`].
    BadK(usize),
    /// The grammar has more k-paths than can be listed one by one.
    TooMany(u128),
}

impl std::fmt::Display for PathProductionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathProductionError::BadK(k) => write!(
                f,
                "kpath:K takes a K from 1 to {}, not {k}",
                Criterion::MAX_K
            ),
            PathProductionError::TooMany(count) => write!(
                f,
                "the grammar has {count} k-paths, too many to steer toward one by one; take a smaller k"
            ),
        }
    }
}

impl std::error::Error for PathProductionError {}

/// Produces words until every feasible k-path is covered.
pub struct PathProducer<'g> {
    grammar: &'g Grammar,
    analysis: &'g Analysis,
    /// Targets: rules where an uncovered path begins.
    heading: Heading<'g>,
    minimal: MinimalDerivations<'g>,
    bounds: Bounds,
    k: usize,
    criterion: Criterion,
    /// Paths not yet covered, and not given up.
    uncovered: HashSet<Vec<Element>>,
    /// For every prefix of an uncovered path (lengths 1 to k), how many uncovered paths start
    /// with it.
    prefixes: HashMap<Vec<Element>, u32>,
    tally: Tally,
    /// Paths no word within the bounds can derive, with the reason.
    given_up: Vec<(Item, String)>,
    /// Symbols entered by the word being produced.
    entered: usize,
    /// A path was covered since the distances were computed.
    stale: bool,
    rng: StdRand,
}

impl<'g> PathProducer<'g> {
    /// A producer of `k`-path-covering words for `grammar`; `seed` only breaks ties.
    pub fn new(
        grammar: &'g Grammar,
        analysis: &'g Analysis,
        bounds: Bounds,
        k: usize,
        seed: u64,
    ) -> Result<Self, PathProductionError> {
        if k == 0 || k > Criterion::MAX_K {
            return Err(PathProductionError::BadK(k));
        }
        let criterion = Criterion::KPath(k);
        let heading = Heading::new(grammar, analysis);
        let uncovered = match heading.requirements().required(criterion) {
            Required::Listed(items) => items
                .into_iter()
                .filter_map(|item| match item {
                    Item::Path(path) => Some(path),
                    _ => None,
                })
                .collect(),
            Required::Counted(count) => return Err(PathProductionError::TooMany(count)),
        };
        let mut producer = Self {
            grammar,
            analysis,
            heading,
            minimal: MinimalDerivations::new(grammar, bounds),
            bounds,
            k,
            criterion,
            uncovered,
            prefixes: HashMap::new(),
            tally: Tally::new(&[criterion]),
            given_up: Vec::new(),
            entered: 0,
            stale: false,
            rng: StdRand::with_seed(seed),
        };
        producer.recount();
        Ok(producer)
    }

    /// Paths no word within the bounds derives, described, with the reason.
    pub fn given_up(&self) -> impl Iterator<Item = (String, &str)> {
        self.given_up
            .iter()
            .map(|(item, reason)| (item.describe(self.grammar), reason.as_str()))
    }

    /// The choices of the next word, or `None` once every feasible k-path is covered (or given
    /// up).
    pub fn next_word(&mut self) -> Option<Vec<u32>> {
        while !self.uncovered.is_empty() {
            let before = self.tally.covered(self.criterion).len();
            let mut out = Vec::new();
            if self.heading.distance(self.grammar.start) != FAR {
                self.entered = 0;
                let mut chain = Vec::new();
                self.enter(Element::Rule(self.grammar.start), &mut chain);
                self.produce_rule(self.grammar.start, &mut chain, &mut out);
                self.settle(&out);
                if self.tally.covered(self.criterion).len() > before {
                    return Some(out);
                }
            }
            // Nothing new: the budget cut every chase short, or the nearest path begins
            // nowhere the start rule's words reach by steering. The suite's construction aims
            // at one path and cannot miss it.
            let first = self.uncovered.iter().min().cloned().expect("not empty");
            let item = Item::Path(first);
            let unbounded = self.unbounded();
            let mut minimal = MinimalDerivations::new(self.grammar, unbounded);
            match word_for(
                self.grammar,
                self.heading.requirements(),
                self.analysis,
                &mut minimal,
                None,
                &item,
                unbounded,
            ) {
                Ok(word) => {
                    let choices = word.choices.as_slice().to_vec();
                    self.settle(&choices);
                    if self.tally.covered(self.criterion).contains(&item) {
                        return Some(choices);
                    }
                    self.give_up(item, "its shortest word does not derive it".into());
                }
                Err(reason) => self.give_up(item, reason),
            }
        }
        None
    }

    fn give_up(&mut self, item: Item, reason: String) {
        if let Item::Path(path) = &item {
            self.uncovered.remove(path);
        }
        self.given_up.push((item, reason));
        self.recount();
    }

    /// The pool and repetition bounds, with depth unbounded.
    fn unbounded(&self) -> Bounds {
        Bounds::new(self.bounds.idents, self.bounds.items, MAX_BOUND)
            .expect("the bounds were valid with any depth")
    }

    /// Measures what a finished word covers on its replayed tree, and recounts what is left.
    fn settle(&mut self, choices: &[u32]) {
        if let Ok(sample) = replay_strict(self.grammar, self.unbounded(), choices) {
            self.tally.add(&sample.tree);
        }
        let covered = self.tally.covered(self.criterion);
        self.uncovered
            .retain(|path| !covered.contains(&Item::Path(path.clone())));
        self.recount();
    }

    /// Rebuilds the prefix counts and the distances from the uncovered paths.
    fn recount(&mut self) {
        self.prefixes.clear();
        for path in &self.uncovered {
            for len in 1..=path.len() {
                *self.prefixes.entry(path[..len].to_vec()).or_insert(0) += 1;
            }
        }
        self.refresh_distances();
    }

    /// Recomputes the distances while a word grows, after it covered a path: otherwise the
    /// producer keeps heading for paths its own word already derived.
    fn refresh(&mut self) {
        if self.stale {
            self.refresh_distances();
        }
    }

    fn refresh_distances(&mut self) {
        self.stale = false;
        let targets: Vec<bool> = self
            .grammar
            .rule_ids()
            .map(|rule| self.begins_here(rule))
            .collect();
        self.heading.recompute(|rule| targets[rule.index()]);
    }

    /// Whether an uncovered path begins at `rule`, or (for k = 1) one of its alternatives holds
    /// an uncovered terminal.
    fn begins_here(&self, rule: RuleId) -> bool {
        if self.starts(Element::Rule(rule)) > 0 {
            return true;
        }
        self.grammar
            .rule(rule)
            .alternatives
            .iter()
            .enumerate()
            .filter(|&(a, _)| self.heading.requirements().feasible(rule, a))
            .flat_map(|(_, alt)| &alt.symbols)
            .any(|s| matches!(*s, Symbol::Terminal(t) if self.starts(Element::Terminal(t)) > 0))
    }

    fn starts(&self, element: Element) -> u32 {
        self.prefixes
            .get([element].as_slice())
            .copied()
            .unwrap_or(0)
    }

    /// The path element a symbol of an alternative puts below its rule: `?` and `*` are
    /// transparent, as the coverage tally reads trees.
    fn element_of(symbol: &Symbol) -> Element {
        match *symbol {
            Symbol::Terminal(t) => Element::Terminal(t),
            Symbol::Rule(r) | Symbol::Optional(r) | Symbol::Repeat { body: r, .. } => {
                Element::Rule(r)
            }
        }
    }

    /// What entering `element` below `chain` does for the uncovered paths that run through
    /// the chain's last symbols: how many it completes, and how many it carries on. Paths that
    /// would only begin at `element` are not counted: whether the subtree below ever follows
    /// them is not decided here, and counting them sent the producer down chains that covered
    /// nothing (a `( expr )` inside every `factor` because some path begins at `expr`). Heading
    /// for where paths begin is the distances' job.
    fn serves(&self, chain: &[Element], element: Element) -> (u32, u32) {
        let mut key = Vec::with_capacity(self.k);
        let (mut completes, mut continues) = (0, 0);
        for take in 1..self.k.min(chain.len() + 1) {
            key.clear();
            key.extend_from_slice(&chain[chain.len() - take..]);
            key.push(element);
            let count = self.prefixes.get(&key).copied().unwrap_or(0);
            if key.len() == self.k {
                completes += count;
            } else {
                continues += count;
            }
        }
        if self.k == 1 {
            completes += self
                .prefixes
                .get([element].as_slice())
                .copied()
                .unwrap_or(0);
        }
        (completes, continues)
    }

    /// Enters a symbol below `chain`: the uncovered path it completes counts as covered.
    fn enter(&mut self, element: Element, chain: &mut Vec<Element>) {
        self.entered += 1;
        chain.push(element);
        self.mark(chain);
    }

    /// Counts the path of the chain's last k symbols as covered.
    fn mark(&mut self, chain: &[Element]) {
        if chain.len() < self.k {
            return;
        }
        let path = &chain[chain.len() - self.k..];
        if self.uncovered.remove(path) {
            for len in 1..=path.len() {
                if let Some(count) = self.prefixes.get_mut(&path[..len]) {
                    *count -= 1;
                }
            }
            self.stale = true;
        }
    }

    fn open(&self) -> bool {
        self.entered < WORD_BUDGET
    }

    fn produce_rule(&mut self, rule: RuleId, chain: &mut Vec<Element>, out: &mut Vec<u32>) {
        self.refresh();
        let alternatives = self.grammar.rule(rule).alternatives.len();
        let feasible: Vec<usize> = (0..alternatives)
            .filter(|&a| self.heading.requirements().feasible(rule, a))
            .collect();
        let served: Vec<(u32, u32)> = feasible
            .iter()
            .map(|&a| {
                self.grammar.rule(rule).alternatives[a]
                    .symbols
                    .iter()
                    .map(|s| self.serves(chain, Self::element_of(s)))
                    .fold((0, 0), |(c, n), (dc, dn)| (c + dc, n + dn))
            })
            .collect();
        let nested = chain.iter().filter(|&&e| e == Element::Rule(rule)).count();
        let steer = self.open() && nested <= self.bounds.depth as usize;
        let chosen = if steer && served.iter().any(|&(c, n)| c + n > 0) {
            let best = (0..feasible.len())
                .max_by_key(|&i| {
                    (
                        served[i],
                        std::cmp::Reverse(self.heading.yield_of(rule, feasible[i])),
                        self.rng.next(),
                    )
                })
                .expect("not empty");
            feasible[best]
        } else if let Some((a, _)) = steer.then(|| self.heading.nearest_through(rule)).flatten() {
            a
        } else {
            let mark = out.len();
            if self.minimal.rule(rule, &[], out).is_none() {
                out.truncate(mark);
            }
            return;
        };
        if alternatives > 1 {
            out.push(chosen as u32);
        }
        let symbols = self.grammar.rule(rule).alternatives[chosen].symbols.clone();
        // The paths the alternative's plain symbols complete are covered from now on, before
        // the first symbol's subtree is grown: a `( expr )` would otherwise still see the path
        // into its `)` as open all through its `expr`, and nest another `( expr )` there.
        for symbol in &symbols {
            if let Symbol::Terminal(_) | Symbol::Rule(_) = symbol {
                chain.push(Self::element_of(symbol));
                self.mark(chain);
                chain.pop();
            }
        }
        // Nearest-first, as the coverage producer does: a sibling grown later finds the
        // distances its elder siblings' paths changed. Each symbol is produced into its own
        // part and the parts are joined in the alternative's order.
        let mut order: Vec<usize> = (0..symbols.len()).collect();
        order.sort_by_key(|&i| self.heading.distance_of(&symbols[i]));
        let mut parts = vec![Vec::new(); symbols.len()];
        for i in order {
            self.produce_symbol(&symbols, i, chain, &mut parts[i]);
        }
        for part in parts {
            out.extend(part);
        }
    }

    /// Whether an optional `body` at position `at` of `symbols`, below `chain`, gets (another)
    /// item: when it serves a path right here, or when it is strictly the nearest way from
    /// here toward one. "Nearer than nothing" is not enough: `func_body = (... | func_def)*
    /// stmt+` would nest one `def` in another for every path some `stmt` could reach as well.
    fn worth(&mut self, chain: &[Element], symbols: &[Symbol], at: usize, body: RuleId) -> bool {
        self.refresh();
        if !self.open() || !self.analysis.heights.is_productive(body.index()) {
            return false;
        }
        if self.serves(chain, Element::Rule(body)) != (0, 0) {
            return true;
        }
        let rivals = symbols
            .iter()
            .enumerate()
            .filter(|&(i, s)| {
                i != at && matches!(s, Symbol::Rule(_) | Symbol::Repeat { min: 1.., .. })
            })
            .map(|(_, s)| self.heading.distance_of(s))
            .min()
            .unwrap_or(FAR);
        let here = self.heading.distance(body);
        here != FAR && here < rivals
    }

    fn produce_symbol(
        &mut self,
        symbols: &[Symbol],
        at: usize,
        chain: &mut Vec<Element>,
        out: &mut Vec<u32>,
    ) {
        let symbol = &symbols[at];
        match *symbol {
            Symbol::Terminal(t) => {
                self.enter(Element::Terminal(t), chain);
                self.minimal.symbol(symbol, &[], out);
                chain.pop();
            }
            Symbol::Rule(rule) => self.produce_body(rule, chain, out),
            Symbol::Optional(body) => {
                if self.worth(chain, symbols, at, body) {
                    out.push(1);
                    self.produce_body(body, chain, out);
                } else {
                    out.push(0);
                }
            }
            Symbol::Repeat { body, min, max } => {
                let limit = self.bounds.item_limit(min, max);
                let mut items = Vec::new();
                let mut count = 0;
                while count < min || (count < limit && self.worth(chain, symbols, at, body)) {
                    self.produce_body(body, chain, &mut items);
                    count += 1;
                }
                if max.map_or(u32::MAX, |max| max - min + 1) != 1 {
                    out.push(count - min);
                }
                out.extend(items);
            }
        }
    }

    fn produce_body(&mut self, rule: RuleId, chain: &mut Vec<Element>, out: &mut Vec<u32>) {
        self.enter(Element::Rule(rule), chain);
        self.produce_rule(rule, chain, out);
        chain.pop();
    }
}
