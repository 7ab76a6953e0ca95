//! The grammar as the Earley recognizer sees it: plain productions over dense integer ids.
//!
//! The EBNF operators of [`Symbol`] are desugared here and only here, into helper
//! nonterminals that the extractor folds back into `Optional` and `Repeat` nodes:
//!
//! - `body?` becomes `Opt → ε | body`;
//! - `body{min,max}` becomes `Rep → body … body Tail` with `min` copies of the body, where the
//!   tail is `Star → ε | Star body` (left recursion, which Earley handles in linear time) when
//!   there is no maximum, or the chain `Upto_k → ε | body Upto_{k-1}` when at most `k` more
//!   items may follow; `body*` itself is simply `Rep → ε | Rep body`.
//!
//! A rule's own binary alternatives (`expr = expr "+" expr | INT`) make every chain of its
//! operators ambiguous: `1 + 1 + 1 + 1` has five derivations, and an Earley chart holds every
//! way to read every part of it, a number of items quadratic and a time cubic in the chain's
//! length (4 KB of `1 + 1 + ...` took seconds, 12 KB over half a minute). One reading is all
//! extraction needs, and any one renders the same text, so the last operand of such an
//! alternative is the rule's *operand* nonterminal, which has every alternative except the
//! binary ones: chains group to the left, `((1 + 1) + 1) + 1`, the only reading left, which
//! the chart holds in linear space and time. No text is lost: a derivation whose last operand
//! is itself binary, `a op (b op' c)`, rotates into `(a op b) op' c`, which derives the same
//! tokens in the same order.
//!
//! Every rule is instantiated in one of two *modes*. In token mode (inside a lexical rule) the
//! pieces of a token must touch; outside it, whitespace may precede every token. A rule used
//! in both contexts gets two nonterminals, so the recognizer never needs to look at context.

use std::collections::HashMap;
use std::ops::Range;

use crate::grammar::{Grammar, LayoutToken, RuleId, Symbol, TerminalId};

/// "No such id" in the dense tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Longest `{min,max}` range unrolled into an `Upto` chain; wider ranges use `Star` and have
/// their maximum checked when the tree is extracted.
const UPTO_LIMIT: u32 = 256;

/// What a nonterminal of the parse table stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Origin {
    /// `Root → start END`: the whole input, with trailing whitespace before the end.
    Root,
    Rule(RuleId),
    /// The rule as the last operand of one of its own binary alternatives: the rule without
    /// those alternatives (see the module's documentation).
    Operand(RuleId),
    Optional(RuleId),
    Repeat {
        body: RuleId,
        min: u32,
        max: Option<u32>,
    },
    /// Any number of further items of a repetition.
    Star(RuleId),
    /// At most this many further items of a repetition.
    Upto(RuleId, u32),
}

/// The symbol after a dot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Complete,
    Terminal(TerminalId),
    Nonterminal(u32),
    /// The end of the input; only in the root production.
    End,
}

#[derive(Clone, Debug)]
pub(crate) struct Nonterminal {
    pub origin: Origin,
    /// Inside a lexical rule: no whitespace between the pieces.
    pub token: bool,
    pub productions: Range<u32>,
    /// The dots of all its productions, which are numbered consecutively.
    pub dots: Range<u32>,
    pub nullable: bool,
    /// The production of a least-height derivation of the empty word, for nullable
    /// nonterminals. Empty spans are always extracted this way, which keeps extraction from
    /// looping through `Star → Star body` with an empty body.
    pub empty_production: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Production {
    pub lhs: u32,
    /// Alternative index in the grammar rule (for `Origin::Rule`), or 0/1 for helpers:
    /// absent/present, no more/one more item.
    pub alternative: u32,
    /// Dot ids `first_dot..=first_dot + len` belong to this production.
    pub first_dot: u32,
    pub len: u32,
}

/// A dotted production ("LR(0) item"): a position inside one production.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dot {
    pub production: u32,
    pub next: Next,
    /// Whitespace may be skipped here: the next symbol starts a token and the production is
    /// not itself inside a token.
    pub skippable: bool,
    /// The terminal after the dot is a whole token, outside lexical rules, so it must not end
    /// inside a word (see `Scanner::whole_word`): a tokenizer's longest match never reads
    /// `iffy` as `if` and `fy`. Pieces of a lexical rule may (the `e` of `1e5`, the `a` of
    /// `0xab`), so a lexical rule's literals, even a lone one, are left alone.
    pub whole: bool,
    /// The terminal after the dot is an operator a lexer reads as a token of its own: a whole
    /// token, or the one literal of a token rule (ANTLR's `COLON : ':' ;`), so that a longer
    /// operator expected at the same place wins (see `Step::advance`).
    pub operator: bool,
    /// The nonterminal after the dot, or [`NONE`]; the chart sorts by it so that completion
    /// finds waiting items with one binary search.
    pub waits_for: u32,
}

/// The grammar desugared for the Earley recognizer, with the prediction closures precomputed.
/// Depends only on the grammar, so one table serves every text.
pub struct ParseTable {
    pub(crate) nonterminals: Vec<Nonterminal>,
    pub(crate) productions: Vec<Production>,
    pub(crate) dots: Vec<Dot>,
    /// Per nonterminal: every dot that predicting it adds at the current position, closed
    /// under prediction and under skipping nullable nonterminals (Aycock and Horspool), so a
    /// prediction is one copy of a precomputed list.
    pub(crate) closure: Vec<Vec<u32>>,
    /// Per nonterminal: the nonterminals its closure predicts, itself included.
    pub(crate) closure_nonterminals: Vec<Vec<u32>>,
    /// Per nonterminal: its closure sorted, to test membership.
    pub(crate) closure_sorted: Vec<Vec<u32>>,
    /// Per nonterminal: the (nonterminal waited for, dot) pairs of its closure, sorted, for
    /// completing into a set where it was predicted.
    pub(crate) closure_waiting: Vec<Vec<(u32, u32)>>,
    /// Per nonterminal: the dots of its closure that scan, end the input or skip whitespace;
    /// the only ones a prediction has to look at.
    pub(crate) closure_active: Vec<Vec<u32>>,
    /// Per terminal: it matches the empty word (GLUE, an empty literal), so it is passed over
    /// like a nullable nonterminal.
    pub(crate) zero_width: Vec<bool>,
    pub(crate) root: u32,
    /// Whether some token outside a lexical rule can start with whitespace (the literal
    /// `" + "`, say). Only then must skipped whitespace be consumed one character at a time.
    pub(crate) whitespace_tokens: bool,
}

impl ParseTable {
    /// Desugars `?` and `{min,max}` into helper nonterminals (see the module docs) and precomputes
    /// every nonterminal's prediction closure.
    pub fn new(grammar: &Grammar) -> Self {
        Builder::new(grammar).build()
    }

    pub(crate) fn dot(&self, id: u32) -> &Dot {
        &self.dots[id as usize]
    }

    pub(crate) fn production_of(&self, dot: u32) -> &Production {
        &self.productions[self.dots[dot as usize].production as usize]
    }

    pub(crate) fn lhs(&self, dot: u32) -> u32 {
        self.production_of(dot).lhs
    }

    pub(crate) fn nonterminal(&self, id: u32) -> &Nonterminal {
        &self.nonterminals[id as usize]
    }

    /// The dot at the end of production `p`.
    pub(crate) fn end_dot(&self, p: u32) -> u32 {
        let production = &self.productions[p as usize];
        production.first_dot + production.len
    }
}

/// Which symbol a production holds before dots are numbered.
#[derive(Clone, Copy)]
enum Item {
    Terminal(TerminalId),
    Nonterminal(u32),
    End,
}

struct Builder<'g> {
    grammar: &'g Grammar,
    /// Per nonterminal: where it comes from, whether it is inside a token, and whether it
    /// stands right after `GLUE`, so that no whitespace may come before its first token
    /// (see `intern_glued`).
    ids: HashMap<(Origin, bool, bool), u32>,
    keys: Vec<(Origin, bool, bool)>,
    /// Productions per nonterminal, as (alternative, symbols).
    bodies: Vec<Vec<(u32, Vec<Item>)>>,
}

impl<'g> Builder<'g> {
    fn new(grammar: &'g Grammar) -> Self {
        Self {
            grammar,
            ids: HashMap::new(),
            keys: Vec::new(),
            bodies: Vec::new(),
        }
    }

    fn is_glue(&self, item: &Item) -> bool {
        matches!(item, Item::Terminal(t)
            if self.grammar.terminal(*t) == &crate::grammar::Terminal::Layout(LayoutToken::Glue))
    }

    fn intern(&mut self, origin: Origin, token: bool) -> u32 {
        self.intern_glued(origin, token, false)
    }

    /// The nonterminal for `origin` in mode `token`, glued or not. `GLUE` before a rule forbids
    /// whitespace before the rule's first token, which lies in the rule's own productions (or
    /// deeper), where a dot cannot see the `GLUE` of its caller: so a glued use gets its own
    /// copy, whose productions skip no whitespace before their first symbol and pass the glue
    /// on to it. Inside a token nothing is skipped anyway.
    fn intern_glued(&mut self, origin: Origin, token: bool, glued: bool) -> u32 {
        let key = (origin, token, glued && !token);
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.ids.insert(key, id);
        self.keys.push(key);
        self.bodies.push(Vec::new());
        id
    }

    /// The nonterminal for rule `rule` used from a context in mode `token`.
    fn rule(&mut self, rule: RuleId, token: bool) -> u32 {
        self.rule_glued(rule, token, false)
    }

    fn rule_glued(&mut self, rule: RuleId, token: bool, glued: bool) -> u32 {
        let lexical = self.grammar.rule(rule).lexical;
        self.intern_glued(Origin::Rule(rule), token || lexical, glued)
    }

    fn symbol(&mut self, symbol: &Symbol, token: bool, glued: bool) -> Item {
        match *symbol {
            Symbol::Terminal(t) => Item::Terminal(t),
            Symbol::Rule(r) => Item::Nonterminal(self.rule_glued(r, token, glued)),
            Symbol::Optional(body) => {
                Item::Nonterminal(self.intern_glued(Origin::Optional(body), token, glued))
            }
            Symbol::Repeat { body, min, max } => Item::Nonterminal(self.intern_glued(
                Origin::Repeat { body, min, max },
                token,
                glued,
            )),
        }
    }

    fn is_glue_symbol(&self, symbol: &Symbol) -> bool {
        matches!(symbol, Symbol::Terminal(t)
            if self.grammar.terminal(*t) == &crate::grammar::Terminal::Layout(LayoutToken::Glue))
    }

    fn expand(&mut self, id: u32) {
        let (origin, token, glued) = self.keys[id as usize];
        let grammar = self.grammar;
        let bodies = match origin {
            Origin::Root => {
                let start = self.rule(grammar.start, false);
                vec![(0, vec![Item::Nonterminal(start), Item::End])]
            }
            Origin::Rule(rule) | Origin::Operand(rule) => {
                let operand = matches!(origin, Origin::Operand(_));
                grammar
                    .rule(rule)
                    .alternatives
                    .iter()
                    .enumerate()
                    .filter(|(_, alternative)| !(operand && is_binary(rule, &alternative.symbols)))
                    .map(|(a, alternative)| {
                        let mut symbols: Vec<Item> = alternative
                            .symbols
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                let after_glue = if i == 0 {
                                    glued
                                } else {
                                    self.is_glue_symbol(&alternative.symbols[i - 1])
                                };
                                self.symbol(s, token, after_glue)
                            })
                            .collect();
                        if is_binary(rule, &alternative.symbols) {
                            let last = symbols.len() - 1;
                            // `token` already holds the rule's own mode (see `rule`).
                            symbols[last] =
                                Item::Nonterminal(self.intern(Origin::Operand(rule), token));
                        }
                        (a as u32, symbols)
                    })
                    .collect()
            }
            Origin::Optional(body) => {
                let body = self.rule_glued(body, token, glued);
                vec![(0, vec![]), (1, vec![Item::Nonterminal(body)])]
            }
            // `body*` is its own left-recursive list, one nonterminal less per item.
            Origin::Repeat {
                body,
                min: 0,
                max: None,
            } => {
                let item = Item::Nonterminal(self.rule(body, token));
                vec![(0, vec![]), (1, vec![Item::Nonterminal(id), item])]
            }
            Origin::Repeat { body, min, max } => {
                let item = Item::Nonterminal(self.rule(body, token));
                let mut symbols = vec![item; min as usize];
                if let Some(first) = symbols.first_mut() {
                    *first = Item::Nonterminal(self.rule_glued(body, token, glued));
                }
                let rest_glued = glued && min == 0;
                match max {
                    Some(max) if max <= min => {}
                    Some(max) if max - min <= UPTO_LIMIT => {
                        symbols.push(Item::Nonterminal(self.intern_glued(
                            Origin::Upto(body, max - min),
                            token,
                            rest_glued,
                        )));
                    }
                    _ => symbols.push(Item::Nonterminal(self.intern_glued(
                        Origin::Star(body),
                        token,
                        rest_glued,
                    ))),
                }
                vec![(0, symbols)]
            }
            Origin::Star(body) => {
                let item = Item::Nonterminal(self.rule(body, token));
                vec![(0, vec![]), (1, vec![Item::Nonterminal(id), item])]
            }
            Origin::Upto(body, k) => {
                let item = Item::Nonterminal(self.rule_glued(body, token, glued));
                let mut more = vec![item];
                if k > 1 {
                    more.push(Item::Nonterminal(
                        self.intern(Origin::Upto(body, k - 1), token),
                    ));
                }
                vec![(0, vec![]), (1, more)]
            }
        };
        self.bodies[id as usize] = bodies;
    }

    fn build(mut self) -> ParseTable {
        let root = self.intern(Origin::Root, false);
        let mut next = 0;
        while next < self.keys.len() {
            self.expand(next as u32);
            next += 1;
        }

        let mut nonterminals = Vec::with_capacity(self.keys.len());
        let mut productions = Vec::new();
        let mut dots = Vec::new();
        for (id, bodies) in self.bodies.iter().enumerate() {
            let (origin, token, glued_key) = self.keys[id];
            let first = productions.len() as u32;
            let first_dot = dots.len() as u32;
            for (alternative, symbols) in bodies {
                let p = productions.len() as u32;
                productions.push(Production {
                    lhs: id as u32,
                    alternative: *alternative,
                    first_dot: dots.len() as u32,
                    len: symbols.len() as u32,
                });
                for position in 0..=symbols.len() {
                    let next = match symbols.get(position) {
                        None => Next::Complete,
                        Some(Item::Terminal(t)) => Next::Terminal(*t),
                        Some(Item::Nonterminal(n)) => Next::Nonterminal(*n),
                        Some(Item::End) => Next::End,
                    };
                    let starts_token = match next {
                        Next::Terminal(_) | Next::End => true,
                        Next::Nonterminal(n) => self.keys[n as usize].1,
                        Next::Complete => false,
                    };
                    // GLUE forbids whitespace on both of its sides.
                    // So does a glued use of the nonterminal before its first symbol.
                    let glued = symbols.get(position).is_some_and(|s| self.is_glue(s))
                        || (position > 0 && self.is_glue(&symbols[position - 1]))
                        || (position == 0 && glued_key);
                    dots.push(Dot {
                        production: p,
                        next,
                        skippable: !token && starts_token && !glued,
                        whole: !token && matches!(next, Next::Terminal(_)),
                        operator: matches!(next, Next::Terminal(_))
                            && (!token || (position == 0 && symbols.len() == 1)),
                        waits_for: match next {
                            Next::Nonterminal(n) => n,
                            _ => NONE,
                        },
                    });
                }
            }
            nonterminals.push(Nonterminal {
                origin,
                token,
                productions: first..productions.len() as u32,
                dots: first_dot..dots.len() as u32,
                nullable: false,
                empty_production: NONE,
            });
        }

        let mut table = ParseTable {
            nonterminals,
            productions,
            dots,
            closure: Vec::new(),
            closure_nonterminals: Vec::new(),
            closure_sorted: Vec::new(),
            closure_waiting: Vec::new(),
            closure_active: Vec::new(),
            zero_width: self
                .grammar
                .terminals
                .iter()
                .map(|t| match t {
                    crate::grammar::Terminal::Literal(s) => s.is_empty(),
                    crate::grammar::Terminal::Layout(token) => *token == LayoutToken::Glue,
                    _ => false,
                })
                .collect(),
            root,
            whitespace_tokens: false,
        };
        compute_nullable(&mut table);
        compute_closures(&mut table);
        table.whitespace_tokens = whitespace_tokens(&table, self.grammar);
        table
    }
}

/// Whether an alternative of `rule` begins and ends with the rule itself, as a binary
/// operator's does (`expr "+" expr`; also plain concatenation, `list list`).
fn is_binary(rule: RuleId, symbols: &[Symbol]) -> bool {
    symbols.len() >= 2
        && symbols.first() == Some(&Symbol::Rule(rule))
        && symbols.last() == Some(&Symbol::Rule(rule))
}

/// Nullable nonterminals and, for each, the production of a least-height empty derivation.
fn compute_nullable(table: &mut ParseTable) {
    let mut height = vec![u32::MAX; table.nonterminals.len()];
    loop {
        let mut changed = false;
        for (p, production) in table.productions.iter().enumerate() {
            let mut tallest = 0u32;
            let mut empty = true;
            for position in 0..production.len {
                match table.dots[(production.first_dot + position) as usize].next {
                    Next::Nonterminal(n) if height[n as usize] != u32::MAX => {
                        tallest = tallest.max(height[n as usize]);
                    }
                    Next::Terminal(t) if table.zero_width[t.index()] => {}
                    _ => {
                        empty = false;
                        break;
                    }
                }
            }
            let lhs = production.lhs as usize;
            if empty && tallest + 1 < height[lhs] {
                height[lhs] = tallest + 1;
                table.nonterminals[lhs].empty_production = p as u32;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (n, nonterminal) in table.nonterminals.iter_mut().enumerate() {
        nonterminal.nullable = height[n] != u32::MAX;
    }
}

fn compute_closures(table: &mut ParseTable) {
    let count = table.nonterminals.len();
    let mut closure = Vec::with_capacity(count);
    let mut closure_nonterminals = Vec::with_capacity(count);
    let mut seen_dot = vec![false; table.dots.len()];
    let mut seen_nonterminal = vec![false; count];
    for start in 0..count as u32 {
        let mut dots = Vec::new();
        let mut queue = vec![start];
        seen_nonterminal[start as usize] = true;
        let mut next = 0;
        while next < queue.len() {
            let n = queue[next];
            next += 1;
            for p in table.nonterminals[n as usize].productions.clone() {
                let mut dot = table.productions[p as usize].first_dot;
                loop {
                    if seen_dot[dot as usize] {
                        break;
                    }
                    seen_dot[dot as usize] = true;
                    dots.push(dot);
                    match table.dots[dot as usize].next {
                        Next::Nonterminal(m) => {
                            if !seen_nonterminal[m as usize] {
                                seen_nonterminal[m as usize] = true;
                                queue.push(m);
                            }
                            if !table.nonterminals[m as usize].nullable {
                                break;
                            }
                            dot += 1;
                        }
                        Next::Terminal(t) if table.zero_width[t.index()] => dot += 1,
                        _ => break,
                    }
                }
            }
        }
        for &d in &dots {
            seen_dot[d as usize] = false;
        }
        for &m in &queue {
            seen_nonterminal[m as usize] = false;
        }
        closure.push(dots);
        closure_nonterminals.push(queue);
    }
    table.closure_sorted = closure
        .iter()
        .map(|dots| {
            let mut sorted = dots.clone();
            sorted.sort_unstable();
            sorted
        })
        .collect();
    table.closure_waiting = closure
        .iter()
        .map(|dots| {
            let mut waiting: Vec<(u32, u32)> = dots
                .iter()
                .map(|&d| (table.dots[d as usize].waits_for, d))
                .filter(|&(w, _)| w != NONE)
                .collect();
            waiting.sort_unstable();
            waiting
        })
        .collect();
    table.closure_active = closure
        .iter()
        .map(|dots| {
            dots.iter()
                .copied()
                .filter(|&d| {
                    let dot = &table.dots[d as usize];
                    dot.skippable || matches!(dot.next, Next::Terminal(_) | Next::End)
                })
                .collect()
        })
        .collect();
    table.closure = closure;
    table.closure_nonterminals = closure_nonterminals;
}

fn whitespace_tokens(table: &ParseTable, grammar: &Grammar) -> bool {
    use crate::grammar::Terminal;
    let starts_with_space = |t: TerminalId| match grammar.terminal(t) {
        Terminal::Literal(s) => s.starts_with(char::is_whitespace),
        Terminal::Class(class) => [' ', '\t', '\n', '\r']
            .iter()
            .any(|&c| class.offset_of(c).is_some()),
        Terminal::Pool(p) => grammar.pools[p.index()]
            .values
            .iter()
            .any(|v| v.starts_with(char::is_whitespace)),
        Terminal::Layout(_) => false,
    };
    // The first terminals of every token that may follow skipped whitespace.
    table.dots.iter().any(|dot| {
        dot.skippable
            && match dot.next {
                Next::Terminal(t) => starts_with_space(t),
                Next::Nonterminal(n) => table.closure[n as usize].iter().any(|&d| {
                    matches!(table.dots[d as usize].next, Next::Terminal(t) if starts_with_space(t))
                }),
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> (Grammar, ParseTable) {
        let grammar = Grammar::from_text("t", text).unwrap();
        let table = ParseTable::new(&grammar);
        (grammar, table)
    }

    #[test]
    fn repetitions_desugar_into_min_copies_and_a_tail() {
        let (_, table) = table("s = \"a\"{2,} \"b\"{1,3} \"c\"? ;");
        let origins: Vec<Origin> = table.nonterminals.iter().map(|n| n.origin).collect();
        assert!(origins.iter().any(|o| matches!(o, Origin::Star(_))));
        assert!(origins.iter().any(|o| matches!(o, Origin::Upto(_, 2))));
        assert!(origins.iter().any(|o| matches!(o, Origin::Upto(_, 1))));
        for n in &table.nonterminals {
            if let Origin::Repeat { min, .. } = n.origin {
                let p = &table.productions[n.productions.start as usize];
                assert_eq!(p.len, min + 1, "min copies and a tail");
            }
        }
        let (_, table) = super::tests::table("s = \"a\"* ;");
        let star = table
            .nonterminals
            .iter()
            .find(|n| matches!(n.origin, Origin::Repeat { .. }))
            .unwrap();
        assert_eq!(star.productions.len(), 2, "ε | Rep body");
    }

    #[test]
    fn nullable_and_empty_derivations() {
        let (_, table) = table("s = a b ; a = \"x\"? ; b = a* | \"y\" ;");
        let root = table.nonterminal(table.root);
        assert!(!root.nullable);
        let s =
            &table.nonterminals[table.productions[root.productions.start as usize].lhs as usize];
        assert_eq!(s.origin, Origin::Root);
        for n in &table.nonterminals {
            match n.origin {
                Origin::Rule(r) if r.index() < 3 => {
                    assert!(n.nullable, "rule {r:?}");
                    assert_ne!(n.empty_production, NONE);
                }
                // The group holding "x" is not nullable.
                Origin::Rule(_) => assert!(!n.nullable),
                _ => {}
            }
        }
    }

    #[test]
    fn lexical_rules_get_a_token_mode_copy_of_shared_rules() {
        let (_, table) = table("s = d Num ; Num = d d ; d = /[0-9]/ ;");
        let copies = table
            .nonterminals
            .iter()
            .filter(|n| matches!(n.origin, Origin::Rule(RuleId(2))))
            .count();
        assert_eq!(copies, 2);
        let skippable = table.dots.iter().filter(|d| d.skippable).count();
        // `s → • d Num`: no (d is not a token), `s → d • Num`: yes, `d → • [0-9]` in structure
        // mode: yes, `Root → s • END`: yes.
        assert_eq!(skippable, 3);
    }

    #[test]
    fn closures_include_dots_past_nullable_prefixes() {
        let (_, table) = table("s = a \"x\" ; a = \"y\"? ;");
        let root = table.root as usize;
        let after_a = table
            .dots
            .iter()
            .position(|d| matches!(d.next, Next::Terminal(_)) && d.skippable)
            .unwrap();
        assert!(table.closure[root].iter().any(|&d| d as usize == after_a));
    }
}
