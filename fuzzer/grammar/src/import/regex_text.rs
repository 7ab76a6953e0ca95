//! A regex as text again, after narrowing, for the native syntax tree.
//!
//! regex-syntax's own printer is not usable for this: it prints an optional repetition
//! `(?:x+)?` as `x+?`, which reads back as the lazy `x+` and loses the option. This printer
//! groups every repetition operand and escapes every character that could mean something, so
//! the text parses back to the same tree.

use std::fmt::Write;

use regex_syntax::hir::{Class, Hir, HirKind};

pub fn regex_text(hir: &Hir) -> String {
    let mut out = String::new();
    print(hir, &mut out);
    out
}

fn print(hir: &Hir, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => out.push_str("(?:)"),
        HirKind::Literal(lit) => {
            for c in String::from_utf8_lossy(&lit.0).chars() {
                character(c, out);
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            out.push('[');
            for range in class.iter() {
                character(range.start(), out);
                if range.end() != range.start() {
                    out.push('-');
                    character(range.end(), out);
                }
            }
            out.push(']');
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.push('[');
            for range in class.iter() {
                let _ = write!(out, "\\x{{{:X}}}-\\x{{{:X}}}", range.start(), range.end());
            }
            out.push(']');
        }
        HirKind::Capture(capture) => {
            out.push_str("(?:");
            print(&capture.sub, out);
            out.push(')');
        }
        HirKind::Concat(parts) => {
            for part in parts {
                if matches!(part.kind(), HirKind::Alternation(_)) {
                    out.push_str("(?:");
                    print(part, out);
                    out.push(')');
                } else {
                    print(part, out);
                }
            }
        }
        HirKind::Alternation(alts) => {
            for (i, alt) in alts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                print(alt, out);
            }
        }
        HirKind::Repetition(rep) => {
            out.push_str("(?:");
            print(&rep.sub, out);
            out.push(')');
            let _ = match (rep.min, rep.max) {
                (0, Some(1)) => write!(out, "?"),
                (0, None) => write!(out, "*"),
                (1, None) => write!(out, "+"),
                (a, None) => write!(out, "{{{a},}}"),
                (a, Some(b)) if a == b => write!(out, "{{{a}}}"),
                (a, Some(b)) => write!(out, "{{{a},{b}}}"),
            };
        }
    }
}

/// Metacharacters escaped, invisible characters as `\x{..}`, everything else as itself.
fn character(c: char, out: &mut String) {
    if c.is_control() || (c.is_whitespace() && c != ' ') {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    } else {
        out.push_str(&regex_syntax::escape(c.encode_utf8(&mut [0; 4])));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_parses_back_to_the_same_tree() {
        for pattern in [
            r"(?:[0-9]+)?\.?[0-9]+",
            r"a|b(?:c|)d{2,3}[^\n]*",
            r#"\\["\\/bfnrtu]|\u{1F600}+"#,
            r"(?i)U?LL",
        ] {
            let hir = regex_syntax::parse(pattern).unwrap();
            let text = regex_text(&hir);
            assert_eq!(
                regex_syntax::parse(&text).unwrap(),
                hir,
                "{pattern} -> {text}"
            );
        }
        // regex-syntax's printer loses the option here.
        let hir = regex_syntax::parse(r"(?:[0-9]+)?").unwrap();
        assert_ne!(regex_syntax::parse(&hir.to_string()).unwrap(), hir);
    }
}
