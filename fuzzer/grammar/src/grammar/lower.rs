//! From the grammar file as written to the normalized [`Grammar`]: names resolved, groups and
//! regex terminals turned into group rules, terminals interned, pools enumerated.

use std::collections::{HashMap, HashSet};

use regex_syntax::hir::{Class, Hir, HirKind};

use super::pool::{POOL_CAPACITY, ascii_part, shortlex_words};
use super::regex;
use super::syntax::{Expr, GrammarFile, LayoutSetting, PoolDef, PoolSource};
use super::{
    Alternative, CharClass, DepthMeasure, Grammar, Layout, LayoutToken, Pool, PoolId, Rule, RuleId,
    RuleKind, Separator, Symbol, Terminal, TerminalId,
};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile, Span};

#[derive(Clone, Copy)]
enum Declared {
    Rule(RuleId),
    Pool(PoolId),
}

/// Collects every error instead of stopping at the first, so that one run of
/// `bonsai grammar check` lists all undefined names at once.
struct Builder<'a> {
    source: &'a SourceFile,
    /// Each name with where it was first defined.
    names: HashMap<String, (Declared, Span)>,
    rules: Vec<Rule>,
    terminals: Vec<Terminal>,
    terminal_ids: HashMap<Terminal, TerminalId>,
    errors: Vec<Diagnostic>,
}

/// Rules whose name starts with an upper-case letter are lexical, as in ANTLR.
pub fn is_lexical_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_uppercase())
}

pub(crate) fn lower(
    file: GrammarFile,
    source: &SourceFile,
    name: String,
) -> Result<Grammar, Diagnostics> {
    let mut b = Builder {
        source,
        names: HashMap::new(),
        rules: Vec::new(),
        terminals: Vec::new(),
        terminal_ids: HashMap::new(),
        errors: Vec::new(),
    };
    if file.rules.is_empty() {
        return Err(source
            .error(Span::new(0, 0), "the grammar defines no rules")
            .into());
    }
    b.declare(&file);
    for (i, def) in file.rules.iter().enumerate() {
        let owner = RuleId(i as u32);
        let lexical = b.rules[i].lexical;
        let alternatives = b.alternatives(&def.body, owner, lexical);
        b.rules[i].alternatives = alternatives;
    }
    let pools = b.pools(&file.pools, file.rules.len(), file.reserved.as_deref());
    let layout = b.layout(&file);
    let depth = b.depth(&file);
    let start = b.start(&file);
    if !b.errors.is_empty() {
        return Err(Diagnostics(b.errors));
    }
    let named_rules = file.rules.len();
    let grammar = Grammar {
        name,
        origin: Some(source.clone()),
        rules: b.rules,
        named_rules,
        terminals: b.terminals,
        pools,
        start,
        layout,
        depth,
        reserved: file.reserved,
    };
    // Here rather than in the analysis, so that no command can load a grammar that would
    // abort it on its first input, whether it checks the grammar first or not.
    super::size::check(&grammar)?;
    Ok(grammar)
}

impl Builder<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(self.source.error(span, message));
    }

    /// Names are declared in the order they appear in the file, so that a clash is reported
    /// at the second definition whether it is a rule or a pool.
    fn declare(&mut self, file: &GrammarFile) {
        let mut definitions: Vec<(&str, Span, Declared)> = Vec::new();
        for (i, def) in file.rules.iter().enumerate() {
            definitions.push((&def.name, def.name_span, Declared::Rule(RuleId(i as u32))));
            self.rules.push(Rule {
                name: def.name.clone(),
                kind: RuleKind::Named,
                lexical: is_lexical_name(&def.name),
                alternatives: Vec::new(),
                span: def.name_span.to(def.body.span()),
            });
        }
        for (i, def) in file.pools.iter().enumerate() {
            definitions.push((&def.name, def.name_span, Declared::Pool(PoolId(i as u32))));
        }
        definitions.sort_by_key(|(_, span, _)| span.start);
        for (name, span, declared) in definitions {
            self.declare_name(name, span, declared);
        }
    }

    fn declare_name(&mut self, name: &str, span: Span, declared: Declared) {
        if LayoutToken::from_name(name).is_some() {
            self.error(
                span,
                format!("'{name}' is a built-in layout token and cannot be redefined"),
            );
        } else if let Some(&(earlier, earlier_span)) = self.names.get(name) {
            let what = match earlier {
                Declared::Rule(_) => "a rule",
                Declared::Pool(_) => "a pool",
            };
            let (line, _) = self.source.line_col(earlier_span.start as usize);
            self.error(
                span,
                format!("'{name}' is already defined as {what} on line {line}"),
            );
        } else {
            self.names.insert(name.to_string(), (declared, span));
        }
    }

    /// The defined name a misspelt one most likely meant: the same name in another case, or
    /// at most one edit per three characters away; nearest first, ties broken alphabetically
    /// so that the hint is stable.
    fn closest_name(&self, name: &str) -> Option<String> {
        self.names
            .keys()
            .map(String::as_str)
            .chain(LayoutToken::ALL.map(LayoutToken::name))
            .map(|candidate| {
                let distance = if candidate.to_lowercase() == name.to_lowercase() {
                    0
                } else {
                    strsim::levenshtein(name, candidate)
                };
                (distance, candidate)
            })
            .filter(|&(distance, candidate)| {
                let length = name.chars().count().max(candidate.chars().count());
                distance <= length / 3
            })
            .min()
            .map(|(_, candidate)| candidate.to_string())
    }

    fn terminal(&mut self, terminal: Terminal) -> Symbol {
        let next = TerminalId(self.terminals.len() as u32);
        let id = *self.terminal_ids.entry(terminal.clone()).or_insert(next);
        if id == next {
            self.terminals.push(terminal);
        }
        Symbol::Terminal(id)
    }

    fn group(
        &mut self,
        owner: RuleId,
        lexical: bool,
        span: Span,
        alternatives: Vec<Alternative>,
    ) -> RuleId {
        let root = match self.rules[owner.index()].kind {
            RuleKind::Group { owner } => owner,
            RuleKind::Named => owner,
        };
        let id = RuleId(self.rules.len() as u32);
        let name = format!("{}#{}", self.rules[root.index()].name, id.0);
        self.rules.push(Rule {
            name,
            kind: RuleKind::Group { owner: root },
            lexical,
            alternatives,
            span,
        });
        id
    }

    fn alternatives(&mut self, expr: &Expr, owner: RuleId, lexical: bool) -> Vec<Alternative> {
        match expr {
            Expr::Alt(alts, _) => alts
                .iter()
                .map(|a| self.sequence(a, owner, lexical))
                .collect(),
            other => vec![self.sequence(other, owner, lexical)],
        }
    }

    fn sequence(&mut self, expr: &Expr, owner: RuleId, lexical: bool) -> Alternative {
        let mut symbols = Vec::new();
        self.symbols(expr, owner, lexical, &mut symbols);
        Alternative {
            symbols,
            span: expr.span(),
        }
    }

    fn symbols(&mut self, expr: &Expr, owner: RuleId, lexical: bool, out: &mut Vec<Symbol>) {
        match expr {
            Expr::Seq(items, _) => {
                for item in items {
                    self.symbols(item, owner, lexical, out);
                }
            }
            Expr::Alt(_, span) => {
                let alternatives = self.alternatives(expr, owner, lexical);
                out.push(Symbol::Rule(self.group(
                    owner,
                    lexical,
                    *span,
                    alternatives,
                )));
            }
            Expr::Literal(text, _) => {
                if !text.is_empty() {
                    out.push(self.terminal(Terminal::Literal(text.clone())));
                }
            }
            Expr::Name(name, span) => {
                if let Some(token) = LayoutToken::from_name(name) {
                    out.push(self.terminal(Terminal::Layout(token)));
                    return;
                }
                match self.names.get(name).map(|&(declared, _)| declared) {
                    Some(Declared::Rule(id)) => out.push(Symbol::Rule(id)),
                    Some(Declared::Pool(id)) => out.push(self.terminal(Terminal::Pool(id))),
                    None => {
                        let hint = self
                            .closest_name(name)
                            .map(|near| format!("; did you mean '{near}'?"))
                            .unwrap_or_default();
                        self.error(*span, format!("undefined symbol '{name}'{hint}"));
                    }
                }
            }
            Expr::Regex(pattern, span) | Expr::Class(pattern, span) => {
                let Some(hir) = self.parse_regex(pattern, *span) else {
                    return;
                };
                let mut pieces = Vec::new();
                self.hir(&hir, owner, *span, &mut pieces);
                // Outside a lexical rule, a regex of several pieces is wrapped in a lexical
                // group so that it still renders as one token.
                if lexical || matches!(pieces.as_slice(), [] | [Symbol::Terminal(_)]) {
                    out.extend(pieces);
                } else {
                    let alternative = Alternative {
                        symbols: pieces,
                        span: *span,
                    };
                    out.push(Symbol::Rule(self.group(
                        owner,
                        true,
                        *span,
                        vec![alternative],
                    )));
                }
            }
            Expr::Quantified {
                inner,
                min,
                max,
                optional,
                span: _,
            } => {
                if *max == Some(0) {
                    return;
                }
                let body = self.body(inner, owner, lexical);
                out.push(if *optional {
                    Symbol::Optional(body)
                } else {
                    Symbol::Repeat {
                        body,
                        min: *min,
                        max: *max,
                    }
                });
            }
        }
    }

    /// The operand of `?`, `*` or `+` as a rule: a named rule is used directly, anything else
    /// becomes a group.
    fn body(&mut self, inner: &Expr, owner: RuleId, lexical: bool) -> RuleId {
        if let Expr::Name(name, _) = inner
            && let Some(&(Declared::Rule(id), _)) = self.names.get(name)
        {
            return id;
        }
        let alternatives = self.alternatives(inner, owner, lexical);
        self.group(owner, lexical, inner.span(), alternatives)
    }

    /// `span` covers the pattern exactly, so regex-syntax's offsets map onto the file.
    fn parse_regex(&mut self, pattern: &str, span: Span) -> Option<Hir> {
        match regex::parse(pattern) {
            Ok(hir) => Some(hir),
            Err(err) => {
                // Offsets map onto the file only where the pattern is written there verbatim;
                // an imported pattern (escaped in JSON, translated from another dialect) is
                // located at its start.
                let verbatim = (span.end - span.start) as usize == pattern.len();
                let at = span.start as usize + if verbatim { err.offset } else { 0 };
                self.error(Span::new(at, at + 1), err.message);
                None
            }
        }
    }

    /// A regex becomes lexical group rules, so that its pieces are ordinary choices: an
    /// alternation is an alternative, a repetition is bounded by n like any other.
    fn hir(&mut self, hir: &Hir, owner: RuleId, span: Span, out: &mut Vec<Symbol>) {
        match hir.kind() {
            HirKind::Empty => {}
            HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
                Ok(text) => out.push(self.terminal(Terminal::Literal(text.to_string()))),
                Err(_) => self.error(span, "regex literal is not valid UTF-8"),
            },
            HirKind::Class(Class::Unicode(class)) => {
                let ranges: Vec<(char, char)> =
                    class.iter().map(|r| (r.start(), r.end())).collect();
                match ranges.as_slice() {
                    [] => self.error(span, "character class matches no character"),
                    [(a, b)] if a == b => out.push(self.terminal(Terminal::Literal(a.to_string()))),
                    _ => out.push(self.terminal(Terminal::Class(CharClass::new(ranges)))),
                }
            }
            // regex-syntax spells "matches nothing" as an empty byte class, and an ASCII-only
            // class under `(?-u)` as a byte class; anything else was refused as non-UTF-8.
            HirKind::Class(Class::Bytes(class)) => {
                let ranges: Vec<(char, char)> = class
                    .iter()
                    .map(|r| (char::from(r.start()), char::from(r.end())))
                    .collect();
                match ranges.as_slice() {
                    [] => self.error(span, "character class matches no character"),
                    [(a, b)] if a == b => out.push(self.terminal(Terminal::Literal(a.to_string()))),
                    _ => out.push(self.terminal(Terminal::Class(CharClass::new(ranges)))),
                }
            }
            // `regex::parse` refuses assertions with their position; this is a backstop.
            HirKind::Look(_) => self.error(span, "anchors and word boundaries are not supported"),
            HirKind::Capture(capture) => self.hir(&capture.sub, owner, span, out),
            HirKind::Concat(parts) => {
                for part in parts {
                    self.hir(part, owner, span, out);
                }
            }
            HirKind::Alternation(alts) => {
                let alternatives = alts
                    .iter()
                    .map(|a| {
                        let mut symbols = Vec::new();
                        self.hir(a, owner, span, &mut symbols);
                        Alternative { symbols, span }
                    })
                    .collect();
                out.push(Symbol::Rule(self.group(owner, true, span, alternatives)));
            }
            HirKind::Repetition(rep) => {
                if rep.max == Some(0) {
                    return;
                }
                let mut symbols = Vec::new();
                self.hir(&rep.sub, owner, span, &mut symbols);
                let body = match symbols.as_slice() {
                    [Symbol::Rule(id)] if !self.rules[id.index()].is_named() => *id,
                    _ => self.group(owner, true, span, vec![Alternative { symbols, span }]),
                };
                out.push(if rep.min == 0 && rep.max == Some(1) {
                    Symbol::Optional(body)
                } else {
                    Symbol::Repeat {
                        body,
                        min: rep.min,
                        max: rep.max,
                    }
                });
            }
        }
    }

    fn pools(
        &mut self,
        defs: &[PoolDef],
        named_rules: usize,
        reserved: Option<&[String]>,
    ) -> Vec<Pool> {
        let keywords: HashSet<String> = super::keywords::reserved(
            super::keywords::keywords(&self.rules, named_rules, &self.terminals),
            reserved,
        )
        .into_iter()
        .map(str::to_string)
        .collect();
        defs.iter()
            .map(|def| {
                let (values, pattern) = match &def.source {
                    PoolSource::Regex(pattern, span) => (
                        self.regex_pool(&def.name, def.name_span, pattern, *span, &keywords),
                        Some(pattern.clone()),
                    ),
                    PoolSource::Values(values) => (self.listed_pool(values), None),
                };
                Pool {
                    name: def.name.clone(),
                    values,
                    pattern,
                    span: def.name_span,
                }
            })
            .collect()
    }

    fn regex_pool(
        &mut self,
        name: &str,
        name_span: Span,
        pattern: &str,
        span: Span,
        keywords: &HashSet<String>,
    ) -> Vec<String> {
        let Some(hir) = self.parse_regex(pattern, span) else {
            return Vec::new();
        };
        // The empty word can never be a token; excluding it up front keeps the pool full.
        let mut exclude = keywords.clone();
        exclude.insert(String::new());
        let mut values = shortlex_words(&ascii_part(&hir), POOL_CAPACITY, &exclude);
        if values.is_empty() {
            values = shortlex_words(&hir, POOL_CAPACITY, &exclude);
        }
        if values.is_empty() {
            let why = if shortlex_words(&hir, 2, &HashSet::new())
                .iter()
                .any(|v| !v.is_empty())
            {
                "every word its regex matches is a literal of the grammar"
            } else {
                "its regex matches only the empty word"
            };
            self.error(name_span, format!("pool '{name}' has no values: {why}"));
        }
        values
    }

    fn listed_pool(&mut self, values: &[(String, Span)]) -> Vec<String> {
        let mut seen = HashSet::new();
        for (value, span) in values {
            if value.is_empty() {
                self.error(*span, "pool values must not be empty");
            } else if !seen.insert(value.as_str()) {
                self.error(*span, format!("pool value {value:?} is listed twice"));
            }
        }
        values.iter().map(|(v, _)| v.clone()).collect()
    }

    fn layout(&mut self, file: &GrammarFile) -> Layout {
        let mut layout = Layout::default();
        match &file.layout {
            None => {}
            Some(LayoutSetting::Text(text)) => layout.separator = Separator::Text(text.clone()),
            Some(LayoutSetting::Named(name, span)) => {
                layout.separator = match name.as_str() {
                    "auto" => Separator::Auto,
                    "space" => Separator::Text(" ".into()),
                    "none" => Separator::Text(String::new()),
                    "newline" => Separator::Text("\n".into()),
                    other => {
                        self.error(
                            *span,
                            format!("unknown layout '{other}'; expected auto, space, none, newline or a quoted separator"),
                        );
                        Separator::Auto
                    }
                }
            }
        }
        layout.comments = file.comments.clone();
        if let Some(indent) = &file.indent {
            layout.indent = indent.clone();
        }
        layout
    }

    fn depth(&mut self, file: &GrammarFile) -> DepthMeasure {
        let Some((name, span)) = &file.depth else {
            return DepthMeasure::default();
        };
        DepthMeasure::parse(name).unwrap_or_else(|| {
            self.error(
                *span,
                format!("unknown depth measure '{name}'; expected rule or cycle"),
            );
            DepthMeasure::default()
        })
    }

    fn start(&mut self, file: &GrammarFile) -> RuleId {
        match &file.start {
            None => RuleId(0),
            Some((name, span)) => match self.names.get(name).map(|(declared, _)| declared) {
                Some(Declared::Rule(id)) => *id,
                Some(Declared::Pool(_)) => {
                    self.error(
                        *span,
                        format!("the start symbol '{name}' is a pool, not a rule"),
                    );
                    RuleId(0)
                }
                None => {
                    self.error(*span, format!("the start rule '{name}' is not defined"));
                    RuleId(0)
                }
            },
        }
    }
}
