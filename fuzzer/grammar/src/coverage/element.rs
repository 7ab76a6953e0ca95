//! The symbols coverage counts: nonterminals and terminals of the normalized grammar.

use crate::grammar::{Grammar, RuleId, Terminal, TerminalId};

/// A nonterminal (a named rule or a group made by lowering) or a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    /// A rule, named or group.
    Rule(RuleId),
    /// A terminal: a literal, a character class, a pool or a layout token.
    Terminal(TerminalId),
}

impl Element {
    /// How a person reading a grammar file recognises the symbol: a rule by its name, a literal
    /// quoted, a class in brackets, a pool by its name, a layout token by its reserved name.
    pub fn describe(self, grammar: &Grammar) -> String {
        match self {
            Element::Rule(rule) => grammar.rule(rule).name.clone(),
            Element::Terminal(terminal) => match grammar.terminal(terminal) {
                Terminal::Literal(text) => format!("{text:?}"),
                Terminal::Class(class) => {
                    let mut out = String::from("[");
                    for &(low, high) in class.ranges() {
                        if low == high {
                            out.extend(low.escape_debug());
                        } else {
                            out.extend(low.escape_debug());
                            out.push('-');
                            out.extend(high.escape_debug());
                        }
                    }
                    out.push(']');
                    out
                }
                Terminal::Pool(pool) => grammar.pools[pool.index()].name.clone(),
                Terminal::Layout(token) => token.name().to_string(),
            },
        }
    }
}
