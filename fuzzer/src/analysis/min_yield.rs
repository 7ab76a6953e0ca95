//! The shortest word of every rule and alternative, in characters.
//!
//! Growth control, reduction (replace a subtree by its minimal yield) and the systematic cover
//! criteria all complete partial derivations with the shortest possible text.

use fixedbitset::FixedBitSet;

use crate::grammar::{Grammar, LayoutToken, Symbol, Terminal};

pub const NO_YIELD: u64 = u64::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinYield {
    /// Per rule; [`NO_YIELD`] for unproductive rules.
    pub rule: Vec<u64>,
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
        let mut rule = vec![NO_YIELD; grammar.rules.len()];
        let mut alternative: Vec<Vec<u64>> = grammar
            .rules
            .iter()
            .map(|r| vec![NO_YIELD; r.alternatives.len()])
            .collect();
        loop {
            let mut changed = false;
            for (r, def) in grammar.rules.iter().enumerate() {
                for (a, alt) in def.alternatives.iter().enumerate() {
                    let mut total = 0u64;
                    for symbol in &alt.symbols {
                        let len = symbol_yield(symbol, &terminal_len, &rule);
                        let tokens = token_weight.saturating_mul(tokens(grammar, r, symbol));
                        total = total.saturating_add(len).saturating_add(tokens);
                    }
                    if total < alternative[r][a] {
                        alternative[r][a] = total;
                        changed = true;
                    }
                    if total < rule[r] && !forbidden.contains(r) {
                        rule[r] = total;
                    }
                }
            }
            if !changed {
                // Chosen only now: during the fixpoint a later alternative can reach the
                // minimum first, before an earlier one that ties with it has been computed.
                let best_alternative = alternative
                    .iter()
                    .zip(&rule)
                    .map(|(alts, &least)| alts.iter().position(|&y| y == least && y != NO_YIELD))
                    .collect();
                return Self {
                    rule,
                    alternative,
                    best_alternative,
                    terminal: terminal_len,
                    token_weight,
                };
            }
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
fn tokens(grammar: &Grammar, owner: usize, symbol: &Symbol) -> u64 {
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

fn symbol_yield(symbol: &Symbol, terminal: &[u64], rule: &[u64]) -> u64 {
    match *symbol {
        Symbol::Terminal(t) => terminal[t.index()],
        Symbol::Rule(b) => rule[b.index()],
        Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => 0,
        Symbol::Repeat { body, min, .. } => rule[body.index()].saturating_mul(u64::from(min)),
    }
}
