//! The cheapest way down from a rule to a symbol, as the steps of a forced descent: what the
//! cover algorithm expands for a derivable pair (X ⇒+ αYω) and, keeping to left corners, for a
//! PLL pair (A ⇒+ aω).
//!
//! Cheapest means least text beside the way down: going from rule A through alternative a at
//! position p costs the shortest yield of a without the symbol at p, which the descent fills
//! with the rest of the way. A shortest search per starting rule (Dijkstra over rules, these
//! costs on the edges) gives the way to every symbol below it at once, so each starting rule is
//! searched once per suite.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::analysis::{Analysis, NO_YIELD, symbol_is_nullable};
use crate::coverage::{Element, Requirements};
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::Step;

/// One edge of the search: rule, alternative, position.
type Edge = (RuleId, u32, u32);

/// The search from one rule: per rule, the cost of the cheapest way to a node of it and the
/// edge that way ends with.
struct Search {
    cost: Vec<u64>,
    came_by: Vec<Option<Edge>>,
}

/// Ways down, computed per starting rule on first use.
pub struct Routes<'a> {
    grammar: &'a Grammar,
    requirements: &'a Requirements<'a>,
    analysis: &'a Analysis,
    /// Only through left corners: positions whose every symbol before can derive nothing.
    left_corners: bool,
    searches: HashMap<RuleId, Search>,
}

impl<'a> Routes<'a> {
    /// Ways anywhere below (`left_corners` false) or to the first token (true).
    pub fn new(
        grammar: &'a Grammar,
        requirements: &'a Requirements<'a>,
        analysis: &'a Analysis,
        left_corners: bool,
    ) -> Self {
        Self {
            grammar,
            requirements,
            analysis,
            left_corners,
            searches: HashMap::new(),
        }
    }

    /// The steps from a node of `from` down to a `to` below it (one step at least), the last
    /// step's position holding `to`; `None` when no feasible way leads there.
    pub fn steps(&mut self, from: RuleId, to: Element) -> Option<Vec<Step>> {
        if !self.searches.contains_key(&from) {
            let search = self.search(from);
            self.searches.insert(from, search);
        }
        let search = &self.searches[&from];
        let mut best: Option<(u64, Edge)> = None;
        for rule in self.grammar.rule_ids() {
            let reached = search.cost[rule.index()];
            if reached == NO_YIELD {
                continue;
            }
            for (edge, cost) in self.edges(rule) {
                let symbol = self.symbol(edge);
                let holds = match (*symbol, to) {
                    (Symbol::Terminal(t), Element::Terminal(target)) => t == target,
                    (symbol, Element::Rule(target)) => {
                        Grammar::referenced_rule(&symbol) == Some(target)
                    }
                    _ => false,
                };
                let total = reached.saturating_add(cost);
                if holds && best.is_none_or(|(b, _)| total < b) {
                    best = Some((total, edge));
                }
            }
        }
        let (_, mut edge) = best?;
        let mut steps = Vec::new();
        loop {
            let (rule, alternative, position) = edge;
            steps.push(Step {
                alternative,
                below: Some(position),
            });
            // Only the starting rule was reached by no edge.
            match search.came_by[rule.index()] {
                Some(before) => edge = before,
                None => break,
            }
        }
        steps.reverse();
        Some(steps)
    }

    fn symbol(&self, (rule, alternative, position): Edge) -> &'a Symbol {
        &self.grammar.rule(rule).alternatives[alternative as usize].symbols[position as usize]
    }

    /// The edges out of `rule` a derivation can take, with their costs: its feasible
    /// alternatives' positions (left corners only, when asked) that hold a terminal or a rule
    /// that derives a word.
    fn edges(&self, rule: RuleId) -> Vec<(Edge, u64)> {
        let grammar = self.grammar;
        let yields = &self.analysis.min_yield;
        let mut edges = Vec::new();
        for (a, alternative) in grammar.rule(rule).alternatives.iter().enumerate() {
            if !self.requirements.feasible(rule, a) {
                continue;
            }
            let whole = yields.alternative[rule.index()][a];
            for (p, symbol) in alternative.symbols.iter().enumerate() {
                let usable = match Grammar::referenced_rule(symbol) {
                    Some(nested) => self.analysis.heights.is_productive(nested.index()),
                    None => true,
                };
                if usable {
                    let cost = whole.saturating_sub(yields.symbol(symbol));
                    edges.push(((rule, a as u32, p as u32), cost));
                }
                if self.left_corners
                    && !symbol_is_nullable(grammar, symbol, &self.analysis.nullable)
                {
                    break;
                }
            }
        }
        edges
    }

    fn search(&self, from: RuleId) -> Search {
        let rules = self.grammar.rules.len();
        let mut cost = vec![NO_YIELD; rules];
        let mut came_by = vec![None; rules];
        let mut queue = BinaryHeap::new();
        cost[from.index()] = 0;
        queue.push(Reverse((0u64, from.0)));
        while let Some(Reverse((reached, rule))) = queue.pop() {
            let rule = RuleId(rule);
            if reached > cost[rule.index()] {
                continue;
            }
            for (edge, step) in self.edges(rule) {
                let Some(nested) = Grammar::referenced_rule(self.symbol(edge)) else {
                    continue;
                };
                let total = reached.saturating_add(step);
                if total < cost[nested.index()] {
                    cost[nested.index()] = total;
                    came_by[nested.index()] = Some(edge);
                    queue.push(Reverse((total, nested.0)));
                }
            }
        }
        Search { cost, came_by }
    }
}
