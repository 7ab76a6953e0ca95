//! A grammar as LibAFL Nautilus rules, so that Nautilus can generate from, and be compared on,
//! exactly the grammars Bonsai uses.
//!
//! Nautilus rules are `[nonterminal, format]` pairs, the first pair's nonterminal being the
//! start, as `libafl::generators::nautilus::NautilusContext::new` takes them. A format is text
//! in which `{Name}` expands a nonterminal and `\{`, `\}` stand for literal braces; nonterminal
//! names match `[A-Z][a-zA-Z0-9_-]*`. Producing strings needs nothing from libafl.

use std::collections::HashSet;

use super::plain::desugar;
use super::text_grammar::{Piece, TextGrammar, ascii_name, text_grammar, unique};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::sampler::Bounds;

/// The nonterminal NautilusContext adds on its own.
const RESERVED: &str = "START";

/// Converts `grammar` into Nautilus rules whose language is the texts Bonsai renders:
///
/// - `?`, `*`, `+` and `{a,b}`, pools and character classes are desugared as
///   `plain::desugar` says: pools offer their first m values (`bounds.idents`), classes their
///   first [`super::CLASS_CAPACITY`] characters. Repetition and nesting are left to Nautilus's
///   own size control; n and d do not apply.
/// - Layout is compiled in (`text_grammar`): every token carries what the layout pass writes
///   before it, the `%layout` separator between tokens on a line (for `auto`, decided exactly
///   as `auto` decides, from the previous token's last character and whether it was a control
///   keyword), nothing inside a lexical token or after a `GLUE`.
/// - `NEWLINE` writes `\n`, and the next token is indented by one `%indent` per open
///   `INDENT`; `INDENT` and `DEDENT` write nothing. At most [`super::MAX_INDENT_LEVEL`]
///   levels are tracked: an `INDENT` beyond them is never generated.
/// - One difference remains: a `NEWLINE` that is the last text of a lexical token (which no
///   shipped grammar has) is followed by a separator here, by indentation in Bonsai.
///
/// Fails if the start rule derives no text within the tracked indentation depth.
pub fn nautilus_rules(grammar: &Grammar, bounds: Bounds) -> Result<Vec<Vec<String>>, Diagnostic> {
    let text = text_grammar(&desugar(grammar, bounds), &grammar.layout);
    if text.rules[0].alternatives.is_empty() {
        return Err(Diagnostic::error(format!(
            "grammar '{}' derives no text that Nautilus rules can express",
            grammar.name
        )));
    }
    Ok(formats(&text))
}

fn formats(text: &TextGrammar) -> Vec<Vec<String>> {
    let mut taken: HashSet<String> = HashSet::from([RESERVED.to_string()]);
    let names: Vec<String> = text
        .rules
        .iter()
        .map(|rule| unique(nonterminal_name(&rule.name), &mut taken))
        .collect();
    // A backslash right before `{Name}` would escape the brace, so a text ending in one
    // writes its last backslash through this rule instead.
    let backslash = unique("Backslash".to_string(), &mut taken);
    let mut needs_backslash = false;
    let mut rules = Vec::new();
    for (rule, name) in text.rules.iter().zip(&names) {
        for alternative in &rule.alternatives {
            let mut format = String::new();
            for (i, piece) in alternative.iter().enumerate() {
                match piece {
                    Piece::Text(t) => {
                        let before_reference =
                            matches!(alternative.get(i + 1), Some(Piece::Rule(_)));
                        match t.strip_suffix('\\') {
                            Some(head) if before_reference => {
                                escape_into(head, &mut format);
                                format.push_str(&format!("{{{backslash}}}"));
                                needs_backslash = true;
                            }
                            _ => escape_into(t, &mut format),
                        }
                    }
                    Piece::Rule(r) => {
                        format.push('{');
                        format.push_str(&names[*r]);
                        format.push('}');
                    }
                }
            }
            rules.push(vec![name.clone(), format]);
        }
    }
    if needs_backslash {
        rules.push(vec![backslash, "\\".to_string()]);
    }
    rules
}

/// Braces are escaped; a backslash needs no escape except before a reference (see above).
fn escape_into(text: &str, format: &mut String) {
    for c in text.chars() {
        if matches!(c, '{' | '}') {
            format.push('\\');
        }
        format.push(c);
    }
}

/// `[A-Z][a-zA-Z0-9_-]*`: other characters become `_`, and a name not starting with a capital
/// letter gets one (`value` becomes `Value`, `_x` becomes `N_x`).
fn nonterminal_name(name: &str) -> String {
    let mut out = ascii_name(name);
    match out.chars().next() {
        Some(c) if c.is_ascii_lowercase() => {
            out.replace_range(..1, &c.to_ascii_uppercase().to_string())
        }
        Some(c) if c.is_ascii_uppercase() => {}
        _ => out.insert(0, 'N'),
    }
    out
}
