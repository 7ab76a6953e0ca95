//! Imported grammars are written for parsing, so their character classes say what a parser
//! must accept: `[^"\\]` in a string, `.` in a comment, `\p{XID_Start}` for an identifier.
//! Such classes are kept whole, so that a seed's `ß` or tab is read and kept; generation draws
//! from their printable ASCII part (see `CharClass`). Identifier pools are narrowed, to ASCII
//! letters, digits and `_`, so that their values read `a`, `b`, `c` rather than `!`, `$`, `?`
//! (a seed's other names are its own words).
//!
//! Narrowing only removes characters, so every generated input is still one the original
//! grammar accepts. Anchors and word boundaries (`^`, `$`, `\b`) are dropped: a generated
//! token has no surrounding text to anchor to.

use regex_syntax::hir::{
    Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    /// The class whole: generation draws from its printable ASCII part (see `CharClass`).
    Printable,
    /// ASCII letters, digits and `_`, else printable ASCII.
    Word,
    /// As `Word`, with the class's characters beyond ASCII kept: an identifier rule such as
    /// `[A-Z_\u007F-\uFFFF]`, so that a seed's `名` is read as a name (kept as the seed's own
    /// word). The pool's values stay ASCII (`grammar::lower` draws them from the ASCII part).
    /// Only a word's first character is narrowed to a word character: the ones after it keep
    /// the printable punctuation the rule allows, so that XML's `xmlns:xsi` and CSS's
    /// `font-size` are names, and values still begin with a letter (`A`, `B`, ..., `A-`).
    Identifier,
}

pub struct Narrowed {
    pub hir: Hir,
    pub dropped_anchor: bool,
}

/// A fault in a pattern: the byte offset inside it and what is wrong.
pub struct PatternFault {
    pub offset: usize,
    pub message: String,
}

/// Parses a pattern in regex-syntax's dialect and narrows it.
pub fn parse_narrowed(pattern: &str, preference: Preference) -> Result<Narrowed, PatternFault> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|err| {
            let (offset, message) = match &err {
                regex_syntax::Error::Parse(e) => (e.span().start.offset, e.kind().to_string()),
                regex_syntax::Error::Translate(e) => (e.span().start.offset, e.kind().to_string()),
                other => (0, other.to_string()),
            };
            PatternFault { offset, message }
        })?;
    Ok(narrow(hir, preference))
}

pub fn narrow(hir: Hir, preference: Preference) -> Narrowed {
    let mut dropped_anchor = false;
    let hir = walk(hir, preference, true, &mut dropped_anchor);
    Narrowed {
        hir,
        dropped_anchor,
    }
}

fn printable() -> ClassUnicode {
    ClassUnicode::new([ClassUnicodeRange::new(' ', '~')])
}

fn word() -> ClassUnicode {
    ClassUnicode::new([
        ClassUnicodeRange::new('0', '9'),
        ClassUnicodeRange::new('A', 'Z'),
        ClassUnicodeRange::new('_', '_'),
        ClassUnicodeRange::new('a', 'z'),
    ])
}

fn beyond_ascii() -> ClassUnicode {
    ClassUnicode::new([ClassUnicodeRange::new('\u{80}', '\u{10FFFF}')])
}

fn intersect(class: &ClassUnicode, with: ClassUnicode) -> Option<ClassUnicode> {
    let mut narrowed = class.clone();
    narrowed.intersect(&with);
    (narrowed.iter().next().is_some()).then_some(narrowed)
}

/// `leading`: whether the part can hold the word's first character.
fn walk(hir: Hir, preference: Preference, leading: bool, dropped: &mut bool) -> Hir {
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let narrowed = match preference {
                Preference::Word => intersect(&class, word())
                    .or_else(|| intersect(&class, printable()))
                    .unwrap_or(class),
                Preference::Identifier if !leading => {
                    let mut printable_and_beyond = printable();
                    printable_and_beyond.union(&beyond_ascii());
                    intersect(&class, printable_and_beyond).unwrap_or(class)
                }
                Preference::Identifier => {
                    let mut word_and_beyond = word();
                    word_and_beyond.union(&beyond_ascii());
                    intersect(&class, word_and_beyond)
                        .or_else(|| intersect(&class, printable()))
                        .unwrap_or(class)
                }
                Preference::Printable => class,
            };
            Hir::class(Class::Unicode(narrowed))
        }
        HirKind::Look(_) => {
            *dropped = true;
            Hir::empty()
        }
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(walk(*capture.sub, preference, leading, dropped)),
            ..capture
        }),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(walk(*rep.sub, preference, leading, dropped)),
            ..rep
        }),
        HirKind::Concat(parts) => {
            // A part leads while every part before it can be empty.
            let mut leading = leading;
            let mut out = Vec::with_capacity(parts.len());
            for part in parts {
                let empty = part.properties().minimum_len() == Some(0);
                out.push(walk(part, preference, leading, dropped));
                leading &= empty;
            }
            Hir::concat(out)
        }
        HirKind::Alternation(alts) => Hir::alternation(
            alts.into_iter()
                .map(|a| walk(a, preference, leading, dropped))
                .collect(),
        ),
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Class(class @ Class::Bytes(_)) => Hir::class(class),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn narrowed(pattern: &str, preference: Preference) -> String {
        narrow(regex_syntax::parse(pattern).unwrap(), preference)
            .hir
            .to_string()
    }

    #[test]
    fn classes_stay_whole_and_identifiers_are_narrowed() {
        // A string's class keeps every character a seed may hold; generation picks printable
        // ones (see `CharClass`).
        let whole = regex_syntax::parse(r#"[^"\\\n]"#).unwrap().to_string();
        assert_eq!(narrowed(r#"[^"\\\n]"#, Preference::Printable), whole);
        assert_eq!(narrowed(r"\p{XID_Start}", Preference::Word), "[A-Za-z]");
        assert_eq!(narrowed(r"[^\s\d]", Preference::Word), "[A-Z_a-z]");
        // A class with nothing printable stays as it is.
        assert_eq!(narrowed(r"\u{FEFF}", Preference::Printable), "\u{FEFF}");
    }

    #[test]
    fn identifier_classes_keep_what_lies_beyond_ascii() {
        assert_eq!(
            narrowed(r"[A-Z_\x{7F}-\x{FFFF}!]", Preference::Identifier),
            "[A-Z_\u{80}-\u{FFFF}]"
        );
        assert_eq!(narrowed(r"[!?]", Preference::Identifier), r"[!\?]");
    }

    #[test]
    fn identifier_classes_after_the_first_character_keep_punctuation() {
        // XML's Name: `:` may not begin a value, but a seed's `xmlns:xsi` is a name.
        assert_eq!(
            narrowed(r"[:_a-z][\-.0-9:_a-z]*", Preference::Identifier),
            r"(?:[_a-z][\-\.0-:_a-z]*)"
        );
        // CSS's ident: an optional `-` first, then the first character proper.
        assert_eq!(
            narrowed(r"-?[_a-z\x{0}][\-_a-z]*", Preference::Identifier),
            r"(?:\-?[_a-z][\-_a-z]*)"
        );
    }

    #[test]
    fn anchors_are_dropped() {
        let n = narrow(regex_syntax::parse(r"^a\b").unwrap(), Preference::Printable);
        assert!(n.dropped_anchor);
        assert_eq!(n.hir.to_string(), "a");
    }
}
