//! tree-sitter grammars, from the `src/grammar.json` every tree-sitter grammar crate ships.
//!
//! How each part maps (grammars/README.md has the user's version):
//!
//! - Rules keep their names; the first rule is the start. `_hidden` rules are ordinary rules.
//!   A rule name that would read as lexical or as a layout token natively (upper-case first
//!   letter) gets a leading `_`.
//! - `SEQ`, `CHOICE`, `REPEAT`, `REPEAT1`, `STRING`, `BLANK` are the native sequence,
//!   alternation, `*`, `+`, literal and empty; a `CHOICE` with a `BLANK` member is `?`.
//! - `PATTERN` is a regex terminal, translated from JavaScript (`js_regex`) and narrowed to
//!   printable characters (`narrow`).
//! - `TOKEN` turns its whole content into one regex terminal, so it renders as one token;
//!   `IMMEDIATE_TOKEN` does the same behind `GLUE`, since tree-sitter forbids whitespace there.
//!   A token that takes the rest of its line (`/#!.*/`) is followed by `NEWLINE`.
//! - `FIELD`, `PREC`, `PREC_LEFT`, `PREC_RIGHT`, `PREC_DYNAMIC` and `RESERVED` only shape the
//!   parse tree or steer disambiguation; their content is used as is.
//! - `ALIAS` renames a node but not its text, so its content is generated, except for an
//!   external token aliased to an anonymous string (see `external`).
//! - The `word` rule (the identifier token used for keyword extraction) becomes a pool, so
//!   identifiers obey the bound m and never collide with a keyword.
//! - `extras` decide the layout (`separator`) and are never generated: comments do not belong
//!   in a regression corpus, and rules only extras use are left out of the import.
//! - `externals` follow `external`. A `repeat` right before a dedent becomes `repeat1`:
//!   the scanner never emits an indented block without a line in it.
//! - `reserved`'s global set becomes `%reserved`: with a `word` rule, tree-sitter reads any
//!   other keyword as a keyword only where the grammar expects it (Python's `match`, `type`
//!   and `_` are names elsewhere), so only reserved words are kept out of identifiers. Without
//!   a global set every keyword is reserved, as before tree-sitter had the notion.
//! - `inline`, `supertypes`, `conflicts` and `precedences` shape the parse tree or the
//!   parser's decisions, not the language, and are ignored.

mod declared;
mod external;

pub use declared::path_for as declaration_path;

use std::collections::{HashMap, HashSet};

use jsonc_parser::ast::{Object, StringLit, Value};
use regex_syntax::hir::{Class, Hir, HirKind};

use self::external::{External, Quote, StringRole, delimiter_role};
use super::Foreign;
use super::js_regex;
use super::json_text::{self, expect_object, expect_string, offset_in_string, required, span_of};
use super::narrow::{Preference, parse_narrowed};
use super::regex_text::regex_text;
use super::separator::{implied_comments, implied_layout};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::grammar::syntax::{Expr, GrammarFile, LayoutSetting, PoolDef, PoolSource, RuleDef};
use crate::grammar::{Comment, LayoutToken, is_lexical_name};

pub fn import(source: &SourceFile, root: &Value) -> Result<Foreign, Diagnostics> {
    let top = expect_object(source, root, "a tree-sitter grammar")?;
    let name = expect_string(
        source,
        required(source, top, "name", "the grammar")?,
        "the grammar's name",
    )?
    .value
    .to_string();
    let rules_value = required(source, top, "rules", "the grammar")?;
    let rules = expect_object(source, rules_value, "the grammar's rules")?;
    if rules.properties.is_empty() {
        return Err(source
            .error(span_of(rules_value), "the grammar defines no rules")
            .into());
    }
    let mut importer = Importer::new(source, rules);
    importer.read_externals(top)?;
    importer.read_word(top)?;
    let file = importer.grammar_file(top);
    if !importer.errors.is_empty() {
        return Err(Diagnostics(importer.errors));
    }
    Ok(Foreign {
        name,
        file,
        warnings: importer.warnings,
        unread_externals: importer.unread_externals,
    })
}

struct Importer<'v, 'a> {
    source: &'v SourceFile,
    rules: &'v Object<'a>,
    /// Native name of every rule and external.
    names: HashMap<String, String>,
    /// Externals that no rule defines.
    externals: HashMap<String, External>,
    /// Externals referenced so far, in order of first use, for their fallback rules.
    used_externals: Vec<(String, Span)>,
    /// The texts the grammar gives closing externals through an alias (`_block_string_end`
    /// as `]]`), by the part of their name before the role (`_block_string`): what the
    /// content external of the same stem runs up to (see `fallback_rules`).
    closers: HashMap<String, String>,
    /// The `word` rule, when it became a pool.
    word_pool: Option<String>,
    warnings: Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
    /// Comments found among the `extras`.
    comments: Vec<Comment>,
    /// The quote style of the paired string being imported, if any (see `external`).
    style: Option<Quote>,
    /// The closing quote of the quoted run being imported, if any (see `is_quoted_run`): a
    /// content external inside it is one character that is neither that quote nor a
    /// backslash.
    run_quote: Option<char>,
    /// The words of the global `reserved` set that a named reserved context (tree-sitter's
    /// `reserved('properties', ...)`) does not reserve, per context.
    unreserved_in: HashMap<String, Vec<String>>,
    /// Rules that derive a string's content token other than through a nested string: their
    /// bodies are read in line with the string's middle, where the content token is one
    /// character of the string's quote style.
    reaches_content: HashSet<String>,
    /// Rules of `reaches_content` that only strings use: not imported as rules of their own.
    inlined: HashSet<String>,
    /// The lexical rules of paired strings' quote styles.
    string_rules: Vec<RuleDef>,
    /// The user's bodies for externals (see `declared`), which win over every built-in
    /// reading.
    declared: HashMap<String, Expr>,
    /// Externals used with neither a built-in reading nor a declared one.
    unread_externals: Vec<String>,
    /// The text of string-closing externals that close a run opened by a literal quote: the
    /// same quote (see `is_quoted_run`).
    end_texts: HashMap<String, String>,
}

/// The `type` of a node and the node as an object.
fn node<'v, 'a>(
    source: &SourceFile,
    value: &'v Value<'a>,
) -> Result<(&'v str, &'v Object<'a>), Diagnostic> {
    let object = expect_object(source, value, "a rule node")?;
    let kind = expect_string(
        source,
        required(source, object, "type", "a rule node")?,
        "a node type",
    )?;
    Ok((kind.value.as_ref(), object))
}

impl<'v, 'a> Importer<'v, 'a> {
    fn new(source: &'v SourceFile, rules: &'v Object<'a>) -> Self {
        Self {
            source,
            rules,
            names: HashMap::new(),
            externals: HashMap::new(),
            used_externals: Vec::new(),
            closers: HashMap::new(),
            word_pool: None,
            warnings: Vec::new(),
            errors: Vec::new(),
            comments: Vec::new(),
            style: None,
            run_quote: None,
            unreserved_in: HashMap::new(),
            reaches_content: HashSet::new(),
            inlined: HashSet::new(),
            string_rules: Vec::new(),
            declared: HashMap::new(),
            unread_externals: Vec::new(),
            end_texts: HashMap::new(),
        }
    }

    fn rule_body(&self, name: &str) -> Option<&'v Value<'a>> {
        self.rules.get(name).map(|p| &p.value)
    }

    fn read_externals(&mut self, top: &'v Object<'a>) -> Result<(), Diagnostic> {
        let Some(externals) = top.get("externals") else {
            return Ok(());
        };
        let list = externals.value.as_array().ok_or_else(|| {
            self.source.error(
                span_of(&externals.value),
                format!(
                    "expected the externals (an array), found {}",
                    json_text::describe(&externals.value)
                ),
            )
        })?;
        for item in &list.elements {
            let (kind, object) = node(self.source, item)?;
            // A STRING external only lets the scanner see that token first; the grammar uses
            // it as an ordinary literal.
            if kind == "SYMBOL" {
                let name = expect_string(
                    self.source,
                    required(self.source, object, "name", "an external")?,
                    "a name",
                )?;
                if self.rule_body(&name.value).is_none() {
                    self.externals
                        .insert(name.value.to_string(), External::classify(&name.value));
                }
            }
        }
        Ok(())
    }

    fn read_word(&mut self, top: &'v Object<'a>) -> Result<(), Diagnostic> {
        let Some(word) = top.get("word") else {
            return Ok(());
        };
        let word = expect_string(self.source, &word.value, "the word rule's name")?;
        if self.rule_body(&word.value).is_some() {
            self.word_pool = Some(word.value.to_string());
        }
        Ok(())
    }

    /// Native names: tree-sitter names are identifiers already, but one starting with an
    /// upper-case letter would be lexical natively, and `NEWLINE` etc. are layout tokens.
    fn assign_names(&mut self) {
        let mut taken: HashSet<String> = HashSet::new();
        let all: Vec<String> = self
            .rules
            .properties
            .iter()
            .map(|p| p.name.as_str().to_string())
            .chain(self.externals.keys().cloned())
            .collect();
        taken.extend(all.iter().cloned());
        for name in all {
            let clash = is_lexical_name(&name) || LayoutToken::from_name(&name).is_some();
            let native = if clash {
                let mut candidate = format!("_{name}");
                while taken.contains(&candidate) {
                    candidate.insert(0, '_');
                }
                taken.insert(candidate.clone());
                candidate
            } else {
                name.clone()
            };
            self.names.insert(name, native);
        }
    }

    fn native(&self, name: &str) -> String {
        self.names
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    fn grammar_file(&mut self, top: &'v Object<'a>) -> GrammarFile {
        self.assign_names();
        self.read_declaration();
        self.find_content_rules();
        self.read_reserved_contexts(top);
        let start = self.rules.properties[0].name.as_str().to_string();
        let extras = top.get("extras").map(|p| &p.value);
        let from_start = self.reachable([start.clone()]);
        let from_extras = match extras.and_then(Value::as_array) {
            Some(list) => {
                let mut names = Vec::new();
                for item in &list.elements {
                    collect_symbols(item, &mut names);
                }
                self.reachable(names)
            }
            None => HashSet::new(),
        };
        // Left out: what extras reach and no other rule needs.
        let candidates: HashSet<&str> = from_extras
            .iter()
            .filter(|n| !from_start.contains(*n))
            .map(String::as_str)
            .collect();
        let needed = self.reachable(
            self.rules
                .properties
                .iter()
                .map(|p| p.name.as_str())
                .filter(|n| !candidates.contains(n))
                .map(str::to_string),
        );
        let mut left_out: Vec<&str> = Vec::new();
        let mut file = GrammarFile::default();
        let properties = &self.rules.properties;
        for property in properties {
            let name = property.name.as_str();
            if candidates.contains(name) && !needed.contains(name) {
                left_out.push(name);
                continue;
            }
            if self.inlined.contains(name) {
                continue;
            }
            let name_span = span_of(&property.name);
            if self.word_pool.as_deref() == Some(name) {
                if let Some(pool) = self.word(name, name_span, &property.value) {
                    file.pools.push(pool);
                    continue;
                }
                self.word_pool = None;
            }
            let Some(body) = self.expr(&property.value) else {
                continue;
            };
            file.rules.push(RuleDef {
                name: self.native(name),
                name_span,
                body,
            });
        }
        if !left_out.is_empty() {
            self.warnings.push(self.source.warning(
                extras.map_or(Span::default(), span_of),
                format!(
                    "left out {} rule(s) that only extras use ({}): comments and other extras are not generated",
                    left_out.len(),
                    left_out.join(", ")
                ),
            ));
        }
        file.rules.append(&mut self.string_rules);
        // Tree-sitter takes a keyword (with a `word` token or without) only where the parse
        // state expects it; only the words of its global `reserved` set are keywords
        // everywhere. A grammar without that set reserves nothing: tree-sitter-starlark's
        // `asserts.eq(...)` and `x.type` are names, though `assert.eq` and `type X = Y` are
        // its syntax.
        file.reserved = Some(self.reserved_words(top).unwrap_or_default());
        self.fallback_rules(&mut file);
        file.layout = Some(self.layout(extras));
        file.comments = std::mem::take(&mut self.comments);
        file
    }

    /// The user's declaration of externals beside the grammar file, when there is one.
    fn read_declaration(&mut self) {
        let path = declared::path_for(&self.source.path);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let source = SourceFile::new(path, text);
        let externals: HashSet<String> = self.externals.keys().cloned().collect();
        let known: HashSet<String> = self.names.values().cloned().collect();
        match declared::read(&source, &externals, &known) {
            Ok(declared) => self.declared = declared,
            Err(errors) => self.errors.extend(errors.0),
        }
    }

    /// Rule names reachable from `roots` through SYMBOL references.
    fn reachable(&self, roots: impl IntoIterator<Item = String>) -> HashSet<String> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack: Vec<String> = roots.into_iter().collect();
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(body) = self.rule_body(&name) {
                collect_symbols(body, &mut stack);
            }
        }
        seen
    }

    /// The `word` rule as a pool of identifiers, when its body is a token.
    fn word(&mut self, name: &str, span: Span, body: &'v Value<'a>) -> Option<PoolDef> {
        let regex = self.token_regex(body)?;
        match parse_narrowed(&regex, Preference::Word) {
            Ok(narrowed) => Some(PoolDef {
                name: self.native(name),
                name_span: span,
                source: PoolSource::Regex(regex_text(&narrowed.hir), span_of(body)),
            }),
            Err(fault) => {
                self.error(span_of(body), format!("invalid regex: {}", fault.message));
                None
            }
        }
    }

    /// For each named set of `reserved` other than the global one, the global words it leaves
    /// out.
    fn read_reserved_contexts(&mut self, top: &'v Object<'a>) {
        let Some(sets) = top.get("reserved").and_then(|s| s.value.as_object()) else {
            return;
        };
        let words = |this: &Self, value: &'v Value<'a>| -> Vec<String> {
            value.as_array().map_or_else(Vec::new, |list| {
                list.elements
                    .iter()
                    .filter_map(|word| this.plain_string(word))
                    .collect()
            })
        };
        let Some(global) = sets.get("global").map(|g| words(self, &g.value)) else {
            return;
        };
        for property in &sets.properties {
            let name = property.name.as_str();
            if name == "global" {
                continue;
            }
            let reserved_here = words(self, &property.value);
            let unreserved: Vec<String> = global
                .iter()
                .filter(|w| !reserved_here.contains(w))
                .cloned()
                .collect();
            self.unreserved_in.insert(name.to_string(), unreserved);
        }
    }

    /// The literals of `reserved`'s global set, the only keywords tree-sitter never reads as
    /// the `word` token (other named sets apply inside single rules and are left out: a word
    /// reserved only there stays a name elsewhere).
    fn reserved_words(&mut self, top: &'v Object<'a>) -> Option<Vec<String>> {
        let sets = top.get("reserved")?;
        let global = sets.value.as_object().and_then(|o| o.get("global"))?;
        let Some(list) = global.value.as_array() else {
            self.error(
                span_of(&global.value),
                "the global reserved words must be a list",
            );
            return None;
        };
        Some(
            list.elements
                .iter()
                .filter_map(|word| self.plain_string(word))
                .collect(),
        )
    }

    fn fallback_rules(&mut self, file: &mut GrammarFile) {
        for (name, span) in std::mem::take(&mut self.used_externals) {
            let native = self.native(&name);
            let closer = (name.rsplit_once('_'))
                .filter(|_| StringRole::of(&name) == Some(StringRole::Content))
                .and_then(|(stem, _)| self.closers.get(stem));
            if let Some(body) = self.declared.get(&name).cloned() {
                file.rules.push(RuleDef {
                    name: native,
                    name_span: span,
                    body: declared::respanned(body, span),
                });
                continue;
            }
            let body = match self.externals[&name] {
                // A long string's content (`[[ ... ]]`, whose scanner reads up to its closer):
                // any text without the closer, so that a seed's contents are read as they are.
                External::Text { glued: true, .. } if closer.is_some() => Expr::Seq(
                    vec![
                        Expr::Name(LayoutToken::Glue.name().into(), span),
                        Expr::Regex(up_to(closer.expect("matched")), span),
                    ],
                    span,
                ),
                External::Text { text, glued } => {
                    let mut items = Vec::new();
                    if glued {
                        items.push(Expr::Name(LayoutToken::Glue.name().into(), span));
                    }
                    let text = self.end_texts.get(&name).map_or(text, String::as_str);
                    items.push(Expr::Literal(text.into(), span));
                    Expr::Seq(items, span)
                }
                External::Pattern(regex) => Expr::Regex(regex.to_string(), span),
                External::AutomaticSemicolon => Expr::Alt(
                    vec![
                        Expr::Literal(";".into(), span),
                        Expr::Name(LayoutToken::Newline.name().into(), span),
                    ],
                    span,
                ),
                External::Unknown | External::Layout(_) => {
                    self.warnings.push(self.source.warning(
                        span,
                        format!(
                            "external token '{name}' is produced by a hand-written scanner whose text is unknown: alternatives that need it are never generated (declare its text in {}, e.g. `{name} = /[a-z]+/ ;`)",
                            declared::path_for(&self.source.path).display()
                        ),
                    ));
                    self.unread_externals.push(name.clone());
                    // A rule that only derives itself derives nothing: the sampler never
                    // chooses an alternative that needs it.
                    Expr::Name(native.clone(), span)
                }
            };
            file.rules.push(RuleDef {
                name: native,
                name_span: span,
                body,
            });
        }
    }

    fn layout(&mut self, extras: Option<&'v Value<'a>>) -> LayoutSetting {
        let Some(extras) = extras else {
            // tree-sitter's default extras are whitespace.
            return LayoutSetting::Named("auto".to_string(), Span::default());
        };
        let mut skipped = Vec::new();
        let mut blocks = Vec::new();
        if let Some(list) = extras.as_array() {
            for item in &list.elements {
                let Ok((kind, object)) = node(self.source, item) else {
                    continue;
                };
                // A named extra (`$.comment`) is read only when it is a token: anything else
                // could not be skipped by a lexer, and reading it would report an error.
                if kind == "SYMBOL" {
                    let body = self
                        .string_field(object, "name")
                        .and_then(|name| self.rule_body(name.value.as_ref()));
                    match body {
                        Some(body) if !mentions_symbols(body) => {}
                        Some(body) => {
                            self.partly_external_comment(body, &mut skipped, &mut blocks);
                            continue;
                        }
                        // An external extra (tree-sitter-javascript's `html_comment`,
                        // tree-sitter-ocaml's `comment`): skipped as the user declared it.
                        None => {
                            let name = self.string_field(object, "name");
                            let declared = name.and_then(|n| self.declared.get(n.value.as_ref()));
                            if let Some(body) = declared {
                                declared_extra(body, &mut skipped, &mut blocks);
                            }
                            continue;
                        }
                    }
                }
                if let Some(regex) = self.token_regex(item)
                    && let Ok(narrowed) = regex_syntax::parse(&regex)
                {
                    skipped.push(narrowed);
                }
            }
        }
        self.comments = implied_comments(&skipped);
        self.comments = with_external_blocks(std::mem::take(&mut self.comments), &blocks);
        implied_layout(&skipped, span_of(extras))
    }

    /// A comment extra that is not a token because some of its alternatives are external
    /// (tree-sitter-lua's `comment: choice(seq('--', /[^\r\n]*/), seq($._block_comment_start,
    /// ...))`): its token alternatives are read as any skipped token, and each alternative
    /// made of comment externals is noted as a block comment (its start's and end's aliases,
    /// if the grammar gives them) for [`with_external_blocks`].
    fn partly_external_comment(
        &mut self,
        body: &'v Value<'a>,
        skipped: &mut Vec<regex_syntax::hir::Hir>,
        blocks: &mut Vec<ExternalBlock>,
    ) {
        if self.delimited_comment(body, skipped, blocks) {
            return;
        }
        let members: Vec<&'v Value<'a>> = match node(self.source, body) {
            Ok(("CHOICE", object)) => self
                .members(object)
                .map_or(Vec::new(), |m| m.iter().collect()),
            _ => vec![body],
        };
        for member in members {
            if !mentions_symbols(member) {
                if let Some(regex) = self.token_regex(member)
                    && let Ok(hir) = regex_syntax::parse(&regex)
                {
                    skipped.push(hir);
                }
                continue;
            }
            let mut aliased = Vec::new();
            collect_aliased_symbols(member, &mut aliased);
            let comment_externals: Vec<&(String, Option<String>)> = (aliased.iter())
                .filter(|(name, _)| {
                    self.externals.contains_key(name) && name.to_lowercase().contains("comment")
                })
                .collect();
            if comment_externals.is_empty() {
                continue;
            }
            let alias_of = |role: StringRole| {
                comment_externals
                    .iter()
                    .find(|(name, _)| delimiter_role(name, "comment") == Some(role))
                    .and_then(|(_, alias)| alias.clone())
            };
            blocks.push(ExternalBlock {
                open: alias_of(StringRole::Start),
                close: alias_of(StringRole::End),
                whole: false,
            });
        }
    }

    /// A comment extra written as a sequence that starts with a literal, whose middle the
    /// scanner reads (tree-sitter-rust's `line_comment: seq('//', choice(..., doc markers and
    /// contents))` and `block_comment: seq('/*', ..., '*/')`): the literals at its ends are
    /// its delimiters, whatever the scanner does inside. Ending in another literal, it is a
    /// block comment; otherwise it runs to the line's end. Whether it was read so.
    fn delimited_comment(
        &mut self,
        body: &'v Value<'a>,
        skipped: &mut Vec<regex_syntax::hir::Hir>,
        blocks: &mut Vec<ExternalBlock>,
    ) -> bool {
        let Ok(("SEQ", object)) = node(self.source, body) else {
            return false;
        };
        let Some(members) = self.members(object) else {
            return false;
        };
        let Some(open) = members.first().and_then(|m| self.plain_string(m)) else {
            return false;
        };
        let close = members
            .last()
            .filter(|_| members.len() > 1)
            .and_then(|m| self.plain_string(m));
        match close {
            Some(close) => blocks.push(ExternalBlock {
                open: Some(open),
                close: Some(close),
                whole: true,
            }),
            None => match regex_syntax::parse(&format!("{}.*", regex_syntax::escape(&open))) {
                Ok(hir) => skipped.push(hir),
                Err(_) => return false,
            },
        }
        true
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(self.source.error(span, message));
    }

    fn report(&mut self, err: Diagnostic) {
        self.errors.push(err);
    }

    fn content(&mut self, object: &'v Object<'a>) -> Option<&'v Value<'a>> {
        match required(self.source, object, "content", "this node") {
            Ok(v) => Some(v),
            Err(e) => {
                self.report(e);
                None
            }
        }
    }

    fn string_field(&mut self, object: &'v Object<'a>, key: &str) -> Option<&'v StringLit<'a>> {
        let value = match required(self.source, object, key, "this node") {
            Ok(v) => v,
            Err(e) => {
                self.report(e);
                return None;
            }
        };
        match expect_string(self.source, value, key) {
            Ok(s) => Some(s),
            Err(e) => {
                self.report(e);
                None
            }
        }
    }

    fn members(&mut self, object: &'v Object<'a>) -> Option<&'v [Value<'a>]> {
        let value = match required(self.source, object, "members", "this node") {
            Ok(v) => v,
            Err(e) => {
                self.report(e);
                return None;
            }
        };
        match value.as_array() {
            Some(list) => Some(&list.elements),
            None => {
                self.error(
                    span_of(value),
                    format!(
                        "expected members (an array), found {}",
                        json_text::describe(value)
                    ),
                );
                None
            }
        }
    }

    /// A rule node as a native expression; `None` after reporting an error.
    fn expr(&mut self, value: &'v Value<'a>) -> Option<Expr> {
        let (kind, object) = match node(self.source, value) {
            Ok(n) => n,
            Err(e) => {
                self.report(e);
                return None;
            }
        };
        let span = span_of(value);
        Some(match kind {
            "BLANK" => Expr::Seq(Vec::new(), span),
            "STRING" => {
                let lit = self.string_field(object, "value")?;
                let literal = Expr::Literal(lit.value.to_string(), span_of(lit));
                if lit.value == "'" && self.run_quote.is_none() && self.style.is_none() {
                    // A quote that opens no string run (Rust's lifetime `seq("'",
                    // identifier)`, and `'` among a macro's tokens) starts one token in every
                    // lexer with the word after it: `' a` would open a character literal.
                    Expr::Seq(vec![literal, glue(span)], span)
                } else {
                    literal
                }
            }
            "PATTERN" => {
                let regex = self.pattern(object)?;
                self.regex_expr(&regex, span)?
            }
            "SYMBOL" => {
                let lit = self.string_field(object, "name")?;
                self.symbol(&lit.value, span_of(lit))
            }
            "SEQ" => {
                let members = self.members(object)?;
                if self.is_paired_string(members) {
                    return self.paired_string(members, span);
                }
                let quoted = self.is_quoted_run(members);
                let outer_run = self.run_quote;
                if quoted {
                    let open = self.plain_string(&members[0]);
                    let close = self.plain_string(&members[members.len() - 1]);
                    self.run_quote =
                        (open.as_deref().or(close.as_deref())).and_then(|o| o.chars().next());
                    // A run closed by the scanner (tree-sitter-toml-ng's `'"""' ...
                    // $._multiline_basic_string_end`) closes with the quotes it opened with.
                    if let (Some(open), Some(end)) =
                        (open, self.string_end_external(&members[members.len() - 1]))
                    {
                        self.end_texts.insert(end, open);
                    }
                }
                let mut items = Vec::new();
                for (i, member) in members.iter().enumerate() {
                    let before_dedent = members.get(i + 1).is_some_and(|next| self.is_dedent(next));
                    let item = self.seq_member(member, before_dedent);
                    let Some(item) = item else {
                        self.run_quote = outer_run;
                        return None;
                    };
                    if quoted && i > 0 {
                        items.push(glued_throughout(item, span));
                    } else {
                        items.push(item);
                    }
                }
                self.run_quote = outer_run;
                Expr::Seq(items, span)
            }
            "CHOICE" => {
                let members = self.members(object)?;
                let mut alts = Vec::new();
                let mut blank = false;
                for member in members {
                    if matches!(node(self.source, member), Ok(("BLANK", _))) {
                        blank = true;
                    } else {
                        alts.push(self.expr(member)?);
                    }
                }
                let inner = match alts.len() {
                    0 => return Some(Expr::Seq(Vec::new(), span)),
                    1 => alts.remove(0),
                    _ => Expr::Alt(alts, span),
                };
                if blank {
                    quantified(inner, 0, Some(1), true, span)
                } else {
                    inner
                }
            }
            "REPEAT" | "REPEAT1" | "OPTIONAL" => {
                let content = self.content(object)?;
                let inner = self.expr(content)?;
                match kind {
                    "REPEAT" => quantified(inner, 0, None, false, span),
                    "REPEAT1" => quantified(inner, 1, None, false, span),
                    _ => quantified(inner, 0, Some(1), true, span),
                }
            }
            "RESERVED" => {
                let content = self.content(object)?;
                let inner = self.expr(content)?;
                let context = object
                    .get_string("context_name")
                    .map(|n| n.value.to_string());
                match context.and_then(|c| self.unreserved_in.get(&c)) {
                    // Where fewer words are reserved (JavaScript's `x.default`), the others
                    // are read and written as their literals.
                    Some(words) if !words.is_empty() => {
                        let mut alts = vec![inner];
                        alts.extend(words.iter().map(|w| Expr::Literal(w.clone(), span)));
                        Expr::Alt(alts, span)
                    }
                    _ => inner,
                }
            }
            "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" => {
                let content = self.content(object)?;
                self.expr(content)?
            }
            "ALIAS" => {
                let content = self.content(object)?;
                if let Some(text) = self.aliased_external(object, content) {
                    return Some(text);
                }
                self.expr(content)?
            }
            "TOKEN" => {
                let content = self.content(object)?;
                self.token(content, span)?
            }
            "IMMEDIATE_TOKEN" => {
                let content = self.content(object)?;
                let token = self.token(content, span)?;
                Expr::Seq(vec![glue(span), token], span)
            }
            other => {
                let at = object.get("type").map_or(span, |p| span_of(&p.value));
                self.error(
                    at,
                    format!("unknown tree-sitter rule type '{other}'; expected SEQ, CHOICE, REPEAT, REPEAT1, STRING, PATTERN, SYMBOL, BLANK, FIELD, ALIAS, TOKEN, IMMEDIATE_TOKEN, PREC, PREC_LEFT, PREC_RIGHT, PREC_DYNAMIC or RESERVED"),
                );
                return None;
            }
        })
    }

    /// A member of a SEQ; a `repeat` right before a dedent needs at least one item.
    fn seq_member(&mut self, member: &'v Value<'a>, before_dedent: bool) -> Option<Expr> {
        if before_dedent && let Ok(("REPEAT", object)) = node(self.source, member) {
            let content = self.content(object)?;
            let inner = self.expr(content)?;
            return Some(quantified(inner, 1, None, false, span_of(member)));
        }
        self.expr(member)
    }

    fn is_dedent(&self, value: &Value) -> bool {
        let Ok(("SYMBOL", object)) = node(self.source, value) else {
            return false;
        };
        object
            .get_string("name")
            .and_then(|n| self.externals.get(n.value.as_ref()))
            .is_some_and(|e| e.is_dedent())
    }

    fn symbol(&mut self, name: &str, span: Span) -> Expr {
        if self.declared.contains_key(name) {
            if !self.used_externals.iter().any(|(n, _)| n == name) {
                self.used_externals.push((name.to_string(), span));
            }
            return Expr::Name(self.native(name), span);
        }
        if let Some(quote) = self.style
            && self.externals.contains_key(name)
            && StringRole::of(name) == Some(StringRole::Content)
        {
            return Expr::Regex(quote.content.to_string(), span);
        }
        if let Some(quote) = self.run_quote
            && self.externals.contains_key(name)
            && StringRole::of(name) == Some(StringRole::Content)
        {
            // A template's text: any character but the closing quote and the backslash that
            // starts an escape (line breaks included, as in a template literal).
            let quote = regex_syntax::escape(&quote.to_string());
            return Expr::Regex(
                format!(r"[\t\n -~\x{{80}}-\x{{10FFFF}}--[{quote}\\]]"),
                span,
            );
        }
        if self.style.is_some() && self.is_lone_backslash(name) {
            // A backslash that starts no escape (Python keeps `\d` as it is) is a token of its
            // own to tree-sitter, which its lexer takes only where no escape matches: a longer
            // token wins. Read as a bare backslash, it would let `\"` close the string (`"a\"
            // # b"` as a string and a comment). So it takes the character after it along, one
            // that no escape begins with.
            return Expr::Seq(
                vec![
                    Expr::Literal("\\".to_string(), span),
                    Expr::Regex(NOT_AN_ESCAPE.to_string(), span),
                ],
                span,
            );
        }
        if let Some(&external) = self.externals.get(name) {
            if let External::Layout(tokens) = external {
                let items = tokens
                    .iter()
                    .map(|t| Expr::Name(t.name().to_string(), span))
                    .collect();
                return Expr::Seq(items, span);
            }
            if !self.used_externals.iter().any(|(n, _)| n == name) {
                self.used_externals.push((name.to_string(), span));
            }
        }
        Expr::Name(self.native(name), span)
    }

    /// A quoted run: `'` (fragments, escapes and substitutions)* `'`, the same literal at both
    /// ends and between them pieces of which some are immediate tokens (string fragments,
    /// escapes, or a scanner's content). Tree-sitter reads it as one run of text: a fragment
    /// takes the spaces in it, so nothing stands between its pieces or before the closing
    /// quote. Laid out as separate tokens, `'./a'` would be written `'./a '`, another string.
    fn is_quoted_run(&self, members: &[Value]) -> bool {
        // Through the fields and aliases a grammar may wrap its quotes in (tree-sitter-lua:
        // `field('start', alias('"', '"'))`).
        let quote = |value: &Value| {
            let mut value = value;
            loop {
                match node(self.source, value) {
                    Ok(("STRING", object)) => {
                        return object.get_string("value").map(|v| v.value.to_string());
                    }
                    Ok(("FIELD" | "ALIAS", object)) => value = &object.get("content")?.value,
                    _ => return None,
                }
            }
        };
        let open = quote(&members[0]);
        let close = quote(&members[members.len() - 1]);
        // Prefixed openers, the same closer (tree-sitter-c's `choice('L"', 'u8"', '"') ...
        // '"'`).
        let prefixed = || {
            let Ok(("CHOICE", object)) = node(self.source, &members[0]) else {
                return false;
            };
            let Some(closer) = close.as_deref().filter(|c| is_quotes(c)) else {
                return false;
            };
            (object.get_array("members")).is_some_and(|list| {
                list.elements
                    .iter()
                    .all(|m| self.plain_string(m).is_some_and(|o| o.ends_with(closer)))
            })
        };
        members.len() >= 3
            && (open.is_some() || prefixed())
            && (open == close
                || prefixed()
                || (open.as_deref().is_some_and(is_quotes)
                    && self
                        .string_end_external(&members[members.len() - 1])
                        .is_some()))
            && members[1..members.len() - 1]
                .iter()
                .all(|member| self.holds_immediate(member, 4))
    }

    /// The name of the string-closing external `value` refers to, if it does.
    fn string_end_external(&self, value: &Value) -> Option<String> {
        let Ok(("SYMBOL", object)) = node(self.source, value) else {
            return None;
        };
        let name = object.get_string("name")?.value.to_string();
        (self.externals.contains_key(&name)
            && delimiter_role(&name, "string") == Some(StringRole::End))
        .then_some(name)
    }

    /// Whether `value` (looked into through choices, repetitions, wrappers and up to `depth`
    /// rule references) holds an immediate token or a string content external.
    fn holds_immediate(&self, value: &Value, depth: u32) -> bool {
        let Ok((kind, object)) = node(self.source, value) else {
            return false;
        };
        match kind {
            "IMMEDIATE_TOKEN" => true,
            "CHOICE" => object
                .get("members")
                .and_then(|m| m.value.as_array())
                .is_some_and(|list| list.elements.iter().any(|m| self.holds_immediate(m, depth))),
            "REPEAT" | "REPEAT1" | "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT"
            | "PREC_DYNAMIC" | "ALIAS" => object
                .get("content")
                .is_some_and(|c| self.holds_immediate(&c.value, depth)),
            "SYMBOL" => object.get_string("name").is_some_and(|name| {
                let name = name.value.as_ref();
                (self.externals.contains_key(name)
                    && StringRole::of(name) == Some(StringRole::Content))
                    || (depth > 0
                        && self
                            .rule_body(name)
                            .is_some_and(|body| self.holds_immediate(body, depth - 1)))
            }),
            _ => false,
        }
    }

    /// Whether rule `name` is a token of one lone backslash (tree-sitter-python's
    /// `_not_escape_sequence`).
    fn is_lone_backslash(&self, name: &str) -> bool {
        let Some(Ok((kind, object))) = self.rule_body(name).map(|body| node(self.source, body))
        else {
            return false;
        };
        if !matches!(kind, "TOKEN" | "IMMEDIATE_TOKEN") {
            return false;
        }
        let Some(Ok(("STRING", content))) =
            object.get("content").map(|c| node(self.source, &c.value))
        else {
            return false;
        };
        content
            .get_string("value")
            .is_some_and(|value| value.value == "\\")
    }

    /// The external that `value` refers to, if it is one, and its role in a string.
    fn string_role(&self, value: &Value) -> Option<StringRole> {
        let Ok(("SYMBOL", object)) = node(self.source, value) else {
            return None;
        };
        let name = object.get_string("name")?;
        self.externals.get(name.value.as_ref())?;
        StringRole::of(&name.value)
    }

    /// A sequence from a string-start external to a string-end one.
    fn is_paired_string(&self, members: &[Value]) -> bool {
        members.len() >= 2
            && self.string_role(&members[0]) == Some(StringRole::Start)
            && self.string_role(&members[members.len() - 1]) == Some(StringRole::End)
    }

    /// A paired string: one alternative per quote style, each opened by a prefix and its quote
    /// and closed by the same quote, with the middle read in that style. Each style is a
    /// lexical rule, one token: a seed's string is read with nothing skipped inside it (a `#`
    /// or a keyword there is the string's), and rendered with nothing added (a space after
    /// `:` in an f-string's format is part of the format).
    fn paired_string(&mut self, members: &'v [Value<'a>], span: Span) -> Option<Expr> {
        let outer = self.style;
        let mut styles = Vec::new();
        for quote in Quote::ALL {
            let name = self.fresh_name(&format!("String_{}", quote.suffix));
            self.style = Some(quote);
            let opens = Quote::PREFIXES
                .iter()
                .map(|prefix| Expr::Literal(format!("{prefix}{}", quote.text), span))
                .collect();
            let mut items = vec![Expr::Alt(opens, span)];
            for member in &members[1..members.len() - 1] {
                let Some(item) = self.string_middle(member) else {
                    self.style = outer;
                    return None;
                };
                items.push(item);
            }
            items.push(Expr::Literal(quote.text.to_string(), span));
            self.string_rules.push(RuleDef {
                name: name.clone(),
                name_span: span,
                body: Expr::Seq(items, span),
            });
            styles.push(Expr::Name(name, span));
        }
        self.style = outer;
        Some(Expr::Alt(styles, span))
    }

    /// `base`, or `base` with a number, whichever no rule of the grammar is named.
    fn fresh_name(&mut self, base: &str) -> String {
        let taken = |name: &str| {
            self.names.values().any(|n| n == name)
                || self.string_rules.iter().any(|r| r.name == name)
        };
        let mut name = base.to_string();
        let mut n = 1;
        while taken(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    /// A member of a string's middle. A repetition is flattened into one repetition of its
    /// items, through the rules that reach the content token: `(interpolation |
    /// string_content)*` with `string_content = (escape | content)+` becomes `(interpolation |
    /// escape | content)*`, the same language, which an Earley parse reads in one way per
    /// character instead of one per split of every run.
    fn string_middle(&mut self, member: &'v Value<'a>) -> Option<Expr> {
        let (kind, object) = node(self.source, member).ok()?;
        let min = match kind {
            "REPEAT" => 0,
            "REPEAT1" => 1,
            _ => return self.expr(member),
        };
        let mut items = Vec::new();
        let mut seen = HashSet::new();
        let content = self.content(object)?;
        self.flatten(content, &mut items, &mut seen);
        let mut alts = Vec::new();
        for item in items {
            alts.push(self.expr(item)?);
        }
        let inner = if alts.len() == 1 {
            alts.remove(0)
        } else {
            Expr::Alt(alts, span_of(member))
        };
        Some(quantified(inner, min, None, false, span_of(member)))
    }

    fn flatten(
        &self,
        value: &'v Value<'a>,
        out: &mut Vec<&'v Value<'a>>,
        seen: &mut HashSet<String>,
    ) {
        let Ok((kind, object)) = node(self.source, value) else {
            out.push(value);
            return;
        };
        match kind {
            "CHOICE" => {
                if let Some(list) = object.get("members").and_then(|m| m.value.as_array()) {
                    for member in &list.elements {
                        if !matches!(node(self.source, member), Ok(("BLANK", _))) {
                            self.flatten(member, out, seen);
                        }
                    }
                }
            }
            "REPEAT" | "REPEAT1" | "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT"
            | "PREC_DYNAMIC" => match object.get("content") {
                Some(content) => self.flatten(&content.value, out, seen),
                None => out.push(value),
            },
            "SYMBOL" => {
                let name = object.get_string("name").map(|n| n.value.to_string());
                match name.as_deref().and_then(|n| Some((n, self.rule_body(n)?))) {
                    Some((name, body)) if self.reaches_content.contains(name) => {
                        if seen.insert(name.to_string()) {
                            self.flatten(body, out, seen);
                        }
                    }
                    _ => out.push(value),
                }
            }
            _ => out.push(value),
        }
    }

    /// Rules that reach a string content external outside a paired string, to a fixpoint.
    fn find_content_rules(&mut self) {
        let mut direct: HashMap<String, Vec<String>> = HashMap::new();
        for property in &self.rules.properties {
            let mut names = Vec::new();
            self.symbols_outside_strings(&property.value, &mut names);
            direct.insert(property.name.as_str().to_string(), names);
        }
        let is_content = |name: &str| {
            self.externals.contains_key(name) && StringRole::of(name) == Some(StringRole::Content)
        };
        let mut reaching: HashSet<String> = HashSet::new();
        loop {
            let before = reaching.len();
            for (rule, names) in &direct {
                if names.iter().any(|n| is_content(n) || reaching.contains(n)) {
                    reaching.insert(rule.clone());
                }
            }
            if reaching.len() == before {
                break;
            }
        }
        // Used only inside strings, where their bodies are read in line: left out, so that
        // the content token's stand-in (`"a"`) does not become a literal of the language.
        let start = self.rules.properties[0].name.as_str();
        let used_outside: HashSet<&String> = direct.values().flatten().collect();
        self.inlined = reaching
            .iter()
            .filter(|rule| rule.as_str() != start && !used_outside.contains(rule))
            .cloned()
            .collect();
        self.reaches_content = reaching;
    }

    fn symbols_outside_strings(&self, value: &Value, out: &mut Vec<String>) {
        let Value::Object(object) = value else {
            if let Value::Array(list) = value {
                for v in &list.elements {
                    self.symbols_outside_strings(v, out);
                }
            }
            return;
        };
        if object.get_string("type").is_some_and(|t| t.value == "SEQ")
            && let Some(list) = object.get("members").and_then(|m| m.value.as_array())
            && self.is_paired_string(&list.elements)
        {
            return;
        }
        if object
            .get_string("type")
            .is_some_and(|t| t.value == "SYMBOL")
            && let Some(name) = object.get_string("name")
        {
            out.push(name.value.to_string());
        }
        for p in &object.properties {
            self.symbols_outside_strings(&p.value, out);
        }
    }

    /// `alias($._external, 'text')`: the anonymous string is the token's text.
    fn aliased_external(&mut self, alias: &'v Object<'a>, content: &'v Value<'a>) -> Option<Expr> {
        let Ok(("SYMBOL", symbol)) = node(self.source, content) else {
            return None;
        };
        let external = *self
            .externals
            .get(symbol.get_string("name")?.value.as_ref())?;
        if self
            .declared
            .contains_key(symbol.get_string("name")?.value.as_ref())
        {
            return None;
        }
        if alias.get_boolean("named").is_some_and(|b| b.value) {
            return None;
        }
        let value = alias.get_string("value")?;
        if value.value.is_empty() {
            return None;
        }
        let name = symbol.get_string("name")?.value.as_ref();
        if StringRole::of(name) == Some(StringRole::End)
            && let Some((stem, _)) = name.rsplit_once('_')
        {
            self.closers
                .insert(stem.to_string(), value.value.to_string());
        }
        let span = span_of(value);
        let literal = Expr::Literal(value.value.to_string(), span);
        Some(if external.glued() {
            Expr::Seq(vec![glue(span), literal], span)
        } else {
            literal
        })
    }

    /// The content of `token(...)`: one literal, or one regex terminal.
    fn token(&mut self, content: &'v Value<'a>, span: Span) -> Option<Expr> {
        if let Some(text) = self.plain_string(content) {
            return Some(Expr::Literal(text, span));
        }
        let regex = self.token_regex(content)?;
        self.regex_expr(&regex, span)
    }

    fn plain_string(&self, value: &'v Value<'a>) -> Option<String> {
        let (kind, object) = node(self.source, value).ok()?;
        match kind {
            "STRING" => Some(object.get_string("value")?.value.to_string()),
            "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "FIELD" | "ALIAS" | "TOKEN"
            | "IMMEDIATE_TOKEN" => self.plain_string(&object.get("content")?.value),
            _ => None,
        }
    }

    fn regex_expr(&mut self, regex: &str, span: Span) -> Option<Expr> {
        match parse_narrowed(regex, Preference::Printable) {
            Ok(narrowed) => {
                if narrowed.dropped_anchor {
                    self.warnings.push(self.source.warning(
                        span,
                        "anchors and word boundaries (^, $, \\b) are dropped: a generated token has no surrounding text",
                    ));
                }
                let regex = Expr::Regex(regex_text(&narrowed.hir), span);
                if runs_to_line_end(&narrowed.hir) {
                    let newline = Expr::Name(LayoutToken::Newline.name().to_string(), span);
                    return Some(Expr::Seq(vec![regex, newline], span));
                }
                Some(regex)
            }
            Err(fault) => {
                self.error(span, format!("invalid regex: {}", fault.message));
                None
            }
        }
    }

    /// A PATTERN node translated to regex-syntax's dialect, with faults located inside the
    /// pattern as written in the file.
    fn pattern(&mut self, object: &'v Object<'a>) -> Option<String> {
        let lit = self.string_field(object, "value")?;
        let flags = object
            .get_string("flags")
            .map_or(String::new(), |f| f.value.to_string());
        let locate = |offset: usize| {
            let at = offset_in_string(self.source, lit, offset);
            Span::new(at, at + 1)
        };
        let translated = match js_regex::translate(&lit.value, &flags) {
            Ok(t) => t,
            Err(fault) => {
                let span = locate(fault.offset);
                self.error(span, format!("unsupported regex: {}", fault.message));
                return None;
            }
        };
        if translated.dropped_lookaround {
            self.warnings.push(self.source.warning(
                span_of(lit),
                "lookarounds are dropped: this pattern generates some text the original excludes",
            ));
        }
        if let Err(fault) = parse_narrowed(&translated.text, Preference::Printable) {
            let span = locate(translated.original_offset(fault.offset));
            self.error(span, format!("invalid regex: {}", fault.message));
            return None;
        }
        Some(translated.text)
    }

    /// The content of a token as one regex. tree-sitter only allows terminals in a token.
    fn token_regex(&mut self, value: &'v Value<'a>) -> Option<String> {
        let (kind, object) = match node(self.source, value) {
            Ok(n) => n,
            Err(e) => {
                self.report(e);
                return None;
            }
        };
        Some(match kind {
            "BLANK" => String::new(),
            "STRING" => regex_syntax::escape(&self.string_field(object, "value")?.value),
            "PATTERN" => format!("(?:{})", self.pattern(object)?),
            "SEQ" => {
                let mut out = String::new();
                for member in self.members(object)? {
                    out.push_str(&self.token_regex(member)?);
                }
                out
            }
            "CHOICE" => {
                let mut alts = Vec::new();
                let mut blank = false;
                for member in self.members(object)? {
                    if matches!(node(self.source, member), Ok(("BLANK", _))) {
                        blank = true;
                    } else {
                        alts.push(self.token_regex(member)?);
                    }
                }
                // `optional(x)` is written `choice(x, blank)`: `(?:x)?` reads better than `(?:x|)`.
                format!("(?:{}){}", alts.join("|"), if blank { "?" } else { "" })
            }
            "REPEAT" | "REPEAT1" | "OPTIONAL" => {
                let content = self.content(object)?;
                let inner = self.token_regex(content)?;
                let op = match kind {
                    "REPEAT" => "*",
                    "REPEAT1" => "+",
                    _ => "?",
                };
                format!("(?:{inner}){op}")
            }
            "FIELD" | "PREC" | "PREC_LEFT" | "PREC_RIGHT" | "PREC_DYNAMIC" | "RESERVED"
            | "ALIAS" | "TOKEN" | "IMMEDIATE_TOKEN" => {
                let content = self.content(object)?;
                self.token_regex(content)?
            }
            "SYMBOL" => {
                let name = self.string_field(object, "name")?;
                let (name, span) = (name.value.to_string(), span_of(name));
                // A rule that is itself a token may be inlined; anything else cannot be part
                // of one token.
                let body = self.rule_body(&name);
                match body {
                    Some(body) if !mentions_symbols(body) => self.token_regex(body)?,
                    _ => {
                        self.error(
                            span,
                            format!("'{name}' is used inside a token, but only terminals can be part of a token"),
                        );
                        return None;
                    }
                }
            }
            other => {
                self.error(
                    span_of(value),
                    format!("'{other}' cannot be part of a token"),
                );
                return None;
            }
        })
    }
}

/// What may follow a backslash that starts no escape in a Python string: a printable character
/// or tab that is neither a quote nor a backslash (which would let the string end elsewhere)
/// nor one that always starts an escape (`\n`, octal digits). `x`, `N`, `u` and `U` start one
/// only with the right characters after them (`b"\user"` keeps its backslash), so they may
/// follow: where both readings exist, the text is the same.
const NOT_AN_ESCAPE: &str = r#"[\t -~--["'\\abfnrtv0-7]]"#;

/// Whether a token ends by taking the rest of the line (`/#!.*/`, `//.*`): its last piece
/// repeats a class holding every printable character but no newline. Whatever follows such a
/// token must go on the next line, or it becomes part of it.
fn runs_to_line_end(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Concat(parts) => parts.last().is_some_and(runs_to_line_end),
        HirKind::Capture(capture) => runs_to_line_end(&capture.sub),
        HirKind::Alternation(alts) => alts.iter().all(runs_to_line_end),
        HirKind::Repetition(rep) if rep.max.is_none() => match rep.sub.kind() {
            HirKind::Class(Class::Unicode(class)) => {
                let has = |c: char| class.iter().any(|r| (r.start()..=r.end()).contains(&c));
                !has('\n') && (' '..='~').all(has)
            }
            _ => false,
        },
        _ => false,
    }
}

/// A declared external extra as what a lexer skips: `"(*" ... "*)"` (a literal at each end) is
/// a block comment, a lone regex a skipped token (a line comment where it runs to the line's
/// end).
fn declared_extra(body: &Expr, skipped: &mut Vec<Hir>, blocks: &mut Vec<ExternalBlock>) {
    match body {
        Expr::Seq(items, _) => {
            if let (Some(Expr::Literal(open, _)), Some(Expr::Literal(close, _))) =
                (items.first(), items.last())
                && items.len() > 1
            {
                blocks.push(ExternalBlock {
                    open: Some(open.clone()),
                    close: Some(close.clone()),
                    whole: true,
                });
            }
        }
        Expr::Regex(regex, _) => {
            if let Ok(hir) = regex_syntax::parse(regex) {
                skipped.push(hir);
            }
        }
        _ => {}
    }
}

/// Whether `text` is made of quote characters only (`"`, `'''`).
fn is_quotes(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| matches!(c, '"' | '\'' | '`'))
}

fn glue(span: Span) -> Expr {
    Expr::Name(LayoutToken::Glue.name().to_string(), span)
}

/// `item` with no separator before it, nor before each of its items if it is a repetition.
fn glued_throughout(item: Expr, span: Span) -> Expr {
    match item {
        Expr::Quantified {
            inner,
            min,
            max,
            optional,
            span: at,
        } => quantified(
            Expr::Seq(vec![glue(span), *inner], at),
            min,
            max,
            optional,
            at,
        ),
        other => Expr::Seq(vec![glue(span), other], span),
    }
}

fn quantified(inner: Expr, min: u32, max: Option<u32>, optional: bool, span: Span) -> Expr {
    Expr::Quantified {
        inner: Box::new(inner),
        min,
        max,
        optional,
        span,
    }
}

/// Names of SYMBOL nodes anywhere below `value`.
fn collect_symbols(value: &Value, out: &mut Vec<String>) {
    let mut aliased = Vec::new();
    collect_aliased_symbols(value, &mut aliased);
    out.extend(aliased.into_iter().map(|(name, _)| name));
}

/// Names of SYMBOL nodes below `value`, each with the anonymous string an enclosing ALIAS
/// gives it (`alias($._block_comment_start, '[[')`), if any.
fn collect_aliased_symbols(value: &Value, out: &mut Vec<(String, Option<String>)>) {
    match value {
        Value::Object(object) => {
            let kind = object.get_string("type").map(|t| t.value.as_ref());
            if kind == Some("SYMBOL")
                && let Some(name) = object.get_string("name")
            {
                out.push((name.value.to_string(), None));
                return;
            }
            if kind == Some("ALIAS")
                && let Some(Value::Object(content)) = object.get("content").map(|p| &p.value)
                && content
                    .get_string("type")
                    .is_some_and(|t| t.value == "SYMBOL")
                && let Some(name) = content.get_string("name")
            {
                let named = matches!(object.get("named").map(|p| &p.value), Some(Value::BooleanLit(b)) if b.value);
                let alias = (!named)
                    .then(|| object.get_string("value").map(|v| v.value.to_string()))
                    .flatten();
                out.push((name.value.to_string(), alias));
                return;
            }
            for p in &object.properties {
                collect_aliased_symbols(&p.value, out);
            }
        }
        Value::Array(list) => {
            for v in &list.elements {
                collect_aliased_symbols(v, out);
            }
        }
        _ => {}
    }
}

/// A regex of the texts that do not contain `closer` (of one or two characters counted; a
/// longer closer by its first two), and so do not end a long string or comment early.
fn up_to(closer: &str) -> String {
    let mut chars = closer.chars();
    let escape = |c: char| regex_syntax::escape(&c.to_string());
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) => format!(
            "(?:[^{f}]|{f}[^{s}])*",
            f = escape(first),
            s = escape(second)
        ),
        (Some(first), None) => format!("[^{}]*", escape(first)),
        _ => "(?s:.)*".to_string(),
    }
}

/// A block comment whose start and end come from an external scanner, with the texts the
/// grammar's aliases give them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ExternalBlock {
    open: Option<String>,
    close: Option<String>,
    /// The delimiters are written out in full in the grammar (`seq('/*', ..., '*/')`), not
    /// aliases of scanner tokens that the line comment's opener may precede.
    whole: bool,
}

/// `comments` (read from the token comments of the extras) with the block comments of
/// `blocks` in the forms the language's line comment points to, first, so that a block's
/// opener is tried before a line comment's opener it begins with.
///
/// A scanner's block comment starts with the line comment's opener in the languages that
/// have both (Lua: `--[[ ... ]]`, where the grammar aliases the start to `[[`): an alias that
/// does not begin with the opener gets it in front. Lua's long brackets also take levels
/// (`--[==[ ... ]==]`), which a scanner counts: levels up to three are read. Without aliases,
/// the usual block of the line comment's family: `/* */` after `//`, `{- -}` after `--`.
fn with_external_blocks(comments: Vec<Comment>, blocks: &[ExternalBlock]) -> Vec<Comment> {
    let line = comments.iter().find_map(|c| match c {
        Comment::Line(open) => Some(open.clone()),
        Comment::Block { .. } => None,
    });
    let mut found = Vec::new();
    for block in blocks {
        let (open, close) = match (&block.open, &block.close, line.as_deref()) {
            (Some(open), Some(close), _) if block.whole => (open.clone(), close.clone()),
            (Some(open), Some(close), Some(line)) if !open.starts_with(line) => {
                (format!("{line}{open}"), close.clone())
            }
            (Some(open), Some(close), _) => (open.clone(), close.clone()),
            (_, _, Some("//")) => ("/*".to_string(), "*/".to_string()),
            (_, _, Some("--")) => ("{-".to_string(), "-}".to_string()),
            _ => continue,
        };
        let long_bracket = open.strip_suffix("[[").filter(|_| close == "]]");
        let forms: Vec<(String, String)> = match long_bracket {
            Some(before) => (0..=3)
                .map(|level| {
                    let equals = "=".repeat(level);
                    (format!("{before}[{equals}["), format!("]{equals}]"))
                })
                .collect(),
            None => vec![(open, close)],
        };
        for (open, close) in forms {
            let comment = Comment::Block { open, close };
            if !found.contains(&comment) && !comments.contains(&comment) {
                found.push(comment);
            }
        }
    }
    found.extend(comments);
    found
}

fn mentions_symbols(value: &Value) -> bool {
    let mut names = Vec::new();
    collect_symbols(value, &mut names);
    !names.is_empty()
}

#[cfg(test)]
mod tests {
    use crate::convert::to_ebnf;
    use crate::diagnostic::SourceFile;
    use crate::import::{Imported, from_source};

    fn import(json: &str) -> Imported {
        from_source(&SourceFile::new("grammar.json", json)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The exported rules, without the header.
    fn rules(imported: &Imported) -> String {
        to_ebnf(&imported.grammar)
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Issue 31, as tree-sitter-lua writes them: a comment extra whose block form comes from
    /// the external scanner still gives its line comments, its block comments in the forms the
    /// language uses (`--[[ ]]`, `--[==[ ]==]`), and a long string's content is any text up to
    /// its closer, so that real files' comments and long strings are read.
    #[test]
    fn comments_and_long_strings_of_an_external_scanner_are_read() {
        let alias = |name: &str, named: bool, value: &str| {
            format!(
                r#"{{"type": "ALIAS", "content": {{"type": "SYMBOL", "name": "{name}"}}, "named": {named}, "value": "{value}"}}"#
            )
        };
        let externals = ["comment", "string"]
            .iter()
            .flat_map(|k| ["start", "content", "end"].map(|r| format!("_block_{k}_{r}")))
            .map(|n| format!(r#"{{"type": "SYMBOL", "name": "{n}"}}"#))
            .collect::<Vec<_>>()
            .join(", ");
        let json = format!(
            r#"{{"name": "mini", "rules": {{
  "chunk": {{"type": "REPEAT", "content": {{"type": "SYMBOL", "name": "assignment"}}}},
  "assignment": {{"type": "SEQ", "members": [{{"type": "STRING", "value": "x"}}, {{"type": "STRING", "value": "="}}, {{"type": "SYMBOL", "name": "string"}}]}},
  "string": {{"type": "CHOICE", "members": [{{"type": "SEQ", "members": [{}, {}, {}]}}, {{"type": "SYMBOL", "name": "quoted"}}]}},
  "quoted": {{"type": "SEQ", "members": [
    {{"type": "FIELD", "name": "start", "content": {{"type": "ALIAS", "content": {{"type": "STRING", "value": "\""}}, "named": false, "value": "\""}}}},
    {{"type": "CHOICE", "members": [{{"type": "REPEAT1", "content": {{"type": "IMMEDIATE_TOKEN", "content": {{"type": "PATTERN", "value": "[^\"\\\\]+"}}}}}}, {{"type": "BLANK"}}]}},
    {{"type": "FIELD", "name": "end", "content": {{"type": "ALIAS", "content": {{"type": "STRING", "value": "\""}}, "named": false, "value": "\""}}}}]}},
  "comment": {{"type": "CHOICE", "members": [
    {{"type": "SEQ", "members": [{{"type": "STRING", "value": "--"}}, {{"type": "PATTERN", "value": "[^\r\n]*"}}]}},
    {{"type": "SEQ", "members": [{}, {}, {}]}}]}}
}},
"extras": [{{"type": "SYMBOL", "name": "comment"}}, {{"type": "PATTERN", "value": "\\s"}}],
"externals": [{externals}]}}"#,
            alias("_block_string_start", false, "[["),
            alias("_block_string_content", true, "string_content"),
            alias("_block_string_end", false, "]]"),
            alias("_block_comment_start", false, "[["),
            alias("_block_comment_content", true, "comment_content"),
            alias("_block_comment_end", false, "]]"),
        );
        let imported = import(&json);
        let text = rules(&imported);
        for line in [
            r#"%comment "--[[" "]]";"#,
            r#"%comment "--[==[" "]==]";"#,
            r#"%comment "--";"#,
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        let block = text.find(r#"%comment "--[[""#).unwrap();
        assert!(
            block < text.find(r#"%comment "--";"#).unwrap(),
            "blocks first: {text}"
        );

        let grammar = &imported.grammar;
        let parser = crate::parse::Parser::new(grammar);
        let seed = "x = [[a ] b\n  -- not a comment]] -- a comment\n--[==[ a\nblock ]==]\nx = [[]]\nx = \"--x-\"\n";
        let parsed = parser
            .parse(seed)
            .unwrap_or_else(|e| panic!("{:?}: {}", e.line_col(seed), e.message));
        // Both comments lie between the same two tokens: one skipped range.
        let skipped: Vec<&str> = parsed.comments.iter().map(|r| &seed[r.clone()]).collect();
        assert_eq!(skipped, [" -- a comment\n--[==[ a\nblock ]==]\n"]);
        let rendered = crate::text::render(grammar, &parsed.tree);
        assert!(
            rendered.contains("[[a ] b\n  -- not a comment]]"),
            "the long string as it is: {rendered}"
        );
        // A quote wrapped in a field and an alias still glues its string: `--` inside it is
        // its text, not a comment.
        assert!(rendered.contains("\"--x-\""), "{rendered}");
        // Were a comment read after the opening quote, this stray quote would close an
        // empty string.
        assert!(parser.parse("x = \"--\"\n\"\n").is_err());
        assert!(
            imported
                .warnings
                .iter()
                .all(|w| !w.message.contains("_block_string_content"))
        );
    }

    #[test]
    fn nodes_externals_and_extras_map_as_documented() {
        let imported = import(
            r##"{
  "name": "t",
  "word": "identifier",
  "extras": [{"type": "PATTERN", "value": "\\s"}, {"type": "SYMBOL", "name": "comment"}],
  "externals": [
    {"type": "SYMBOL", "name": "_indent"}, {"type": "SYMBOL", "name": "_dedent"},
    {"type": "SYMBOL", "name": "_newline"}, {"type": "SYMBOL", "name": "_str_open"},
    {"type": "SYMBOL", "name": "string_content"}, {"type": "SYMBOL", "name": "heredoc"}
  ],
  "rules": {
    "module": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "stmt"}},
    "stmt": {"type": "CHOICE", "members": [
      {"type": "SEQ", "members": [
        {"type": "FIELD", "name": "f", "content": {"type": "STRING", "value": "if"}},
        {"type": "SYMBOL", "name": "identifier"}, {"type": "STRING", "value": ":"},
        {"type": "SYMBOL", "name": "_indent"}, {"type": "SYMBOL", "name": "block"}]},
      {"type": "SEQ", "members": [
        {"type": "PREC_LEFT", "value": 1, "content": {"type": "SYMBOL", "name": "string"}},
        {"type": "CHOICE", "members": [{"type": "SYMBOL", "name": "heredoc"}, {"type": "BLANK"}]},
        {"type": "SYMBOL", "name": "_newline"}]}]},
    "block": {"type": "SEQ", "members": [
      {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "stmt"}},
      {"type": "SYMBOL", "name": "_dedent"}]},
    "string": {"type": "SEQ", "members": [
      {"type": "ALIAS", "content": {"type": "SYMBOL", "name": "_str_open"}, "named": false, "value": "'"},
      {"type": "REPEAT", "content": {"type": "CHOICE", "members": [
        {"type": "SYMBOL", "name": "string_content"},
        {"type": "IMMEDIATE_TOKEN", "content": {"type": "PREC", "value": 1,
          "content": {"type": "SEQ", "members": [{"type": "STRING", "value": "\\"}, {"type": "PATTERN", "value": "[nt]"}]}}}]}},
      {"type": "IMMEDIATE_TOKEN", "content": {"type": "STRING", "value": "'"}}]},
    "identifier": {"type": "PATTERN", "value": "[a-z\\u00e0-\\u00ff]+(?=\\()"},
    "comment": {"type": "TOKEN", "content": {"type": "SEQ", "members": [
      {"type": "STRING", "value": "#"}, {"type": "PATTERN", "value": ".*"}]}}
  }
}"##,
        );
        assert_eq!(
            rules(&imported),
            r##"%layout auto;
%comment "#";
%reserved;
module = stmt* ;
stmt = "if" identifier ":" NEWLINE INDENT block | string heredoc? NEWLINE ;
block = stmt+ DEDENT ;
string = "'" ( string_content | GLUE /\\[nt]/ )* GLUE "'" ;
heredoc = heredoc ;
string_content = GLUE "a" ;
%pool identifier = /(?:[a-z])+/ ;"##
        );
        let messages: Vec<String> = imported.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("lookarounds are dropped")),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("left out 1 rule(s) that only extras use (comment)"))
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("external token 'heredoc'"))
        );
    }

    /// A grammar whose scanner reads a float and a heredoc, which no naming convention reads.
    const SCANNED: &str = r##"{"name": "t", "rules": {
  "file": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "stmt"}},
  "stmt": {"type": "CHOICE", "members": [
    {"type": "SEQ", "members": [{"type": "STRING", "value": "x"}, {"type": "STRING", "value": "="}, {"type": "SYMBOL", "name": "decimal_literal"}]},
    {"type": "SEQ", "members": [{"type": "STRING", "value": "cat"}, {"type": "SYMBOL", "name": "heredoc_start"}]}]}},
  "externals": [{"type": "SYMBOL", "name": "decimal_literal"}, {"type": "SYMBOL", "name": "heredoc_start"}]}"##;

    /// `grammar.json` and, when given, `grammar.externals.ebnf` in a fresh directory.
    fn with_declaration(declaration: Option<&str>) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let grammar = dir.path().join("grammar.json");
        std::fs::write(&grammar, SCANNED).unwrap();
        if let Some(text) = declaration {
            std::fs::write(dir.path().join("grammar.externals.ebnf"), text).unwrap();
        }
        (dir, grammar)
    }

    /// Issue 31: an external that no convention reads derives nothing until the user declares
    /// its text beside the grammar; then seeds that use it parse, and the import names only
    /// the externals still unread.
    #[test]
    fn a_declared_external_is_read_as_declared() {
        let (_dir, grammar) = with_declaration(None);
        let bare = crate::import::load(&grammar).unwrap();
        assert_eq!(bare.unread_externals, ["decimal_literal", "heredoc_start"]);
        assert!(
            crate::parse::Parser::new(&bare.grammar)
                .parse("x = 1.5")
                .is_err()
        );

        let (_dir, grammar) = with_declaration(Some(
            "# the scanner reads digits on both sides of the point\ndecimal_literal = /[0-9]+\\.[0-9]+/ ;\n",
        ));
        let declared = crate::import::load(&grammar).unwrap();
        assert_eq!(declared.unread_externals, ["heredoc_start"]);
        assert!(
            rules(&declared).contains(r"decimal_literal = /[0-9]+\.[0-9]+/ ;"),
            "{}",
            rules(&declared)
        );
        let parser = crate::parse::Parser::new(&declared.grammar);
        assert!(parser.parse("x = 1.5\nx = 20.25").is_ok());
        assert!(parser.parse("x = 1.").is_err());
        assert!(
            (declared.warnings.iter()).all(|w| !w.message.contains("'decimal_literal'")),
            "a declared external is no longer reported unknown"
        );
    }

    /// An external extra (tree-sitter-ocaml's `comment`) has no text in the grammar; declared
    /// with a literal at each end, it is a block comment, skipped in seeds.
    #[test]
    fn a_declared_external_extra_is_a_comment() {
        let dir = tempfile::tempdir().unwrap();
        let grammar = dir.path().join("grammar.json");
        std::fs::write(
            &grammar,
            r#"{"name": "t", "rules": {"file": {"type": "REPEAT1", "content": {"type": "STRING", "value": "x"}}},
  "extras": [{"type": "PATTERN", "value": "\\s"}, {"type": "SYMBOL", "name": "comment"}],
  "externals": [{"type": "SYMBOL", "name": "comment"}]}"#,
        )
        .unwrap();
        let parse = |seed: &str| {
            let imported = crate::import::load(&grammar).unwrap();
            crate::parse::Parser::new(&imported.grammar)
                .parse(seed)
                .is_ok()
        };
        assert!(!parse("x (* a *) x"));
        std::fs::write(
            dir.path().join("grammar.externals.ebnf"),
            "comment = \"(*\" /[^*]*/ \"*)\" ;\n",
        )
        .unwrap();
        assert!(parse("x (* a *) x"));
    }

    /// A declaration's faults are located in the declaration, where the user fixes them.
    #[test]
    fn a_bad_declaration_is_refused_where_it_is_wrong() {
        let located = |declaration: &str| {
            let (_dir, grammar) = with_declaration(Some(declaration));
            let errors = crate::import::load(&grammar).err().expect("refused");
            let first = errors.errors().next().expect("an error").clone();
            let at = first.location.clone().expect("located");
            assert!(at.path.ends_with("grammar.externals.ebnf"), "{at:?}");
            (at.line, at.column, first.message)
        };
        let (line, column, message) = located("decimal_literal = /1/ ;\nheredoc = \"<<\" ;\n");
        assert_eq!((line, column), (2, 1));
        assert!(
            message.contains("'heredoc' is not an external token")
                && message.contains("decimal_literal, heredoc_start"),
            "{message}"
        );
        let (line, column, message) = located("decimal_literal = /[0-9/ ;\n");
        assert_eq!((line, column), (1, 20));
        assert!(message.contains("invalid regex"), "{message}");
        let (line, _, message) =
            located("decimal_literal = /1/ ;\nheredoc_start = \"<<\" word ;\n");
        assert_eq!(line, 2);
        assert!(message.contains("undefined name 'word'"), "{message}");
        let (line, _, message) = located("%pool word = /[a-z]+/ ;\n");
        assert_eq!(line, 1);
        assert!(message.contains("a pool"), "{message}");
    }

    /// Issue 31, as tree-sitter-rust writes its comments: literal delimiters around scanner
    /// tokens (doc markers, contents) are a line comment and a block comment; a line end the
    /// scanner reads is a newline; a float the scanner reads has the usual spellings.
    #[test]
    fn delimited_comments_line_ends_and_floats_of_a_scanner_are_read() {
        let imported = import(
            r##"{"name": "t", "rules": {
  "file": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "pair"}},
  "pair": {"type": "SEQ", "members": [{"type": "STRING", "value": "x"}, {"type": "STRING", "value": "="},
    {"type": "SYMBOL", "name": "float_literal"}, {"type": "SYMBOL", "name": "_line_ending_or_eof"}]},
  "line_comment": {"type": "SEQ", "members": [{"type": "STRING", "value": "//"},
    {"type": "CHOICE", "members": [{"type": "SYMBOL", "name": "_line_doc_content"}, {"type": "BLANK"}]}]},
  "block_comment": {"type": "SEQ", "members": [{"type": "STRING", "value": "/*"},
    {"type": "CHOICE", "members": [{"type": "SYMBOL", "name": "_block_comment_content"}, {"type": "BLANK"}]},
    {"type": "STRING", "value": "*/"}]}},
  "extras": [{"type": "PATTERN", "value": "\\s"}, {"type": "SYMBOL", "name": "line_comment"}, {"type": "SYMBOL", "name": "block_comment"}],
  "externals": [{"type": "SYMBOL", "name": "float_literal"}, {"type": "SYMBOL", "name": "_line_ending_or_eof"},
    {"type": "SYMBOL", "name": "_line_doc_content"}, {"type": "SYMBOL", "name": "_block_comment_content"}]}"##,
        );
        let text = rules(&imported);
        for line in [r#"%comment "/*" "*/";"#, r#"%comment "//";"#] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        assert!(
            text.contains(r#"pair = "x" "=" float_literal NEWLINE ;"#),
            "{text}"
        );
        assert!(imported.unread_externals.is_empty(), "{text}");
        let parser = crate::parse::Parser::new(&imported.grammar);
        let seed = "x = 1.5\n// one\n/* a\nblock */\nx = 2e10\nx = 1.0f32\n";
        let parsed = parser
            .parse(seed)
            .unwrap_or_else(|e| panic!("{:?}: {}", e.line_col(seed), e.message));
        let skipped: String = parsed.comments.iter().map(|r| &seed[r.clone()]).collect();
        assert!(
            skipped.contains("// one") && skipped.contains("/* a\nblock */"),
            "both comments are skipped: {skipped:?}"
        );
        // The newline is the pair's end: two pairs on one line are not this language.
        assert!(parser.parse("x = 1.5 x = 2.5\n").is_err());
        assert!(
            parser.parse("x = 15\n").is_err(),
            "an integer is not a float"
        );
    }

    /// Issue 31, as tree-sitter-toml-ng writes its multi-line strings: a run opened by a
    /// literal `"""` and closed by the scanner's end token closes with `"""`, so that a seed's
    /// multi-line strings are read, and not closed by a lone `"`.
    #[test]
    fn a_string_the_scanner_closes_closes_with_its_opening_quotes() {
        let imported = import(
            r##"{"name": "t", "rules": {
  "file": {"type": "REPEAT", "content": {"type": "SYMBOL", "name": "string"}},
  "string": {"type": "SEQ", "members": [{"type": "STRING", "value": "\"\"\""},
    {"type": "REPEAT", "content": {"type": "CHOICE", "members": [
      {"type": "IMMEDIATE_TOKEN", "content": {"type": "PATTERN", "value": "[^\"\\\\]+"}},
      {"type": "SYMBOL", "name": "_ml_string_content"}]}},
    {"type": "SYMBOL", "name": "_ml_string_end"}]}},
  "externals": [{"type": "SYMBOL", "name": "_ml_string_content"}, {"type": "SYMBOL", "name": "_ml_string_end"}]}"##,
        );
        assert!(
            rules(&imported).contains(r#"_ml_string_end = GLUE "\"\"\"" ;"#),
            "{}",
            rules(&imported)
        );
        let parser = crate::parse::Parser::new(&imported.grammar);
        assert!(parser.parse("\"\"\"a\nb c\"\"\"").is_ok());
        assert!(parser.parse("\"\"\"a\"").is_err());
    }

    #[test]
    fn a_token_that_takes_the_rest_of_the_line_ends_it() {
        let imported = import(
            r##"{"name": "t", "rules": {
  "file": {"type": "SEQ", "members": [
    {"type": "SYMBOL", "name": "shebang"}, {"type": "STRING", "value": "x"}]},
  "shebang": {"type": "PATTERN", "value": "#!.*"}}}"##,
        );
        assert!(
            rules(&imported).contains(r"shebang = /\#![^\x{A}]*/ NEWLINE ;"),
            "{}",
            rules(&imported)
        );
    }
}
