//! Rule mutations: a symbol deleted from, or inserted into, a right-hand side, where every
//! word derived through the mutant rule is outside the language.
//!
//! For the item A → α • β of the mutant (β starts with the inserted symbol for an insertion),
//! left(item) is last(α), with precede(A) when α is nullable, and right(item) is first(β),
//! with follow(A) when β is nullable. If every pair of left × right is poisoned (the slides'
//! follow(left) ∩ right = ∅ or left ∩ precede(right) = ∅, decided pair by pair), any word
//! S ⇒* γAδ ⇒ γαβδ ⇒* w has such a pair where α's text meets β's. One short word is written
//! per mutant: the shortest context of A, the shortest words of α and β.

use fixedbitset::FixedBitSet;

use super::Negative;
use super::minimal_word::MinimalWords;
use super::pairs::Pairs;
use super::readings::Readings;
use super::sample::evenly;
use super::token::{Token, TokenGrammar, render};
use crate::grammar::{Grammar, RuleId, Symbol, Terminal};

/// The two rule mutation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleOperator {
    /// A → αXβ becomes A → αβ
    Deletion,
    /// A → αβ becomes A → αXβ
    Insertion,
}

impl RuleOperator {
    /// Both, in the order they are reported.
    pub const ALL: [RuleOperator; 2] = [RuleOperator::Deletion, RuleOperator::Insertion];

    /// The name in the manifest and the summary.
    pub fn name(self) -> &'static str {
        match self {
            RuleOperator::Deletion => "symbol-deletion",
            RuleOperator::Insertion => "symbol-insertion",
        }
    }
}

/// One mutant rule: the alternative, the position, and the inserted symbol.
#[derive(Clone, Copy, Debug)]
pub struct RuleMutant {
    rule: RuleId,
    alternative: usize,
    position: usize,
    inserted: Option<Symbol>,
}

/// Rule mutants of one grammar.
pub struct RuleMutations<'a> {
    grammar: &'a Grammar,
    view: &'a TokenGrammar,
    pairs: &'a Pairs,
    words: MinimalWords<'a>,
}

impl<'a> RuleMutations<'a> {
    /// Prepares the shortest words.
    pub fn new(grammar: &'a Grammar, view: &'a TokenGrammar, pairs: &'a Pairs) -> Self {
        Self {
            grammar,
            view,
            pairs,
            words: MinimalWords::new(grammar, view),
        }
    }

    /// The rules whose right-hand sides are mutated: reachable, outside lexical rules.
    fn mutable_rules(&self) -> impl Iterator<Item = RuleId> + '_ {
        self.grammar.rule_ids().filter(|r| {
            self.view.reachable_rules.contains(r.index()) && !self.grammar.rule(*r).lexical
        })
    }

    /// Symbols an insertion may add: every kind of token as its terminal or lexical rule, and
    /// every named rule outside lexical ones, all of them productive.
    fn insertable(&self) -> Vec<Symbol> {
        let mut symbols = Vec::new();
        for kind in self.view.reachable_kinds.ones() {
            if self.view.is_layout(kind) {
                continue;
            }
            let symbol = match self.view.kind_rule[kind] {
                Some(rule) => Symbol::Rule(rule),
                None if kind < self.grammar.terminals.len() => {
                    Symbol::Terminal(crate::grammar::TerminalId(kind as u32))
                }
                None => continue,
            };
            if self.words.productive(&symbol) {
                symbols.push(symbol);
            }
        }
        for r in self.mutable_rules() {
            let symbol = Symbol::Rule(r);
            if self.grammar.rule(r).is_named() && self.words.productive(&symbol) {
                symbols.push(symbol);
            }
        }
        symbols
    }

    /// Whether a symbol of the token grammar can derive the empty word.
    fn nullable(&self, symbol: &Symbol) -> bool {
        match *symbol {
            Symbol::Terminal(t) => match self.view.grammar.terminal(t) {
                Terminal::Literal(text) => text.is_empty(),
                Terminal::Layout(layout) => *layout == crate::grammar::LayoutToken::Glue,
                _ => false,
            },
            Symbol::Rule(r) => self.view.nullable.contains(r.index()),
            Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => true,
            Symbol::Repeat { body, .. } => self.view.nullable.contains(body.index()),
        }
    }

    /// Kinds a symbol string can end with (`backward`) or begin with, and whether it can be
    /// empty.
    fn edge(&self, symbols: &[Symbol], backward: bool) -> (FixedBitSet, bool) {
        let sets = if backward {
            &self.view.backward
        } else {
            &self.view.forward
        };
        let mut set = FixedBitSet::with_capacity(self.view.kinds() + 1);
        let ordered: Vec<&Symbol> = if backward {
            symbols.iter().rev().collect()
        } else {
            symbols.iter().collect()
        };
        for symbol in ordered {
            match *symbol {
                Symbol::Terminal(t) => {
                    if !self.nullable(symbol) {
                        set.insert(t.index());
                    }
                }
                Symbol::Rule(r) | Symbol::Optional(r) | Symbol::Repeat { body: r, .. } => {
                    set.union_with(&sets.edge[r.index()]);
                }
            }
            if !self.nullable(symbol) {
                return (set, false);
            }
        }
        (set, true)
    }

    /// Whether every word through the mutant alternative `symbols` (split at `position`) of
    /// `rule` is outside the language.
    fn condition(&self, rule: RuleId, before: &[Symbol], after: &[Symbol]) -> bool {
        let (mut left, alpha_empty) = self.edge(before, true);
        if alpha_empty {
            left.union_with(&self.view.backward.neighbour[rule.index()]);
        }
        let (mut right, beta_empty) = self.edge(after, false);
        if beta_empty {
            right.union_with(&self.view.forward.neighbour[rule.index()]);
        }
        self.pairs.all_poisoned(&left, &right)
    }

    /// Every mutant of one operator whose condition holds.
    pub fn candidates(&self, operator: RuleOperator) -> Vec<RuleMutant> {
        let insertable = match operator {
            RuleOperator::Insertion => self.insertable(),
            RuleOperator::Deletion => Vec::new(),
        };
        let mut out = Vec::new();
        for rule in self.mutable_rules() {
            for (a, alt) in self.grammar.rule(rule).alternatives.iter().enumerate() {
                let symbols = &alt.symbols;
                match operator {
                    RuleOperator::Deletion => {
                        for i in 0..symbols.len() {
                            if let Symbol::Terminal(t) = symbols[i]
                                && matches!(self.grammar.terminal(t), Terminal::Layout(_))
                            {
                                continue;
                            }
                            if self.condition(rule, &symbols[..i], &symbols[i + 1..]) {
                                out.push(RuleMutant {
                                    rule,
                                    alternative: a,
                                    position: i,
                                    inserted: None,
                                });
                            }
                        }
                    }
                    RuleOperator::Insertion => {
                        let mut after = Vec::with_capacity(symbols.len() + 1);
                        for i in 0..=symbols.len() {
                            for x in &insertable {
                                after.clear();
                                after.push(*x);
                                after.extend_from_slice(&symbols[i..]);
                                if self.condition(rule, &symbols[..i], &after) {
                                    out.push(RuleMutant {
                                        rule,
                                        alternative: a,
                                        position: i,
                                        inserted: Some(*x),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The mutant rule as text, for the manifest: `A → α X β` with the change in brackets.
    fn describe(&self, mutant: &RuleMutant) -> String {
        let symbols = &self.grammar.rule(mutant.rule).alternatives[mutant.alternative].symbols;
        let mut parts: Vec<String> = symbols.iter().map(|s| self.symbol_name(s)).collect();
        match mutant.inserted {
            Some(x) => parts.insert(mutant.position, format!("[+{}]", self.symbol_name(&x))),
            None => parts[mutant.position] = format!("[-{}]", parts[mutant.position]),
        }
        format!(
            "{} (alternative {}) = {}",
            self.grammar.rule(mutant.rule).name,
            mutant.alternative + 1,
            parts.join(" ")
        )
    }

    fn symbol_name(&self, symbol: &Symbol) -> String {
        match *symbol {
            Symbol::Terminal(t) => self.view.name(self.grammar, t.index()),
            Symbol::Rule(r) => self.grammar.rule(r).name.clone(),
            Symbol::Optional(r) => format!("{}?", self.grammar.rule(r).name),
            Symbol::Repeat { body, .. } => format!("{}*", self.grammar.rule(body).name),
        }
    }

    /// One short word through each of `budget` mutants spread evenly over `candidates`; a
    /// mutant whose word can be read another way at the junction gives way to the next one in
    /// its share. Returns the negatives and how many mutants were tried and left undecided.
    pub fn generate(
        &self,
        operator: RuleOperator,
        candidates: &[RuleMutant],
        budget: usize,
        readings: &mut Readings<'_>,
    ) -> (Vec<Negative>, u64) {
        let mut out = Vec::new();
        let mut undecided = 0;
        let picks = evenly(candidates.len(), budget);
        let mut contexts = std::collections::HashMap::new();
        for (k, &start) in picks.iter().enumerate() {
            let end = picks.get(k + 1).copied().unwrap_or(candidates.len());
            for mutant in &candidates[start..end] {
                let context = contexts
                    .entry(mutant.rule)
                    .or_insert_with(|| self.words.context(mutant.rule));
                let Some((before, after)) = context.as_ref() else {
                    undecided += 1;
                    continue;
                };
                match self.word(operator, mutant, before, after, readings) {
                    Some(negative) => {
                        out.push(negative);
                        break;
                    }
                    None => undecided += 1,
                }
            }
        }
        (out, undecided)
    }

    fn word(
        &self,
        operator: RuleOperator,
        mutant: &RuleMutant,
        before: &[Token],
        after: &[Token],
        readings: &mut Readings<'_>,
    ) -> Option<Negative> {
        let symbols = &self.grammar.rule(mutant.rule).alternatives[mutant.alternative].symbols;
        let (alpha, beta) = match operator {
            RuleOperator::Deletion => {
                (&symbols[..mutant.position], &symbols[mutant.position + 1..])
            }
            RuleOperator::Insertion => (&symbols[..mutant.position], &symbols[mutant.position..]),
        };
        let mut left = before.to_vec();
        let mut glue = false;
        for symbol in alpha {
            self.words.symbol(symbol, &mut left, &mut glue);
        }
        let mut right = Vec::new();
        if let Some(x) = mutant.inserted {
            self.words.symbol(&x, &mut right, &mut glue);
        }
        for symbol in beta {
            self.words.symbol(symbol, &mut right, &mut glue);
        }
        if glue {
            return None;
        }
        if let Some(first) = right.first_mut()
            && first.glued
        {
            return None;
        }
        right.extend_from_slice(after);
        if !readings.junction_poisoned(self.pairs, left.last(), right.first()) {
            return None;
        }
        let junction = left.len();
        let mut tokens = left;
        tokens.extend(right);
        let rendered = render(self.grammar, &tokens);
        let left_span = junction.checked_sub(1).map(|j| rendered.spans[j]);
        if readings.reach_across(&rendered.text, left_span, None) {
            return None;
        }
        let (token_offset, reject_by) = match tokens.get(junction) {
            Some(_) => rendered.spans[junction],
            None => (rendered.text.len(), rendered.text.len()),
        };
        let kind = |t: Option<&Token>| t.map_or(self.pairs.boundary(), |t| t.kind);
        Some(Negative {
            operator: operator.name(),
            source: self.describe(mutant),
            relies_on: format!(
                "rule {}; pair ({}, {})",
                self.describe(mutant),
                self.view.name(
                    self.grammar,
                    kind(junction.checked_sub(1).and_then(|j| tokens.get(j)))
                ),
                self.view.name(self.grammar, kind(tokens.get(junction)))
            ),
            text: rendered.text,
            token_offset,
            reject_by,
        })
    }
}
