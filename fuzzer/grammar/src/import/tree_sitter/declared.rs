//! The user's reading of external tokens: `GRAMMAR.externals.ebnf` beside `GRAMMAR.json`.
//!
//! A scanner's token that no naming convention reads (tree-sitter-rust's `float_literal`,
//! tree-sitter-bash's `heredoc_start`) is otherwise a rule that derives nothing, so every
//! alternative that needs it is lost and every seed that uses it is refused. The user knows
//! what the scanner reads, and says it in the native grammar format, one rule per external:
//!
//! ```text
//! # tree-sitter-rust's scanner reads a float with digits on both sides of the point
//! float_literal = /[0-9]+\.[0-9]+/ ;
//! _raw_string_literal_start = "r#\"" ;
//! ```
//!
//! An external that is an extra (tree-sitter-ocaml's `comment`) is skipped as declared: a
//! literal at each end (`comment = "(*" /[^*]*/ "*)" ;`) makes a block comment, a lone regex a
//! skipped token.
//!
//! A body may use anything a native rule body may (literals, regexes, classes, `GLUE`,
//! `NEWLINE`, the grammar's own rules), and it replaces both the built-in reading and the
//! "text unknown" fallback. The file is found by its name, so every command that loads the
//! grammar (`import`, `generate --replay`, `grammar check`, a harness `cargo bonsai init`
//! made) reads the same language. Every fault is located in the declaration itself: a rule
//! naming no external of the grammar, a malformed regex, an undefined name.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::grammar::LayoutToken;
use crate::grammar::syntax::{Expr, GrammarFile};

/// Where the declaration of `grammar`'s externals is, whether or not it exists:
/// `grammar.json` has `grammar.externals.ebnf`.
pub fn path_for(grammar: &Path) -> PathBuf {
    let stem = grammar.file_stem().map_or_else(
        || "grammar".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    grammar.with_file_name(format!("{stem}.externals.ebnf"))
}

/// The declared bodies by external name, read from `source` and checked against the
/// grammar's `externals` (their names) and `known` (every name a body may use).
pub fn read(
    source: &SourceFile,
    externals: &HashSet<String>,
    known: &HashSet<String>,
) -> Result<HashMap<String, Expr>, Diagnostics> {
    let file = crate::grammar::parser::parse(source)?;
    let mut errors = Vec::new();
    only_rules(source, &file, &mut errors);
    let mut declared = HashMap::new();
    for rule in file.rules {
        if !externals.contains(&rule.name) {
            let mut names: Vec<&str> = externals.iter().map(String::as_str).collect();
            names.sort_unstable();
            let listed = if names.is_empty() {
                "the grammar has none".to_string()
            } else {
                format!("its externals are: {}", names.join(", "))
            };
            errors.push(source.error(
                rule.name_span,
                format!(
                    "'{}' is not an external token of the grammar; {listed}",
                    rule.name
                ),
            ));
            continue;
        }
        if declared.contains_key(&rule.name) {
            errors.push(source.error(
                rule.name_span,
                format!("external '{}' is declared twice", rule.name),
            ));
            continue;
        }
        check(source, &rule.body, known, &mut errors);
        declared.insert(rule.name, rule.body);
    }
    if errors.is_empty() {
        Ok(declared)
    } else {
        Err(Diagnostics(errors))
    }
}

/// A declaration reads externals and nothing else: settings and pools belong to the grammar.
fn only_rules(source: &SourceFile, file: &GrammarFile, errors: &mut Vec<Diagnostic>) {
    let mut misplaced = |span: Span, what: &str| {
        errors.push(source.error(
            span,
            format!("{what} is not part of a declaration of external tokens (only `name = body ;` rules are)"),
        ));
    };
    for pool in &file.pools {
        misplaced(pool.name_span, "a pool");
    }
    if let Some((_, span)) = &file.start {
        misplaced(*span, "%start");
    }
    if let Some((_, span)) = &file.depth {
        misplaced(*span, "%depth");
    }
    let settings = file.layout.is_some()
        || file.indent.is_some()
        || !file.comments.is_empty()
        || file.reserved.is_some();
    if settings {
        // These settings keep no span; the file's first line is where to look.
        misplaced(
            Span::new(0, 0),
            "a setting (%layout, %indent, %comment, %reserved)",
        );
    }
}

/// Regexes compile and names are defined, each fault located in the declaration: once merged
/// into the imported grammar, a body's faults could only be located in the grammar file.
fn check(source: &SourceFile, expr: &Expr, known: &HashSet<String>, errors: &mut Vec<Diagnostic>) {
    match expr {
        Expr::Alt(items, _) | Expr::Seq(items, _) => {
            for item in items {
                check(source, item, known, errors);
            }
        }
        Expr::Quantified { inner, .. } => check(source, inner, known, errors),
        Expr::Literal(..) => {}
        Expr::Regex(pattern, span) | Expr::Class(pattern, span) => {
            if let Err(fault) = crate::grammar::regex::parse(pattern) {
                // The span covers the pattern between its delimiters; the fault's offset is
                // within the pattern as written.
                let verbatim = (span.end - span.start) as usize == pattern.len();
                let at = span.start as usize + if verbatim { fault.offset } else { 0 };
                errors.push(source.error(Span::new(at, at + 1), fault.message));
            }
        }
        Expr::Name(name, span) => {
            if LayoutToken::from_name(name).is_none() && !known.contains(name) {
                errors.push(source.error(
                    *span,
                    format!("undefined name '{name}': a declared external may use the grammar's rules and externals, and layout tokens"),
                ));
            }
        }
    }
}

/// `expr` with every span set to `span`: a declared body joins a grammar whose diagnostics are
/// located in the grammar file, where its external is listed.
pub fn respanned(expr: Expr, span: Span) -> Expr {
    match expr {
        Expr::Alt(items, _) => Expr::Alt(
            items.into_iter().map(|e| respanned(e, span)).collect(),
            span,
        ),
        Expr::Seq(items, _) => Expr::Seq(
            items.into_iter().map(|e| respanned(e, span)).collect(),
            span,
        ),
        Expr::Quantified {
            inner,
            min,
            max,
            optional,
            ..
        } => Expr::Quantified {
            inner: Box::new(respanned(*inner, span)),
            min,
            max,
            optional,
            span,
        },
        Expr::Literal(text, _) => Expr::Literal(text, span),
        Expr::Regex(text, _) => Expr::Regex(text, span),
        Expr::Class(text, _) => Expr::Class(text, span),
        Expr::Name(text, _) => Expr::Name(text, span),
    }
}
