//! ANTLR character sets (`[a-z\n]`, `'a'..'z'`, `~[...]`) as regex-syntax classes.
//!
//! Every member is written as a `\x{..}` escape, so no character of the set can be mistaken
//! for class syntax on the regex-syntax side (`[`, `&&`, `~~`, a leading `^`).

use super::syntax::{Alternative, Element};
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
    // A character is kept as its code, so that a UTF-16 surrogate (`\uD800`), which ANTLR
    // accepts in a set, can be read and then left out (see `SURROGATES`).
    enum Member {
        Char(u32),
        Property(String),
    }
    let mut members: Vec<(Member, usize)> = Vec::new();
    let chars: Vec<(usize, char)> = raw.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        k += 1;
        if c != '\\' {
            members.push((Member::Char(c as u32), i));
            continue;
        }
        let Some(&(_, e)) = chars.get(k) else {
            return Err(source.error(at(i), "the set ends with a lone backslash"));
        };
        k += 1;
        let decoded = match e {
            'n' => '\n' as u32,
            'r' => '\r' as u32,
            't' => '\t' as u32,
            'b' => 0x8,
            'f' => 0xC,
            '\\' | ']' | '[' | '-' | '^' | '\'' | '"' => e as u32,
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
                    .filter(|&code| code <= 0x10FFFF)
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
                // Checked here, so that a class the importer cannot use is named where it is
                // written (ANTLR's own extras, such as `\p{EmojiPresentation}`, are not
                // among regex-syntax's properties).
                if let Err(err) = regex_syntax::parse(&format!("[{property}]")) {
                    let why = match &err {
                        regex_syntax::Error::Translate(t) => t.kind().to_string(),
                        other => other.to_string(),
                    };
                    return Err(source.error(
                        at(i),
                        format!("the Unicode class {property} cannot be used: {why}; write the characters as ranges (\\u{{..}}-\\u{{..}}) or use a general category, script or binary property"),
                    ));
                }
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
                let dash = matches!(members.get(m + 1), Some((Member::Char(0x2D), j)) if !raw[*j..].starts_with("\\-"));
                if dash && let Some((Member::Char(b), _)) = members.get(m + 2) {
                    if a > b {
                        return Err(source.error(
                            at(*i),
                            format!("the range \\u{{{a:X}}}-\\u{{{b:X}}} is empty"),
                        ));
                    }
                    out.push_str(&scalar_ranges(*a, *b));
                    m += 3;
                } else {
                    out.push_str(&scalar_ranges(*a, *a));
                    m += 1;
                }
            }
        }
    }
    if out.is_empty() {
        return Err(source.error(
            span,
            "this set holds only UTF-16 surrogates (\\uD800-\\uDFFF), which no UTF-8 text \
             contains; write the characters they encode instead, such as [\\u{10000}-\\u{10FFFF}] \
             for a surrogate pair",
        ));
    }
    Ok(out)
}

/// UTF-16's surrogate code units. ANTLR's Java-era grammars write a character beyond the
/// Basic Multilingual Plane as a pair of sets of them (`[\uD800-\uDBFF] [\uDC00-\uDFFF]`), and
/// leave them out of negations (`~[\u0000-\u007F\uD800-\uDBFF]`); a seed read as UTF-8 holds
/// none, so a set keeps only the scalar values it names and the pair reads as the characters
/// it encodes (`pair_surrogates`).
const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);
const HIGH_SURROGATES: (u32, u32) = (0xD800, 0xDBFF);
const LOW_SURROGATES: (u32, u32) = (0xDC00, 0xDFFF);

/// The range `a-b` as regex class members, without the surrogates.
fn scalar_ranges(a: u32, b: u32) -> String {
    let member = |a: u32, b: u32| {
        let c = |code| hex(char::from_u32(code).unwrap_or('\u{FFFD}'));
        if a == b {
            c(a)
        } else {
            format!("{}-{}", c(a), c(b))
        }
    };
    let mut out = String::new();
    if a < SURROGATES.0 {
        out.push_str(&member(a, b.min(SURROGATES.0 - 1)));
    }
    if b > SURROGATES.1 {
        out.push_str(&member(a.max(SURROGATES.1 + 1), b));
    }
    out
}

/// The code range a set or range element covers when it is one range of UTF-16 surrogates
/// (`[\uD800-\uDBFF]`); `None` otherwise.
fn surrogate_range(element: &Element) -> Option<(u32, u32)> {
    let range = match element {
        Element::Set(raw, _) => {
            let parts: Vec<&str> = raw.split('-').collect();
            let code = |t: &str| {
                let hex = t.strip_prefix("\\u")?;
                let hex = hex.trim_start_matches('{').trim_end_matches('}');
                u32::from_str_radix(hex, 16).ok()
            };
            match parts.as_slice() {
                [a, b] => (code(a)?, code(b)?),
                [a] => (code(a)?, code(a)?),
                _ => return None,
            }
        }
        _ => return None,
    };
    (range.0 >= SURROGATES.0 && range.1 <= SURROGATES.1).then_some(range)
}

/// Rewrites every `[\uD800-\uDBFF] [\uDC00-\uDFFF]` (a high then a low surrogate set, in one
/// alternative) as the characters such pairs encode, U+10000 to U+10FFFF, so that a lexer
/// rule written for UTF-16 reads them in UTF-8 text.
pub fn pair_surrogates(alternatives: &mut [Alternative]) {
    for alt in alternatives {
        let mut k = 0;
        while k < alt.elements.len() {
            inside(&mut alt.elements[k]);
            let pair = (alt.elements.get(k).and_then(surrogate_range))
                .zip(alt.elements.get(k + 1).and_then(surrogate_range));
            if pair == Some((HIGH_SURROGATES, LOW_SURROGATES)) {
                let span = alt.elements[k].span().to(alt.elements[k + 1].span());
                alt.elements
                    .splice(k..k + 2, [Element::Range('\u{10000}', '\u{10FFFF}', span)]);
            }
            k += 1;
        }
    }
    fn inside(element: &mut Element) {
        match element {
            Element::Block(alternatives, _) => pair_surrogates(alternatives),
            Element::Suffix(inner, _, _) | Element::Not(inner, _) => inside(inner),
            _ => {}
        }
    }
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
