//! Imported grammars are written for parsing, so their character classes say what a parser
//! must accept: `[^"\\]` in a string, `.` in a comment, `\p{XID_Start}` for an identifier.
//! Drawn uniformly, such a class yields a code point out of a million, nearly always a CJK or
//! unassigned one, and the inputs become unreadable (Zest's most common complaint). So every
//! class of an imported regex is narrowed: to printable ASCII (space to `~`, and the line
//! break where the class has it) where the class has any, else left whole. Identifier pools are narrowed further, to ASCII letters, digits
//! and `_`, so that they read `a`, `b`, `c` rather than `!`, `$`, `?`.
//!
//! Narrowing only removes characters, so every generated input is still one the original
//! grammar accepts. Anchors and word boundaries (`^`, `$`, `\b`) are dropped: a generated
//! token has no surrounding text to anchor to.

use regex_syntax::hir::{
    Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    /// Printable ASCII.
    Printable,
    /// ASCII letters, digits and `_`, else printable ASCII.
    Word,
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
    let hir = walk(hir, preference, &mut dropped_anchor);
    Narrowed {
        hir,
        dropped_anchor,
    }
}

/// Printable ASCII, with the line break where the class allows it: a Python long string's
/// `~'\\'` holds line breaks in real files, and a seed must be read as it is. Not the tab:
/// grammars loose about control characters (tree-sitter-json's `[^\\"\n]` in a string, which
/// JSON forbids) would generate them.
fn printable() -> ClassUnicode {
    ClassUnicode::new([
        ClassUnicodeRange::new('\n', '\n'),
        ClassUnicodeRange::new(' ', '~'),
    ])
}

fn word() -> ClassUnicode {
    ClassUnicode::new([
        ClassUnicodeRange::new('0', '9'),
        ClassUnicodeRange::new('A', 'Z'),
        ClassUnicodeRange::new('_', '_'),
        ClassUnicodeRange::new('a', 'z'),
    ])
}

fn intersect(class: &ClassUnicode, with: ClassUnicode) -> Option<ClassUnicode> {
    let mut narrowed = class.clone();
    narrowed.intersect(&with);
    (narrowed.iter().next().is_some()).then_some(narrowed)
}

fn walk(hir: Hir, preference: Preference, dropped: &mut bool) -> Hir {
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let word_first = match preference {
                Preference::Word => intersect(&class, word()),
                Preference::Printable => None,
            };
            let narrowed = word_first
                .or_else(|| intersect(&class, printable()))
                .unwrap_or(class);
            Hir::class(Class::Unicode(narrowed))
        }
        HirKind::Look(_) => {
            *dropped = true;
            Hir::empty()
        }
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(walk(*capture.sub, preference, dropped)),
            ..capture
        }),
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(walk(*rep.sub, preference, dropped)),
            ..rep
        }),
        HirKind::Concat(parts) => Hir::concat(
            parts
                .into_iter()
                .map(|p| walk(p, preference, dropped))
                .collect(),
        ),
        HirKind::Alternation(alts) => Hir::alternation(
            alts.into_iter()
                .map(|a| walk(a, preference, dropped))
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
    fn negated_classes_keep_their_printable_part() {
        assert_eq!(
            narrowed(r#"[^"\\\n]"#, Preference::Printable),
            r#"[ !\#-\[\]-\~]"#
        );
        assert_eq!(narrowed(r"\p{XID_Start}", Preference::Word), "[A-Za-z]");
        assert_eq!(narrowed(r"[^\s\d]", Preference::Word), "[A-Z_a-z]");
        // A class with nothing printable stays as it is.
        assert_eq!(narrowed(r"\u{FEFF}", Preference::Printable), "\u{FEFF}");
    }

    #[test]
    fn anchors_are_dropped() {
        let n = narrow(regex_syntax::parse(r"^a\b").unwrap(), Preference::Printable);
        assert!(n.dropped_anchor);
        assert_eq!(n.hir.to_string(), "a");
    }
}
