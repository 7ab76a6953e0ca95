//! fuzzingbook grammars: a JSON object mapping `"<nonterminal>"` to a list of expansion
//! strings, the format of the grammars behind the book's coverage figures. Accepted bare or
//! wrapped as `{"start": "<start>", "source": ..., "grammar": {...}}`.
//!
//! An expansion is text in which every `<name>` without spaces or angle brackets inside is a
//! nonterminal and everything else is literal, so `"<term> + <expr>"` is
//! `<term> " + " <expr>`. Nothing separates tokens (`%layout none`): the text is exactly the
//! concatenation, as in the book.
//!
//! The EBNF suffixes follow fuzzingbook's `convert_ebnf_grammar`: `?`, `*` or `+` right after
//! a nonterminal applies to it, and `(...)` followed by one of them is a group, innermost
//! groups first, so `((<a>)?<b>)*` nests. Parentheses without a suffix, and a suffix after
//! literal text, are literal. Nonterminals are recognised before parentheses, so a name never
//! contains a group. Unlike the book, which rewrites `<x>*` into a fresh recursive rule, the
//! suffixes stay native `?`, `*`, `+`, so the bound n applies to them.
//!
//! An expansion may be a `[text, {options}]` pair, as fuzzingbook's attribute grammars write
//! them; the options (probabilities, pre- and post-conditions) are Python functions or
//! numbers this tool cannot run, so they are ignored with a warning.

use std::collections::{HashMap, HashSet};

use jsonc_parser::ast::{Object, StringLit, Value};

use super::Foreign;
use super::json_text::{describe, expect_object, expect_string, offset_in_string, span_of};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::grammar::syntax::{Expr, GrammarFile, LayoutSetting, MAX_NESTING, RuleDef, too_deep};

pub fn import(source: &SourceFile, root: &Value, name: String) -> Result<Foreign, Diagnostics> {
    let top = expect_object(source, root, "a fuzzingbook grammar")?;
    let (grammar, start) = match top.get("grammar") {
        Some(inner) => {
            let grammar = expect_object(source, &inner.value, "the \"grammar\" dictionary")?;
            let start = match top.get("start") {
                Some(s) => Some(expect_string(source, &s.value, "the start symbol")?),
                None => None,
            };
            (grammar, start)
        }
        None => (top, None),
    };
    let mut importer = Importer {
        source,
        names: HashMap::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    importer.assign_names(grammar)?;
    let mut file = GrammarFile {
        layout: Some(LayoutSetting::Named("none".to_string(), Span::default())),
        ..GrammarFile::default()
    };
    for property in &grammar.properties {
        let key = property.name.as_str();
        // Keys that are not nonterminals were reported by assign_names.
        let Some(native) = importer.names.get(key).cloned() else {
            continue;
        };
        if let Some(body) = importer.expansions(key, span_of(&property.name), &property.value) {
            file.rules.push(RuleDef {
                name: native,
                name_span: span_of(&property.name),
                body,
            });
        }
    }
    file.start = importer.start(grammar, start);
    if !importer.errors.is_empty() {
        return Err(Diagnostics(importer.errors));
    }
    Ok(Foreign {
        name,
        file,
        warnings: importer.warnings,
        unread_externals: Vec::new(),
    })
}

struct Importer<'s> {
    source: &'s SourceFile,
    /// Native name of every nonterminal.
    names: HashMap<String, String>,
    warnings: Vec<Diagnostic>,
    errors: Vec<Diagnostic>,
}

/// Whether `key` is a nonterminal as fuzzingbook's `<[^<> ]*>` defines it.
fn is_nonterminal(key: &str) -> bool {
    key.len() >= 2
        && key.starts_with('<')
        && key.ends_with('>')
        && !key[1..key.len() - 1].contains(['<', '>', ' '])
}

/// The native spelling of `<name>`: letters, digits, `_` and `-` (not first) are kept, any
/// other character becomes `_`.
fn native_name(key: &str) -> String {
    let inner = &key[1..key.len() - 1];
    let mut out: String = inner
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if c.is_alphanumeric() || c == '_' || (c == '-' && i > 0) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push('_');
    }
    format!("<{out}>")
}

impl Importer<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(self.source.error(span, message));
    }

    fn assign_names(&mut self, grammar: &Object) -> Result<(), Diagnostic> {
        if grammar.properties.is_empty() {
            return Err(self
                .source
                .error(span_of(grammar), "the grammar defines no nonterminals"));
        }
        let mut taken = HashSet::new();
        for property in &grammar.properties {
            let key = property.name.as_str();
            if !is_nonterminal(key) {
                self.error(
                    span_of(&property.name),
                    format!("\"{key}\" is not a nonterminal: keys must look like \"<name>\", with no spaces or angle brackets inside"),
                );
                continue;
            }
            let mut native = native_name(key);
            while !taken.insert(native.clone()) {
                native.insert(native.len() - 1, '_');
            }
            self.names.insert(key.to_string(), native);
        }
        Ok(())
    }

    fn start(&mut self, grammar: &Object, start: Option<&StringLit>) -> Option<(String, Span)> {
        let (key, span) = match start {
            Some(lit) => (lit.value.to_string(), span_of(lit)),
            // Bare dictionaries start at <start>, as fuzzingbook's START_SYMBOL says.
            None if grammar.get("<start>").is_some() => ("<start>".to_string(), Span::default()),
            None => return None,
        };
        match self.names.get(&key) {
            Some(native) => Some((native.clone(), span)),
            None => {
                self.error(span, format!("the start symbol {key:?} is not defined"));
                None
            }
        }
    }

    fn expansions(&mut self, key: &str, key_span: Span, value: &Value) -> Option<Expr> {
        let Some(list) = value.as_array() else {
            self.error(
                span_of(value),
                format!(
                    "the expansions of {key} must be a list of strings, found {}",
                    describe(value)
                ),
            );
            return None;
        };
        if list.elements.is_empty() {
            self.error(key_span, format!("{key} has no expansions"));
            return None;
        }
        let mut alternatives = Vec::new();
        for item in &list.elements {
            let text = match item {
                Value::StringLit(lit) => lit,
                Value::Array(pair) => match pair.elements.as_slice() {
                    [Value::StringLit(lit), options] => {
                        self.warnings.push(self.source.warning(
                            span_of(options),
                            "expansion options (probabilities, pre- and post-conditions) are ignored",
                        ));
                        lit
                    }
                    [Value::StringLit(lit)] => lit,
                    _ => {
                        self.error(
                            span_of(item),
                            "an expansion given as a list must be [\"text\", {options}]",
                        );
                        continue;
                    }
                },
                other => {
                    self.error(
                        span_of(other),
                        format!("an expansion must be a string, found {}", describe(other)),
                    );
                    continue;
                }
            };
            alternatives.push(self.expansion(text));
        }
        match alternatives.len() {
            1 => alternatives.pop(),
            _ => Some(Expr::Alt(alternatives, span_of(value))),
        }
    }

    fn expansion(&mut self, lit: &StringLit) -> Expr {
        let text = lit.value.as_ref();
        let at = |offset: usize| offset_in_string(self.source, lit, offset);
        // Nonterminals first, then characters.
        let mut pieces = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            if rest.starts_with('<')
                && let Some(close) = rest[1..].find(['<', '>', ' '])
                && rest.as_bytes()[1 + close] == b'>'
            {
                let name = &rest[..close + 2];
                pieces.push(Piece::Nonterminal(
                    name.to_string(),
                    Span::new(at(i), at(i + name.len())),
                ));
                i += name.len();
                continue;
            }
            let c = rest.chars().next().unwrap_or_default();
            pieces.push(Piece::Char(c, at(i)));
            i += c.len_utf8();
        }
        let pieces = match groups(pieces) {
            Ok(pieces) => pieces,
            Err(span) => {
                self.error(span, too_deep("this group"));
                return Expr::Seq(Vec::new(), span_of(lit));
            }
        };
        let span = span_of(lit);
        Expr::Seq(self.sequence(&pieces), span)
    }

    fn sequence(&mut self, pieces: &[Piece]) -> Vec<Expr> {
        let mut items = Vec::new();
        let mut literal = String::new();
        let mut literal_span: Option<Span> = None;
        let flush = |items: &mut Vec<Expr>, literal: &mut String, span: &mut Option<Span>| {
            if let Some(s) = span.take() {
                items.push(Expr::Literal(std::mem::take(literal), s));
            }
        };
        let mut k = 0;
        while k < pieces.len() {
            match &pieces[k] {
                Piece::Char(c, offset) => {
                    literal.push(*c);
                    let here = Span::new(*offset, offset + c.len_utf8());
                    literal_span = Some(literal_span.map_or(here, |s| s.to(here)));
                    k += 1;
                }
                Piece::Nonterminal(name, span) => {
                    flush(&mut items, &mut literal, &mut literal_span);
                    let reference = match self.names.get(name) {
                        Some(native) => Expr::Name(native.clone(), *span),
                        None => {
                            self.error(*span, format!("undefined nonterminal '{name}'"));
                            Expr::Seq(Vec::new(), *span)
                        }
                    };
                    let op = match pieces.get(k + 1) {
                        Some(Piece::Char(op @ ('?' | '*' | '+'), _)) => Some(*op),
                        _ => None,
                    };
                    items.push(match op {
                        Some(op) => {
                            k += 1;
                            quantified(reference, op, *span)
                        }
                        None => reference,
                    });
                    k += 1;
                }
                Piece::Group(inner, op, span, _) => {
                    flush(&mut items, &mut literal, &mut literal_span);
                    let mut body = self.sequence(inner);
                    // `(<a>)?` is `<a>?`: a lone item needs no group of its own.
                    let body = match body.len() {
                        1 => body.remove(0),
                        _ => Expr::Seq(body, *span),
                    };
                    items.push(quantified(body, *op, *span));
                    k += 1;
                }
            }
        }
        flush(&mut items, &mut literal, &mut literal_span);
        items
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

#[derive(Clone, Debug)]
enum Piece {
    /// A character of literal text, with its offset in the file.
    Char(char, usize),
    Nonterminal(String, Span),
    /// `( ... )op`, and how deeply groups nest in it (1 for a group of plain pieces).
    Group(Vec<Piece>, char, Span, usize),
}

/// Folds innermost `( ... )` followed by `?`, `*` or `+` into groups until none is left, as
/// fuzzingbook's repeated `\([^()]*\)[?+*]` rewriting does. A group nested deeper than
/// [`MAX_NESTING`] is refused (`Err` is its span): building its expression recurses.
fn groups(mut pieces: Vec<Piece>) -> Result<Vec<Piece>, Span> {
    loop {
        let mut open = None;
        let mut found = None;
        for (i, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Char('(', _) => open = Some(i),
                Piece::Char(')', _) => {
                    if let Some(o) = open
                        && let Some(Piece::Char(op @ ('?' | '*' | '+'), _)) = pieces.get(i + 1)
                    {
                        found = Some((o, i, *op));
                        break;
                    }
                    open = None;
                }
                _ => {}
            }
        }
        let Some((o, c, op)) = found else {
            return Ok(pieces);
        };
        let start = match &pieces[o] {
            Piece::Char(_, offset) => *offset,
            _ => 0,
        };
        let end = match &pieces[c + 1] {
            Piece::Char(_, offset) => offset + 1,
            _ => start,
        };
        let inner: Vec<Piece> = pieces[o + 1..c].to_vec();
        let depth = 1 + inner
            .iter()
            .map(|p| match p {
                Piece::Group(.., depth) => *depth,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let span = Span::new(start, end);
        if depth > MAX_NESTING {
            return Err(span);
        }
        pieces.splice(o..c + 2, [Piece::Group(inner, op, span, depth)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(pieces: &[Piece]) -> String {
        pieces
            .iter()
            .map(|p| match p {
                Piece::Char(c, _) => c.to_string(),
                Piece::Nonterminal(n, _) => n.clone(),
                Piece::Group(inner, op, ..) => format!("[{}]{op}", shape(inner)),
            })
            .collect()
    }

    fn chars(text: &str) -> Vec<Piece> {
        text.chars().map(|c| Piece::Char(c, 0)).collect()
    }

    #[test]
    fn groups_fold_innermost_first_like_fuzzingbook() {
        assert_eq!(shape(&groups(chars("((a)?b)*")).unwrap()), "[[a]?b]*");
        assert_eq!(shape(&groups(chars("(a)b")).unwrap()), "(a)b");
        assert_eq!(shape(&groups(chars("((a)b)*")).unwrap()), "((a)b)*");
        assert_eq!(shape(&groups(chars("x(a)+(b)?")).unwrap()), "x[a]+[b]?");
    }

    #[test]
    fn names_become_native() {
        assert_eq!(native_name("<symbol-1-1>"), "<symbol-1-1>");
        assert_eq!(native_name("<a.b>"), "<a_b>");
        assert_eq!(native_name("<>"), "<_>");
        assert!(is_nonterminal("<x-1>"));
        assert!(!is_nonterminal("<a b>"));
        assert!(!is_nonterminal("start"));
    }
}
