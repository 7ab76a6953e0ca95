//! The shortest word of every rule and alternative, in characters.
//!
//! Growth control, reduction (replace a subtree by its minimal yield) and the systematic cover
//! criteria all complete partial derivations with the shortest possible text.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fixedbitset::FixedBitSet;

use super::dependents::{Dependents, dependency};
use super::work;

use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

/// Yield of a rule or alternative that derives no word (or is forbidden); never a real length.
pub const NO_YIELD: u64 = u64::MAX;

/// Shortest word of every rule, alternative and terminal, so that partial derivations can be
/// completed with the least text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinYield {
    /// Per rule; [`NO_YIELD`] for unproductive rules.
    pub rule: Vec<u64>,
    /// Per rule, per alternative; [`NO_YIELD`] when the alternative cannot be completed.
    pub alternative: Vec<Vec<u64>>,
    /// Per rule, the alternative that reaches the minimum (first one on ties).
    pub best_alternative: Vec<Option<usize>>,
    /// Per terminal: its shortest text (a pool's shortest value; 0 for INDENT and DEDENT).
    pub terminal: Vec<u64>,
    /// What each token outside lexical rules adds (see [`MinYield::compute_weighted`]); 0 for
    /// plain character counts.
    pub token_weight: u64,
}

impl MinYield {
    /// Plain character counts with nothing forbidden: the yields used at load time and by
    /// reduction.
    pub fn compute(grammar: &Grammar) -> Self {
        Self::compute_without(grammar, &FixedBitSet::with_capacity(grammar.rules.len()))
    }

    /// Minimal yields with the rules in `forbidden` treated as underivable, as
    /// [`super::Heights::compute`] does: the shortest word that the depth bound still allows
    /// once those rules have reached it. A forbidden rule keeps its alternatives' yields (it may
    /// be the rule being expanded) but gets no rule yield and no best alternative.
    pub fn compute_without(grammar: &Grammar, forbidden: &FixedBitSet) -> Self {
        Self::compute_weighted(grammar, forbidden, 0)
    }

    /// As [`MinYield::compute_without`], counting `token_weight` more for every token outside
    /// lexical rules (a terminal, or a whole lexical rule): the separator the layout pass may
    /// put before it. With the separator's length as the weight, the yields approximate
    /// rendered bytes, by which `pass` is shorter than `a = a` under `%layout auto` although
    /// it has more letters.
    pub fn compute_weighted(grammar: &Grammar, forbidden: &FixedBitSet, token_weight: u64) -> Self {
        let terminal_len: Vec<u64> = grammar
            .terminals
            .iter()
            .map(|t| match t {
                Terminal::Literal(s) => s.chars().count() as u64,
                Terminal::Class(_) => 1,
                Terminal::Pool(p) => grammar.pools[p.index()]
                    .values
                    .iter()
                    .map(|v| v.chars().count() as u64)
                    .min()
                    .unwrap_or(NO_YIELD),
                Terminal::Layout(LayoutToken::Newline) => 1,
                Terminal::Layout(_) => 0,
            })
            .collect();
        // Knuth's generalisation of Dijkstra's algorithm over [`Dependents`]: a yield is a sum
        // that is never less than any rule yield in it, so the smallest tentative yield is
        // final, and each reference is visited once when its rule becomes final.
        let dependents = Dependents::new(grammar);
        let mut waiting = dependents.waiting.clone();
        // Per flat alternative: its constant part, then the yields of its rules added in.
        let mut total: Vec<u64> = Vec::with_capacity(waiting.len());
        for (r, def) in grammar.rules.iter().enumerate() {
            for alt in &def.alternatives {
                work::step(alt.symbols.len() as u64 + 1);
                let mut sum = 0u64;
                for symbol in &alt.symbols {
                    let tokens = token_weight.saturating_mul(tokens(grammar, r, symbol));
                    sum = sum.saturating_add(tokens);
                    if dependency(symbol).is_none() {
                        sum = sum.saturating_add(symbol_yield(symbol, &terminal_len, &[]));
                    }
                }
                total.push(sum);
            }
        }
        let mut rule = vec![NO_YIELD; grammar.rules.len()];
        let mut alternative: Vec<Vec<u64>> = grammar
            .rules
            .iter()
            .map(|r| vec![NO_YIELD; r.alternatives.len()])
            .collect();
        let mut tentative = vec![NO_YIELD; grammar.rules.len()];
        let mut final_rule = FixedBitSet::with_capacity(grammar.rules.len());
        let mut queue = BinaryHeap::new();
        // A forbidden rule keeps its alternatives' yields but gets no rule yield.
        let mut complete =
            |flat: u32, sum: u64, tentative: &mut [u64], queue: &mut BinaryHeap<_>| {
                if sum == NO_YIELD {
                    return;
                }
                let (r, a) = dependents.locate(flat);
                alternative[r][a] = sum;
                if !forbidden.contains(r) && sum < tentative[r] {
                    tentative[r] = sum;
                    work::step(1);
                    queue.push(Reverse((sum, r)));
                }
            };
        for (flat, &count) in waiting.iter().enumerate() {
            if count == 0 {
                complete(flat as u32, total[flat], &mut tentative, &mut queue);
            }
        }
        while let Some(Reverse((least, r))) = queue.pop() {
            if final_rule.put(r) {
                continue;
            }
            rule[r] = least;
            for &(flat, items) in dependents.uses(r) {
                let f = flat as usize;
                total[f] = total[f].saturating_add(least.saturating_mul(u64::from(items)));
                waiting[f] -= 1;
                if waiting[f] == 0 {
                    complete(flat, total[f], &mut tentative, &mut queue);
                }
            }
        }
        // Chosen only now, as the first alternative that reaches the minimum.
        let best_alternative = alternative
            .iter()
            .zip(&rule)
            .map(|(alts, &least)| alts.iter().position(|&y| y == least && y != NO_YIELD))
            .collect();
        Self {
            rule,
            alternative,
            best_alternative,
            terminal: terminal_len,
            token_weight,
        }
    }

    /// The shortest text of one symbol of an alternative: an optional is absent, a repetition
    /// has its least number of items. Token weights are not included (see [`Self::symbol_in`]).
    pub fn symbol(&self, symbol: &Symbol) -> u64 {
        symbol_yield(symbol, &self.terminal, &self.rule)
    }

    /// As [`Self::symbol`], with the token weight that the symbol carries in a right-hand side
    /// of `owner`, as the alternatives' yields count it.
    pub fn symbol_in(&self, grammar: &Grammar, owner: usize, symbol: &Symbol) -> u64 {
        let weight = self
            .token_weight
            .saturating_mul(tokens(grammar, owner, symbol));
        self.symbol(symbol).saturating_add(weight)
    }
}

/// Tokens that a symbol in a right-hand side of `owner` contributes at least, each of which
/// may get a separator: none inside a lexical rule, where nothing separates the pieces.
pub(super) fn tokens(grammar: &Grammar, owner: usize, symbol: &Symbol) -> u64 {
    if grammar.rules[owner].lexical {
        return 0;
    }
    match *symbol {
        Symbol::Terminal(t) => match grammar.terminal(t) {
            Terminal::Layout(_) => 0,
            Terminal::Literal(s) if s.is_empty() => 0,
            _ => 1,
        },
        Symbol::Rule(b) if grammar.rule(b).lexical => 1,
        Symbol::Repeat { body, min, .. } if grammar.rule(body).lexical => u64::from(min),
        _ => 0,
    }
}

pub(super) fn symbol_yield(symbol: &Symbol, terminal: &[u64], rule: &[u64]) -> u64 {
    match *symbol {
        Symbol::Terminal(t) => terminal[t.index()],
        Symbol::Rule(b) => rule[b.index()],
        Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => 0,
        Symbol::Repeat { body, min, .. } => rule[body.index()].saturating_mul(u64::from(min)),
    }
}
