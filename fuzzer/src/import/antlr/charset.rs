//! ANTLR character sets (`[a-z\n]`, `'a'..'z'`, `~[...]`) as regex-syntax classes.
//!
//! Every member is written as a `\x{..}` escape, so no character of the set can be mistaken
//! for class syntax on the regex-syntax side (`[`, `&&`, `~~`, a leading `^`).

use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// `\x{HEX}` for one character.
pub fn hex(c: char) -> String {
    format!("\\x{{{:X}}}", c as u32)
}

/// The members of a lexer set `[...]`, as the inside of a regex-syntax class. `span` covers
/// the brackets, so a fault is located at its character.
pub fn set_members(source: &SourceFile, raw: &str, span: Span) -> Result<String, Diagnostic> {
    let at = |i: usize| {
        let offset = span.start as usize + 1 + i;
        Span::new(offset, offset + 1)
    };
    // First the members as characters or properties, then ranges between characters.
    enum Member {
        Char(char),
        Property(String),
    }
    let mut members: Vec<(Member, usize)> = Vec::new();
    let chars: Vec<(usize, char)> = raw.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        k += 1;
        if c != '\\' {
            members.push((Member::Char(c), i));
            continue;
        }
        let Some(&(_, e)) = chars.get(k) else {
            return Err(source.error(at(i), "the set ends with a lone backslash"));
        };
        k += 1;
        let decoded = match e {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'b' => '\u{8}',
            'f' => '\u{c}',
            '\\' | ']' | '[' | '-' | '^' | '\'' | '"' => e,
            'u' => {
                let rest: String = chars[k..].iter().map(|&(_, c)| c).collect();
                let (hex, used) = if let Some(body) = rest.strip_prefix('{') {
                    let close = body
                        .find('}')
                        .ok_or_else(|| source.error(at(i), "unterminated '\\u{' escape"))?;
                    (body[..close].to_string(), close + 2)
                } else {
                    (rest.chars().take(4).collect::<String>(), 4)
                };
                k += used;
                u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| {
                        source.error(at(i), format!("invalid escape '\\u{hex}' in a set"))
                    })?
            }
            'p' | 'P' => {
                let rest: String = chars[k..].iter().map(|&(_, c)| c).collect();
                let Some(close) = rest.strip_prefix('{').and_then(|b| b.find('}')) else {
                    return Err(source.error(at(i), "expected '{' and '}' around a property name"));
                };
                let property = format!("\\{e}{{{}}}", &rest[1..close + 1]);
                k += rest[..close + 2].chars().count();
                members.push((Member::Property(property), i));
                continue;
            }
            other => {
                return Err(source.error(
                    at(i),
                    format!("invalid escape '\\{other}' in a set; ANTLR knows \\n \\r \\t \\b \\f \\\\ \\] \\- \\uXXXX \\u{{X..}} and \\p{{..}}"),
                ));
            }
        };
        members.push((Member::Char(decoded), i));
    }
    if members.is_empty() {
        return Err(source.error(span, "the empty set '[]' matches nothing"));
    }
    let mut out = String::new();
    let mut m = 0;
    while m < members.len() {
        match &members[m] {
            (Member::Property(p), _) => {
                out.push_str(p);
                m += 1;
            }
            (Member::Char(a), i) => {
                // `a-b` is a range when `-` sits between two characters (not escaped).
                let dash = matches!(members.get(m + 1), Some((Member::Char('-'), j)) if !raw[*j..].starts_with("\\-"));
                if dash && let Some((Member::Char(b), _)) = members.get(m + 2) {
                    if a > b {
                        return Err(source.error(at(*i), format!("the range {a:?}-{b:?} is empty")));
                    }
                    out.push_str(&format!("{}-{}", hex(*a), hex(*b)));
                    m += 3;
                } else {
                    out.push_str(&hex(*a));
                    m += 1;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(raw: &str) -> regex_syntax::hir::Hir {
        let source = SourceFile::new("t.g4", format!("[{raw}]"));
        let members = set_members(&source, raw, Span::new(0, raw.len() + 2)).unwrap();
        regex_syntax::parse(&format!("[{members}]")).unwrap()
    }

    #[test]
    fn sets_keep_their_members() {
        assert_eq!(class("a-c_").to_string(), "[_a-c]");
        assert_eq!(class(r"\-\]^&&").to_string(), r"[\&\-\]\^]");
        assert_eq!(class(r" \t\r\n").to_string(), class(r"\t\n\r ").to_string());
        assert_eq!(class(r"\u0041\u{42}").to_string(), "[AB]");
        assert!(class(r"\p{Lu}").to_string().starts_with("[A-Z"));
    }

    #[test]
    fn faults_point_at_their_character() {
        let source = SourceFile::new("t.g4", r"[ab\q]");
        let err = set_members(&source, r"ab\q", Span::new(0, 6)).unwrap_err();
        assert_eq!(err.location.unwrap().column, 4);
    }
}
