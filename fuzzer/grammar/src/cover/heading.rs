//! Which way a producer heads when the rule it is at has nothing left to cover: per rule, how
//! many expansions away the nearest rule with something uncovered is. Both coverage-driven
//! production (uncovered productions) and k-path production (uncovered paths beginning at a
//! rule) steer by it; only what counts as a target differs.

use crate::analysis::Analysis;
use crate::coverage::Requirements;
use crate::grammar::{Grammar, RuleId, Symbol};

/// No target is reachable from the rule.
pub(super) const FAR: u32 = u32::MAX;

/// The grammar's feasible part and, per rule, the distance to the nearest target.
pub(super) struct Heading<'g> {
    grammar: &'g Grammar,
    analysis: &'g Analysis,
    requirements: Requirements<'g>,
    /// Per rule: expansions to the nearest target rule (0 for a target itself), [`FAR`] when
    /// none is reachable.
    distance: Vec<u32>,
}

impl<'g> Heading<'g> {
    /// No target yet: every rule [`FAR`].
    pub(super) fn new(grammar: &'g Grammar, analysis: &'g Analysis) -> Self {
        Self {
            grammar,
            analysis,
            requirements: Requirements::new(grammar, analysis),
            distance: vec![FAR; grammar.rules.len()],
        }
    }

    pub(super) fn requirements(&self) -> &Requirements<'g> {
        &self.requirements
    }

    /// Recomputes the distances for the rules `target` names: a fixpoint over the rules, each
    /// a minimum over its feasible alternatives' nonterminals of one plus theirs.
    pub(super) fn recompute(&mut self, target: impl Fn(RuleId) -> bool) {
        for rule in self.grammar.rule_ids() {
            self.distance[rule.index()] = if target(rule) { 0 } else { FAR };
        }
        loop {
            let mut changed = false;
            for rule in self.grammar.rule_ids() {
                let best = self
                    .nearest_through(rule)
                    .map_or(FAR, |(_, d)| d.saturating_add(1));
                if best < self.distance[rule.index()] {
                    self.distance[rule.index()] = best;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub(super) fn distance(&self, rule: RuleId) -> u32 {
        self.distance[rule.index()]
    }

    /// The distance of the rule a symbol expands to; [`FAR`] for a terminal.
    pub(super) fn distance_of(&self, symbol: &Symbol) -> u32 {
        self.reachable_rule(symbol)
            .map_or(FAR, |rule| self.distance(rule))
    }

    /// The feasible alternative of `rule` with a nonterminal nearest to a target, and that
    /// nonterminal's distance; among equally near ones, the shortest.
    pub(super) fn nearest_through(&self, rule: RuleId) -> Option<(usize, u32)> {
        let alternatives = &self.grammar.rule(rule).alternatives;
        (0..alternatives.len())
            .filter(|&a| self.requirements.feasible(rule, a))
            .filter_map(|a| {
                let nearest = alternatives[a]
                    .symbols
                    .iter()
                    .map(|s| self.distance_of(s))
                    .min()?;
                (nearest != FAR).then_some((a, nearest))
            })
            .min_by_key(|&(a, d)| (d, self.yield_of(rule, a)))
    }

    /// The rule a symbol expands to, when a derivation can go through it.
    pub(super) fn reachable_rule(&self, symbol: &Symbol) -> Option<RuleId> {
        let rule = Grammar::referenced_rule(symbol)?;
        self.analysis
            .heights
            .is_productive(rule.index())
            .then_some(rule)
    }

    /// The length of the shortest word through `alternative` of `rule`.
    pub(super) fn yield_of(&self, rule: RuleId, alternative: usize) -> u64 {
        self.analysis.min_yield.alternative[rule.index()][alternative]
    }
}
