//! How a parser may read the text on either side of a junction.
//!
//! A mutant puts a space between the two tokens of the pair it relies on, but the parser has
//! no lexer: it may read the text before the space as any token whose language holds a
//! suffix of it (`<=` may end in `=`), and the text after it as any token whose language holds
//! a prefix (a keyword may be a name). A junction is decided only when every such reading
//! gives a poisoned pair. Tokens whose language holds a space (strings, some literals) and
//! comments can reach across the space; a junction near one of their opening or closing
//! characters is left undecided.

use std::collections::HashMap;

use fixedbitset::FixedBitSet;
use regex_automata::meta::Regex;

use super::token::{Kind, Token, TokenGrammar};
use crate::analysis::Analysis;
use crate::grammar::{Comment, Grammar, LayoutToken, Separator, Terminal};
use crate::parse::Parser;

/// The original grammar with a lexical rule as its start, one per lexical kind: the parser
/// then says whether a text is a word of that rule. Line structure is taken out (a single
/// token is never read as lines) and the separator made the default, so a token's text is
/// read as it is.
pub struct LexicalGrammars {
    grammars: Vec<(Kind, Grammar)>,
}

impl LexicalGrammars {
    /// One copy of the grammar per reachable lexical kind.
    pub fn new(original: &Grammar, view: &TokenGrammar) -> Self {
        let mut base = original.clone();
        for terminal in &mut base.terminals {
            if let Terminal::Layout(LayoutToken::Indent | LayoutToken::Dedent) = terminal {
                *terminal = Terminal::Literal("\u{0}".to_string());
            }
        }
        base.layout.separator = Separator::Auto;
        let grammars = view
            .reachable_kinds
            .ones()
            .filter_map(|kind| {
                let rule = view.kind_rule[kind]?;
                let mut grammar = base.clone();
                grammar.start = rule;
                Some((kind, grammar))
            })
            .collect();
        Self { grammars }
    }
}

/// Which kinds can end or begin a piece of text, remembered per text.
pub struct Readings<'a> {
    original: &'a Grammar,
    view: &'a TokenGrammar,
    parsers: HashMap<Kind, Parser<'a>>,
    patterns: Vec<Option<Regex>>,
    /// Characters near which a junction is not decided (see the module documentation).
    unsafe_chars: Vec<(char, char)>,
    ends: HashMap<String, FixedBitSet>,
    begins: HashMap<String, FixedBitSet>,
}

impl<'a> Readings<'a> {
    /// Builds one parser per lexical kind and one matcher per pool pattern, and collects the
    /// characters that open or close a token that can hold a space, or open a comment.
    pub fn new(
        original: &'a Grammar,
        analysis: &Analysis,
        view: &'a TokenGrammar,
        lexical: &'a LexicalGrammars,
    ) -> Self {
        let parsers = lexical
            .grammars
            .iter()
            .map(|(kind, grammar)| (*kind, Parser::new(grammar)))
            .collect();
        let patterns = original
            .pools
            .iter()
            .map(|pool| {
                let pattern = pool.pattern.as_ref()?;
                Regex::new(&format!("^(?:{pattern})$")).ok()
            })
            .collect();
        let mut unsafe_chars = Vec::new();
        for comment in &original.layout.comments {
            let open = match comment {
                Comment::Line(open) => open,
                Comment::Block { open, .. } => open,
            };
            if let Some(c) = open.chars().next() {
                unsafe_chars.push((c, c));
            }
        }
        for kind in view.reachable_kinds.ones() {
            if let Some(rule) = view.kind_rule[kind] {
                let inside = chars_inside(original, rule.index());
                if holds_space(&inside) {
                    for t in analysis
                        .first(rule)
                        .ones()
                        .chain(analysis.last(rule).ones())
                    {
                        if t < original.terminals.len() {
                            unsafe_chars.extend(edge_chars(original, t));
                        }
                    }
                }
            } else if kind < original.terminals.len() {
                let chars = terminal_chars(original, kind);
                if holds_space(&chars) {
                    unsafe_chars.extend(edge_chars(original, kind));
                }
            }
        }
        Self {
            original,
            view,
            parsers,
            patterns,
            unsafe_chars,
            ends: HashMap::new(),
            begins: HashMap::new(),
        }
    }

    /// Whether a text is near nothing that could reach across a junction.
    pub fn is_safe(&self, text: &str) -> bool {
        !text
            .chars()
            .any(|c| self.unsafe_chars.iter().any(|&(a, b)| a <= c && c <= b))
    }

    /// Whether a parser must read a poisoned pair across the space between `left` and
    /// `right` (`None` is the beginning or the end of input): neither is a layout token nor
    /// glued, neither is near an unsafe character, and every kind that can end `left` is
    /// poisoned with every kind that can begin `right`.
    pub fn junction_poisoned(
        &mut self,
        pairs: &super::pairs::Pairs,
        left: Option<&Token>,
        right: Option<&Token>,
    ) -> bool {
        let boundary = pairs.boundary();
        let mut sides = [left, right].into_iter();
        let usable = sides.all(|token| {
            token.is_none_or(|t| !self.view.is_layout(t.kind) && self.is_safe(&t.text))
        });
        if !usable || right.is_some_and(|t| t.glued) {
            return false;
        }
        let end_set = match left {
            Some(token) => self.ends(&token.text),
            None => single(boundary),
        };
        let begin_set = match right {
            Some(token) => self.begins(&token.text),
            None => single(boundary),
        };
        if end_set.is_clear() || begin_set.is_clear() {
            return false;
        }
        pairs.all_poisoned(&end_set, &begin_set)
    }

    /// Kinds whose language holds a non-empty suffix of `text`.
    pub fn ends(&mut self, text: &str) -> FixedBitSet {
        if let Some(set) = self.ends.get(text) {
            return set.clone();
        }
        let mut set = FixedBitSet::with_capacity(self.view.kinds() + 1);
        for (at, _) in text.char_indices() {
            self.add_matches(&text[at..], &mut set);
        }
        self.ends.insert(text.to_string(), set.clone());
        set
    }

    /// Kinds whose language holds a non-empty prefix of `text`.
    pub fn begins(&mut self, text: &str) -> FixedBitSet {
        if let Some(set) = self.begins.get(text) {
            return set.clone();
        }
        let mut set = FixedBitSet::with_capacity(self.view.kinds() + 1);
        let ends = text
            .char_indices()
            .map(|(at, c)| at + c.len_utf8())
            .collect::<Vec<_>>();
        for end in ends {
            self.add_matches(&text[..end], &mut set);
        }
        self.begins.insert(text.to_string(), set.clone());
        set
    }

    fn add_matches(&self, piece: &str, set: &mut FixedBitSet) {
        for kind in self.view.reachable_kinds.ones() {
            if self.matches(kind, piece) {
                set.insert(kind);
            }
        }
    }

    /// Whether a token of `kind` can have exactly this text.
    fn matches(&self, kind: Kind, piece: &str) -> bool {
        if let Some(parser) = self.parsers.get(&kind) {
            return parser.accepts(piece).is_ok();
        }
        match self.original.terminals.get(kind) {
            Some(Terminal::Literal(text)) => text == piece,
            Some(Terminal::Pool(pool)) => {
                self.original.pools[pool.index()]
                    .values
                    .iter()
                    .any(|v| v == piece)
                    || self.patterns[pool.index()]
                        .as_ref()
                        .is_some_and(|regex| regex.is_match(piece))
            }
            Some(Terminal::Class(class)) => {
                let mut chars = piece.chars();
                matches!((chars.next(), chars.next()), (Some(c), None) if class.offset_of(c).is_some())
            }
            _ => false,
        }
    }
}

fn single(index: usize) -> FixedBitSet {
    let mut set = FixedBitSet::with_capacity(index + 1);
    set.insert(index);
    set
}

/// Character ranges a terminal's texts can use.
fn terminal_chars(grammar: &Grammar, terminal: usize) -> Vec<(char, char)> {
    match &grammar.terminals[terminal] {
        Terminal::Literal(text) => text.chars().map(|c| (c, c)).collect(),
        Terminal::Class(class) => class.ranges().to_vec(),
        Terminal::Pool(pool) => grammar.pools[pool.index()]
            .values
            .iter()
            .flat_map(|v| v.chars())
            .map(|c| (c, c))
            .collect(),
        Terminal::Layout(_) => Vec::new(),
    }
}

/// Characters a terminal's texts can begin or end with.
fn edge_chars(grammar: &Grammar, terminal: usize) -> Vec<(char, char)> {
    match &grammar.terminals[terminal] {
        Terminal::Literal(text) => text
            .chars()
            .next()
            .into_iter()
            .chain(text.chars().next_back())
            .map(|c| (c, c))
            .collect(),
        Terminal::Pool(pool) => grammar.pools[pool.index()]
            .values
            .iter()
            .flat_map(|v| v.chars().next().into_iter().chain(v.chars().next_back()))
            .map(|c| (c, c))
            .collect(),
        _ => terminal_chars(grammar, terminal),
    }
}

/// Character ranges of every terminal a rule can reach, an over-approximation of its words'
/// characters.
fn chars_inside(grammar: &Grammar, rule: usize) -> Vec<(char, char)> {
    let mut seen = vec![false; grammar.rules.len()];
    let mut stack = vec![rule];
    seen[rule] = true;
    let mut chars = Vec::new();
    while let Some(r) = stack.pop() {
        for alt in &grammar.rules[r].alternatives {
            for symbol in &alt.symbols {
                match *symbol {
                    crate::grammar::Symbol::Terminal(t) => {
                        chars.extend(terminal_chars(grammar, t.index()))
                    }
                    _ => {
                        if let Some(next) = Grammar::referenced_rule(symbol)
                            && !seen[next.index()]
                        {
                            seen[next.index()] = true;
                            stack.push(next.index());
                        }
                    }
                }
            }
        }
    }
    chars
}

fn holds_space(ranges: &[(char, char)]) -> bool {
    [' ', '\t', '\n', '\r']
        .iter()
        .any(|&c| ranges.iter().any(|&(a, b)| a <= c && c <= b))
}
