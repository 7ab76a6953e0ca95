//! One thing a criterion asks the inputs to exercise.

use super::Element;
use crate::grammar::{Grammar, RuleId, Symbol};

/// A requirement of one criterion, covered when some input's derivation contains it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Item {
    /// The symbol occurs in a derivation.
    Symbol(Element),
    /// `rule` is expanded with its alternative `alternative`.
    Rule {
        /// The rule expanded.
        rule: RuleId,
        /// Index of the alternative, as the grammar lists them.
        alternative: u32,
    },
    /// In a node of `rule` expanded with `alternative`, the nonterminal at `position` of that
    /// alternative (or each item of a `?` or `*` there) is expanded with its alternative `inner`.
    Cdrc {
        /// The enclosing rule.
        rule: RuleId,
        /// The enclosing rule's alternative.
        alternative: u32,
        /// Position of the nonterminal in that alternative, from 0.
        position: u32,
        /// The alternative the nonterminal is expanded with.
        inner: u32,
    },
    /// These symbols occur in this order, each the child of the one before, in a derivation.
    Path(Vec<Element>),
}

impl Item {
    /// The requirement as a person acts on it, in the grammar's own names.
    pub fn describe(&self, grammar: &Grammar) -> String {
        match self {
            Item::Symbol(element) => element.describe(grammar),
            Item::Rule { rule, alternative } => production(grammar, *rule, *alternative),
            Item::Cdrc {
                rule,
                alternative,
                position,
                inner,
            } => {
                let symbol = &grammar.rule(*rule).alternatives[*alternative as usize].symbols
                    [*position as usize];
                let nested = Grammar::referenced_rule(symbol).expect("a nonterminal position");
                format!(
                    "{} inside {} (symbol {})",
                    production(grammar, nested, *inner),
                    production(grammar, *rule, *alternative),
                    position + 1
                )
            }
            Item::Path(elements) => elements
                .iter()
                .map(|e| e.describe(grammar))
                .collect::<Vec<_>>()
                .join(" > "),
        }
    }
}

/// `rule -> symbols` as the grammar spells the alternative; `ε` for an empty one.
pub fn production(grammar: &Grammar, rule: RuleId, alternative: u32) -> String {
    let symbols = &grammar.rule(rule).alternatives[alternative as usize].symbols;
    let body: Vec<String> = symbols.iter().map(|s| symbol_text(grammar, s)).collect();
    let body = if body.is_empty() {
        "ε".to_string()
    } else {
        body.join(" ")
    };
    format!("{} -> {body}", grammar.rule(rule).name)
}

fn symbol_text(grammar: &Grammar, symbol: &Symbol) -> String {
    match *symbol {
        Symbol::Terminal(t) => Element::Terminal(t).describe(grammar),
        Symbol::Rule(r) => grammar.rule(r).name.clone(),
        Symbol::Optional(r) => format!("{}?", grammar.rule(r).name),
        Symbol::Repeat { body, min, max } => {
            let name = &grammar.rule(body).name;
            match (min, max) {
                (0, None) => format!("{name}*"),
                (1, None) => format!("{name}+"),
                (min, None) => format!("{name}{{{min},}}"),
                (min, Some(max)) => format!("{name}{{{min},{max}}}"),
            }
        }
    }
}
