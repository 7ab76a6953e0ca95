//! The requirements of derivable pair and PLL coverage: what a nonterminal derives below it,
//! anywhere or first.

use std::collections::BTreeSet;

use fixedbitset::FixedBitSet;

use super::{Element, Item, Requirements};
use crate::analysis::{Analysis, Direction, TerminalSets, symbol_is_nullable};
use crate::grammar::{Grammar, RuleId, Symbol, TerminalId};

/// Per rule, the terminals of its first set that are tokens: the analysis's first set without
/// its end-of-input bit and without the terminals that can be empty (an empty literal; GLUE is
/// never in it), since a node's first token is what a tree can show.
pub(super) fn first_tokens(grammar: &Grammar, analysis: &Analysis) -> Vec<Vec<TerminalId>> {
    tokens(grammar, &analysis.forward.edge)
}

/// As [`first_tokens`], but of what derivations can hold: the analysis's own computation run
/// on a copy of the grammar without the alternatives no derivation can use, so that a token
/// only an infeasible alternative puts first is infeasible too. The nullable set carries over:
/// an empty derivation uses only alternatives that derive a word.
pub(super) fn feasible_first_tokens(
    grammar: &Grammar,
    nullable: &FixedBitSet,
    feasible_alternatives: &[Vec<bool>],
) -> Vec<Vec<TerminalId>> {
    let mut pruned = grammar.clone();
    for (rule, feasible) in pruned.rules.iter_mut().zip(feasible_alternatives) {
        let mut keep = feasible.iter();
        rule.alternatives
            .retain(|_| keep.next().copied().unwrap_or(false));
    }
    let sets = TerminalSets::compute(&pruned, nullable, Direction::Forward);
    tokens(grammar, &sets.edge)
}

fn tokens(grammar: &Grammar, first: &[FixedBitSet]) -> Vec<Vec<TerminalId>> {
    let none = FixedBitSet::new();
    grammar
        .rule_ids()
        .map(|rule| {
            first[rule.index()]
                .ones()
                .filter(|&t| t < grammar.terminals.len())
                .map(|t| TerminalId(t as u32))
                .filter(|&t| !symbol_is_nullable(grammar, &Symbol::Terminal(t), &none))
                .collect()
        })
        .collect()
}

impl Requirements<'_> {
    /// Every (X, Y) with Y reachable from a feasible X in one step or more through the feasible
    /// part: a search from each rule over the same edges as the k-paths.
    pub(super) fn pairs(&self) -> BTreeSet<Item> {
        let mut pairs = BTreeSet::new();
        for above in self.grammar.rule_ids() {
            if !self.feasible_rules.contains(above.index()) {
                continue;
            }
            let mut seen: BTreeSet<Element> = BTreeSet::new();
            let mut work: Vec<Element> = self.below(Element::Rule(above)).to_vec();
            while let Some(element) = work.pop() {
                if seen.insert(element) {
                    work.extend(self.below(element).iter().filter(|e| !seen.contains(e)));
                }
            }
            pairs.extend(seen.into_iter().map(|below| Item::Pair { above, below }));
        }
        pairs
    }

    /// The (A, a) pairs of PLL coverage: those derivations can hold, or all the grammar text's
    /// first sets give. The feasible ones are computed on first use, since they take a copy of
    /// the grammar.
    pub(super) fn firsts(&self, feasible: bool) -> impl Iterator<Item = Item> + '_ {
        let first = if feasible {
            self.feasible_first.get_or_init(|| {
                feasible_first_tokens(self.grammar, &self.nullable, &self.feasible_alternatives)
            })
        } else {
            &self.first
        };
        self.grammar
            .rule_ids()
            .filter(move |rule| !feasible || self.feasible_rules.contains(rule.index()))
            .flat_map(move |rule: RuleId| {
                first[rule.index()]
                    .iter()
                    .map(move |&first| Item::First { rule, first })
            })
    }
}
