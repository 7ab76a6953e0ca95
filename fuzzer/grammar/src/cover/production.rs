//! Coverage-driven production: words that each cover productions no earlier word used, until
//! every feasible production is covered.
//!
//! At each rule the producer takes an alternative not yet covered, preferring one through which
//! more uncovered productions can still be reached (the fuzzingbook chapter's deep foresight)
//! and then the shortest; when a rule has none left, it heads for the nearest rule that does,
//! through the alternative whose symbols are fewest expansions away from one; when nothing
//! uncovered is reachable below, it closes with a shortest derivation. A `?` is present and a
//! `*` gets another item exactly while its body still reaches something uncovered. The symbols
//! of a chosen alternative are produced nearest-first, so every rule entered while something
//! is reachable below it covers at least one production before anything else is pursued: each
//! word is finite, and the words run out once everything is covered.
//!
//! The words record choice sequences like any other input. The pool bound m and the repetition
//! bound n are kept; nesting depth is not bounded (a production whose nearest embedding is deep
//! is still reached), and each word's choices are saved with the smallest bounds they replay
//! under.

use fast_rands::{Rand, StdRand};

use super::heading::{FAR, Heading};
use crate::analysis::{Analysis, NO_YIELD};
use crate::bounds::Bounds;
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::MinimalDerivations;

/// Produces words until every feasible production has been used.
pub struct CoverageProducer<'g> {
    grammar: &'g Grammar,
    analysis: &'g Analysis,
    /// Targets: rules with an uncovered feasible alternative.
    heading: Heading<'g>,
    minimal: MinimalDerivations<'g>,
    bounds: Bounds,
    /// Per rule, per alternative: used by some word so far.
    covered: Vec<Vec<bool>>,
    stale: bool,
    rng: StdRand,
}

impl<'g> CoverageProducer<'g> {
    /// A producer for `grammar`; `seed` only breaks ties between equally good alternatives.
    pub fn new(grammar: &'g Grammar, analysis: &'g Analysis, bounds: Bounds, seed: u64) -> Self {
        let covered = grammar
            .rules
            .iter()
            .map(|r| vec![false; r.alternatives.len()])
            .collect();
        Self {
            grammar,
            analysis,
            heading: Heading::new(grammar, analysis),
            minimal: MinimalDerivations::new(grammar, bounds),
            bounds,
            covered,
            stale: true,
            rng: StdRand::with_seed(seed),
        }
    }

    /// The choices of the next word, or `None` once every feasible production is covered.
    pub fn next_word(&mut self) -> Option<Vec<u32>> {
        self.refresh();
        if self.heading.distance(self.grammar.start) == FAR {
            return None;
        }
        let mut out = Vec::new();
        self.produce_rule(self.grammar.start, &mut out);
        Some(out)
    }

    fn uncovered(&self, rule: RuleId, alternative: usize) -> bool {
        self.heading.requirements().feasible(rule, alternative)
            && !self.covered[rule.index()][alternative]
    }

    /// Recomputes the distances after coverage changed.
    fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        self.stale = false;
        let targets: Vec<bool> = self
            .grammar
            .rule_ids()
            .map(|rule| {
                let alternatives = self.grammar.rule(rule).alternatives.len();
                (0..alternatives).any(|a| self.uncovered(rule, a))
            })
            .collect();
        self.heading.recompute(|rule| targets[rule.index()]);
    }

    /// Whether some nonterminal of the alternative still leads to an uncovered production.
    fn leads_on(&self, rule: RuleId, alternative: usize) -> bool {
        self.grammar.rule(rule).alternatives[alternative]
            .symbols
            .iter()
            .any(|s| self.heading.distance_of(s) != FAR)
    }

    fn produce_rule(&mut self, rule: RuleId, out: &mut Vec<u32>) {
        self.refresh();
        let alternatives = self.grammar.rule(rule).alternatives.len();
        let fresh: Vec<usize> = (0..alternatives)
            .filter(|&a| self.uncovered(rule, a))
            .collect();
        let chosen = if !fresh.is_empty() {
            let keys: Vec<(bool, u64, u64)> = fresh
                .iter()
                .map(|&a| {
                    (
                        !self.leads_on(rule, a),
                        self.heading.yield_of(rule, a),
                        self.rng.next(),
                    )
                })
                .collect();
            let best = (0..fresh.len())
                .min_by_key(|&i| keys[i])
                .expect("not empty");
            fresh[best]
        } else if let Some((a, _)) = self.heading.nearest_through(rule) {
            a
        } else {
            let mark = out.len();
            if self.minimal.rule(rule, &[], out).is_none() {
                out.truncate(mark);
            }
            return;
        };
        debug_assert!(self.heading.yield_of(rule, chosen) != NO_YIELD);
        self.covered[rule.index()][chosen] = true;
        self.stale = true;
        if alternatives > 1 {
            out.push(chosen as u32);
        }
        // The symbol nearest to something uncovered goes first, so that a recursive sibling
        // produced after it (`stmt` in `"if" expr "then" stmt ("else" stmt)?`, heading for the
        // `else`) finds its target covered instead of heading for it again and again. A
        // subtree's choices do not depend on its siblings', so each symbol is produced into
        // its own part and the parts are joined in the alternative's order.
        let symbols = self.grammar.rule(rule).alternatives[chosen].symbols.clone();
        let mut order: Vec<usize> = (0..symbols.len()).collect();
        order.sort_by_key(|&i| self.heading.distance_of(&symbols[i]));
        let mut parts = vec![Vec::new(); symbols.len()];
        for i in order {
            self.produce_symbol(&symbols[i], &mut parts[i]);
        }
        for part in parts {
            out.extend(part);
        }
    }

    fn heads_somewhere(&mut self, rule: RuleId) -> bool {
        self.refresh();
        self.analysis.heights.is_productive(rule.index()) && self.heading.distance(rule) != FAR
    }

    fn produce_symbol(&mut self, symbol: &Symbol, out: &mut Vec<u32>) {
        match *symbol {
            Symbol::Terminal(_) => {
                self.minimal.symbol(symbol, &[], out);
            }
            Symbol::Rule(rule) => self.produce_rule(rule, out),
            Symbol::Optional(body) => {
                if self.heads_somewhere(body) {
                    out.push(1);
                    self.produce_rule(body, out);
                } else {
                    out.push(0);
                }
            }
            Symbol::Repeat { body, min, max } => {
                let limit = self.bounds.item_limit(min, max);
                let mut items = Vec::new();
                let mut count = 0;
                while count < min || (count < limit && self.heads_somewhere(body)) {
                    self.produce_rule(body, &mut items);
                    count += 1;
                }
                if max.map_or(u32::MAX, |max| max - min + 1) != 1 {
                    out.push(count - min);
                }
                out.extend(items);
            }
        }
    }
}
