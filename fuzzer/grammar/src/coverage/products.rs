//! The requirements of CDRC² and k-step coverage: products of alternatives, whose number grows
//! as the grammar's branching to a power and is therefore counted before anything is listed.
//!
//! Both are grouped by the production they start at (the production multiplied out, or the
//! first of the chain), which is what `bonsai cover` needs to build a suite for the productions
//! whose items are few enough when the whole criterion has too many.

use super::{Criterion, Item, Requirements};
use crate::grammar::{Grammar, RuleId};

/// How many items of CDRC² or k-step coverage start at each production.
pub struct Products {
    criterion: Criterion,
    /// Per chain length l (from 1; one entry for CDRC²), per rule, per alternative: the
    /// number of items of that length starting there.
    per_length: Vec<Vec<Vec<u128>>>,
}

impl Products {
    /// Per production with at least one item: the rule, the alternative and the number of
    /// items, in grammar order.
    pub fn groups(&self) -> impl Iterator<Item = (RuleId, u32, u128)> + '_ {
        let last = self.per_length.last().expect("one length at least");
        last.iter().enumerate().flat_map(|(r, alternatives)| {
            alternatives
                .iter()
                .enumerate()
                .filter(|&(_, &count)| count > 0)
                .map(move |(a, &count)| (RuleId(r as u32), a as u32, count))
        })
    }

    /// Every item, saturating.
    pub fn total(&self) -> u128 {
        self.groups()
            .fold(0u128, |sum, (_, _, count)| sum.saturating_add(count))
    }
}

impl Requirements<'_> {
    /// The counts for `criterion` (CDRC² or k-step), over feasible alternatives only or over
    /// every alternative the grammar text holds.
    pub fn products(&self, criterion: Criterion, feasible: bool) -> Products {
        let grammar = self.grammar;
        let allowed = |rule: RuleId, a: usize| !feasible || self.feasible(rule, a);
        let ones: Vec<Vec<u128>> = grammar
            .rule_ids()
            .map(|rule| {
                (0..grammar.rule(rule).alternatives.len())
                    .map(|a| u128::from(allowed(rule, a)))
                    .collect()
            })
            .collect();
        // What one nonterminal position contributes: the sum, over the alternatives of the rule
        // there, of the counts below.
        let below = |counts: &[Vec<u128>], nested: RuleId| {
            counts[nested.index()]
                .iter()
                .fold(0u128, |sum, &c| sum.saturating_add(c))
        };
        let per_length = match criterion {
            Criterion::Cdrc2 => {
                let product = grammar
                    .rule_ids()
                    .map(|rule| {
                        (0..grammar.rule(rule).alternatives.len())
                            .map(|a| {
                                let positions = nonterminal_positions(grammar, rule, a as u32);
                                if !allowed(rule, a) || positions.is_empty() {
                                    return 0;
                                }
                                positions.iter().fold(1u128, |product, &(_, nested)| {
                                    product.saturating_mul(below(&ones, nested))
                                })
                            })
                            .collect()
                    })
                    .collect();
                vec![product]
            }
            Criterion::KStep(k) => {
                let mut per_length = vec![ones];
                for _ in 1..k {
                    let shorter = per_length.last().expect("one length at least");
                    let longer = grammar
                        .rule_ids()
                        .map(|rule| {
                            (0..grammar.rule(rule).alternatives.len())
                                .map(|a| {
                                    if !allowed(rule, a) {
                                        return 0;
                                    }
                                    nonterminal_positions(grammar, rule, a as u32).iter().fold(
                                        0u128,
                                        |sum, &(_, nested)| {
                                            sum.saturating_add(below(shorter, nested))
                                        },
                                    )
                                })
                                .collect()
                        })
                        .collect();
                    per_length.push(longer);
                }
                per_length
            }
            _ => unreachable!("only CDRC² and k-steps are products"),
        };
        Products {
            criterion,
            per_length,
        }
    }

    /// The items that start at one production, in order.
    pub fn product_items(&self, products: &Products, rule: RuleId, alternative: u32) -> Vec<Item> {
        let mut items = Vec::new();
        match products.criterion {
            Criterion::Cdrc2 => {
                let positions = nonterminal_positions(self.grammar, rule, alternative);
                let choices: Vec<Vec<u32>> = positions
                    .iter()
                    .map(|&(_, nested)| {
                        (0..self.grammar.rule(nested).alternatives.len())
                            .filter(|&b| self.feasible(nested, b))
                            .map(|b| b as u32)
                            .collect()
                    })
                    .collect();
                if !positions.is_empty() {
                    for_each_combination(&choices, |inner| {
                        items.push(Item::Combination {
                            rule,
                            alternative,
                            inner,
                        })
                    });
                }
                items
            }
            Criterion::KStep(k) => {
                let mut alternatives = vec![alternative];
                let mut positions = Vec::new();
                self.extend_chain(
                    products,
                    k,
                    rule,
                    &mut alternatives,
                    &mut positions,
                    &mut items,
                );
                items
            }
            _ => items,
        }
    }

    /// Extends the chain ending at `at` expanded with the last of `alternatives`, only where
    /// the counts say a chain of length `k` lies ahead.
    fn extend_chain(
        &self,
        products: &Products,
        k: usize,
        first: RuleId,
        alternatives: &mut Vec<u32>,
        positions: &mut Vec<u32>,
        items: &mut Vec<Item>,
    ) {
        if alternatives.len() == k {
            items.push(Item::Chain {
                rule: first,
                alternatives: alternatives.clone(),
                positions: positions.clone(),
            });
            return;
        }
        let at = chain_end(self.grammar, first, alternatives, positions);
        let last = *alternatives.last().expect("a chain has a production");
        let remaining = k - alternatives.len();
        for (position, nested) in nonterminal_positions(self.grammar, at, last) {
            let counts = &products.per_length[remaining - 1][nested.index()];
            for (b, &count) in counts.iter().enumerate() {
                if count == 0 {
                    continue;
                }
                alternatives.push(b as u32);
                positions.push(position);
                self.extend_chain(products, k, first, alternatives, positions, items);
                alternatives.pop();
                positions.pop();
            }
        }
    }

    /// Total items of `criterion` (CDRC² or k-step), feasible or in the grammar text.
    pub(super) fn product_total(&self, criterion: Criterion, feasible: bool) -> u128 {
        self.products(criterion, feasible).total()
    }
}

/// Calls `found` with every way of taking one value from each of `choices`, the last turning
/// fastest (an odometer); never when one of them is empty.
pub(super) fn for_each_combination(choices: &[Vec<u32>], mut found: impl FnMut(Vec<u32>)) {
    if choices.iter().any(Vec::is_empty) {
        return;
    }
    let mut digits = vec![0usize; choices.len()];
    loop {
        found(digits.iter().zip(choices).map(|(&d, c)| c[d]).collect());
        let mut i = digits.len();
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            digits[i] += 1;
            if digits[i] < choices[i].len() {
                break;
            }
            digits[i] = 0;
        }
    }
}

/// The positions of an alternative that hold a nonterminal (a rule, or the body of a `?` or
/// a repetition), with that nonterminal.
pub fn nonterminal_positions(
    grammar: &Grammar,
    rule: RuleId,
    alternative: u32,
) -> Vec<(u32, RuleId)> {
    grammar.rule(rule).alternatives[alternative as usize]
        .symbols
        .iter()
        .enumerate()
        .filter_map(|(p, s)| Some((p as u32, Grammar::referenced_rule(s)?)))
        .collect()
}

/// The rule the last production of a chain expands.
fn chain_end(grammar: &Grammar, first: RuleId, alternatives: &[u32], positions: &[u32]) -> RuleId {
    let mut at = first;
    for (&a, &p) in alternatives.iter().zip(positions) {
        let symbol = &grammar.rule(at).alternatives[a as usize].symbols[p as usize];
        at = Grammar::referenced_rule(symbol).expect("a nonterminal position");
    }
    at
}
