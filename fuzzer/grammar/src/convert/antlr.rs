//! Any [`Grammar`] as an ANTLR4 combined grammar that accepts the texts Bonsai renders from it,
//! so that ANTLR-based tools (picireny, the paper's reduction baseline) can parse Bonsai's
//! inputs.
//!
//! Bonsai has no lexer: each terminal is drawn from its own rule and the layout pass decides
//! the spacing. ANTLR splits text into tokens before parsing, so the export decides a lexer:
//!
//! - Every literal of a syntax rule is a token of its own (written inline, so ANTLR defines it
//!   before every named lexer rule and a keyword wins over an identifier of the same text).
//!   Named lexical rules used by syntax rules, pools, character classes and regex terminals
//!   written inside syntax rules are named token rules; lexical rules only used inside other
//!   lexical rules are `fragment`s. A pool is its regex when it has one, else its values.
//! - ANTLR's lexer gives a word two token rules match to the one defined first, where Bonsai
//!   would draw it from either (the pool `ID` holds `a`, which `"a"` also is). Where the
//!   parser expects such a token it accepts a small parser rule `x_token : X | 'a' | Y ;`
//!   instead, listing every literal and earlier token that can take one of X's words
//!   (`token_overlap` compares the languages exactly). Pools derived from a regex exclude the
//!   grammar's literals, so only their overlaps with other tokens count.
//! - What separates tokens is skipped: spaces and tabs under `auto`, `space` and any blank
//!   separator (line breaks too when the grammar has no `NEWLINE`); a visible separator
//!   (`%layout ", "`) becomes a skipped token of its own. `%layout none` skips nothing.
//! - `NEWLINE` is a token of line breaks (with any blank lines after them and the next line's
//!   indentation). `INDENT` and `DEDENT` no lexer rule can produce, since they stand for the
//!   change of indentation between lines: a grammar that uses them gets a companion module,
//!   `NAMEIndentation.py`, that the lexer (Python 3 target, the one picireny drives) calls
//!   for every token and that decides NEWLINE, INDENT and DEDENT as Bonsai's own parser does
//!   (see `parse::ParseInput`). Their lexer rules match a marker character that never occurs
//!   in input; the module's tokens carry it, so that a tool rebuilding text from tokens can
//!   restore the indentation (the module's `layout`). Other targets would need a port of
//!   that module; the grammar itself names the Python one in its `@lexer::` actions.
//! - `GLUE` is nothing: ANTLR skips whitespace only where there is some.
//! - The start rule gets a parser rule of its own, `bonsai_start : start EOF ;`, first in the
//!   file, so that the whole input must be read.
//!
//! ANTLR also needs what Bonsai's Earley parser does not: left recursion only directly (a rule
//! whose alternative starts with the rule itself), so a rule that starts a cycle of rules
//! starting with each other gets the others' alternatives inlined until only the direct form
//! is left (starlark's `primary` and `call`); repetitions of something that can be empty, and
//! token rules that match the empty word, are rewritten to their non-empty part; `{n,m}`
//! counts are spelled out as copies and nested `?`, and past [`MAX_SPELLED_COUNT`] copies as
//! `+` or `*`, which accepts more than Bonsai generates, never less. Names are kept where
//! ANTLR and its Python and Java targets allow them, else made so (`<expr>` becomes `expr`,
//! `type` becomes `type_`).
//!
//! What the export cannot say, and `fuzzer/tests/export_antlr.rs` therefore cannot test by
//! importing the file back: the companion module's INDENT and DEDENT (Bonsai's ANTLR importer
//! reads their rules as the marker characters, so the tests feed it the token stream the
//! module would produce), and ANTLR's longest-match tokenization across two adjacent tokens,
//! which Bonsai's spacing avoids by separating two word or two operator characters but which
//! only ANTLR itself decides.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::token_overlap::Language;
use crate::diagnostic::Diagnostic;
use crate::grammar::{Comment, Grammar, LayoutToken, PoolId, RuleId, Separator, Symbol, Terminal};

/// Bounded repetitions are spelled out as copies up to this many; beyond it, `+` or `*`.
pub const MAX_SPELLED_COUNT: u32 = 16;

/// The marker characters of INDENT and DEDENT tokens (shift out, shift in).
pub const INDENT_MARK: char = '\u{e}';
/// The marker character of a DEDENT token; see [`INDENT_MARK`].
pub const DEDENT_MARK: char = '\u{f}';

/// The name of the parser rule that reads the whole input.
const START_RULE: &str = "bonsai_start";

/// An exported grammar: the `.g4` text, and the module its lexer needs when the grammar has
/// INDENT and DEDENT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AntlrGrammar {
    /// The ANTLR grammar's name, which its file must be named after.
    pub name: String,
    /// `NAME.g4`.
    pub text: String,
    /// The first parser rule: the start rule followed by EOF.
    pub start_rule: String,
    /// `(NAMEIndentation.py, its text)`, to be written next to the grammar.
    pub indentation: Option<(String, String)>,
}

/// The grammar as ANTLR4 grammar `name`, which must be an ANTLR identifier.
pub fn to_antlr(grammar: &Grammar, name: &str) -> Result<AntlrGrammar, Diagnostic> {
    if !is_antlr_identifier(name) {
        return Err(Diagnostic::error(format!(
            "'{name}' cannot name an ANTLR grammar: it needs a letter, then letters, digits or '_'"
        )));
    }
    let mut builder = Builder::new(grammar);
    builder.build()?;
    Ok(builder.write(name))
}

/// Whether `name` can name an ANTLR grammar (and so its file).
pub fn is_antlr_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

type Alts = Vec<Vec<Expr>>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Expr {
    Lit(String),
    Set(Vec<(char, char)>),
    /// A rule by index: a parser rule in parser rules, a token or fragment in lexer rules and
    /// in the `_token` rules that list a token's rivals.
    Ref(usize),
    /// A token where a parser rule expects it: written as its `_token` rule when rivals can
    /// take its words, and optional when it matches the empty word.
    Tok(usize),
    Group(Alts),
    Opt(Box<Expr>),
    Star(Box<Expr>),
    Plus(Box<Expr>),
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Parser,
    Token,
    Fragment,
}

struct Def {
    name: String,
    kind: Kind,
    alts: Alts,
    /// A token that matches only the empty word: used nowhere, written nowhere.
    dead: bool,
    /// Where it comes from, for messages.
    origin: String,
}

/// The layout tokens' rules, once used.
#[derive(Default)]
struct LayoutDefs {
    newline: Option<usize>,
    indent: Option<usize>,
    dedent: Option<usize>,
}

struct Builder<'g> {
    g: &'g Grammar,
    defs: Vec<Def>,
    taken: HashSet<String>,
    /// Named rules: their parser rule, or their token/fragment rule.
    named: HashMap<RuleId, usize>,
    /// Named syntax rules read inside a lexical rule: a fragment with the same words.
    as_fragment: HashMap<RuleId, usize>,
    pools: HashMap<PoolId, usize>,
    /// Tokens of classes and regex terminals inside syntax rules, by their lexer body.
    anonymous: HashMap<Alts, usize>,
    /// Literals of syntax rules, each a token of its own, in order of first use.
    literals: Vec<String>,
    layout: LayoutDefs,
    /// Named rules whose bodies are still to be converted.
    pending: std::collections::VecDeque<(RuleId, usize, bool)>,
    /// Per token, the parser rule that also accepts its rivals.
    rivals_rule: HashMap<usize, usize>,
}

impl<'g> Builder<'g> {
    fn new(g: &'g Grammar) -> Self {
        let mut taken: HashSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
        taken.insert(START_RULE.to_string());
        Self {
            g,
            defs: Vec::new(),
            taken,
            named: HashMap::new(),
            as_fragment: HashMap::new(),
            pools: HashMap::new(),
            anonymous: HashMap::new(),
            literals: Vec::new(),
            layout: LayoutDefs::default(),
            pending: std::collections::VecDeque::new(),
            rivals_rule: HashMap::new(),
        }
    }

    /// A fresh name in ANTLR's case convention: parser rules start with a lower-case letter,
    /// token and fragment rules with an upper-case one.
    fn fresh(&mut self, name: &str, parser: bool) -> String {
        let inner = name
            .strip_prefix('<')
            .and_then(|n| n.strip_suffix('>'))
            .unwrap_or(name);
        let mut cleaned: String = inner
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        cleaned = cleaned.trim_matches('_').to_string();
        let mut chars = cleaned.chars();
        let mut out = match chars.next() {
            Some(c) if c.is_ascii_alphabetic() => {
                let first = if parser {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                };
                format!("{first}{}", chars.as_str())
            }
            _ => format!("{}{cleaned}", if parser { "r_" } else { "T_" }),
        };
        while !self.taken.insert(out.clone()) {
            out.push('_');
        }
        out
    }

    fn add(&mut self, name: String, kind: Kind, origin: String) -> usize {
        self.defs.push(Def {
            name,
            kind,
            alts: Vec::new(),
            dead: false,
            origin,
        });
        self.defs.len() - 1
    }

    fn build(&mut self) -> Result<(), Diagnostic> {
        let start_def = self.add(START_RULE.to_string(), Kind::Parser, "the start".into());
        let start = self.g.start;
        let first = if self.g.rule(start).lexical {
            Expr::Tok(self.token_rule(start))
        } else {
            Expr::Ref(self.parser_rule(start))
        };
        self.defs[start_def].alts = vec![vec![first, Expr::Eof]];
        while let Some((rule, def, lexical)) = self.pending.pop_front() {
            let alts = self.alternatives(rule, lexical);
            self.defs[def].alts = alts;
        }
        if self.layout.indent.is_some() != self.layout.dedent.is_some() {
            return Err(self.located(
                start,
                "the grammar uses only one of INDENT and DEDENT; an exported lexer emits both",
            ));
        }
        self.empty_tokens();
        self.left_recursion()?;
        self.empty_closures();
        self.check_left_recursion()?;
        self.rivals();
        Ok(())
    }

    fn located(&self, rule: RuleId, message: impl Into<String>) -> Diagnostic {
        match &self.g.origin {
            Some(source) => source.error(self.g.rule(rule).span, message),
            None => Diagnostic::error(message),
        }
    }

    /// The parser rule of a named syntax rule.
    fn parser_rule(&mut self, rule: RuleId) -> usize {
        if let Some(&def) = self.named.get(&rule) {
            return def;
        }
        let name = self.fresh(&self.g.rule(rule).name.clone(), true);
        let def = self.add(name, Kind::Parser, self.g.rule(rule).name.clone());
        self.named.insert(rule, def);
        self.pending.push_back((rule, def, false));
        def
    }

    /// The lexer rule of a named lexical rule, a token when a syntax rule uses it.
    fn lexer_rule(&mut self, rule: RuleId, token: bool) -> usize {
        if let Some(&def) = self.named.get(&rule) {
            if token {
                self.defs[def].kind = Kind::Token;
            }
            return def;
        }
        let name = self.fresh(&self.g.rule(rule).name.clone(), false);
        let kind = if token { Kind::Token } else { Kind::Fragment };
        let def = self.add(name, kind, self.g.rule(rule).name.clone());
        self.named.insert(rule, def);
        self.pending.push_back((rule, def, true));
        def
    }

    fn token_rule(&mut self, rule: RuleId) -> usize {
        self.lexer_rule(rule, true)
    }

    /// A named syntax rule read inside a lexical rule: a fragment of the same words.
    fn fragment_of_syntax_rule(&mut self, rule: RuleId) -> usize {
        if let Some(&def) = self.as_fragment.get(&rule) {
            return def;
        }
        let name = self.fresh(&format!("{}_chars", self.g.rule(rule).name), false);
        let def = self.add(name, Kind::Fragment, self.g.rule(rule).name.clone());
        self.as_fragment.insert(rule, def);
        self.pending.push_back((rule, def, true));
        def
    }

    fn pool_rule(&mut self, pool: PoolId) -> usize {
        if let Some(&def) = self.pools.get(&pool) {
            return def;
        }
        let p = &self.g.pools[pool.index()];
        let name = self.fresh(&p.name.clone(), false);
        let origin = format!("pool {}", p.name);
        let alts = match p
            .pattern
            .as_deref()
            .and_then(|r| regex_syntax::parse(r).ok())
        {
            Some(hir) => hir_alternatives(&hir),
            None => p
                .values
                .iter()
                .map(|v| vec![Expr::Lit(v.clone())])
                .collect(),
        };
        let def = self.add(name, Kind::Token, origin);
        self.defs[def].alts = alts;
        self.pools.insert(pool, def);
        def
    }

    /// A token for a class or a regex terminal written inside a syntax rule.
    fn anonymous_token(&mut self, alts: Alts, origin: &str) -> usize {
        if let Some(&def) = self.anonymous.get(&alts) {
            return def;
        }
        let name = self.fresh(&format!("{origin}_token"), false);
        let def = self.add(name, Kind::Token, format!("a token of {origin}"));
        self.defs[def].alts = alts.clone();
        self.anonymous.insert(alts, def);
        def
    }

    fn layout_token(&mut self, token: LayoutToken) -> Option<usize> {
        let slot = match token {
            LayoutToken::Newline => self.layout.newline,
            LayoutToken::Indent => self.layout.indent,
            LayoutToken::Dedent => self.layout.dedent,
            LayoutToken::Glue => return None,
        };
        if slot.is_some() {
            return slot;
        }
        let alts = match token {
            // A line break, blank lines after it, and the next line's indentation.
            LayoutToken::Newline => vec![vec![Expr::Plus(Box::new(Expr::Group(vec![vec![
                Expr::Opt(Box::new(Expr::Lit("\r".into()))),
                Expr::Lit("\n".into()),
                Expr::Star(Box::new(Expr::Set(vec![
                    ('\t', '\t'),
                    ('\u{c}', '\u{c}'),
                    (' ', ' '),
                ]))),
            ]])))]],
            LayoutToken::Indent => vec![vec![Expr::Lit(INDENT_MARK.to_string())]],
            _ => vec![vec![Expr::Lit(DEDENT_MARK.to_string())]],
        };
        let name = self.fresh(token.name(), false);
        let def = self.add(name, Kind::Token, token.name().to_string());
        self.defs[def].alts = alts;
        match token {
            LayoutToken::Newline => self.layout.newline = Some(def),
            LayoutToken::Indent => self.layout.indent = Some(def),
            _ => self.layout.dedent = Some(def),
        }
        Some(def)
    }

    fn alternatives(&mut self, rule: RuleId, lexical: bool) -> Alts {
        let alternatives = self.g.rule(rule).alternatives.clone();
        alternatives
            .iter()
            .map(|alt| {
                alt.symbols
                    .iter()
                    .filter_map(|s| self.symbol(s, lexical, rule))
                    .collect()
            })
            .collect()
    }

    /// One symbol inside a named rule `owner`, read as a lexer (`lexical`) or a parser sees
    /// it; `None` for what writes nothing.
    fn symbol(&mut self, symbol: &Symbol, lexical: bool, owner: RuleId) -> Option<Expr> {
        match *symbol {
            Symbol::Terminal(t) => self.terminal(t, lexical, owner),
            Symbol::Rule(id) => self.rule_use(id, lexical, owner),
            Symbol::Optional(body) => {
                let inner = self.rule_use(body, lexical, owner)?;
                Some(Expr::Opt(Box::new(inner)))
            }
            Symbol::Repeat { body, min, max } => {
                let inner = self.rule_use(body, lexical, owner)?;
                Some(repeat(inner, min, max))
            }
        }
    }

    fn terminal(
        &mut self,
        t: crate::grammar::TerminalId,
        lexical: bool,
        owner: RuleId,
    ) -> Option<Expr> {
        match self.g.terminal(t).clone() {
            Terminal::Literal(text) if text.is_empty() => None,
            Terminal::Literal(text) => {
                if !lexical && !self.literals.contains(&text) {
                    self.literals.push(text.clone());
                }
                Some(Expr::Lit(text))
            }
            Terminal::Class(class) if lexical => Some(Expr::Set(class.ranges().to_vec())),
            Terminal::Class(class) => {
                let owner = self.g.rule(owner).name.clone();
                let def =
                    self.anonymous_token(vec![vec![Expr::Set(class.ranges().to_vec())]], &owner);
                Some(Expr::Tok(def))
            }
            Terminal::Pool(p) => {
                let def = self.pool_rule(p);
                Some(if lexical {
                    Expr::Ref(def)
                } else {
                    Expr::Tok(def)
                })
            }
            // Inside a token a line break is just a character; indentation means nothing.
            Terminal::Layout(LayoutToken::Newline) if lexical => Some(Expr::Lit("\n".into())),
            Terminal::Layout(_) if lexical => None,
            Terminal::Layout(token) => self.layout_token(token).map(Expr::Tok),
        }
    }

    /// A use of rule `id` (named or a group).
    fn rule_use(&mut self, id: RuleId, lexical: bool, owner: RuleId) -> Option<Expr> {
        let rule = self.g.rule(id);
        if rule.is_named() {
            return Some(match (lexical, rule.lexical) {
                (false, false) => Expr::Ref(self.parser_rule(id)),
                (false, true) => Expr::Tok(self.token_rule(id)),
                (true, true) => Expr::Ref(self.lexer_rule(id, false)),
                (true, false) => Expr::Ref(self.fragment_of_syntax_rule(id)),
            });
        }
        if !lexical && rule.lexical {
            // A regex terminal inside a syntax rule: one token.
            let alts = self.alternatives(id, true);
            let owner = self.g.rule(owner).name.clone();
            return Some(Expr::Tok(self.anonymous_token(alts, &owner)));
        }
        let alts = self.alternatives(id, lexical);
        Some(group(alts))
    }

    // --- Rewrites ANTLR needs -------------------------------------------------------------

    /// Which rules can match the empty word: parser rules and fragments by fixpoint; a token
    /// used in a parser rule never does once `empty_tokens` has run.
    fn nullable(&self) -> Vec<bool> {
        let mut nullable = vec![false; self.defs.len()];
        loop {
            let mut changed = false;
            for (d, def) in self.defs.iter().enumerate() {
                if !nullable[d] && def.alts.iter().any(|a| seq_nullable(a, &nullable)) {
                    nullable[d] = true;
                    changed = true;
                }
            }
            if !changed {
                return nullable;
            }
        }
    }

    /// ANTLR refuses token rules that match the empty word: such a token keeps its non-empty
    /// words, and is optional where a parser rule uses it.
    fn empty_tokens(&mut self) {
        let nullable = self.nullable();
        let empty: Vec<usize> = (0..self.defs.len())
            .filter(|&d| self.defs[d].kind == Kind::Token && nullable[d])
            .collect();
        if empty.is_empty() {
            return;
        }
        for &d in &empty {
            let alts = self.defs[d].alts.clone();
            let mut memo = HashMap::new();
            let non_empty = self.non_empty_alts(&alts, &nullable, &mut memo);
            self.defs[d].dead = non_empty.is_empty();
            self.defs[d].alts = non_empty;
        }
        let dead: HashSet<usize> = empty
            .iter()
            .copied()
            .filter(|&d| self.defs[d].dead)
            .collect();
        let empty: HashSet<usize> = empty.into_iter().collect();
        for def in &mut self.defs {
            for alt in &mut def.alts {
                for e in alt.iter_mut() {
                    optional_tokens(e, &empty, &dead);
                }
            }
        }
    }

    /// The words of `alts` but the empty one.
    fn non_empty_alts(
        &mut self,
        alts: &Alts,
        nullable: &[bool],
        memo: &mut HashMap<usize, Option<usize>>,
    ) -> Alts {
        let mut out = Vec::new();
        for alt in alts {
            out.extend(self.non_empty_seq(alt, nullable, memo));
        }
        out
    }

    /// A sequence without its empty word, as alternatives: if every item can be empty, some
    /// item is the first non-empty one.
    fn non_empty_seq(
        &mut self,
        seq: &[Expr],
        nullable: &[bool],
        memo: &mut HashMap<usize, Option<usize>>,
    ) -> Alts {
        if !seq_nullable(seq, nullable) {
            return vec![seq.to_vec()];
        }
        let mut out = Vec::new();
        for i in 0..seq.len() {
            if let Some(first) = self.non_empty(&seq[i], nullable, memo) {
                let mut alt = vec![first];
                alt.extend_from_slice(&seq[i + 1..]);
                out.push(alt);
            }
        }
        out
    }

    fn non_empty(
        &mut self,
        e: &Expr,
        nullable: &[bool],
        memo: &mut HashMap<usize, Option<usize>>,
    ) -> Option<Expr> {
        if !expr_nullable(e, nullable) {
            return Some(e.clone());
        }
        match e {
            Expr::Lit(_) | Expr::Eof => None,
            Expr::Set(_) | Expr::Tok(_) => Some(e.clone()),
            Expr::Ref(d) => {
                let d = *d;
                if let Some(done) = memo.get(&d) {
                    return done.map(Expr::Ref);
                }
                let name = format!("{}_nonempty", self.defs[d].name);
                let parser = self.defs[d].kind == Kind::Parser;
                let name = self.fresh(&name, parser);
                let kind = if parser { Kind::Parser } else { Kind::Fragment };
                let origin = self.defs[d].origin.clone();
                let derived = self.add(name, kind, origin);
                memo.insert(d, Some(derived));
                let alts = self.defs[d].alts.clone();
                let non_empty = self.non_empty_alts(&alts, nullable, memo);
                if non_empty.is_empty() {
                    memo.insert(d, None);
                    self.defs.pop();
                    return None;
                }
                self.defs[derived].alts = non_empty;
                Some(Expr::Ref(derived))
            }
            Expr::Group(alts) => {
                let alts = alts.clone();
                let non_empty = self.non_empty_alts(&alts, nullable, memo);
                (!non_empty.is_empty()).then(|| group(non_empty))
            }
            Expr::Opt(inner) => self.non_empty(inner, nullable, memo),
            Expr::Star(inner) | Expr::Plus(inner) => self
                .non_empty(inner, nullable, memo)
                .map(|x| Expr::Plus(Box::new(x))),
        }
    }

    /// ANTLR refuses `x*` and `x+` where `x` can be empty: they become the repetition of `x`'s
    /// non-empty words, which matches the same texts.
    fn empty_closures(&mut self) {
        let nullable = self.nullable();
        let mut memo = HashMap::new();
        for d in 0..self.defs.len() {
            let alts = std::mem::take(&mut self.defs[d].alts);
            let alts = alts
                .into_iter()
                .map(|alt| {
                    alt.into_iter()
                        .map(|e| self.closures_in(e, &nullable, &mut memo))
                        .collect()
                })
                .collect();
            self.defs[d].alts = alts;
        }
    }

    fn closures_in(
        &mut self,
        e: Expr,
        nullable: &[bool],
        memo: &mut HashMap<usize, Option<usize>>,
    ) -> Expr {
        match e {
            Expr::Group(alts) => Expr::Group(
                alts.into_iter()
                    .map(|a| {
                        a.into_iter()
                            .map(|x| self.closures_in(x, nullable, memo))
                            .collect()
                    })
                    .collect(),
            ),
            Expr::Opt(x) => Expr::Opt(Box::new(self.closures_in(*x, nullable, memo))),
            Expr::Star(x) | Expr::Plus(x) if expr_nullable(&x, nullable) => {
                let x = self.closures_in(*x, nullable, memo);
                match self.non_empty(&x, nullable, memo) {
                    Some(body) => Expr::Star(Box::new(body)),
                    None => Expr::Group(vec![vec![]]),
                }
            }
            Expr::Star(x) => Expr::Star(Box::new(self.closures_in(*x, nullable, memo))),
            Expr::Plus(x) => Expr::Plus(Box::new(self.closures_in(*x, nullable, memo))),
            other => other,
        }
    }

    /// ANTLR takes left recursion only when an alternative starts with its own rule. For each
    /// cycle of parser rules whose alternatives start with one another, the first rule of the
    /// cycle gets the alternatives of the others inlined where they start its alternatives,
    /// until each starts with itself or with a rule outside the cycle.
    fn left_recursion(&mut self) -> Result<(), Diagnostic> {
        let mut heads = HashSet::new();
        loop {
            let cycles = self.first_item_cycles();
            let Some(cycle) = cycles.into_iter().next() else {
                return Ok(());
            };
            let head = *cycle.iter().min().unwrap_or(&0);
            if !heads.insert(head) {
                // Inlining into this rule already left it starting with itself or with rules
                // outside its cycle; another cycle through it is one inlining cannot undo.
                return Err(self.cycle_error(&cycle));
            }
            let members: HashSet<usize> = cycle.into_iter().collect();
            let mut budget = 10_000usize;
            let mut alts = Vec::new();
            for alt in self.defs[head].alts.clone() {
                self.expand_left(alt, head, &members, &mut budget, &mut alts)?;
            }
            dedup(&mut alts);
            self.defs[head].alts = alts;
        }
    }

    /// `alt` with every rule of the cycle but `head` that starts it replaced by that rule's
    /// alternatives, recursively, in order.
    fn expand_left(
        &self,
        alt: Vec<Expr>,
        head: usize,
        members: &HashSet<usize>,
        budget: &mut usize,
        out: &mut Alts,
    ) -> Result<(), Diagnostic> {
        let Some(Expr::Ref(first)) = alt.first() else {
            out.push(alt);
            return Ok(());
        };
        if *first == head || !members.contains(first) {
            out.push(alt);
            return Ok(());
        }
        if *budget == 0 {
            return Err(Diagnostic::error(format!(
                "rule '{}' is left-recursive through rules that are left-recursive among \
                 themselves; ANTLR needs every left recursion to be direct, and inlining them \
                 does not end",
                self.defs[head].origin
            )));
        }
        *budget -= 1;
        for prefix in &self.defs[*first].alts {
            let mut new = prefix.clone();
            new.extend_from_slice(&alt[1..]);
            self.expand_left(new, head, members, budget, out)?;
        }
        Ok(())
    }

    /// Cycles (of two or more parser rules) in the relation "an alternative of A starts with
    /// B", in order of their first rule.
    fn first_item_cycles(&self) -> Vec<Vec<usize>> {
        let edges: Vec<Vec<usize>> = self
            .defs
            .iter()
            .enumerate()
            .map(|(d, def)| {
                if def.kind != Kind::Parser {
                    return Vec::new();
                }
                def.alts
                    .iter()
                    .filter_map(|alt| match alt.first() {
                        Some(Expr::Ref(b)) if *b != d => Some(*b),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut cycles: Vec<Vec<usize>> = strongly_connected(&edges)
            .into_iter()
            .filter(|c| c.len() > 1)
            .collect();
        cycles.sort_by_key(|c| c.iter().min().copied());
        cycles
    }

    fn cycle_error(&self, cycle: &[usize]) -> Diagnostic {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&d| self.defs[d].origin.as_str())
            .collect();
        Diagnostic::error(format!(
            "rules {} are left-recursive in a way ANTLR cannot take (through a group, a part \
             that can be empty, or cycles inlining does not undo); write the recursion as an \
             alternative that starts with its own rule",
            names.join(", ")
        ))
    }

    /// Left recursion ANTLR cannot take and the inlining left: a rule reached again at the
    /// left edge other than as the first item of one of its own alternatives (through a group,
    /// an optional prefix, or another rule).
    fn check_left_recursion(&self) -> Result<(), Diagnostic> {
        let nullable = self.nullable();
        let edges: Vec<Vec<usize>> = self
            .defs
            .iter()
            .enumerate()
            .map(|(d, def)| {
                if def.kind != Kind::Parser {
                    return Vec::new();
                }
                let mut out = Vec::new();
                for alt in &def.alts {
                    let skip_direct = matches!(alt.first(), Some(Expr::Ref(b)) if *b == d);
                    let items = if skip_direct { &alt[..0] } else { &alt[..] };
                    self.left_corners(items, &nullable, &mut out);
                }
                out
            })
            .collect();
        for cycle in strongly_connected(&edges) {
            let looped = cycle.len() > 1 || edges[cycle[0]].contains(&cycle[0]);
            if looped {
                return Err(self.cycle_error(&cycle));
            }
        }
        Ok(())
    }

    fn left_corners(&self, seq: &[Expr], nullable: &[bool], out: &mut Vec<usize>) {
        for e in seq {
            self.expr_left_corners(e, nullable, out);
            if !expr_nullable(e, nullable) {
                return;
            }
        }
    }

    fn expr_left_corners(&self, e: &Expr, nullable: &[bool], out: &mut Vec<usize>) {
        match e {
            Expr::Ref(d) if self.defs[*d].kind == Kind::Parser => out.push(*d),
            Expr::Group(alts) => alts
                .iter()
                .for_each(|a| self.left_corners(a, nullable, out)),
            Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) => {
                self.expr_left_corners(x, nullable, out)
            }
            _ => {}
        }
    }

    /// For each token a parser rule expects, the literals and earlier tokens that the lexer
    /// would give some of its words to; those tokens are expected through a `_token` rule that
    /// accepts all of them.
    fn rivals(&mut self) {
        let order = self.token_order();
        let used: HashSet<usize> = self
            .defs
            .iter()
            .flat_map(|d| d.alts.iter().flatten())
            .flat_map(tokens_in)
            .collect();
        let languages: HashMap<usize, Language> = order
            .iter()
            .map(|&d| (d, Language::new(self.regex(d).as_deref())))
            .collect();
        let layout: HashSet<usize> = [self.layout.newline, self.layout.indent, self.layout.dedent]
            .into_iter()
            .flatten()
            .collect();
        let regex_pools: HashSet<usize> = self
            .pools
            .iter()
            .filter(|(p, _)| self.g.pools[p.index()].pattern.is_some())
            .map(|(_, &d)| d)
            .collect();
        // A pool of listed values that are all literals of the grammar is never read as its
        // own token: the literals are, and its rule would be dead.
        for (p, &d) in &self.pools {
            let pool = &self.g.pools[p.index()];
            if pool.pattern.is_none() && pool.values.iter().all(|v| self.literals.contains(v)) {
                self.defs[d].dead = true;
            }
        }
        for (position, &token) in order.iter().enumerate() {
            if !used.contains(&token) || layout.contains(&token) {
                continue;
            }
            let language = &languages[&token];
            // A token that is one literal is that literal's token type (ANTLR aliases them).
            let own = match self.defs[token].dead {
                true => None,
                false => single_literal(&self.defs[token].alts),
            };
            let mut rivals: Vec<Expr> = Vec::new();
            if !regex_pools.contains(&token) {
                for literal in &self.literals {
                    if Some(literal) != own.as_ref() && language.matches(literal) {
                        rivals.push(Expr::Lit(literal.clone()));
                    }
                }
            }
            for &earlier in &order[..position] {
                let live = !layout.contains(&earlier) && !self.defs[earlier].dead;
                if live && languages[&earlier].overlaps(language) {
                    rivals.push(Expr::Ref(earlier));
                }
            }
            if rivals.is_empty() {
                continue;
            }
            let name = format!("{}_token", self.defs[token].name.to_ascii_lowercase());
            let name = self.fresh(&name, true);
            let origin = format!(
                "{} or what the lexer reads instead",
                self.defs[token].origin
            );
            let def = self.add(name, Kind::Parser, origin);
            let mut alts = if self.defs[token].dead {
                Vec::new()
            } else {
                vec![vec![Expr::Ref(token)]]
            };
            alts.extend(rivals.into_iter().map(|r| vec![r]));
            self.defs[def].alts = alts;
            self.rivals_rule.insert(token, def);
        }
    }

    /// Token rules in the order the lexer tries them: those that are one literal first (a
    /// literal of a parser rule becomes that token, and literals must win ties), then the
    /// others as they were first used, then the layout tokens.
    fn token_order(&self) -> Vec<usize> {
        let layout: Vec<usize> = [self.layout.indent, self.layout.dedent, self.layout.newline]
            .into_iter()
            .flatten()
            .collect();
        let tokens = (0..self.defs.len()).filter(|&d| {
            self.defs[d].kind == Kind::Token && !self.defs[d].dead && !layout.contains(&d)
        });
        let (literal, other): (Vec<usize>, Vec<usize>) =
            tokens.partition(|&d| single_literal(&self.defs[d].alts).is_some());
        literal.into_iter().chain(other).chain(layout).collect()
    }

    /// A token's language as a regex-syntax pattern; `None` when a rule reaches itself.
    fn regex(&self, def: usize) -> Option<String> {
        self.alts_regex(&self.defs[def].alts, &mut vec![def])
    }

    fn alts_regex(&self, alts: &Alts, visiting: &mut Vec<usize>) -> Option<String> {
        let parts: Option<Vec<String>> = alts
            .iter()
            .map(|alt| alt.iter().map(|e| self.expr_regex(e, visiting)).collect())
            .collect();
        Some(format!("(?:{})", parts?.join("|")))
    }

    fn expr_regex(&self, e: &Expr, visiting: &mut Vec<usize>) -> Option<String> {
        Some(match e {
            Expr::Lit(text) => regex_syntax::escape(text),
            Expr::Set(ranges) => class_regex(ranges),
            Expr::Ref(d) | Expr::Tok(d) => {
                if visiting.contains(d) {
                    return None;
                }
                visiting.push(*d);
                let inner = self.alts_regex(&self.defs[*d].alts, visiting);
                visiting.pop();
                inner?
            }
            Expr::Group(alts) => self.alts_regex(alts, visiting)?,
            Expr::Opt(x) => format!("(?:{})?", self.expr_regex(x, visiting)?),
            Expr::Star(x) => format!("(?:{})*", self.expr_regex(x, visiting)?),
            Expr::Plus(x) => format!("(?:{})+", self.expr_regex(x, visiting)?),
            Expr::Eof => String::new(),
        })
    }

    // --- Writing ---------------------------------------------------------------------------

    fn write(&self, name: &str) -> AntlrGrammar {
        let g = self.g;
        let indented = self.layout.indent.is_some();
        let module = format!("{name}Indentation");
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// ANTLR4 grammar written by `bonsai grammar convert --to antlr` from Bonsai's grammar \
             '{}'.\n// It accepts the texts Bonsai generates from that grammar; rules named \
             x_token accept a token\n// together with the literals and tokens that ANTLR's lexer \
             reads instead of it for some\n// of its words.",
            g.name
        );
        if indented {
            let _ = writeln!(
                out,
                "// INDENT and DEDENT come from {module}.py (for the Python 3 target), which \
                 must be\n// next to the generated lexer: it turns changes of indentation \
                 into these tokens."
            );
        }
        let _ = writeln!(out, "grammar {name};\n");
        if indented {
            let _ = writeln!(out, "@lexer::header {{\nimport {module}\n}}\n");
            let _ = writeln!(
                out,
                "@lexer::members {{\nnextToken = {module}.next_token\n}}\n"
            );
        }
        let wrapped = |d: usize| -> String {
            self.rivals_rule
                .get(&d)
                .map_or_else(|| self.defs[d].name.clone(), |&w| self.defs[w].name.clone())
        };
        // The start, the grammar's rules in its order, then the rules the export adds.
        let mut named: Vec<(RuleId, usize)> = self
            .named
            .iter()
            .filter(|(_, d)| self.defs[**d].kind == Kind::Parser)
            .map(|(r, d)| (*r, *d))
            .collect();
        named.sort_unstable();
        let named_defs: HashSet<usize> = named.iter().map(|(_, d)| *d).collect();
        let parser_order = std::iter::once(0)
            .chain(named.iter().map(|(_, d)| *d))
            .chain(
                (1..self.defs.len())
                    .filter(|d| self.defs[*d].kind == Kind::Parser && !named_defs.contains(d)),
            );
        for d in parser_order {
            out.push_str(&self.rule_text(&self.defs[d], &wrapped));
        }
        out.push('\n');
        let mut lexer_order = self.token_order();
        lexer_order.extend((0..self.defs.len()).filter(|&d| self.defs[d].kind == Kind::Fragment));
        for d in lexer_order {
            out.push_str(&self.rule_text(&self.defs[d], &wrapped));
        }
        if let Some(skipped) = self.skipped() {
            out.push_str(&skipped);
        }
        let indentation = indented.then(|| {
            let text = include_str!("antlr_indentation.py")
                .replace("@GRAMMAR@", name)
                .replace("@UNIT@", &python_string(&g.layout.indent));
            (format!("{module}.py"), text)
        });
        AntlrGrammar {
            name: name.to_string(),
            text: out,
            start_rule: START_RULE.to_string(),
            indentation,
        }
    }

    /// The rule that skips what separates tokens.
    fn skipped(&self) -> Option<String> {
        let has_newline = self.layout.newline.is_some();
        let blanks = |extra: &str| -> String {
            let mut chars: Vec<char> = format!(" \t{extra}").chars().collect();
            if !has_newline {
                chars.extend(['\r', '\n']);
            }
            chars.sort_unstable();
            chars.dedup();
            let ranges: Vec<(char, char)> = chars.iter().map(|&c| (c, c)).collect();
            set_text(&ranges)
        };
        let mut taken = self.taken.clone();
        let mut name = |base: &str| {
            let mut n = base.to_string();
            while !taken.insert(n.clone()) {
                n.push('_');
            }
            n
        };
        // Comments are skipped as the grammar's own `%comment`s say, whatever the separator.
        let mut comments = String::new();
        for comment in &self.g.layout.comments {
            let rule = match comment {
                Comment::Line(open) => format!("{} ~[\\r\\n]*", literal(open)),
                Comment::Block { open, close } => {
                    format!("{} .*? {}", literal(open), literal(close))
                }
            };
            let _ = writeln!(comments, "{} : {rule} -> skip ;", name("COMMENT"));
        }
        let blank = match &self.g.layout.separator {
            Separator::Text(text) if text.is_empty() => None,
            Separator::Auto => Some(format!("{} : {}+ -> skip ;\n", name("WS"), blanks(""))),
            Separator::Text(text) => {
                let visible = text.trim();
                let spaces: String = text
                    .chars()
                    .filter(|c| c.is_whitespace() && *c != '\n' && *c != '\r')
                    .collect();
                let mut out = format!("{} : {}+ -> skip ;\n", name("WS"), blanks(&spaces));
                if !visible.is_empty() {
                    let _ = writeln!(
                        out,
                        "{} : {} -> skip ;",
                        name("SEPARATOR"),
                        literal(visible)
                    );
                }
                Some(out)
            }
        };
        match (blank, comments.is_empty()) {
            (None, true) => None,
            (blank, _) => Some(blank.unwrap_or_default() + &comments),
        }
    }

    fn rule_text(&self, def: &Def, wrapped: &dyn Fn(usize) -> String) -> String {
        let lexer = def.kind != Kind::Parser;
        // A body that is one group (a regex terminal) is that group's alternatives.
        let alts = match def.alts.as_slice() {
            [alt] => match alt.as_slice() {
                [Expr::Group(inner)] => inner,
                _ => &def.alts,
            },
            _ => &def.alts,
        };
        let alts: Vec<String> = alts
            .iter()
            .map(|alt| self.seq_text(alt, lexer, wrapped))
            .collect();
        let prefix = if def.kind == Kind::Fragment {
            "fragment "
        } else {
            ""
        };
        let one_line = format!("{prefix}{} : {} ;\n", def.name, alts.join(" | "));
        if one_line.chars().count() <= 100 || alts.len() == 1 {
            return one_line;
        }
        let mut out = format!("{prefix}{}\n    : {}", def.name, alts[0]);
        for alt in &alts[1..] {
            let _ = write!(out, "\n    | {alt}");
        }
        out.push_str("\n    ;\n");
        out
    }

    fn seq_text(&self, seq: &[Expr], lexer: bool, wrapped: &dyn Fn(usize) -> String) -> String {
        seq.iter()
            .map(|e| match e {
                // One alternative needs no parentheses inside a sequence.
                Expr::Group(alts) if alts.len() == 1 => self.seq_text(&alts[0], lexer, wrapped),
                e => self.expr_text(e, lexer, wrapped),
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn expr_text(&self, e: &Expr, lexer: bool, wrapped: &dyn Fn(usize) -> String) -> String {
        match e {
            Expr::Lit(text) => literal(text),
            Expr::Set(ranges) => set_text(ranges),
            Expr::Ref(d) => self.defs[*d].name.clone(),
            Expr::Tok(d) => wrapped(*d),
            Expr::Eof => "EOF".to_string(),
            Expr::Group(alts) => {
                let inner: Vec<String> = alts
                    .iter()
                    .map(|a| self.seq_text(a, lexer, wrapped))
                    .collect();
                format!("( {} )", inner.join(" | "))
            }
            Expr::Opt(x) => format!("{}?", self.operand_text(x, lexer, wrapped)),
            Expr::Star(x) => format!("{}*", self.operand_text(x, lexer, wrapped)),
            Expr::Plus(x) => format!("{}+", self.operand_text(x, lexer, wrapped)),
        }
    }

    /// The operand of `?`, `*`, `+`: bare when it is one atom, else in parentheses.
    fn operand_text(&self, e: &Expr, lexer: bool, wrapped: &dyn Fn(usize) -> String) -> String {
        let atomic = match e {
            Expr::Lit(_)
            | Expr::Set(_)
            | Expr::Ref(_)
            | Expr::Tok(_)
            | Expr::Group(_)
            | Expr::Eof => true,
            Expr::Opt(_) | Expr::Star(_) | Expr::Plus(_) => false,
        };
        let text = self.expr_text(e, lexer, wrapped);
        if atomic { text } else { format!("( {text} )") }
    }
}

/// A group of alternatives; one sequence of one item is that item.
fn group(mut alts: Alts) -> Expr {
    if alts.len() == 1 && alts[0].len() == 1 {
        return alts.remove(0).remove(0);
    }
    Expr::Group(alts)
}

/// `body{min,max}` with ANTLR's operators only.
fn repeat(body: Expr, min: u32, max: Option<u32>) -> Expr {
    let spelled = |n: u32| -> Vec<Expr> { (0..n).map(|_| body.clone()).collect() };
    let star = || Expr::Star(Box::new(body.clone()));
    let plus = || Expr::Plus(Box::new(body.clone()));
    match (min, max) {
        (0, None) => star(),
        (1, None) => plus(),
        (m, _) if m > MAX_SPELLED_COUNT => plus(),
        (m, None) => {
            let mut seq = spelled(m - 1);
            seq.push(plus());
            Expr::Group(vec![seq])
        }
        (m, Some(n)) if n - m > MAX_SPELLED_COUNT => {
            let mut seq = spelled(m);
            seq.push(star());
            group(vec![seq])
        }
        (m, Some(n)) => {
            // `x x (x (x)?)?` for {2,4}: the optional tail nests.
            let mut tail: Option<Expr> = None;
            for _ in m..n {
                let mut seq = vec![body.clone()];
                seq.extend(tail.take());
                tail = Some(Expr::Opt(Box::new(group(vec![seq]))));
            }
            let mut seq = spelled(m);
            seq.extend(tail);
            group(vec![seq])
        }
    }
}

fn seq_nullable(seq: &[Expr], nullable: &[bool]) -> bool {
    seq.iter().all(|e| expr_nullable(e, nullable))
}

/// Whether `e` can match the empty word; a token used by a parser rule never does (one that
/// could is made optional instead, see `empty_tokens`).
fn expr_nullable(e: &Expr, nullable: &[bool]) -> bool {
    match e {
        Expr::Lit(text) => text.is_empty(),
        Expr::Set(_) | Expr::Tok(_) => false,
        Expr::Ref(d) => nullable[*d],
        Expr::Group(alts) => alts.iter().any(|a| seq_nullable(a, nullable)),
        Expr::Opt(_) | Expr::Star(_) | Expr::Eof => true,
        Expr::Plus(x) => expr_nullable(x, nullable),
    }
}

/// Makes the uses of tokens in `empty` optional, and removes those of tokens in `dead`.
fn optional_tokens(e: &mut Expr, empty: &HashSet<usize>, dead: &HashSet<usize>) {
    match e {
        Expr::Tok(d) if dead.contains(d) => *e = Expr::Group(vec![vec![]]),
        Expr::Tok(d) if empty.contains(d) => *e = Expr::Opt(Box::new(Expr::Tok(*d))),
        Expr::Group(alts) => alts
            .iter_mut()
            .flatten()
            .for_each(|x| optional_tokens(x, empty, dead)),
        Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) => optional_tokens(x, empty, dead),
        _ => {}
    }
}

fn tokens_in(e: &Expr) -> Vec<usize> {
    match e {
        Expr::Tok(d) => vec![*d],
        Expr::Group(alts) => alts.iter().flatten().flat_map(tokens_in).collect(),
        Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) => tokens_in(x),
        _ => Vec::new(),
    }
}

/// The text of a rule that is exactly one literal.
fn single_literal(alts: &Alts) -> Option<String> {
    match alts.as_slice() {
        [alt] => match alt.as_slice() {
            [Expr::Lit(text)] => Some(text.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn dedup(alts: &mut Alts) {
    let mut seen = HashSet::new();
    alts.retain(|a| seen.insert(a.clone()));
}

/// Strongly connected components (Tarjan), each with its members in ascending order.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.edges[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut state = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.out
}

/// A regex-syntax HIR (a pool's pattern) as lexer alternatives.
fn hir_alternatives(hir: &regex_syntax::hir::Hir) -> Alts {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Alternation(alts) => alts.iter().map(hir_sequence).collect(),
        _ => vec![hir_sequence(hir)],
    }
}

fn hir_sequence(hir: &regex_syntax::hir::Hir) -> Vec<Expr> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Concat(parts) => parts.iter().filter_map(hir_expr).collect(),
        _ => hir_expr(hir).into_iter().collect(),
    }
}

fn hir_expr(hir: &regex_syntax::hir::Hir) -> Option<Expr> {
    use regex_syntax::hir::{Class, HirKind};
    Some(match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => return None,
        HirKind::Literal(lit) => Expr::Lit(String::from_utf8_lossy(&lit.0).into_owned()),
        HirKind::Class(Class::Unicode(class)) => {
            Expr::Set(class.iter().map(|r| (r.start(), r.end())).collect())
        }
        HirKind::Class(Class::Bytes(class)) => Expr::Set(
            class
                .iter()
                .map(|r| (char::from(r.start()), char::from(r.end())))
                .collect(),
        ),
        HirKind::Capture(capture) => group(hir_alternatives(&capture.sub)),
        HirKind::Concat(_) | HirKind::Alternation(_) => group(hir_alternatives(hir)),
        HirKind::Repetition(rep) => {
            let body = hir_expr(&rep.sub)?;
            if rep.min == 0 && rep.max == Some(1) {
                Expr::Opt(Box::new(body))
            } else {
                repeat(body, rep.min, rep.max)
            }
        }
    })
}

fn class_regex(ranges: &[(char, char)]) -> String {
    let mut out = String::from("[");
    for &(a, b) in ranges {
        let _ = write!(out, "\\x{{{:X}}}", a as u32);
        if a != b {
            let _ = write!(out, "-\\x{{{:X}}}", b as u32);
        }
    }
    out.push(']');
    out
}

/// An ANTLR literal `'...'`: printable characters as they are (the file is UTF-8), others
/// escaped.
fn literal(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push_str(&escaped(c, |c| c == ' ' || !c.is_whitespace())),
        }
    }
    out.push('\'');
    out
}

/// An ANTLR set `[...]`. Besides `]`, `\` and `-`, only letters, digits and printable ASCII are
/// written as they are: picireny reads ranges between word characters only, and decodes
/// `\uXXXX` escapes.
fn set_text(ranges: &[(char, char)]) -> String {
    let member = |c: char| -> String {
        if matches!(c, ']' | '\\' | '-') {
            return format!("\\u{:04X}", c as u32);
        }
        escaped(c, |c| {
            c.is_ascii_graphic() || c == ' ' || (!c.is_ascii() && c.is_alphanumeric())
        })
    };
    let mut out = String::from("[");
    for &(a, b) in ranges {
        out.push_str(&member(a));
        if a != b {
            out.push('-');
            out.push_str(&member(b));
        }
    }
    out.push(']');
    out
}

/// `c` as it is when `plain` says so, else as an ANTLR escape.
fn escaped(c: char, plain: impl Fn(char) -> bool) -> String {
    if plain(c) && !c.is_control() {
        c.to_string()
    } else if (c as u32) <= 0xFFFF {
        format!("\\u{:04X}", c as u32)
    } else {
        format!("\\u{{{:X}}}", c as u32)
    }
}

/// A Python string literal.
fn python_string(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c == ' ' || (!c.is_control() && !c.is_whitespace()) => out.push(c),
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
    }
    out.push('\'');
    out
}

/// Names ANTLR, its Python 3 and Java targets or their runtimes already use, which a rule must
/// not take: ANTLR's keywords, Python's keywords and the built-ins the Python target refuses,
/// Java's keywords, and the members of the generated lexers and parsers.
const RESERVED: &[&str] = &[
    // ANTLR
    "grammar",
    "lexer",
    "parser",
    "import",
    "fragment",
    "returns",
    "locals",
    "throws",
    "catch",
    "finally",
    "mode",
    "options",
    "tokens",
    "channels",
    "EOF",
    "HIDDEN",
    "DEFAULT_TOKEN_CHANNEL",
    "DEFAULT_MODE",
    "SKIP",
    "MORE",
    "MIN_CHAR_VALUE",
    "MAX_CHAR_VALUE",
    // Python
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "for",
    "from",
    "global",
    "if",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "abs",
    "all",
    "any",
    "apply",
    "bin",
    "bool",
    "buffer",
    "bytearray",
    "callable",
    "chr",
    "classmethod",
    "coerce",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "execfile",
    "file",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "intern",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "raw_input",
    "reduce",
    "reload",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "unichr",
    "unicode",
    "vars",
    "zip",
    "self",
    // Java
    "abstract",
    "boolean",
    "byte",
    "case",
    "char",
    "const",
    "default",
    "do",
    "double",
    "enum",
    "extends",
    "final",
    "goto",
    "implements",
    "instanceof",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "short",
    "static",
    "strictfp",
    "switch",
    "synchronized",
    "this",
    "throw",
    "transient",
    "void",
    "volatile",
    "true",
    "false",
    // members of generated recognizers
    "rule",
    "parserRule",
    "state",
    "match",
    "consume",
    "reset",
    "action",
    "sempred",
    "precpred",
    "enterRule",
    "exitRule",
    "enterOuterAlt",
    "getTokenStream",
    "atn",
    "literalNames",
    "symbolicNames",
    "ruleNames",
    "grammarFileName",
    "decisionsToDFA",
    "sharedContextCache",
    "modeNames",
    "channelNames",
    "nextToken",
    "emit",
    "text",
    "line",
    "column",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::CharClass;

    fn export(text: &str) -> String {
        let grammar = Grammar::from_text("t", text).unwrap_or_else(|e| panic!("{e}"));
        to_antlr(&grammar, "T")
            .unwrap_or_else(|e| panic!("{e}"))
            .text
    }

    fn rule_line<'a>(text: &'a str, name: &str) -> &'a str {
        text.lines()
            .find(|l| {
                l.starts_with(&format!("{name} :")) || l.starts_with(&format!("fragment {name} :"))
            })
            .unwrap_or_else(|| panic!("no rule {name} in\n{text}"))
    }

    #[test]
    fn a_pool_value_that_is_also_a_keyword_is_accepted_where_the_pool_is() {
        let text = export(r#"s = "def" ID "(" "a" ")" ; %pool ID = "a" | "b" | "c" ;"#);
        assert_eq!(rule_line(&text, "s"), "s : 'def' id_token '(' 'a' ')' ;");
        assert_eq!(rule_line(&text, "id_token"), "id_token : ID | 'a' ;");
        assert_eq!(rule_line(&text, "ID"), "ID : 'a' | 'b' | 'c' ;");
        assert!(
            text.starts_with("//") && text.contains("bonsai_start : s EOF ;"),
            "{text}"
        );
    }

    #[test]
    fn a_pool_of_keywords_only_is_the_keywords() {
        let text = export(r#"s = "let" "a" "=" ID ";" ; %pool ID = "a" ;"#);
        assert_eq!(rule_line(&text, "s"), "s : 'let' 'a' '=' id_token ';' ;");
        assert_eq!(rule_line(&text, "id_token"), "id_token : 'a' ;");
        assert!(!text.contains("ID :"), "{text}");
    }

    #[test]
    fn regex_pools_exclude_keywords_but_tokens_that_share_words_are_rivals() {
        let text = export(
            r#"s = ( KEY | STR | "if" )* ; %pool KEY = /"[a-z]+"/ ; STR = '"' /[a-z ]*/ '"' ;"#,
        );
        // KEY is used first, so the lexer tries it first, and takes STR's words `"ab"`.
        assert_eq!(rule_line(&text, "str_token"), "str_token : STR | KEY ;");
        assert_eq!(rule_line(&text, "KEY"), "KEY : '\"' [a-z]+ '\"' ;");
        assert!(!text.contains("key_token"), "{text}");
        // The keyword `if` is no KEY word, and pools never hold keywords.
        assert!(text.contains("s : ( KEY | str_token | 'if' )* ;"), "{text}");
    }

    #[test]
    fn lexical_rules_only_used_inside_tokens_are_fragments() {
        let text = export(r#"s = STR+ ; STR = '"' CH* '"' ; CH = [a-c] | "\\n" ;"#);
        assert_eq!(rule_line(&text, "STR"), "STR : '\"' CH* '\"' ;");
        assert_eq!(rule_line(&text, "CH"), "fragment CH : [a-c] | '\\\\n' ;");
    }

    #[test]
    fn indirect_left_recursion_is_inlined_into_direct_left_recursion() {
        let text = export(
            r#"primary = NAME | call | primary "[" NAME "]" ; call = primary "(" ")" | "f" "(" ")" ; %pool NAME = "x" ;"#,
        );
        assert_eq!(
            rule_line(&text, "primary"),
            "primary : NAME | primary '(' ')' | 'f' '(' ')' | primary '[' NAME ']' ;"
        );
        // `call` itself stays, starting with `primary`, which no longer starts with it.
        assert_eq!(
            rule_line(&text, "call"),
            "call : primary '(' ')' | 'f' '(' ')' ;"
        );
    }

    #[test]
    fn left_recursion_through_an_optional_prefix_is_refused() {
        let grammar =
            Grammar::from_text("t", r#"a = "x"? a "y" | "z" ;"#).unwrap_or_else(|e| panic!("{e}"));
        let error = to_antlr(&grammar, "T").unwrap_err();
        assert!(
            error.message.contains("left-recursive"),
            "{}",
            error.message
        );
    }

    #[test]
    fn counted_repetitions_are_spelled_out_and_empty_closures_and_tokens_rewritten() {
        let text = export(r#"s = "a"{2,4} ( "b"? )* N ; N = [0-9]* ;"#);
        assert_eq!(
            rule_line(&text, "s"),
            "s : 'a' 'a' ( 'a' 'a'? )? 'b'* N? ;",
            "{text}"
        );
        assert_eq!(rule_line(&text, "N"), "N : [0-9]+ ;");
    }

    #[test]
    fn comments_become_skipped_rules_and_come_back_on_import() {
        let text = export(r##"%layout auto; %comment "#"; %comment "/*" "*/"; s = "a" "b" ;"##);
        assert!(
            text.contains("COMMENT : '#' ~[\\r\\n]* -> skip ;"),
            "{text}"
        );
        assert!(
            text.contains("COMMENT_ : '/*' .*? '*/' -> skip ;"),
            "{text}"
        );
        let source = crate::diagnostic::SourceFile::new("G.g4", text);
        let back = crate::import::from_source(&source).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            back.grammar.layout.comments,
            vec![
                Comment::Line("#".into()),
                Comment::Block {
                    open: "/*".into(),
                    close: "*/".into()
                }
            ]
        );
    }

    #[test]
    fn layout_decides_what_is_skipped() {
        assert!(
            export(r#"%layout auto; s = "a" "b" ;"#)
                .contains("WS : [\\u0009\\u000A\\u000D ]+ -> skip ;")
        );
        assert!(!export(r#"%layout none; s = "a" "b" ;"#).contains("-> skip"));
        let sep = export(r#"%layout " | "; s = "a" "b" ;"#);
        assert!(sep.contains("SEPARATOR : '|' -> skip ;"), "{sep}");
        let lines = export(r#"s = ( "a" NEWLINE )+ ;"#);
        assert!(lines.contains("WS : [\\u0009 ]+ -> skip ;"), "{lines}");
        assert!(
            lines.contains("NEWLINE : ( '\\r'? '\\n' [\\u0009\\u000C ]* )+ ;"),
            "{lines}"
        );
        assert!(!lines.contains("Indentation"), "{lines}");
    }

    #[test]
    fn indentation_grammars_come_with_their_lexer_module() {
        let grammar = Grammar::from_text(
            "t",
            "%indent \"  \"; s = ( \"if\" \":\" NEWLINE INDENT s DEDENT | \"x\" NEWLINE )+ ;",
        )
        .unwrap();
        let exported = to_antlr(&grammar, "Tiny").unwrap();
        assert!(exported.text.contains("import TinyIndentation"));
        assert!(
            exported
                .text
                .contains("nextToken = TinyIndentation.next_token")
        );
        assert!(exported.text.contains("INDENT : '\\u000E' ;"));
        let (file, module) = exported.indentation.unwrap();
        assert_eq!(file, "TinyIndentation.py");
        assert!(module.contains("UNIT = '  '"), "{module}");
        assert!(!module.contains('@'), "placeholders left in\n{module}");
    }

    #[test]
    fn names_follow_antlr_conventions_and_avoid_target_words() {
        let text = export(r#"<start> = type x-y ; type = "int" ; x-y = "q" ;"#);
        assert!(text.contains("bonsai_start : start EOF ;"), "{text}");
        assert!(text.contains("start : type_ x_y ;"), "{text}");
        assert!(
            to_antlr(
                &Grammar::from_text("t", "s = \"a\" ;").unwrap(),
                "my-grammar"
            )
            .is_err()
        );
    }

    #[test]
    fn sets_escape_what_antlr_or_picireny_would_misread() {
        let class = CharClass::new(vec![(' ', '!'), ('-', '-'), (']', ']'), ('é', 'é')]);
        assert_eq!(set_text(class.ranges()), "[ -!\\u002D\\u005Dé]");
        assert_eq!(
            class_regex(class.ranges()),
            "[\\x{20}-\\x{21}\\x{2D}\\x{5D}\\x{E9}]"
        );
        assert_eq!(literal("it's\n\u{1}😀"), "'it\\'s\\n\\u0001😀'");
    }
}
