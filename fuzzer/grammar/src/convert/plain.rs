//! The grammar with its EBNF operators desugared into plain context-free rules, as generators
//! without `?`, `*`, `+`, character classes or pools need it.

use std::collections::HashMap;

use crate::grammar::{Grammar, LayoutToken, PoolId, RuleId, Symbol, Terminal, TerminalId};
use crate::sampler::Bounds;

/// A character class contributes at most this many characters (its first ones, in class
/// order, which is code-point order): one alternative per character is what a plain grammar
/// offers, and a class such as `[^"]` holds over a million. The shipped grammars' classes are
/// all below this.
pub const CLASS_CAPACITY: u32 = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A literal of the grammar.
    Literal(String),
    /// A pool value or one character of a class.
    Value(String),
    Layout(LayoutToken),
    Rule(usize),
}

#[derive(Clone, Debug)]
pub struct PlainRule {
    pub name: String,
    /// Renders as one token (see `grammar::Rule::lexical`); the rules desugaring adds are not
    /// lexical themselves and take their context from where they are used.
    pub lexical: bool,
    pub alternatives: Vec<Vec<Item>>,
}

/// Rules reachable from `start`, which is rule 0.
#[derive(Clone, Debug)]
pub struct PlainGrammar {
    pub rules: Vec<PlainRule>,
}

/// Where a desugared rule comes from; equal origins share one rule.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Origin {
    Rule(RuleId),
    Optional(RuleId),
    /// Zero up to `Some(k)` more items, or any number for `None`.
    Tail(RuleId, Option<u32>),
    Class(TerminalId),
    Pool(PoolId),
}

struct Desugar<'g> {
    grammar: &'g Grammar,
    bounds: Bounds,
    rules: Vec<PlainRule>,
    ids: HashMap<Origin, usize>,
    pending: Vec<(usize, Origin)>,
}

/// Desugars the part of `grammar` reachable from its start rule. `?` becomes a rule with an
/// empty alternative, `body{min,max}` becomes `min` copies of the body followed by a
/// right-recursive list rule for the optional rest, a class becomes one alternative per
/// character (up to [`CLASS_CAPACITY`]) and a pool one alternative per value for its first m
/// values, m being `bounds.idents`. The repetition and depth bounds n and d are not applied:
/// lists recurse freely, as a plain grammar's generator expects to control size on its own.
pub fn desugar(grammar: &Grammar, bounds: Bounds) -> PlainGrammar {
    let mut d = Desugar {
        grammar,
        bounds,
        rules: Vec::new(),
        ids: HashMap::new(),
        pending: Vec::new(),
    };
    d.id(Origin::Rule(grammar.start));
    while let Some((id, origin)) = d.pending.pop() {
        let alternatives = d.alternatives(origin);
        d.rules[id].alternatives = alternatives;
    }
    PlainGrammar { rules: d.rules }
}

impl Desugar<'_> {
    fn id(&mut self, origin: Origin) -> usize {
        if let Some(&id) = self.ids.get(&origin) {
            return id;
        }
        let g = self.grammar;
        let (name, lexical) = match origin {
            Origin::Rule(r) => (g.rule(r).name.clone(), g.rule(r).lexical),
            Origin::Optional(r) => (format!("{}_opt", g.rule(r).name), false),
            Origin::Tail(r, None) => (format!("{}_list", g.rule(r).name), false),
            Origin::Tail(r, Some(k)) => (format!("{}_upto{k}", g.rule(r).name), false),
            Origin::Class(t) => (format!("class{}", t.0), false),
            Origin::Pool(p) => (g.pools[p.index()].name.clone(), false),
        };
        let id = self.rules.len();
        self.rules.push(PlainRule {
            name,
            lexical,
            alternatives: Vec::new(),
        });
        self.ids.insert(origin, id);
        self.pending.push((id, origin));
        id
    }

    fn alternatives(&mut self, origin: Origin) -> Vec<Vec<Item>> {
        let g = self.grammar;
        match origin {
            Origin::Rule(r) => g
                .rule(r)
                .alternatives
                .iter()
                .map(|alt| {
                    let mut items = Vec::new();
                    for symbol in &alt.symbols {
                        self.symbol(*symbol, &mut items);
                    }
                    items
                })
                .collect(),
            Origin::Optional(body) => vec![vec![], vec![Item::Rule(self.id(Origin::Rule(body)))]],
            Origin::Tail(body, more) => {
                let item = Item::Rule(self.id(Origin::Rule(body)));
                let rest = match more {
                    None => Some(origin),
                    Some(1) => None,
                    Some(k) => Some(Origin::Tail(body, Some(k - 1))),
                };
                let mut longer = vec![item];
                if let Some(rest) = rest {
                    longer.push(Item::Rule(self.id(rest)));
                }
                vec![vec![], longer]
            }
            Origin::Class(t) => {
                let Terminal::Class(class) = g.terminal(t) else {
                    unreachable!("class origins are made from class terminals")
                };
                // A class whose fresh draws are its printable characters offers those.
                let offsets: Vec<u32> = if class.preferred().is_empty() {
                    (0..class.size().min(CLASS_CAPACITY)).collect()
                } else {
                    class.preferred().to_vec()
                };
                offsets
                    .into_iter()
                    .map(|i| vec![Item::Value(class.nth(i).to_string())])
                    .collect()
            }
            Origin::Pool(p) => g.pools[p.index()]
                .values
                .iter()
                .take(self.bounds.idents as usize)
                .map(|v| vec![Item::Value(v.clone())])
                .collect(),
        }
    }

    fn symbol(&mut self, symbol: Symbol, items: &mut Vec<Item>) {
        let g = self.grammar;
        match symbol {
            Symbol::Terminal(t) => items.push(match g.terminal(t) {
                Terminal::Literal(s) => Item::Literal(s.clone()),
                Terminal::Layout(token) => Item::Layout(*token),
                Terminal::Class(class) if class.size() == 1 => {
                    Item::Value(class.nth(0).to_string())
                }
                Terminal::Class(_) => Item::Rule(self.id(Origin::Class(t))),
                Terminal::Pool(p) if g.pools[p.index()].values.len() == 1 => {
                    Item::Value(g.pools[p.index()].values[0].clone())
                }
                Terminal::Pool(p) => Item::Rule(self.id(Origin::Pool(*p))),
            }),
            Symbol::Rule(r) => items.push(Item::Rule(self.id(Origin::Rule(r)))),
            Symbol::Optional(body) => items.push(Item::Rule(self.id(Origin::Optional(body)))),
            Symbol::Repeat { body, min, max } => {
                let item = self.id(Origin::Rule(body));
                items.extend((0..min).map(|_| Item::Rule(item)));
                let more = max.map(|max| max - min);
                if more != Some(0) {
                    items.push(Item::Rule(self.id(Origin::Tail(body, more))));
                }
            }
        }
    }
}
