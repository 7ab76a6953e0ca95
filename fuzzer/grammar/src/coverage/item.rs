//! One thing a criterion asks the inputs to exercise.

use super::Element;
use crate::grammar::{Grammar, RuleId, Symbol, TerminalId};

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
    /// A node of `rule` expanded with `alternative` whose nonterminal positions, in order, are
    /// expanded with the alternatives `inner` (one per nonterminal position).
    Combination {
        /// The rule expanded.
        rule: RuleId,
        /// Its alternative.
        alternative: u32,
        /// Per nonterminal position of the alternative, left to right: the alternative the
        /// nonterminal there is expanded with.
        inner: Vec<u32>,
    },
    /// A chain of productions: `rule` expanded with `alternatives[0]`, the nonterminal at
    /// `positions[0]` of it with `alternatives[1]`, and so on; one position fewer than
    /// alternatives.
    Chain {
        /// The rule the chain starts at.
        rule: RuleId,
        /// The alternative of each production of the chain.
        alternatives: Vec<u32>,
        /// Where in each production but the last the next one applies, from 0.
        positions: Vec<u32>,
    },
    /// A node of rule `above` with a descendant `below`.
    Pair {
        /// The ancestor.
        above: RuleId,
        /// The descendant, a nonterminal or a terminal.
        below: Element,
    },
    /// A node of `rule` whose first token is `first`.
    First {
        /// The rule.
        rule: RuleId,
        /// The terminal its word begins with.
        first: TerminalId,
    },
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
            Item::Combination {
                rule,
                alternative,
                inner,
            } => {
                let symbols = &grammar.rule(*rule).alternatives[*alternative as usize].symbols;
                let nested: Vec<String> = symbols
                    .iter()
                    .enumerate()
                    .filter_map(|(position, s)| Some((position, Grammar::referenced_rule(s)?)))
                    .zip(inner)
                    .map(|((position, nested), &a)| {
                        format!(
                            "{} (symbol {})",
                            production(grammar, nested, a),
                            position + 1
                        )
                    })
                    .collect();
                format!(
                    "{} with {}",
                    production(grammar, *rule, *alternative),
                    nested.join(", ")
                )
            }
            Item::Chain {
                rule,
                alternatives,
                positions,
            } => {
                let mut at = *rule;
                let mut out = production(grammar, at, alternatives[0]);
                for (pair, &position) in alternatives.windows(2).zip(positions) {
                    let symbol =
                        &grammar.rule(at).alternatives[pair[0] as usize].symbols[position as usize];
                    at = Grammar::referenced_rule(symbol).expect("a nonterminal position");
                    out.push_str(&format!(
                        ", then {} (symbol {})",
                        production(grammar, at, pair[1]),
                        position + 1
                    ));
                }
                out
            }
            Item::Pair { above, below } => format!(
                "{} inside {}",
                below.describe(grammar),
                grammar.rule(*above).name
            ),
            Item::First { rule, first } => format!(
                "{} first in {}",
                Element::Terminal(*first).describe(grammar),
                grammar.rule(*rule).name
            ),
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
