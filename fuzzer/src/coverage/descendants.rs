//! The requirements of derivable pair and PLL coverage: what a nonterminal derives below it,
//! anywhere or first.

use std::collections::BTreeSet;

use fixedbitset::FixedBitSet;

use super::{Element, Item, Requirements};
use crate::analysis::{Analysis, symbol_is_nullable};
use crate::grammar::{Grammar, RuleId, Symbol, TerminalId};

/// Per rule, the terminals of its first set that are tokens: the analysis's first set without
/// its end-of-input bit and without the terminals that can be empty (an empty literal; GLUE is
/// never in it), since a node's first token is what a tree can show.
pub(super) fn first_tokens(grammar: &Grammar, analysis: &Analysis) -> Vec<Vec<TerminalId>> {
    let none = FixedBitSet::new();
    grammar
        .rule_ids()
        .map(|rule| {
            analysis
                .first(rule)
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

    /// The (A, a) pairs of PLL coverage, for feasible rules A or for every rule. A token that
    /// only a derivation through an infeasible alternative puts first stays among the feasible
    /// ones: the first sets do not tell, and `bonsai cover` reports it as one it found no word
    /// for.
    pub(super) fn firsts(&self, feasible: bool) -> impl Iterator<Item = Item> + '_ {
        self.grammar
            .rule_ids()
            .filter(move |rule| !feasible || self.feasible_rules.contains(rule.index()))
            .flat_map(move |rule: RuleId| {
                self.first[rule.index()]
                    .iter()
                    .map(move |&first| Item::First { rule, first })
            })
    }
}
