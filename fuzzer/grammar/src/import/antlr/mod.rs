//! ANTLR4 grammars (`.g4`): combined, `parser grammar` and `lexer grammar` files.
//!
//! How each part maps (grammars/README.md has the user's version):
//!
//! - Parser rules (lower-case) and lexer rules (upper-case) keep their names; ANTLR's case
//!   convention is the native one, so lexer rules render as single tokens. `fragment` rules
//!   are written out where they are used, unless they reach themselves. A rule named like a native layout token (`NEWLINE`,
//!   `INDENT`, `DEDENT`, `GLUE`) gets a trailing `_`.
//! - The start is the first parser rule that ends with `EOF` (the rule a whole file is read
//!   with, as grammars-v4's `file_input`), else the first parser rule. A lexer grammar alone
//!   generates token streams: a synthetic start rule `tokens = ( T1 | T2 | ... )*` over its
//!   non-fragment rules.
//! - A grammar that declares `INDENT` and `DEDENT` tokens without rules and has a `NEWLINE`
//!   rule (Python's grammars-v4 convention, where target code in the lexer emits them) reads
//!   its lines as Python does: in parser rules the three are the native layout tokens.
//! - Literals, `'a'..'z'` ranges, `[...]` sets and `~` negations become literals and classes;
//!   classes are narrowed to printable characters (`narrow`), and `.` in a lexer rule is
//!   printable ASCII. In a parser rule `.` means any token: a choice of every lexer token.
//!   `EOF` matches the end of the input and generates nothing; an alternative of a lexer rule
//!   with `EOF` is left out, as a native rule cannot end only at the end of the input.
//! - `?`, `*`, `+` and their non-greedy forms are the native operators.
//! - The identifier token, by its conventional name (`ID`, `IDENT`, `IDENTIFIER`, `NAME`),
//!   becomes a pool, so identifiers obey the bound m and never collide with a keyword.
//! - Rules sent to `skip` or to a hidden channel decide the layout (`separator`) and are left
//!   out, with anything only they use: whitespace defines the separator, comments are not
//!   generated.
//! - `-> type(T)` makes the rule another way to write token `T`. `more`, `pushMode`,
//!   `popMode` and `mode` sections are flattened: every mode's rules are one lexer, with a
//!   warning.
//! - `options { tokenVocab = L; }` in a parser grammar reads `L.g4` from the same directory,
//!   and `import G;` reads `G.g4`, so split grammars import as one.
//! - `caseInsensitive = true` (here or in the `tokenVocab` lexer): literals, ranges and sets
//!   match either case.
//! - Actions, predicates, labels, arguments, return values and element options are dropped
//!   (`parser`).

mod charset;
mod lexer;
mod parser;
mod syntax;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use self::charset::{hex, set_members};
use self::syntax::{Alternative, Command, Element, GrammarKind, GrammarSpec, Rule};
use super::Foreign;
use super::narrow::{Preference, parse_narrowed};
use super::regex_text::regex_text;
use super::separator::{implied_comments, implied_layout};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::grammar::LayoutToken;
use crate::grammar::syntax::{Expr, GrammarFile, PoolDef, PoolSource, RuleDef};

/// Any character: what `.` matches in a lexer rule (generation draws printable ASCII ones, see
/// `CharClass`).
const ANY_CHARACTER: &str = r"[\x{0}-\x{10FFFF}]";

/// A regex that matches no text.
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";

pub fn import(source: &SourceFile) -> Result<Foreign, Diagnostics> {
    let (mut spec, mut warnings) = parser::parse(source)?;
    merge_companions(
        source,
        &mut spec,
        &mut warnings,
        &mut vec![source.path.clone()],
    )?;
    let mut converter = Converter::new(source, &spec);
    converter.warnings = warnings;
    let file = converter.file();
    if !converter.errors.is_empty() {
        return Err(Diagnostics(converter.errors));
    }
    Ok(Foreign {
        name: spec.name.clone(),
        file,
        warnings: converter.warnings,
        unread_externals: Vec::new(),
    })
}

/// Grammar options the importer acts on (`tokenVocab`, `caseInsensitive`) or that only concern
/// ANTLR's generated code and do not change the language.
const UNDERSTOOD_OPTIONS: &[&str] = &[
    "tokenVocab",
    "caseInsensitive",
    "language",
    "superClass",
    "contextSuperClass",
    "accessLevel",
    "exportMacro",
];

/// The grammar files an ANTLR grammar reads besides itself, from its own directory: its
/// `tokenVocab` lexer and its `import`s, and theirs. What must travel with it when it is
/// copied (`cargo bonsai init --antlr Parser.g4` copies the lexer grammar too). A companion
/// that cannot be read is an error at the line that names it.
pub fn companion_files(source: &SourceFile) -> Result<Vec<std::path::PathBuf>, Diagnostics> {
    let mut found = Vec::new();
    collect_companions(source, &mut found)?;
    Ok(found)
}

fn collect_companions(
    source: &SourceFile,
    found: &mut Vec<std::path::PathBuf>,
) -> Result<(), Diagnostics> {
    let (spec, _) = parser::parse(source)?;
    for (path, span, how) in companions_of(source, &spec) {
        if found.contains(&path) {
            continue;
        }
        let companion = read_companion(source, &path, span, &how)?;
        found.push(path);
        collect_companions(&companion, found)?;
    }
    Ok(())
}

/// The files a grammar names (`import`s, then `tokenVocab`), each with where it names them
/// and how (`tokenVocab = XLexer`, `import G`), for the message when one is missing.
fn companions_of(
    source: &SourceFile,
    spec: &GrammarSpec,
) -> Vec<(std::path::PathBuf, Span, String)> {
    let mut names: Vec<(String, Span, String)> = (spec.imports.iter())
        .map(|(name, span)| (name.clone(), *span, format!("import {name}")))
        .collect();
    if let Some((vocab, span)) = spec.option("tokenVocab") {
        names.push((vocab.to_string(), span, format!("tokenVocab = {vocab}")));
    }
    let dir = source.path.parent().unwrap_or(Path::new(""));
    (names.into_iter())
        .map(|(name, span, how)| (dir.join(format!("{name}.g4")), span, how))
        .collect()
}

/// A companion grammar's text; unreadable, an error at the line of `source` that names it,
/// saying which option or import looked for which file (a parser grammar whose lexer grammar
/// was not copied beside it is the usual cause).
fn read_companion(
    source: &SourceFile,
    path: &Path,
    span: Span,
    how: &str,
) -> Result<SourceFile, Diagnostics> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let what = if how.starts_with("tokenVocab") {
            "the lexer grammar"
        } else {
            "the imported grammar"
        };
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        source.error(
            span,
            format!(
                "`{how}` names {what} {name}, looked for at {}: {e}; put {name} beside this grammar",
                path.display()
            ),
        )
    })?;
    Ok(SourceFile::new(path, text))
}

/// Reads the grammars a file depends on (`tokenVocab`, `import`) and adds their rules. Each
/// one is first imported on its own, so a fault inside it is reported in its own file; its
/// rules are then located at the line that names it.
fn merge_companions(
    source: &SourceFile,
    spec: &mut GrammarSpec,
    warnings: &mut Vec<Diagnostic>,
    seen: &mut Vec<std::path::PathBuf>,
) -> Result<(), Diagnostics> {
    for (path, span, how) in companions_of(source, spec) {
        if seen.contains(&path) {
            continue;
        }
        seen.push(path.clone());
        let companion_source = read_companion(source, &path, span, &how)?;
        let (mut companion, companion_warnings) = parser::parse(&companion_source)?;
        merge_companions(&companion_source, &mut companion, warnings, seen)?;
        // Check it alone first, so its own faults are located in its own file.
        let mut check = Converter::new(&companion_source, &companion);
        let file = check.file();
        if !check.errors.is_empty() {
            return Err(Diagnostics(check.errors));
        }
        crate::grammar::lower::lower(file, &companion_source, companion.name.clone())?;
        warnings.extend(companion_warnings);
        // A parser grammar's words are its lexer's: a case-insensitive lexer makes them so.
        if let Some((value, _)) = companion.option("caseInsensitive")
            && spec.option("caseInsensitive").is_none()
        {
            spec.options
                .push(("caseInsensitive".to_string(), value.to_string(), span));
        }
        let defined: HashSet<String> = spec.rules.iter().map(|r| r.name.clone()).collect();
        for mut rule in companion.rules {
            // Rules of the importing grammar override imported ones, as in ANTLR.
            if defined.contains(&rule.name) {
                continue;
            }
            relocate(&mut rule, span);
            spec.rules.push(rule);
        }
        for (token, _) in companion.tokens {
            spec.tokens.push((token, span));
        }
        if spec.first_mode.is_none() && companion.first_mode.is_some() {
            spec.first_mode = Some(span);
        }
    }
    Ok(())
}

fn relocate(rule: &mut Rule, span: Span) {
    fn element(e: &mut Element, span: Span) {
        match e {
            Element::Literal(_, s)
            | Element::Ref(_, s)
            | Element::Range(_, _, s)
            | Element::Set(_, s)
            | Element::Any(s) => *s = span,
            Element::Not(inner, s) | Element::Suffix(inner, _, s) => {
                *s = span;
                element(inner, span);
            }
            Element::Block(alts, s) => {
                *s = span;
                alternatives(alts, span);
            }
        }
    }
    fn alternatives(alts: &mut [Alternative], span: Span) {
        for alt in alts {
            alt.span = span;
            for c in &mut alt.commands {
                c.1 = span;
            }
            for e in &mut alt.elements {
                element(e, span);
            }
        }
    }
    rule.name_span = span;
    rule.span = span;
    alternatives(&mut rule.alternatives, span);
}

struct Converter<'a> {
    source: &'a SourceFile,
    spec: &'a GrammarSpec,
    by_name: HashMap<&'a str, &'a Rule>,
    /// Native name of every rule and declared token.
    names: HashMap<String, String>,
    /// Token type -> rules that produce it through `-> type(T)`.
    typed: HashMap<String, Vec<String>>,
    /// Fragments that are written out where they are used (see `inlined_fragments`).
    inlined: HashSet<String>,
    warnings: Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
    /// `NEWLINE`, `INDENT` and `DEDENT` are the layout tokens (see the module's notes).
    indented: bool,
    /// `options { caseInsensitive = true; }`: literals and sets match either case.
    case_insensitive: bool,
}

/// The token names of the indentation convention and the layout token each becomes.
const LAYOUT_TOKENS: [(&str, LayoutToken); 3] = [
    ("NEWLINE", LayoutToken::Newline),
    ("INDENT", LayoutToken::Indent),
    ("DEDENT", LayoutToken::Dedent),
];

impl<'a> Converter<'a> {
    fn new(source: &'a SourceFile, spec: &'a GrammarSpec) -> Self {
        let by_name = spec.rules.iter().map(|r| (r.name.as_str(), r)).collect();
        let mut typed: HashMap<String, Vec<String>> = HashMap::new();
        for rule in &spec.rules {
            for (command, _) in rule.commands() {
                if let Command::Type(t) = command
                    && !typed.get(t).is_some_and(|v| v.contains(&rule.name))
                {
                    typed.entry(t.clone()).or_default().push(rule.name.clone());
                }
            }
        }
        let mut converter = Self {
            source,
            spec,
            by_name,
            names: HashMap::new(),
            typed,
            inlined: HashSet::new(),
            warnings: Vec::new(),
            errors: Vec::new(),
            indented: false,
            case_insensitive: spec
                .option("caseInsensitive")
                .is_some_and(|(value, _)| value == "true"),
        };
        // INDENT and DEDENT as tokens without rules: target code emits them, as Python's
        // lexer base class does. A grammar whose rules spell them (Bonsai's own ANTLR export,
        // with marker characters) keeps its rules.
        let ruled = |name: &str| spec.rules.iter().any(|r| r.name == name);
        let bare = |name: &str| spec.tokens.iter().any(|(t, _)| t == name) && !ruled(name);
        converter.indented = bare("INDENT") && bare("DEDENT") && ruled("NEWLINE");
        converter.assign_names();
        converter.inlined = converter.inlined_fragments();
        converter
    }

    /// The fragments that do not reach themselves. A fragment is no token in ANTLR, only a
    /// piece of the rules that use it, so it is written out where it is used: as a rule of its
    /// own, each of its one-literal alternatives would be a whole token and so a keyword
    /// (grammars-v4 CSS's `fragment P : 'p' | 'P' | ...` made `p` no name, and `p { }` was
    /// refused). A recursive one (Lua's nested long strings) stays a rule.
    fn inlined_fragments(&self) -> HashSet<String> {
        let fragments = self
            .spec
            .rules
            .iter()
            .filter(|r| r.fragment && r.is_lexer());
        fragments
            .filter(|rule| {
                let mut direct = Vec::new();
                for alt in &rule.alternatives {
                    alt.elements
                        .iter()
                        .for_each(|e| element_refs(e, &mut direct));
                }
                !self.reachable(direct, &HashSet::new()).contains(&rule.name)
            })
            .map(|rule| rule.name.clone())
            .collect()
    }

    fn assign_names(&mut self) {
        let all: Vec<String> = self
            .spec
            .rules
            .iter()
            .map(|r| r.name.clone())
            .chain(self.spec.tokens.iter().map(|t| t.0.clone()))
            .collect();
        let mut taken: HashSet<String> = all.iter().cloned().collect();
        for name in all {
            let native = if LayoutToken::from_name(&name).is_some() {
                let mut candidate = format!("{name}_");
                while taken.contains(&candidate) {
                    candidate.push('_');
                }
                taken.insert(candidate.clone());
                candidate
            } else {
                name.clone()
            };
            self.names.insert(name, native);
        }
    }

    /// The layout token that `name` stands for under the indentation convention.
    fn layout_token(&self, name: &str) -> Option<LayoutToken> {
        if !self.indented {
            return None;
        }
        LAYOUT_TOKENS
            .iter()
            .find(|(token, _)| *token == name)
            .map(|&(_, layout)| layout)
    }

    fn native(&self, name: &str) -> String {
        self.names
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    fn warn(&mut self, span: Span, message: impl Into<String>) {
        self.warnings.push(self.source.warning(span, message));
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(self.source.error(span, message));
    }

    /// Lexer rules a parser sees as tokens: not fragments, not skipped.
    fn token_rules(&self) -> Vec<&'a Rule> {
        self.spec
            .rules
            .iter()
            .filter(|r| r.is_lexer() && !r.fragment && !r.is_skipped())
            .collect()
    }

    fn file(&mut self) -> GrammarFile {
        self.report_flattening();
        let mut file = GrammarFile::default();
        let synthetic_start =
            self.spec.kind == GrammarKind::Lexer || !self.spec.rules.iter().any(|r| !r.is_lexer());
        let start_name = if synthetic_start {
            let mut name = "tokens".to_string();
            while self.names.contains_key(&name) {
                name.push('_');
            }
            let alternatives: Vec<Expr> = self
                .token_rules()
                .iter()
                .map(|r| Expr::Name(self.native(&r.name), r.name_span))
                .collect();
            let span = Span::new(0, 0);
            let body = match alternatives.len() {
                0 => {
                    self.error(span, "the grammar has no token rules to generate");
                    return file;
                }
                1 => alternatives
                    .into_iter()
                    .next()
                    .unwrap_or(Expr::Seq(Vec::new(), span)),
                _ => Expr::Alt(alternatives, span),
            };
            file.rules.push(RuleDef {
                name: name.clone(),
                name_span: span,
                body: quantified(body, '*', span),
            });
            name
        } else {
            let ends_with_eof = |rule: &&Rule| {
                rule.alternatives.iter().any(|alt| {
                    matches!(alt.elements.last(), Some(Element::Ref(name, _)) if name == "EOF")
                })
            };
            let parser_rules = || self.spec.rules.iter().filter(|r| !r.is_lexer());
            let first = parser_rules()
                .find(ends_with_eof)
                .or_else(|| parser_rules().next());
            first.map_or_else(String::new, |r| r.name.clone())
        };
        let spec = self.spec;
        let pools: HashMap<String, PoolDef> = spec
            .rules
            .iter()
            .filter_map(|r| Some((r.name.clone(), self.identifier_pool(r)?)))
            .collect();
        let stop: HashSet<String> = pools.keys().cloned().collect();
        let from_start = if synthetic_start {
            let roots: Vec<String> = self.token_rules().iter().map(|r| r.name.clone()).collect();
            self.reachable(roots, &stop)
        } else {
            self.reachable([start_name.clone()], &stop)
        };
        let skipped: Vec<&Rule> = spec.rules.iter().filter(|r| r.is_skipped()).collect();
        let mut layout_patterns = Vec::new();
        for rule in &skipped {
            // A skipped rule behind a predicate (Lua's `SHEBANG : '#' {this.IsLine1Col0()}?
            // ...`) is skipped only where the target's code says; read everywhere, Lua's length
            // operator `#t` would be a comment. It is left out of the layout and comments.
            if let Some(span) = rule.alternatives.iter().find_map(|a| a.predicate) {
                self.warn(
                    span,
                    format!("'{}' is skipped only where its predicate allows, which the importer cannot tell: it is no comment or layout here", rule.name),
                );
                continue;
            }
            // Target code in a skipped rule (Lua's `COMMENT : '--' {this.HandleComment();}`)
            // may read further text, which is then part of the comment; the importer reads the
            // rule's own text only, so a seed's comments are refused where the code would read
            // them. Said once, so the reason for such refusals is known.
            if let Some(span) = rule.alternatives.iter().find_map(|a| a.action) {
                self.warn(
                    span,
                    format!("'{}' is skipped with target code that may read more text: only its own text is read as layout or comment, so what the code reads is refused", rule.name),
                );
            }
            if let Some(regex) = self.rule_regex(rule, &mut Vec::new())
                && let Ok(hir) = regex_syntax::parse(&regex)
            {
                layout_patterns.push(hir);
            }
        }
        let layout_span = skipped.first().map_or(Span::default(), |r| r.name_span);
        file.layout = Some(implied_layout(&layout_patterns, layout_span));
        file.comments = implied_comments(&layout_patterns);

        // Left out: what skipped rules and pooled tokens reach and no other rule needs.
        let from_dropped = self.reachable(
            skipped
                .iter()
                .map(|r| r.name.clone())
                .chain(stop.iter().cloned()),
            &HashSet::new(),
        );
        let candidates: HashSet<&String> = from_dropped
            .iter()
            .filter(|n| !from_start.contains(*n) && !stop.contains(*n))
            .collect();
        let needed = self.reachable(
            spec.rules
                .iter()
                .filter(|r| !candidates.contains(&r.name) && !stop.contains(&r.name))
                .map(|r| r.name.clone()),
            &stop,
        );
        let mut pools = pools;
        for rule in &spec.rules {
            if candidates.contains(&rule.name) && !needed.contains(&rule.name) {
                continue;
            }
            if let Some(pool) = pools.remove(&rule.name) {
                file.pools.push(pool);
                continue;
            }
            if self.inlined.contains(&rule.name) {
                continue;
            }
            if rule.commands().any(|(c, _)| *c == Command::More) {
                let span = rule.name_span;
                self.warn(
                    span,
                    format!(
                        "'more' is flattened: '{}' is generated as a token of its own",
                        rule.name
                    ),
                );
            }
            let mut body = self.alternatives(&rule.alternatives, rule.is_lexer());
            if let Some(extra) = self.typed.get(&rule.name) {
                body = self.with_typed(body, extra, rule.name_span);
            }
            file.rules.push(RuleDef {
                name: self.native(&rule.name),
                name_span: rule.name_span,
                body,
            });
        }
        // Declared tokens with no rule of their own.
        for (token, span) in &self.spec.tokens {
            if self.by_name.contains_key(token.as_str()) || self.layout_token(token).is_some() {
                continue;
            }
            let body = match self.typed.get(token) {
                Some(producers) => self.with_typed(Expr::Alt(Vec::new(), *span), producers, *span),
                None => {
                    self.warn(
                        *span,
                        format!("token '{token}' has no rule and no rule produces it with type({token}): it is never generated"),
                    );
                    Expr::Name(self.native(token), *span)
                }
            };
            file.rules.push(RuleDef {
                name: self.native(token),
                name_span: *span,
                body,
            });
        }
        if !synthetic_start {
            file.start = Some((self.native(&start_name), Span::default()));
        }
        let unknown: Vec<(String, Span)> = self
            .spec
            .options
            .iter()
            .filter(|(name, _, _)| !UNDERSTOOD_OPTIONS.contains(&name.as_str()))
            .map(|(name, _, span)| (name.clone(), *span))
            .collect();
        for (name, span) in unknown {
            self.warn(
                span,
                format!("grammar option '{name}' is not supported and is ignored"),
            );
        }
        file
    }

    /// The identifier token as a pool, so that identifiers obey the bound m and never
    /// collide with a keyword. ANTLR has no notion of "the identifier token", so the
    /// conventional names decide: `ID`, `IDENT`, `IDENTIFIER`, `NAME`, any case.
    fn identifier_pool(&self, rule: &Rule) -> Option<PoolDef> {
        let conventional = matches!(
            rule.name.to_ascii_uppercase().as_str(),
            "ID" | "IDENT" | "IDENTIFIER" | "NAME"
        );
        // A parser rule of that name (grammars-v4 Python's `name : NAME | '_' | 'match'`)
        // chooses among tokens: its literals would be lost in a pool.
        if !conventional
            || !rule.is_lexer()
            || rule.fragment
            || rule.is_skipped()
            || self.typed.contains_key(&rule.name)
        {
            return None;
        }
        let regex = self.rule_regex(rule, &mut Vec::new())?;
        let narrowed = parse_narrowed(&regex, Preference::Identifier).ok()?;
        Some(PoolDef {
            name: self.native(&rule.name),
            name_span: rule.name_span,
            source: PoolSource::Regex(regex_text(&narrowed.hir), rule.span),
        })
    }

    fn report_flattening(&mut self) {
        let mode_command = self
            .spec
            .rules
            .iter()
            .flat_map(Rule::commands)
            .find(|(c, _)| {
                matches!(
                    c,
                    Command::PushMode(_) | Command::PopMode | Command::Mode(_)
                )
            });
        if let Some(span) = self.spec.first_mode.or(mode_command.map(|c| c.1)) {
            self.warn(
                span,
                "lexer modes are flattened: the rules of every mode are generated as one lexer",
            );
        }
    }

    /// `body | R1 | R2` for the rules that produce this token through `type(T)`.
    fn with_typed(&self, body: Expr, producers: &[String], span: Span) -> Expr {
        let mut alts = match body {
            Expr::Alt(alts, _) => alts,
            other => vec![other],
        };
        alts.extend(producers.iter().map(|p| Expr::Name(self.native(p), span)));
        match alts.len() {
            1 => alts.remove(0),
            _ => Expr::Alt(alts, span),
        }
    }

    /// Rule names reachable from `roots`, not looking inside the rules in `stop`.
    fn reachable(
        &self,
        roots: impl IntoIterator<Item = String>,
        stop: &HashSet<String>,
    ) -> HashSet<String> {
        fn refs(e: &Element, out: &mut Vec<String>) {
            match e {
                Element::Ref(n, _) => out.push(n.clone()),
                Element::Not(inner, _) | Element::Suffix(inner, _, _) => refs(inner, out),
                Element::Block(alts, _) => {
                    for a in alts {
                        a.elements.iter().for_each(|e| refs(e, out));
                    }
                }
                _ => {}
            }
        }
        let mut seen = HashSet::new();
        let mut stack: Vec<String> = roots.into_iter().collect();
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) || stop.contains(&name) {
                continue;
            }
            if let Some(rule) = self.by_name.get(name.as_str()) {
                for alt in &rule.alternatives {
                    alt.elements.iter().for_each(|e| refs(e, &mut stack));
                    // `.` in a parser rule stands for every token.
                    if !rule.is_lexer() && alt.elements.iter().any(mentions_any) {
                        stack.extend(self.token_rules().iter().map(|r| r.name.clone()));
                    }
                }
            }
            if let Some(producers) = self.typed.get(&name) {
                stack.extend(producers.iter().cloned());
            }
        }
        seen
    }

    fn alternatives(&mut self, alts: &[Alternative], lexer: bool) -> Expr {
        // In a lexer rule, `EOF` matches only at the end of the input, which a native rule
        // cannot say; read as the empty text, grammars-v4 Go's `EOS : ([\r\n]+ | ';' | EOF)`
        // would end a statement anywhere without a line break. Such an alternative is left
        // out where the rule has others (a skipped rule's `('\n' | EOF)` still makes it a line
        // comment: comments are decided from `rule_regex`, where `EOF` is the end of text).
        let ends_input = |a: &&Alternative| {
            (a.elements.iter()).any(|e| matches!(e, Element::Ref(n, _) if n == "EOF"))
        };
        let kept: Vec<&Alternative> = if lexer && alts.iter().any(|a| !ends_input(&a)) {
            alts.iter().filter(|a| !ends_input(a)).collect()
        } else {
            alts.iter().collect()
        };
        let mut out: Vec<Expr> = kept.iter().map(|a| self.sequence(a, lexer)).collect();
        if out.len() == 1 {
            return out.remove(0);
        }
        let span = kept
            .iter()
            .map(|a| a.span)
            .reduce(Span::to)
            .unwrap_or_default();
        Expr::Alt(out, span)
    }

    fn sequence(&mut self, alt: &Alternative, lexer: bool) -> Expr {
        let mut items = Vec::with_capacity(alt.elements.len());
        for (k, e) in alt.elements.iter().enumerate() {
            // Punctuation literals side by side in a parser rule spell one operator that the
            // lexer leaves in pieces (Java's `'>' '>' '>'`, so that generics close with `>`).
            // ANTLR lets hidden text fall between them, which the languages do not: `x < < 1`
            // is no Java. They are glued, so a replay writes `<<` and a seed must too.
            if !lexer && k > 0 && is_punctuation(&alt.elements[k - 1]) && is_punctuation(e) {
                items.push(Expr::Name(LayoutToken::Glue.name().to_string(), e.span()));
            }
            items.push(self.element(e, lexer));
        }
        Expr::Seq(items, alt.span)
    }

    fn element(&mut self, element: &Element, lexer: bool) -> Expr {
        let span = element.span();
        match element {
            Element::Literal(text, _)
                if self.case_insensitive && text.chars().any(|c| c.is_ascii_alphabetic()) =>
            {
                // Written as the grammar spells it (so it stays a keyword that pools avoid),
                // or in any case.
                Expr::Alt(
                    vec![
                        Expr::Literal(text.clone(), span),
                        Expr::Regex(format!("(?i:{})", regex_syntax::escape(text)), span),
                    ],
                    span,
                )
            }
            Element::Literal(text, _) => Expr::Literal(text.clone(), span),
            Element::Ref(name, _) if name == "EOF" => Expr::Seq(Vec::new(), span),
            Element::Ref(name, _) if lexer && self.inlined.contains(name) => {
                let alternatives = self.by_name[name.as_str()].alternatives.clone();
                self.alternatives(&alternatives, lexer)
            }
            Element::Ref(name, _) => match self.layout_token(name).filter(|_| !lexer) {
                Some(token) => Expr::Name(token.name().to_string(), span),
                None => Expr::Name(self.native(name), span),
            },
            Element::Block(alts, _) => self.alternatives(alts, lexer),
            Element::Suffix(inner, op, _) => {
                let inner = self.element(inner, lexer);
                quantified(inner, *op, span)
            }
            Element::Any(_) if lexer => Expr::Regex(ANY_CHARACTER.to_string(), span),
            Element::Any(_) => {
                let tokens: Vec<Expr> = self
                    .token_rules()
                    .iter()
                    .map(|r| Expr::Name(self.native(&r.name), span))
                    .collect();
                if tokens.is_empty() {
                    self.error(
                        span,
                        "'.' in a parser rule means any token, but the grammar has no token rules",
                    );
                }
                Expr::Alt(tokens, span)
            }
            Element::Range(..) | Element::Set(..) => match self.members(element) {
                Some(members) => self.class(&format!("[{members}]"), span),
                None => Expr::Seq(Vec::new(), span),
            },
            Element::Not(inner, _) if !lexer => self.not_tokens(inner, span),
            Element::Not(inner, _) => match self.members(inner) {
                Some(members) => self.class(&format!("[^{members}]"), span),
                None => Expr::Seq(Vec::new(), span),
            },
        }
    }

    /// `~(A | B)` in a parser rule: every token but these. A literal there names the token
    /// whose rule is that literal alone (`~('(' | ')')`, as a literal in a parser rule of a
    /// split grammar does).
    fn not_tokens(&mut self, inner: &Element, span: Span) -> Expr {
        let mut excluded = Vec::new();
        let spelled = |rule: &Rule, text: &str| match rule.alternatives.as_slice() {
            [alt] => matches!(alt.elements.as_slice(), [Element::Literal(t, _)] if t == text),
            _ => false,
        };
        let mut collect = |e: &Element| match e {
            Element::Ref(n, _) => {
                excluded.push(n.clone());
                true
            }
            Element::Literal(text, _) => {
                let named: Vec<String> = (self.spec.rules.iter())
                    .filter(|r| r.is_lexer() && !r.fragment && spelled(r, text))
                    .map(|r| r.name.clone())
                    .collect();
                let found = !named.is_empty();
                excluded.extend(named);
                found
            }
            _ => false,
        };
        let ok = match inner {
            Element::Block(alts, _) => alts.iter().all(|a| match a.elements.as_slice() {
                [e] => collect(e),
                _ => false,
            }),
            e => collect(e),
        };
        if !ok {
            self.error(
                span,
                "'~' in a parser rule must negate tokens, such as ~(A | B) or ~('(' | ')') where a lexer rule is that literal",
            );
        }
        let tokens: Vec<Expr> = self
            .token_rules()
            .iter()
            .filter(|r| !excluded.contains(&r.name))
            .map(|r| Expr::Name(self.native(&r.name), span))
            .collect();
        Expr::Alt(tokens, span)
    }

    fn class(&mut self, class: &str, span: Span) -> Expr {
        let class = if self.case_insensitive {
            format!("(?i:{class})")
        } else {
            class.to_string()
        };
        match parse_narrowed(&class, Preference::Printable) {
            Ok(narrowed) => Expr::Regex(regex_text(&narrowed.hir), span),
            Err(fault) => {
                self.error(span, format!("invalid set: {}", fault.message));
                Expr::Seq(Vec::new(), span)
            }
        }
    }

    /// The members of a set-like element as the inside of a regex class; `None` after an
    /// error.
    fn members(&mut self, element: &Element) -> Option<String> {
        self.members_inner(element, &mut Vec::new())
    }

    fn members_inner(&mut self, element: &Element, visiting: &mut Vec<String>) -> Option<String> {
        let span = element.span();
        match element {
            Element::Literal(text, _) => {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some(hex(c)),
                    _ => {
                        self.error(
                            span,
                            "only single characters can be part of a set or be negated",
                        );
                        None
                    }
                }
            }
            Element::Range(a, b, _) => Some(format!("{}-{}", hex(*a), hex(*b))),
            Element::Set(raw, _) => match set_members(self.source, raw, span) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.errors.push(e);
                    None
                }
            },
            Element::Block(alts, _) => {
                let mut out = String::new();
                for alt in alts {
                    match alt.elements.as_slice() {
                        [e] => out.push_str(&self.members_inner(e, visiting)?),
                        _ => {
                            self.error(alt.span, "only single characters and sets can be negated");
                            return None;
                        }
                    }
                }
                Some(out)
            }
            Element::Ref(name, _) => {
                let rule = self.by_name.get(name.as_str()).copied();
                match rule {
                    Some(rule) if rule.is_lexer() && !visiting.contains(name) => {
                        visiting.push(name.clone());
                        let block = Element::Block(rule.alternatives.clone(), span);
                        let members = self.members_inner(&block, visiting);
                        visiting.pop();
                        members
                    }
                    _ => {
                        self.error(
                            span,
                            format!("'{name}' is not a set of characters and cannot be negated"),
                        );
                        None
                    }
                }
            }
            Element::Not(..) | Element::Any(_) | Element::Suffix(..) => {
                self.error(span, "only single characters and sets can be negated");
                None
            }
        }
    }

    /// A lexer rule as one regex, for deciding what a skipped rule matches; `None` when it is
    /// recursive or faulty (the layout then ignores it).
    fn rule_regex(&self, rule: &Rule, visiting: &mut Vec<String>) -> Option<String> {
        // A rule that nests itself (Rust's `/* /* */ */`) is read without its nesting: the
        // recursive reference matches nothing, which keeps the openers and closers that decide
        // a comment.
        if visiting.contains(&rule.name) {
            return Some(NOTHING.to_string());
        }
        visiting.push(rule.name.clone());
        let alts: Option<Vec<String>> = rule
            .alternatives
            .iter()
            .map(|a| self.alternative_regex(a, visiting))
            .collect();
        visiting.pop();
        Some(format!("(?:{})", alts?.join("|")))
    }

    fn alternative_regex(&self, alt: &Alternative, visiting: &mut Vec<String>) -> Option<String> {
        alt.elements
            .iter()
            .map(|e| self.element_regex(e, visiting))
            .collect()
    }

    fn element_regex(&self, element: &Element, visiting: &mut Vec<String>) -> Option<String> {
        Some(match element {
            Element::Literal(text, _) if self.case_insensitive => {
                format!("(?i:{})", regex_syntax::escape(text))
            }
            Element::Literal(text, _) => regex_syntax::escape(text),
            // A line comment ends at a line end or at the end of the file
            // (`'--' ~[\r\n]* ('\r'? '\n' | EOF)`): the end of the text, which comment
            // detection reads as an end like any other.
            Element::Ref(name, _) if name == "EOF" => r"\z".to_string(),
            Element::Ref(name, _) => {
                let rule = self.by_name.get(name.as_str())?;
                self.rule_regex(rule, visiting)?
            }
            Element::Range(a, b, _) if self.case_insensitive => {
                format!("(?i:[{}-{}])", hex(*a), hex(*b))
            }
            Element::Range(a, b, _) => format!("[{}-{}]", hex(*a), hex(*b)),
            Element::Set(raw, span) if self.case_insensitive => {
                format!("(?i:[{}])", set_members(self.source, raw, *span).ok()?)
            }
            Element::Set(raw, span) => format!("[{}]", set_members(self.source, raw, *span).ok()?),
            Element::Not(inner, span) => {
                let members = match &**inner {
                    Element::Set(raw, _) => set_members(self.source, raw, *span).ok()?,
                    Element::Literal(t, _) if t.chars().count() == 1 => hex(t.chars().next()?),
                    Element::Range(a, b, _) => format!("{}-{}", hex(*a), hex(*b)),
                    _ => return None,
                };
                format!("[^{members}]")
            }
            Element::Any(_) => "(?s:.)".to_string(),
            Element::Block(alts, _) => {
                let alts: Option<Vec<String>> = alts
                    .iter()
                    .map(|a| self.alternative_regex(a, visiting))
                    .collect();
                format!("(?:{})", alts?.join("|"))
            }
            Element::Suffix(inner, op, _) => {
                format!("(?:{}){op}", self.element_regex(inner, visiting)?)
            }
        })
    }
}

/// A literal of operator characters only (`'<'`, `'>='`): ASCII punctuation but brackets,
/// quotes, `,` and `;`, which sit side by side in rules as separate tokens (`')' '{'`).
fn is_punctuation(e: &Element) -> bool {
    const OPERATOR: &str = "!#$%&*+-./:<=>?@\\^|~";
    matches!(e, Element::Literal(text, _) if !text.is_empty() && text.chars().all(|c| OPERATOR.contains(c)))
}

/// The rules `e` names, inside blocks and operators too.
fn element_refs(e: &Element, out: &mut Vec<String>) {
    match e {
        Element::Ref(n, _) => out.push(n.clone()),
        Element::Not(inner, _) | Element::Suffix(inner, _, _) => element_refs(inner, out),
        Element::Block(alts, _) => {
            for a in alts {
                a.elements.iter().for_each(|e| element_refs(e, out));
            }
        }
        _ => {}
    }
}

fn mentions_any(e: &Element) -> bool {
    match e {
        Element::Any(_) => true,
        Element::Not(inner, _) | Element::Suffix(inner, _, _) => mentions_any(inner),
        Element::Block(alts, _) => alts.iter().any(|a| a.elements.iter().any(mentions_any)),
        _ => false,
    }
}

fn quantified(inner: Expr, op: char, span: Span) -> Expr {
    let (min, max, optional) = match op {
        '?' => (0, Some(1), true),
        '+' => (1, None, false),
        _ => (0, None, false),
    };
    Expr::Quantified {
        inner: Box::new(inner),
        min,
        max,
        optional,
        span,
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::SourceFile;
    use crate::parse::{ParseOptions, Parser};

    fn grammar(text: &str) -> crate::grammar::Grammar {
        crate::import::from_source(&SourceFile::new("t.g4", text))
            .unwrap_or_else(|e| panic!("{e}"))
            .grammar
    }

    fn reads(grammar: &crate::grammar::Grammar, text: &str) -> bool {
        Parser::new(grammar)
            .parse_with(text, ParseOptions::keeping_words())
            .is_ok()
    }

    #[test]
    fn a_numbered_channel_is_hidden_like_hidden() {
        let g = grammar(
            "grammar T;\ns : A+ EOF ;\nA : 'a' ;\nNL : [\\n] -> channel(2) ;\nWS : ' ' -> channel(HIDDEN) ;\n",
        );
        assert!(reads(&g, "a\na a\n"));
        assert!(
            !g.rules.iter().any(|r| r.name == "NL"),
            "NL is layout, not a token"
        );
    }

    #[test]
    fn a_negated_literal_in_a_parser_rule_is_every_other_token() {
        let g = grammar(
            "grammar T;\ns : '(' x* ')' EOF ;\nx : ~('(' | ')') ;\nL : '(' ;\nR : ')' ;\nA : 'a' ;\nB : 'b' ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "( a b a )"));
        assert!(!reads(&g, "( a ( )"));
    }

    #[test]
    fn eof_in_a_lexer_rule_is_no_empty_token() {
        let g = grammar(
            "grammar T;\ns : (A EOS)* EOF ;\nA : 'a' ;\nEOS : [\\n]+ | ';' | EOF ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "a\na;a\n"));
        assert!(!reads(&g, "a a\n"), "a statement needs its end");
    }

    #[test]
    fn an_alternative_that_is_only_a_predicate_is_left_out() {
        let g = grammar(
            "grammar T;\ns : (A eos)* EOF ;\neos : ';' | {this.closingBracket()}? ;\nA : 'a' ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "a; a;"));
        assert!(!reads(&g, "a a;"));
    }

    #[test]
    fn a_skipped_rule_behind_a_predicate_is_no_comment() {
        let g = grammar(
            "grammar T;\ns : ('#' A | A)* EOF ;\nA : 'a' ;\nSHEBANG : '#' {this.AtStart()}? ~[\\n]* -> channel(HIDDEN) ;\nWS : [ \\n] -> skip ;\n",
        );
        assert!(g.layout.comments.is_empty(), "{:?}", g.layout.comments);
        assert!(reads(&g, "#a a"));
    }

    #[test]
    fn a_skipped_rule_with_target_code_is_named_in_a_warning() {
        let imported = crate::import::from_source(&SourceFile::new(
            "t.g4",
            "grammar T;\ns : A+ EOF ;\nA : 'a' ;\nCOMMENT : '--' { this.HandleComment(); } -> channel(HIDDEN) ;\nWS : ' ' -> skip ;\n",
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let warning = (imported.warnings.iter())
            .find(|w| w.message.contains("target code that may read more text"))
            .expect("the skipped rule's code is named");
        assert!(warning.message.contains("'COMMENT'"), "{}", warning.message);
        assert_eq!(warning.location.as_ref().unwrap().line, 4);
        assert!(!reads(&imported.grammar, "a -- the code would read this"));
    }

    #[test]
    fn punctuation_literals_side_by_side_are_one_operator() {
        let g = grammar(
            "grammar T;\ns : e EOF ;\ne : A (('<' '<' | '>' '>') A)* ;\nA : 'a' ;\nLT : '<' ;\nGT : '>' ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "a << a >> a"));
        assert!(
            !reads(&g, "a < < a"),
            "no text between the pieces of an operator"
        );
    }

    #[test]
    fn a_fragments_letters_are_no_keywords() {
        let g = grammar(
            "grammar T;\ns : (ID | PAGE)+ EOF ;\nPAGE : '@' P A ;\nID : [a-z]+ ;\nfragment P : 'p' | 'P' ;\nfragment A : 'a' | 'A' ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "@Pa p a pa"), "p and a are names");
        assert!(
            !g.rules.iter().any(|r| r.name == "P"),
            "P is written out in PAGE"
        );
    }

    #[test]
    fn a_recursive_fragment_stays_a_rule() {
        let g = grammar(
            "grammar T;\ns : LONG+ EOF ;\nLONG : '[' NESTED ']' ;\nfragment NESTED : '=' NESTED '=' | '[' ~[\\]]* ']' ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "[[x]] [==[y]==]"));
        assert!(g.rules.iter().any(|r| r.name == "NESTED"));
    }

    #[test]
    fn a_surrogate_pair_reads_characters_beyond_the_bmp() {
        let g = grammar(
            "grammar T;\ns : ID+ EOF ;\nID : L+ ;\nfragment L : [a-z] | ~[\\u0000-\\u007F\\uD800-\\uDBFF] | [\\uD800-\\uDBFF] [\\uDC00-\\uDFFF] ;\nWS : ' ' -> skip ;\n",
        );
        assert!(reads(&g, "ab é 𝔸x"), "a BMP letter, and one beyond the BMP");
        assert!(!reads(&g, "a 1"));
    }

    #[test]
    fn a_set_of_surrogates_alone_is_refused_where_it_is_written() {
        let err = crate::import::from_source(&SourceFile::new(
            "t.g4",
            "grammar T;\ns : A EOF ;\nA : 'a' [\\uD800-\\uDBFF] ;\n",
        ))
        .err()
        .expect("a lone surrogate set is refused");
        let d = &err.0[0];
        assert!(d.message.contains("UTF-16 surrogates"), "{}", d.message);
        let at = d.location.as_ref().unwrap();
        assert_eq!((at.line, at.column), (3, 9));
    }
}
