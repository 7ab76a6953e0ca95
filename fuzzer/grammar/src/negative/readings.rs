//! How a parser may read the text on either side of a junction.
//!
//! A mutant puts a space between the two tokens of the pair it relies on, but the parser has
//! no lexer: it may read the text before the space as several tokens ending in any kind whose
//! language holds a suffix of it (`<=` may end in `=`), and the text after it as tokens
//! beginning with any kind whose language holds a prefix (a keyword may be a name). A junction
//! is decided only when every such reading gives a poisoned pair. Tokens whose language holds
//! a space (strings, some literals) and comments can reach across the space; where one may
//! begin before it and still be open there (`Readings::crosses`), the junction is left
//! undecided, as it is at a layout token, after a GLUE, and at either end of an indented text.

use std::collections::HashMap;

use fixedbitset::FixedBitSet;
use regex_automata::meta::Regex;

use super::token::{Kind, Token, TokenGrammar};
use crate::analysis::{Analysis, Reachability};
use crate::grammar::{Comment, Grammar, LayoutToken, RuleId, Separator, Terminal};
use crate::parse::Parser;
use std::cell::OnceCell;

/// The original grammar with a lexical rule as its start, one per lexical kind: the parser
/// then says whether a text is a word of that rule. Line structure is taken out (a single
/// token is never read as lines), the separator made the default, so a token's text is read as
/// it is, and rules the lexical rule does not reach are emptied. Each copy is made the first
/// time it is needed: an imported grammar has hundreds of lexical rules, and most junctions
/// are decided by the first character alone.
pub struct LexicalGrammars {
    base: Grammar,
    grammars: HashMap<Kind, (RuleId, OnceCell<Grammar>)>,
}

impl LexicalGrammars {
    /// Prepares one copy per reachable lexical kind, to be made on first use.
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
            .filter_map(|kind| Some((kind, (view.kind_rule[kind]?, OnceCell::new()))))
            .collect();
        Self { base, grammars }
    }

    /// The copy for `kind`, if it is a lexical kind.
    fn grammar(&self, kind: Kind) -> Option<&Grammar> {
        let (rule, cell) = self.grammars.get(&kind)?;
        Some(cell.get_or_init(|| {
            let mut grammar = self.base.clone();
            grammar.start = *rule;
            let reached = Reachability::compute(&grammar).rules;
            for (r, rule) in grammar.rules.iter_mut().enumerate() {
                if !reached.contains(r) {
                    rule.alternatives.clear();
                }
            }
            grammar
        }))
    }
}

/// Where tokens that can hold whitespace may begin in one text, each with its kind and the
/// byte at which its parser gave up (see [`Readings::open_tokens`]).
#[derive(Clone, Debug, Default)]
pub struct OpenTokens {
    starts: Vec<(usize, Kind, usize)>,
}

/// Which kinds can end or begin a piece of text, remembered per text.
pub struct Readings<'a> {
    original: &'a Grammar,
    view: &'a TokenGrammar,
    pairs: &'a super::pairs::Pairs,
    lexical: &'a LexicalGrammars,
    /// Parsers of the lexical kinds used so far.
    parsers: HashMap<Kind, Parser<'a>>,
    /// Per lexical kind: the characters its words begin with.
    lexical_first: HashMap<Kind, Vec<(char, char)>>,
    patterns: Vec<Option<Regex>>,
    /// Kinds whose language holds a whitespace character, with the characters their words
    /// can begin with: only these can reach across a junction's space.
    spanning: Vec<(Kind, Vec<(char, char)>)>,
    /// Characters a token can end with whose language holds whitespace: a token of another
    /// kind may begin right after one.
    spanning_ends: Vec<(char, char)>,
    /// The texts that open a comment, each with whether it runs to the end of its line.
    comment_openers: Vec<(String, bool)>,
    ends: HashMap<String, FixedBitSet>,
    begins: HashMap<String, FixedBitSet>,
    /// The grammar reads line structure: the parser ends the last line with a NEWLINE of its
    /// own, so the end of the text is not the end of the token sequence.
    indented: bool,
}

impl<'a> Readings<'a> {
    /// Builds one parser per lexical kind and one matcher per pool pattern, and collects the
    /// characters that open or close a token that can hold a space, or open a comment.
    pub fn new(
        original: &'a Grammar,
        analysis: &Analysis,
        view: &'a TokenGrammar,
        pairs: &'a super::pairs::Pairs,
        lexical: &'a LexicalGrammars,
    ) -> Self {
        let lexical_first = view
            .reachable_kinds
            .ones()
            .filter_map(|kind| {
                let rule = view.kind_rule[kind]?;
                let first = analysis
                    .first(rule)
                    .ones()
                    .filter(|&t| t < original.terminals.len())
                    .flat_map(|t| first_chars(original, t))
                    .collect();
                Some((kind, first))
            })
            .collect();
        let patterns = original
            .pools
            .iter()
            .map(|pool| {
                let pattern = pool.pattern.as_ref()?;
                Regex::new(&format!("^(?:{pattern})$")).ok()
            })
            .collect();
        let comment_openers = original
            .layout
            .comments
            .iter()
            .map(|comment| match comment {
                Comment::Line(open) => (open.clone(), true),
                Comment::Block { open, .. } => (open.clone(), false),
            })
            .collect();
        let mut spanning = Vec::new();
        let mut spanning_ends = Vec::new();
        for kind in view.reachable_kinds.ones() {
            if let Some(rule) = view.kind_rule[kind] {
                if holds_space(&chars_inside(original, rule.index())) {
                    let edge = |set: &FixedBitSet| -> Vec<(char, char)> {
                        set.ones()
                            .filter(|&t| t < original.terminals.len())
                            .flat_map(|t| edge_chars(original, t))
                            .collect()
                    };
                    spanning.push((kind, edge(analysis.first(rule))));
                    spanning_ends.extend(edge(analysis.last(rule)));
                }
            } else if kind < original.terminals.len()
                && holds_space(&terminal_chars(original, kind))
            {
                spanning.push((kind, edge_chars(original, kind)));
                spanning_ends.extend(edge_chars(original, kind));
            }
        }
        Self {
            original,
            view,
            pairs,
            lexical,
            parsers: HashMap::new(),
            lexical_first,
            patterns,
            spanning,
            spanning_ends,
            comment_openers,
            ends: HashMap::new(),
            begins: HashMap::new(),
            indented: original.terminals.iter().any(|t| {
                matches!(
                    t,
                    Terminal::Layout(LayoutToken::Indent | LayoutToken::Dedent)
                )
            }),
        }
    }

    /// Whether some reading of `text` has a token holding the space at byte `space` (a
    /// string opened before it, a literal with a space), or a comment running over it. Such a
    /// token may start wherever a token may: at the text's beginning, after whitespace, or
    /// after a piece some kind can end with; from there, the parser of its kind says whether
    /// the text up to and including the space can begin one of its words.
    ///
    /// With `known`, the text of the positive word the mutant was made from and its
    /// [`OpenTokens`], starts before the first changed byte are taken from there: only those
    /// still alive at the change are read again. Reading every start anew costs a parse per
    /// character of the word, per junction.
    pub fn crosses(
        &mut self,
        text: &str,
        space: usize,
        known: Option<(&str, &OpenTokens)>,
    ) -> bool {
        let line_start = text[..space].rfind('\n').map_or(0, |i| i + 1);
        for (open, line) in &self.comment_openers {
            let before = if *line {
                &text[line_start..=space]
            } else {
                &text[..=space]
            };
            if before.contains(open.as_str()) {
                return true;
            }
        }
        if self.spanning.is_empty() {
            return false;
        }
        let mut from = 0;
        if let Some((positive, open)) = known {
            let same = text
                .bytes()
                .zip(positive.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            from = (0..=same)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            for &(start, kind, reach) in &open.starts {
                if start < from
                    && reach >= from
                    && start <= space
                    && self.may_begin(kind, &text[start..=space])
                {
                    return true;
                }
            }
        }
        let chars: Vec<(usize, char)> = text[..=space].char_indices().collect();
        for k in 0..chars.len() {
            let (start, c) = chars[k];
            if start < from {
                continue;
            }
            for kind in self.starting(text, &chars, k, c) {
                if self.may_begin(kind, &text[start..=space]) {
                    return true;
                }
            }
        }
        false
    }

    /// The kinds that can hold whitespace and may begin at the `k`th character of `text`.
    fn starting(&mut self, text: &str, chars: &[(usize, char)], k: usize, c: char) -> Vec<Kind> {
        let begins: Vec<Kind> = self
            .spanning
            .iter()
            .filter(|(_, first)| in_ranges(first, c))
            .map(|(kind, _)| *kind)
            .collect();
        if begins.is_empty() || !self.may_start_token(text, chars, k) {
            return Vec::new();
        }
        begins
    }

    /// Every place in a positive word where a token that can hold whitespace may begin, with
    /// how far its kind's parser reads from there: a mutant that changes the word only after
    /// that point can be read the same way up to it.
    pub fn open_tokens(&mut self, text: &str) -> OpenTokens {
        let mut starts = Vec::new();
        if !self.spanning.is_empty() {
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            for k in 0..chars.len() {
                let (start, c) = chars[k];
                for kind in self.starting(text, &chars, k, c) {
                    let reach = start + self.reach(kind, &text[start..]);
                    starts.push((start, kind, reach));
                }
            }
        }
        OpenTokens { starts }
    }

    /// How many bytes of `piece` a token of `kind` can read before no word of it fits: the
    /// parser's error offset, the whole piece if it is one word.
    fn reach(&mut self, kind: Kind, piece: &str) -> usize {
        if let Some(parser) = self.parser(kind, piece) {
            return match parser.accepts(piece) {
                Ok(()) => piece.len(),
                Err(e) => e.offset,
            };
        }
        if self.lexical_first.contains_key(&kind) {
            return 0;
        }
        let common = |word: &str| {
            word.bytes()
                .zip(piece.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        match self.original.terminals.get(kind) {
            Some(Terminal::Literal(text)) => common(text),
            Some(Terminal::Pool(pool)) => self.original.pools[pool.index()]
                .values
                .iter()
                .map(|v| common(v))
                .max()
                .unwrap_or(0),
            // One character: it reads no further than its own.
            _ => piece.chars().next().map_or(0, char::len_utf8),
        }
    }

    /// Whether a token may start at the `k`th character of `text`.
    fn may_start_token(&mut self, text: &str, chars: &[(usize, char)], k: usize) -> bool {
        let Some(&(_, before)) = k.checked_sub(1).and_then(|p| chars.get(p)) else {
            return true;
        };
        if before.is_whitespace() || in_ranges(&self.spanning_ends, before) {
            return true;
        }
        let at = chars[k].0;
        let chunk_start = text[..at].rfind(char::is_whitespace).map_or(0, |i| {
            i + text[i..].chars().next().map_or(1, char::len_utf8)
        });
        !self.ends(&text[chunk_start..at]).is_clear()
    }

    /// Whether a token that can hold whitespace, or a comment, may stand over the whitespace
    /// right before or right after the token at byte range `left` of `text`: the junction
    /// after it would then not be between the tokens the mutant relies on.
    pub fn reach_across(
        &mut self,
        text: &str,
        left: Option<(usize, usize)>,
        known: Option<(&str, &OpenTokens)>,
    ) -> bool {
        let Some((start, end)) = left else {
            return false;
        };
        let bytes = text.as_bytes();
        let before = start
            .checked_sub(1)
            .filter(|&i| bytes[i].is_ascii_whitespace());
        let after = (end < bytes.len() && bytes[end].is_ascii_whitespace()).then_some(end);
        [before, after]
            .into_iter()
            .flatten()
            .any(|space| self.crosses(text, space, known))
    }

    /// Whether `piece` can begin a word of `kind`.
    fn may_begin(&mut self, kind: Kind, piece: &str) -> bool {
        if let Some(parser) = self.parser(kind, piece) {
            return match parser.accepts(piece) {
                Ok(()) => true,
                Err(e) => e.offset >= piece.len(),
            };
        }
        if self.lexical_first.contains_key(&kind) {
            return false;
        }
        match self.original.terminals.get(kind) {
            Some(Terminal::Literal(text)) => text.starts_with(piece),
            Some(Terminal::Pool(pool)) => self.original.pools[pool.index()]
                .values
                .iter()
                .any(|v| v.starts_with(piece)),
            Some(Terminal::Class(class)) => {
                let mut chars = piece.chars();
                matches!((chars.next(), chars.next()), (Some(c), None) if class.offset_of(c).is_some())
            }
            _ => false,
        }
    }

    /// Whether a parser must read a poisoned pair across the space between `left` and
    /// `right` (`None` is the beginning or the end of input): neither is a layout token nor
    /// glued nor has whitespace at its edge, and every kind that can end `left` is poisoned
    /// with every kind that can begin `right`. Whether a long token can stand over the space
    /// is [`Readings::reach_across`], asked of the whole mutant.
    pub fn junction_poisoned(
        &mut self,
        pairs: &super::pairs::Pairs,
        left: Option<&Token>,
        right: Option<&Token>,
    ) -> bool {
        let boundary = pairs.boundary();
        let mut sides = [left, right].into_iter();
        let usable = sides.all(|token| {
            // Whitespace at a token's edge reads as layout, not as the token.
            token.is_none_or(|t| {
                !self.view.is_layout(t.kind)
                    && !t.text.starts_with(char::is_whitespace)
                    && !t.text.ends_with(char::is_whitespace)
            })
        });
        let at_boundary = left.is_none() || right.is_none();
        if !usable || right.is_some_and(|t| t.glued) || (self.indented && at_boundary) {
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

    /// Kinds that can end a reading of `text` as tokens. The parser reads the whole piece
    /// between two spaces as tokens, so `do` cannot end in the name `o` of SIMPL: `d o` has
    /// a name after a name, a poisoned pair, and a reading with one fails inside the piece,
    /// before the junction. Pieces longer than [`SPLIT_LIMIT`] characters are not split
    /// (every suffix counts), which only costs decided junctions.
    pub fn ends(&mut self, text: &str) -> FixedBitSet {
        if let Some(set) = self.ends.get(text) {
            return set.clone();
        }
        let width = self.view.kinds() + 1;
        let bounds = char_bounds(text);
        let last = bounds.len() - 1;
        let set = if last > SPLIT_LIMIT {
            let mut set = FixedBitSet::with_capacity(width);
            for k in 0..last {
                self.add_matches(&text[bounds[k]..], &mut set);
            }
            set
        } else {
            // Per boundary k: the kinds that can end a reading of text[..bounds[k]].
            let mut ending = vec![FixedBitSet::with_capacity(width); bounds.len()];
            for j in 1..=last {
                for i in 0..j {
                    if i > 0 && ending[i].is_clear() {
                        continue;
                    }
                    let mut found = FixedBitSet::with_capacity(width);
                    self.add_matches(&text[bounds[i]..bounds[j]], &mut found);
                    for x in found.ones() {
                        if i == 0 || ending[i].ones().any(|y| !self.pairs.poisoned(y, x)) {
                            ending[j].insert(x);
                        }
                    }
                }
            }
            std::mem::take(&mut ending[last])
        };
        self.ends.insert(text.to_string(), set.clone());
        set
    }

    /// Kinds that can begin a reading of `text` as tokens, the rest read as whole tokens or
    /// as the beginning of one that could reach past the space after `text` (which the
    /// mutant's checks do not look at).
    pub fn begins(&mut self, text: &str) -> FixedBitSet {
        if let Some(set) = self.begins.get(text) {
            return set.clone();
        }
        let width = self.view.kinds() + 1;
        let bounds = char_bounds(text);
        let last = bounds.len() - 1;
        let set = if last > SPLIT_LIMIT {
            let mut set = FixedBitSet::with_capacity(width);
            for k in 1..=last {
                self.add_matches(&text[..bounds[k]], &mut set);
            }
            set
        } else {
            // Per boundary k: the kinds that can begin a reading of text[bounds[k]..]; `open`
            // where a token that can hold whitespace may begin, which any kind may precede.
            let mut beginning = vec![FixedBitSet::with_capacity(width); bounds.len()];
            let open: Vec<bool> = bounds
                .iter()
                .map(|&b| {
                    text[b..]
                        .chars()
                        .next()
                        .is_some_and(|c| self.spanning.iter().any(|(_, first)| in_ranges(first, c)))
                })
                .collect();
            for i in (0..last).rev() {
                for j in i + 1..=last {
                    if j < last && !open[j] && beginning[j].is_clear() {
                        continue;
                    }
                    let mut found = FixedBitSet::with_capacity(width);
                    self.add_matches(&text[bounds[i]..bounds[j]], &mut found);
                    for x in found.ones() {
                        if j == last
                            || open[j]
                            || beginning[j].ones().any(|y| !self.pairs.poisoned(x, y))
                        {
                            beginning[i].insert(x);
                        }
                    }
                }
            }
            std::mem::take(&mut beginning[0])
        };
        self.begins.insert(text.to_string(), set.clone());
        set
    }

    /// The parser of a lexical kind, if `piece` begins with a character its words can begin
    /// with; `None` for other kinds.
    fn parser(&mut self, kind: Kind, piece: &str) -> Option<&Parser<'a>> {
        let first = self.lexical_first.get(&kind)?;
        let c = piece.chars().next()?;
        if !in_ranges(first, c) {
            return None;
        }
        let lexical = self.lexical;
        Some(
            self.parsers
                .entry(kind)
                .or_insert_with(|| Parser::new(lexical.grammar(kind).unwrap_or(&lexical.base))),
        )
    }

    fn add_matches(&mut self, piece: &str, set: &mut FixedBitSet) {
        for kind in self.view.reachable_kinds.ones() {
            if self.matches(kind, piece) {
                set.insert(kind);
            }
        }
    }

    /// Whether a token of `kind` can have exactly this text.
    fn matches(&mut self, kind: Kind, piece: &str) -> bool {
        if let Some(parser) = self.parser(kind, piece) {
            return parser.accepts(piece).is_ok();
        }
        if self.lexical_first.contains_key(&kind) {
            return false;
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

/// Characters a terminal's texts can begin with.
fn first_chars(grammar: &Grammar, terminal: usize) -> Vec<(char, char)> {
    match &grammar.terminals[terminal] {
        Terminal::Literal(text) => text.chars().next().map(|c| (c, c)).into_iter().collect(),
        Terminal::Pool(pool) => grammar.pools[pool.index()]
            .values
            .iter()
            .filter_map(|v| v.chars().next())
            .map(|c| (c, c))
            .collect(),
        _ => terminal_chars(grammar, terminal),
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

/// Longest piece, in characters, that [`Readings::ends`] and [`Readings::begins`] split into
/// tokens; splitting costs a match per pair of positions.
const SPLIT_LIMIT: usize = 24;

/// Every character boundary of `text`, 0 and its length included.
fn char_bounds(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect()
}

fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges.iter().any(|&(a, b)| a <= c && c <= b)
}

fn holds_space(ranges: &[(char, char)]) -> bool {
    [' ', '\t', '\n', '\r']
        .iter()
        .any(|&c| ranges.iter().any(|&(a, b)| a <= c && c <= b))
}
