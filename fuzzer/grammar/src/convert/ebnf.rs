//! Any [`Grammar`] as native EBNF text, so that an imported grammar can be read and edited by
//! hand and loaded again.
//!
//! The text re-lowers to the same structure, rule for rule, group for group, terminal for
//! terminal, in the same order (and so with the same fingerprint and the same generated
//! inputs per seed): groups are written inline as `( ... )`, repetitions as `*`, `+` or
//! `{a,b}`, classes as `[...]`, pools as `%pool` with their regex when they have one.
//!
//! Two shapes have no direct spelling and get a form that lowers to them:
//!
//! - A lexical group inside a syntax rule, which only a regex terminal produces, is written
//!   as that regex `/.../` again.
//! - A rule whose whole body is one parenthesised alternation would be read back as a rule
//!   with those alternatives, not as a rule holding a group. A lexical rule writes the body as
//!   the regex it came from (`INT = /0|[1-9][0-9]*/`); any other writes `( a | b ) ""`: the
//!   empty literal generates nothing but keeps the group a group.
//!
//! A regex form is used only after lowering it alone and comparing the result with the
//! original group; when they differ the group is written as `( ... )`.

use std::collections::HashSet;
use std::fmt::Write;

use crate::grammar::{
    Alternative, CharClass, Comment, Grammar, LayoutToken, RuleId, Separator, Symbol, Terminal,
    is_lexical_name,
};

/// The grammar as native EBNF.
pub fn to_ebnf(grammar: &Grammar) -> String {
    Writer::new(grammar).write()
}

struct Writer<'g> {
    grammar: &'g Grammar,
    /// Native names of named rules, then of pools.
    rule_names: Vec<String>,
    pool_names: Vec<String>,
}

/// Whether `name` can be written as is: `name`, `name-with-dashes`, `<name>`, and not a
/// layout token.
fn is_native_name(name: &str) -> bool {
    let word = |w: &str, first_alpha: bool| {
        let mut chars = w.chars();
        chars.next().is_some_and(|c| {
            (if first_alpha {
                c.is_alphabetic()
            } else {
                c.is_alphanumeric()
            }) || c == '_'
        }) && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    let valid = match name.strip_prefix('<').and_then(|n| n.strip_suffix('>')) {
        Some(inner) => word(inner, false),
        None => word(name, true),
    };
    valid && LayoutToken::from_name(name).is_none()
}

/// A native spelling of `name` that keeps its lexical-ness.
fn native_name(name: &str, lexical: bool, taken: &mut HashSet<String>) -> String {
    let mut out = if is_native_name(name) {
        name.to_string()
    } else if LayoutToken::from_name(name).is_some() {
        format!("{name}_")
    } else {
        let cleaned: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("_{}", cleaned.trim_start_matches('-'))
    };
    if lexical && !is_lexical_name(&out) {
        out = format!("X{out}");
    } else if !lexical && is_lexical_name(&out) {
        out = format!("_{out}");
    }
    let base = out.clone();
    let mut n = 1;
    while !taken.insert(out.clone()) {
        out = format!("{base}_{n}");
        n += 1;
    }
    out
}

impl<'g> Writer<'g> {
    fn new(grammar: &'g Grammar) -> Self {
        let mut taken = HashSet::new();
        // Valid names keep their spelling even when a later invalid one would clean into it.
        for rule in &grammar.rules[..grammar.named_rules] {
            if is_native_name(&rule.name) && is_lexical_name(&rule.name) == rule.lexical {
                taken.insert(rule.name.clone());
            }
        }
        for pool in &grammar.pools {
            if is_native_name(&pool.name) {
                taken.insert(pool.name.clone());
            }
        }
        let mut fresh = |name: &str, lexical: Option<bool>| {
            let keeps = is_native_name(name) && lexical.is_none_or(|l| is_lexical_name(name) == l);
            if keeps {
                name.to_string()
            } else {
                native_name(name, lexical.unwrap_or(false), &mut taken)
            }
        };
        let rule_names = grammar.rules[..grammar.named_rules]
            .iter()
            .map(|r| fresh(&r.name, Some(r.lexical)))
            .collect();
        let pool_names = grammar.pools.iter().map(|p| fresh(&p.name, None)).collect();
        Self {
            grammar,
            rule_names,
            pool_names,
        }
    }

    fn write(&self) -> String {
        let g = self.grammar;
        let mut out = String::new();
        out.push_str("# Native EBNF written by `bonsai grammar convert`.\n");
        if g.start.index() != 0 {
            let _ = writeln!(out, "%start {};", self.rule_names[g.start.index()]);
        }
        let layout = match &g.layout.separator {
            Separator::Auto => "auto".to_string(),
            Separator::Text(t) if t.is_empty() => "none".to_string(),
            Separator::Text(t) if t == " " => "space".to_string(),
            Separator::Text(t) if t == "\n" => "newline".to_string(),
            Separator::Text(t) => quote(t),
        };
        let _ = writeln!(out, "%layout {layout};");
        if g.layout.indent != crate::grammar::Layout::default().indent {
            let _ = writeln!(out, "%indent {};", quote(&g.layout.indent));
        }
        if g.depth != crate::grammar::DepthMeasure::default() {
            let _ = writeln!(out, "%depth {};", g.depth);
        }
        for comment in &g.layout.comments {
            let _ = match comment {
                Comment::Line(open) => writeln!(out, "%comment {};", quote(open)),
                Comment::Block { open, close } => {
                    writeln!(out, "%comment {} {};", quote(open), quote(close))
                }
            };
        }
        if let Some(reserved) = &g.reserved {
            let words: Vec<String> = reserved.iter().map(|w| format!(" {}", quote(w))).collect();
            let _ = writeln!(out, "%reserved{};", words.concat());
        }
        out.push('\n');
        for r in 0..g.named_rules {
            let name = &self.rule_names[r];
            let alternatives = self.body(RuleId(r as u32));
            let one_line = format!("{name} = {} ;", alternatives.join(" | "));
            if one_line.chars().count() <= 100 || alternatives.len() == 1 {
                out.push_str(&one_line);
            } else {
                let pad = " ".repeat(name.chars().count() + 1);
                let _ = write!(out, "{name} = {}", alternatives[0]);
                for alt in &alternatives[1..] {
                    let _ = write!(out, "\n{pad}| {alt}");
                }
                out.push_str(" ;");
            }
            out.push('\n');
        }
        if !g.pools.is_empty() {
            out.push('\n');
        }
        for (p, pool) in g.pools.iter().enumerate() {
            let source = match &pool.pattern {
                Some(pattern) => format!("/{}/", delimit_regex(pattern)),
                None => pool
                    .values
                    .iter()
                    .map(|v| quote(v))
                    .collect::<Vec<_>>()
                    .join(" | "),
            };
            let _ = writeln!(out, "%pool {} = {source} ;", self.pool_names[p]);
        }
        out
    }

    /// The alternatives of a named rule, each as text.
    fn body(&self, id: RuleId) -> Vec<String> {
        let rule = self.grammar.rule(id);
        if let [alternative] = rule.alternatives.as_slice()
            && let [Symbol::Rule(group)] = alternative.symbols.as_slice()
            && !self.grammar.rule(*group).is_named()
            && self.grammar.rule(*group).alternatives.len() > 1
        {
            let inner = self.grammar.rule(*group);
            if inner.lexical
                && rule.lexical
                && let Some(regex) = self.regex_alternatives(&inner.alternatives)
                && self.regex_reproduces(&regex, &alternative.symbols, true)
            {
                return vec![format!("/{}/", delimit_regex(&regex))];
            }
            return vec![format!("{} \"\"", self.group(*group, rule.lexical))];
        }
        rule.alternatives
            .iter()
            .map(|a| self.sequence(&a.symbols, rule.lexical))
            .collect()
    }

    fn sequence(&self, symbols: &[Symbol], lexical: bool) -> String {
        symbols
            .iter()
            .map(|s| self.symbol(s, lexical))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn symbol(&self, symbol: &Symbol, lexical: bool) -> String {
        let g = self.grammar;
        match *symbol {
            Symbol::Terminal(t) => self.terminal(g.terminal(t)),
            Symbol::Rule(id) if g.rule(id).is_named() => self.rule_names[id.index()].clone(),
            Symbol::Rule(id) => {
                if g.rule(id).lexical && !lexical {
                    let regex = self.regex_alternatives(&g.rule(id).alternatives);
                    if let Some(regex) = regex
                        && self.regex_reproduces(&regex, std::slice::from_ref(symbol), false)
                    {
                        return format!("/{}/", delimit_regex(&regex));
                    }
                }
                self.group(id, lexical)
            }
            Symbol::Optional(body) => format!("{}?", self.operand(body, lexical)),
            Symbol::Repeat { body, min, max } => {
                let suffix = match (min, max) {
                    (0, None) => "*".to_string(),
                    (1, None) => "+".to_string(),
                    (a, None) => format!("{{{a},}}"),
                    (a, Some(b)) if a == b => format!("{{{a}}}"),
                    (a, Some(b)) => format!("{{{a},{b}}}"),
                };
                format!("{}{suffix}", self.operand(body, lexical))
            }
        }
    }

    /// The operand of `?`, `*`, `+`: a named rule by name, a one-terminal group bare, any
    /// other group in parentheses.
    fn operand(&self, body: RuleId, lexical: bool) -> String {
        let rule = self.grammar.rule(body);
        if rule.is_named() {
            return self.rule_names[body.index()].clone();
        }
        if let [alternative] = rule.alternatives.as_slice()
            && let [symbol @ Symbol::Terminal(_)] = alternative.symbols.as_slice()
        {
            return self.symbol(symbol, lexical);
        }
        self.group(body, lexical)
    }

    fn group(&self, id: RuleId, outer_lexical: bool) -> String {
        let rule = self.grammar.rule(id);
        let lexical = rule.lexical || outer_lexical;
        let alternatives: Vec<String> = rule
            .alternatives
            .iter()
            .map(|a| self.sequence(&a.symbols, lexical))
            .collect();
        format!("( {} )", alternatives.join(" | "))
    }

    fn terminal(&self, terminal: &Terminal) -> String {
        match terminal {
            Terminal::Literal(text) => quote(text),
            Terminal::Class(class) => class_text(class, false),
            Terminal::Pool(p) => self.pool_names[p.index()].clone(),
            Terminal::Layout(token) => token.name().to_string(),
        }
    }

    /// Alternatives of a lexical group as one regex; `None` if they hold something no regex
    /// can say (a rule name, a pool, a layout token).
    fn regex_alternatives(&self, alternatives: &[Alternative]) -> Option<String> {
        let parts: Option<Vec<String>> = alternatives
            .iter()
            .map(|a| self.regex_sequence(&a.symbols))
            .collect();
        Some(parts?.join("|"))
    }

    fn regex_sequence(&self, symbols: &[Symbol]) -> Option<String> {
        symbols.iter().map(|s| self.regex_symbol(s)).collect()
    }

    fn regex_symbol(&self, symbol: &Symbol) -> Option<String> {
        let g = self.grammar;
        let group = |id: RuleId| -> Option<String> {
            let rule = g.rule(id);
            if rule.is_named() {
                return None;
            }
            Some(format!(
                "(?:{})",
                self.regex_alternatives(&rule.alternatives)?
            ))
        };
        // The operand of a suffix: one character or class bare, anything else grouped.
        let operand = |id: RuleId| -> Option<String> {
            if let [alternative] = g.rule(id).alternatives.as_slice()
                && let [Symbol::Terminal(t)] = alternative.symbols.as_slice()
            {
                match g.terminal(*t) {
                    Terminal::Class(class) => return Some(class_text(class, true)),
                    Terminal::Literal(text) if text.chars().count() == 1 => {
                        return Some(text.chars().map(regex_char).collect());
                    }
                    _ => {}
                }
            }
            group(id)
        };
        Some(match *symbol {
            Symbol::Terminal(t) => match g.terminal(t) {
                Terminal::Literal(text) => text.chars().map(regex_char).collect(),
                Terminal::Class(class) => class_text(class, true),
                Terminal::Pool(_) | Terminal::Layout(_) => return None,
            },
            Symbol::Rule(id) => group(id)?,
            Symbol::Optional(body) => format!("{}?", operand(body)?),
            Symbol::Repeat { body, min, max } => {
                let suffix = match (min, max) {
                    (0, None) => "*".to_string(),
                    (1, None) => "+".to_string(),
                    (a, None) => format!("{{{a},}}"),
                    (a, Some(b)) if a == b => format!("{{{a}}}"),
                    (a, Some(b)) => format!("{{{a},{b}}}"),
                };
                format!("{}{suffix}", operand(body)?)
            }
        })
    }

    /// Whether `/regex/` written where `original` stands lowers to the same structure.
    fn regex_reproduces(&self, regex: &str, original: &[Symbol], lexical: bool) -> bool {
        let name = if lexical { "X" } else { "x" };
        let text = format!("{name} = /{}/ ;", delimit_regex(regex));
        let Ok(scratch) = Grammar::from_text("scratch", &text) else {
            return false;
        };
        let Some(alternative) = scratch.rules[0].alternatives.first() else {
            return false;
        };
        same_symbols(self.grammar, original, &scratch, &alternative.symbols)
    }
}

/// Structural equality of two symbol lists in two grammars: the same terminals, and groups
/// with the same shape, recursively. Named rules are compared by index.
fn same_symbols(ga: &Grammar, a: &[Symbol], gb: &Grammar, b: &[Symbol]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_symbol(ga, x, gb, y))
}

fn same_symbol(ga: &Grammar, a: &Symbol, gb: &Grammar, b: &Symbol) -> bool {
    let same_rule = |x: RuleId, y: RuleId| {
        let (rx, ry) = (ga.rule(x), gb.rule(y));
        if rx.is_named() || ry.is_named() {
            return rx.is_named() && ry.is_named() && x == y;
        }
        rx.lexical == ry.lexical
            && rx.alternatives.len() == ry.alternatives.len()
            && rx
                .alternatives
                .iter()
                .zip(&ry.alternatives)
                .all(|(p, q)| same_symbols(ga, &p.symbols, gb, &q.symbols))
    };
    match (*a, *b) {
        (Symbol::Terminal(x), Symbol::Terminal(y)) => ga.terminal(x) == gb.terminal(y),
        (Symbol::Rule(x), Symbol::Rule(y)) | (Symbol::Optional(x), Symbol::Optional(y)) => {
            same_rule(x, y)
        }
        (
            Symbol::Repeat {
                body: x,
                min: a1,
                max: a2,
            },
            Symbol::Repeat {
                body: y,
                min: b1,
                max: b2,
            },
        ) => a1 == b1 && a2 == b2 && same_rule(x, y),
        _ => false,
    }
}

/// A native literal: `"..."` with the native escapes.
fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One character inside a regex: escaped if regex-syntax or the `/` delimiter would read it
/// otherwise, `\x{..}` if it is invisible (or, beyond ASCII, no letter or digit).
fn regex_char(c: char) -> String {
    if c.is_control() || (!c.is_ascii() && !c.is_alphanumeric()) {
        format!("\\x{{{:X}}}", c as u32)
    } else if c == '/' {
        "\\/".to_string()
    } else {
        regex_syntax::escape(c.encode_utf8(&mut [0; 4]))
    }
}

/// A class as `[...]`; inside a regex the `/` delimiter is escaped too.
fn class_text(class: &CharClass, in_regex: bool) -> String {
    let member = |c: char| -> String {
        match c {
            '\\' | ']' | '[' | '-' | '^' | '&' | '~' => format!("\\{c}"),
            '/' if in_regex => "\\/".to_string(),
            c if c.is_control()
                || (c.is_whitespace() && c != ' ')
                || (!c.is_ascii() && !c.is_alphanumeric()) =>
            {
                format!("\\x{{{:X}}}", c as u32)
            }
            c => c.to_string(),
        }
    };
    let ranges = class.ranges();
    // A class spanning all of Unicode but a few gaps reads better as `[^gaps]`.
    let negated = ranges.first().is_some_and(|r| r.0 == '\0')
        && ranges.last().is_some_and(|r| r.1 == char::MAX)
        && ranges.len() > 1;
    let ranges: Vec<(char, char)> = if negated {
        ranges
            .windows(2)
            .filter_map(|w| {
                let start = char_after(w[0].1)?;
                let end = char_before(w[1].0)?;
                (start <= end).then_some((start, end))
            })
            .collect()
    } else {
        ranges.to_vec()
    };
    let mut out = String::from(if negated { "[^" } else { "[" });
    for &(a, b) in &ranges {
        out.push_str(&member(a));
        if a != b {
            out.push('-');
            out.push_str(&member(b));
        }
    }
    out.push(']');
    out
}

fn char_after(c: char) -> Option<char> {
    match c {
        '\u{D7FF}' => Some('\u{E000}'),
        c => char::from_u32(c as u32 + 1),
    }
}

fn char_before(c: char) -> Option<char> {
    match c {
        '\u{E000}' => Some('\u{D7FF}'),
        c => char::from_u32((c as u32).checked_sub(1)?),
    }
}

/// A regex-syntax pattern made safe between `/` delimiters on one line: unescaped `/` and
/// raw control characters (which regex-syntax's own printer leaves raw) are escaped.
fn delimit_regex(pattern: &str) -> String {
    let mut out = String::new();
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped {
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => {
                out.push(c);
                escaped = true;
            }
            '/' => out.push_str("\\/"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{{{:X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> (Grammar, Grammar, String) {
        let original = Grammar::from_text("t", text).unwrap_or_else(|e| panic!("{e}"));
        let exported = to_ebnf(&original);
        let again =
            Grammar::from_text("t", &exported).unwrap_or_else(|e| panic!("{e}\n{exported}"));
        (original, again, exported)
    }

    #[test]
    fn every_shape_reads_back_the_same() {
        let (a, b, text) = round_trip(
            r#"
            %start s;
            %layout "  ";
            %indent "\t";
            x = "q" ;
            s = x ( "a" | "b" c )* "d"? [a-z]{2,3} NEWLINE INDENT GLUE DEDENT ID /[0-9]+(\.[0-9]+)?/ ;
            c = ( "x" | "y" ) "" ;
            INT = /0|[1-9][0-9]*/ ;
            STR = '"' /[^"\\\n\/]*/ '"' | "\u{1}\\" ;
            %pool ID = /[a-z]+/ ;
            %pool KW = "a b" | "c" ;
            "#,
        );
        assert_eq!(a.fingerprint(), b.fingerprint(), "{text}");
        assert_eq!(to_ebnf(&b), text);
        assert!(text.contains("INT = /0|[1-9][0-9]*/ ;"), "{text}");
        assert!(text.contains("c = ( \"x\" | \"y\" ) \"\" ;"), "{text}");
    }

    #[test]
    fn invalid_names_are_made_valid() {
        let mut taken = HashSet::new();
        assert_eq!(native_name("a.b", false, &mut taken), "_a_b");
        assert_eq!(native_name("a.b", false, &mut taken), "_a_b_1");
        assert_eq!(native_name("NEWLINE", true, &mut taken), "NEWLINE_");
        assert_eq!(native_name("foo", true, &mut taken), "Xfoo");
        assert!(is_native_name("<symbol-1>"));
        assert!(!is_native_name("<a b>"));
    }
}
