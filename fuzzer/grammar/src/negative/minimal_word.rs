//! Shortest words as tokens: what a rule mutant needs around and inside the mutated rule.
//!
//! The yields follow `analysis::MinYield` (shortest text first), breaking ties by derivation
//! height, and fall back to the lowest alternative once the expansion gets deep: a tie between
//! `a = a | "x"` would otherwise recurse for ever.

use super::token::{Token, TokenGrammar, leaf_text};
use crate::analysis::{Heights, MinContext, MinYield, NO_YIELD};
use crate::grammar::{Grammar, LayoutToken, RuleId, Symbol, Terminal};

/// Below this depth the shortest alternative is taken; past it, the lowest one.
const DEEP: usize = 200;

/// Shortest words of every rule of one grammar, as tokens.
pub struct MinimalWords<'a> {
    grammar: &'a Grammar,
    view: &'a TokenGrammar,
    min_yield: MinYield,
    heights: Heights,
}

impl<'a> MinimalWords<'a> {
    /// Computes the yields and heights once.
    pub fn new(grammar: &'a Grammar, view: &'a TokenGrammar) -> Self {
        Self {
            grammar,
            view,
            min_yield: MinYield::compute(grammar),
            heights: Heights::unrestricted(grammar),
        }
    }

    /// Whether `symbol` derives some word.
    pub fn productive(&self, symbol: &Symbol) -> bool {
        self.min_yield.symbol(symbol) != NO_YIELD
    }

    /// The alternative to expand `rule` with.
    fn choose(&self, rule: RuleId, depth: usize) -> Option<usize> {
        let r = rule.index();
        let alternatives = &self.heights.alternative[r];
        if depth > DEEP {
            return (0..alternatives.len())
                .filter(|&a| self.min_yield.alternative[r][a] != NO_YIELD)
                .min_by_key(|&a| alternatives[a]);
        }
        let least = self.min_yield.rule[r];
        if least == NO_YIELD {
            return None;
        }
        (0..alternatives.len())
            .filter(|&a| self.min_yield.alternative[r][a] == least)
            .min_by_key(|&a| alternatives[a])
    }

    /// Appends a shortest word of `symbol` (an optional absent, a repetition at its least).
    pub fn symbol(&self, symbol: &Symbol, out: &mut Vec<Token>, glue: &mut bool) {
        self.symbol_at(symbol, out, glue, 0);
    }

    fn symbol_at(&self, symbol: &Symbol, out: &mut Vec<Token>, glue: &mut bool, depth: usize) {
        match *symbol {
            Symbol::Terminal(t) => match self.grammar.terminal(t) {
                Terminal::Layout(LayoutToken::Glue) => *glue = true,
                _ => {
                    let text = leaf_text(self.grammar, t, 0);
                    if !text.is_empty() || self.view.is_layout(t.index()) {
                        out.push(Token {
                            kind: t.index(),
                            text,
                            glued: std::mem::take(glue),
                        });
                    }
                }
            },
            Symbol::Rule(r) => self.rule_at(r, out, glue, depth + 1),
            Symbol::Optional(_) => {}
            Symbol::Repeat { body, min, .. } => {
                for _ in 0..min {
                    self.rule_at(body, out, glue, depth + 1);
                }
            }
        }
    }

    /// Appends a shortest word of `rule`; a lexical rule is one token.
    pub fn rule(&self, rule: RuleId, out: &mut Vec<Token>, glue: &mut bool) {
        self.rule_at(rule, out, glue, 0);
    }

    fn rule_at(&self, rule: RuleId, out: &mut Vec<Token>, glue: &mut bool, depth: usize) {
        if let Some(kind) = self.view.lexical_kind[rule.index()] {
            let mut text = String::new();
            self.text_of(rule, &mut text, 0);
            if !text.is_empty() {
                out.push(Token {
                    kind,
                    text,
                    glued: std::mem::take(glue),
                });
            }
            return;
        }
        let Some(a) = self.choose(rule, depth) else {
            return;
        };
        for symbol in &self.grammar.rule(rule).alternatives[a].symbols {
            self.symbol_at(symbol, out, glue, depth);
        }
    }

    /// The shortest text of a rule inside a lexical rule: its pieces, with nothing between.
    fn text_of(&self, rule: RuleId, out: &mut String, depth: usize) {
        let Some(a) = self.choose(rule, depth) else {
            return;
        };
        for symbol in &self.grammar.rule(rule).alternatives[a].symbols {
            match *symbol {
                Symbol::Terminal(t) => out.push_str(&leaf_text(self.grammar, t, 0)),
                Symbol::Rule(r) => self.text_of(r, out, depth + 1),
                Symbol::Optional(_) => {}
                Symbol::Repeat { body, min, .. } => {
                    for _ in 0..min {
                        self.text_of(body, out, depth + 1);
                    }
                }
            }
        }
    }

    /// The shortest text of a lexical rule, for inserting one of its tokens.
    pub fn lexical_text(&self, rule: RuleId) -> String {
        let mut text = String::new();
        self.text_of(rule, &mut text, 0);
        text
    }

    /// A shortest context of `hole` from the start rule, as the tokens before and after it;
    /// `None` when the hole cannot be reached, or only through a lexical rule (inside one,
    /// there are no tokens to mutate).
    pub fn context(&self, hole: RuleId) -> Option<(Vec<Token>, Vec<Token>)> {
        let context = MinContext::toward(self.grammar, &self.min_yield, hole);
        let mut before = Vec::new();
        let mut after_parts: Vec<Vec<Token>> = Vec::new();
        let mut glue = false;
        let mut at = self.grammar.start;
        let mut steps = 0;
        while at != hole {
            if self.grammar.rule(at).lexical || steps > self.grammar.rules.len() {
                return None;
            }
            steps += 1;
            let step = context.step[at.index()]?;
            let symbols = &self.grammar.rule(at).alternatives[step.alternative as usize].symbols;
            let position = step.position as usize;
            for symbol in &symbols[..position] {
                self.symbol(symbol, &mut before, &mut glue);
            }
            let mut after = Vec::new();
            let mut after_glue = false;
            let (next, extra) = match symbols[position] {
                Symbol::Rule(r) | Symbol::Optional(r) => (r, 0),
                Symbol::Repeat { body, min, .. } => (body, min.saturating_sub(1)),
                Symbol::Terminal(_) => return None,
            };
            for _ in 0..extra {
                self.rule(next, &mut after, &mut after_glue);
            }
            for symbol in &symbols[position + 1..] {
                self.symbol(symbol, &mut after, &mut after_glue);
            }
            after_parts.push(after);
            at = next;
        }
        if glue {
            // A GLUE right before the hole: the junction's left side would be glued to it.
            return None;
        }
        let after = after_parts.into_iter().rev().flatten().collect();
        Some((before, after))
    }
}
