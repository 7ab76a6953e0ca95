//! The message for a rejected text: where the last surviving parse stopped, what stood there,
//! and what the grammar would have accepted instead.
//!
//! Expectations are named at the level a user writes tokens: a lexical rule by its name
//! (`STRING`), not by the first character inside it, unless the failure is in the middle of
//! that token, where the characters it could continue with are listed.

use super::ParseError;
use super::chart::Chart;
use super::input::{ParseInput, marker_name};
use super::scanner::{Scanner, char_at};
use super::table::{Next, Origin, ParseTable};
use crate::grammar::{CharClass, Grammar, LayoutToken, Terminal, TerminalId};

/// Longer lists of expectations are cut, ending in "...".
const MAX_LISTED: usize = 16;

pub(crate) fn explain(
    table: &ParseTable,
    scanner: &Scanner<'_>,
    chart: &Chart,
    input: &ParseInput,
) -> ParseError {
    let grammar = scanner.grammar();
    let at = chart.last_position().unwrap_or(0);
    let mut expected: Vec<String> = Vec::new();
    for item in &chart.items_at(table, at) {
        let dot = table.dot(item.dot);
        let in_token = table.nonterminal(table.lhs(item.dot)).token;
        match dot.next {
            Next::Terminal(t) if grammar.terminal(t) == &Terminal::Layout(LayoutToken::Glue) => {}
            Next::Terminal(t) if !in_token || (item.origin as usize) < at => {
                expected.push(describe_terminal(grammar, t));
            }
            Next::End if !in_token => expected.push("end of input".into()),
            Next::Nonterminal(nt) if !in_token && table.nonterminal(nt).token => {
                match table.nonterminal(nt).origin {
                    Origin::Rule(rule) | Origin::Operand(rule) if grammar.rule(rule).is_named() => {
                        expected.push(grammar.rule(rule).name.clone());
                    }
                    _ => first_terminals(table, grammar, nt, &mut expected),
                }
            }
            Next::Nonterminal(nt) if in_token && (item.origin as usize) < at => {
                first_terminals(table, grammar, nt, &mut expected);
            }
            _ => {}
        }
    }
    expected.sort();
    expected.dedup();

    let units = &input.units[..];
    if let Some(error) = unknown_pool_word(table, scanner, chart, input, at) {
        return error;
    }
    let found = describe_found(units, at);
    let message = match expected.len() {
        0 => format!("unexpected {found}"),
        1 => format!("unexpected {found}; expected {}", expected[0]),
        _ => {
            let mut list = expected
                .iter()
                .take(MAX_LISTED)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if expected.len() > MAX_LISTED {
                list.push_str(", ...");
            }
            format!("unexpected {found}; expected one of: {list}")
        }
    };
    ParseError::at(input.offset(at), message)
}

/// How far back a word of a pool's language may start and still explain a failure: the
/// parse may have read a prefix of an unknown word (`fo` of `foo`) as a value.
const WORD_REACH: usize = 64;

/// A word of a pool's language that covers the failure position, starts where the pool was
/// expected, and is not one of the pool's values: the likely cause, named as such.
fn unknown_pool_word(
    table: &ParseTable,
    scanner: &Scanner<'_>,
    chart: &Chart,
    input: &ParseInput,
    at: usize,
) -> Option<ParseError> {
    let grammar = scanner.grammar();
    let units = &input.units[..];
    for start in (at.saturating_sub(WORD_REACH)..=at).rev() {
        for item in &chart.items_at(table, start) {
            let Next::Terminal(t) = table.dot(item.dot).next else {
                continue;
            };
            let Terminal::Pool(pool) = grammar.terminal(t) else {
                continue;
            };
            let Some(end) = scanner.unknown_word(*pool, units, start) else {
                continue;
            };
            if end <= at && start < at {
                continue;
            }
            let word = String::from_utf8_lossy(&units[start..end]);
            let pool = &grammar.pools[pool.index()];
            let shown: Vec<&str> = pool.values.iter().take(6).map(String::as_str).collect();
            let more = if pool.values.len() > shown.len() {
                format!(", ... {} in all", pool.values.len())
            } else {
                String::new()
            };
            return Some(ParseError::at(
                input.offset(start),
                format!(
                    "'{word}' is not a value of pool {} (values: {}{more}); `bonsai import --rename-pools` renames such words",
                    pool.name,
                    shown.join(", ")
                ),
            ));
        }
    }
    None
}

fn first_terminals(table: &ParseTable, grammar: &Grammar, nt: u32, out: &mut Vec<String>) {
    for &d in &table.closure[nt as usize] {
        if let Next::Terminal(t) = table.dot(d).next {
            out.push(describe_terminal(grammar, t));
        }
    }
}

fn describe_terminal(grammar: &Grammar, t: TerminalId) -> String {
    match grammar.terminal(t) {
        Terminal::Literal(s) => format!("{s:?}"),
        Terminal::Class(class) => describe_class(class),
        Terminal::Pool(p) => grammar.pools[p.index()].name.clone(),
        Terminal::Layout(token) => token.name().to_string(),
    }
}

/// A class in regex notation, `[a-z_]`.
fn describe_class(class: &CharClass) -> String {
    let escape = |c: char, out: &mut String| {
        if matches!(c, '[' | ']' | '-' | '\\' | '^') {
            out.push('\\');
        }
        out.extend(c.escape_debug());
    };
    let mut out = String::from("[");
    for &(a, b) in class.ranges() {
        escape(a, &mut out);
        if b != a {
            out.push('-');
            escape(b, &mut out);
        }
    }
    out.push(']');
    out
}

fn describe_found(units: &[u8], at: usize) -> String {
    if at >= units.len() {
        return "end of input".into();
    }
    if let Some(name) = marker_name(units[at]) {
        return match name {
            "NEWLINE" => "end of line".into(),
            "INDENT" => "indentation".into(),
            _ => "dedent".into(),
        };
    }
    let Some((c, _)) = char_at(units, at) else {
        return format!("byte 0x{:02x}", units[at]);
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if !is_word(c) {
        return format!("'{}'", c.escape_debug());
    }
    let mut word = String::new();
    let mut pos = at;
    while let Some((c, len)) = char_at(units, pos).filter(|&(c, _)| is_word(c)) {
        word.push(c);
        pos += len;
        if word.len() >= 40 {
            break;
        }
    }
    format!("'{word}'")
}
