//! What to generate for a tree-sitter external token: one produced by a hand-written C scanner
//! (`src/scanner.c`) that the grammar file cannot describe.
//!
//! The names follow strong conventions across grammars, so they decide (after stripping
//! leading `_`, case-insensitively):
//!
//! | name | generated |
//! |---|---|
//! | `newline`, or contains `line_ending` or `line_break` (not `no_line_break`) | `NEWLINE` |
//! | `indent` | `NEWLINE INDENT` (the scanner emits it at the start of the deeper line) |
//! | `dedent` | `DEDENT` (the line before it already ended with a newline) |
//! | contains `semicolon` (automatic semicolon insertion) | `";"`, or a line break where the scanner inserts it at a line's end |
//! | contains `string` and ends in `_start`, `_begin`, `_open` | `"\""` |
//! | contains `string` and ends in `_end`, `_close` | `"\""`, glued to what precedes |
//! | contains `content`, `chars`, `fragment`, `body` or `text` | `"a"`, glued to what precedes |
//! | contains `float` | digits with a fraction or an exponent, then an optional type suffix (`1.5`, `2e10`, `1.0f32`) |
//! | anything else | nothing: alternatives that need it are never generated, with a warning |
//!
//! Where the grammar aliases an external to an anonymous string, as tree-sitter-lua does with
//! `alias($._block_string_start, '[[')`, that string is the token's text by tree-sitter's own
//! convention (anonymous nodes are named by their text), and it wins over the table.
//!
//! A string-start and a string-end external that open and close the same sequence (`string =
//! string_start (interpolation | string_content)* string_end`) are read as a pair instead, one
//! alternative per quote style, so that a string opened by `'` closes with `'` and a seed's
//! string contents are read as they are (see [`Quote`]).
//!
//! Content and closing tokens are glued because the scanner that produces them is inside a
//! string or comment, where a separator would be part of the text. Every fallback is an
//! ordinary rule named after the external, so a user who knows better edits one line of the
//! exported grammar.

use crate::grammar::LayoutToken;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum External {
    Layout(&'static [LayoutToken]),
    /// A semicolon the scanner inserts where a line ends a statement (JavaScript's automatic
    /// semicolon insertion): `";"` or `NEWLINE`, so that a seed's statements that end at a
    /// line break are read as the scanner reads them.
    AutomaticSemicolon,
    Text {
        text: &'static str,
        glued: bool,
    },
    /// A token whose spellings the name says (a float literal), as a regex.
    Pattern(&'static str),
    Unknown,
}

impl External {
    pub fn classify(name: &str) -> External {
        let key = name.trim_start_matches('_').to_ascii_lowercase();
        let ends = |suffixes: &[&str]| suffixes.iter().any(|s| key.ends_with(s));
        match key.as_str() {
            "newline" => return External::Layout(&[LayoutToken::Newline]),
            "indent" => return External::Layout(&[LayoutToken::Newline, LayoutToken::Indent]),
            "dedent" => return External::Layout(&[LayoutToken::Dedent]),
            _ => {}
        }
        // A statement's end that the scanner reads at a line break (tree-sitter-toml-ng's
        // `_line_ending_or_eof`, tree-sitter-ruby's `_line_break`). `no_line_break` is the
        // opposite, a check that none follows.
        let line_end = ["line_ending", "line_break"]
            .iter()
            .any(|w| key.contains(w));
        if line_end && !key.contains("no_line") {
            return External::Layout(&[LayoutToken::Newline]);
        }
        if key.contains("float") {
            // Scanners read floats where the grammar's own number rules cannot tell them from
            // a field access (`x.0.1`) or a range (`1..2`); the spellings are the usual ones.
            External::Pattern(FLOAT)
        } else if key.contains("semicolon") {
            External::AutomaticSemicolon
        } else if key.contains("string") && ends(&["_start", "_begin", "_open"]) {
            External::Text {
                text: "\"",
                glued: false,
            }
        } else if key.contains("string") && ends(&["_end", "_close"]) {
            External::Text {
                text: "\"",
                glued: true,
            }
        } else if ["content", "chars", "fragment", "body", "text"]
            .iter()
            .any(|w| key.contains(w))
        {
            External::Text {
                text: "a",
                glued: true,
            }
        } else {
            External::Unknown
        }
    }

    /// Whether a separator may not precede the token.
    pub fn glued(self) -> bool {
        matches!(self, External::Text { glued: true, .. })
    }

    pub fn is_dedent(self) -> bool {
        self == External::Layout(&[LayoutToken::Dedent])
    }
}

/// A float: digits (with `_` separators) and a fraction, an exponent or both, then an optional
/// type suffix.
const FLOAT: &str =
    r"[0-9][0-9_]*(\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?|[eE][+-]?[0-9_]+)([a-z][a-z0-9]*)?";

/// What an external does inside a string, by the same naming conventions as
/// [`External::classify`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringRole {
    Start,
    End,
    Content,
}

impl StringRole {
    pub fn of(name: &str) -> Option<StringRole> {
        delimiter_role(name, "string").or_else(|| {
            matches!(External::classify(name), External::Text { text: "a", .. })
                .then_some(StringRole::Content)
        })
    }
}

/// Whether an external named `name` opens or closes a `word` (`string`, `comment`): the name
/// holds the word and ends in `_start`, `_begin`, `_open`, or `_end`, `_close`.
pub fn delimiter_role(name: &str, word: &str) -> Option<StringRole> {
    let key = name.trim_start_matches('_').to_ascii_lowercase();
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| key.ends_with(s));
    if !key.contains(word) {
        None
    } else if ends(&["_start", "_begin", "_open"]) {
        Some(StringRole::Start)
    } else if ends(&["_end", "_close"]) {
        Some(StringRole::End)
    } else {
        None
    }
}

/// A quote style of a paired string. Scanners that name their tokens `string_start` and
/// `string_end` are Python's family (tree-sitter-python, tree-sitter-starlark), whose strings
/// open with an optional prefix and one of four quotes. Their text is known, so a seed's
/// strings can be read in full: a content token becomes one character of the style's contents
/// (printable ASCII, tab, non-ASCII characters, and line breaks in a triple-quoted string; never
/// the backslash that starts an escape, nor in a one-line string its quote). One character and not a run: the
/// string's middle repeats content, and an Earley parse of a repeated run reads a run of k
/// characters in quadratically many ways where a scanner reads it once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quote {
    pub text: &'static str,
    /// The suffix of the rules made for this style.
    pub suffix: &'static str,
    /// One content character, as a regex class.
    pub content: &'static str,
}

impl Quote {
    /// The one-line styles first: the first alternative is what the shortest derivation uses.
    pub const ALL: [Quote; 4] = [
        Quote {
            text: "\"",
            suffix: "dq",
            content: r"[\t !#-\[\]-~\x{80}-\x{10FFFF}]",
        },
        Quote {
            text: "'",
            suffix: "sq",
            content: r"[\t -&(-\[\]-~\x{80}-\x{10FFFF}]",
        },
        Quote {
            text: "\"\"\"",
            suffix: "dq3",
            content: r"[\t\n -\[\]-~\x{80}-\x{10FFFF}]",
        },
        Quote {
            text: "'''",
            suffix: "sq3",
            content: r"[\t\n -\[\]-~\x{80}-\x{10FFFF}]",
        },
    ];

    /// The prefixes Python allows before a quote (raw, bytes, unicode, formatted, in either
    /// case and order), the empty one first.
    pub const PREFIXES: [&'static str; 25] = [
        "", "r", "u", "R", "U", "f", "F", "b", "B", "rb", "rB", "Rb", "RB", "br", "bR", "Br", "BR",
        "fr", "fR", "Fr", "FR", "rf", "rF", "Rf", "RF",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventional_names_get_conventional_text() {
        assert_eq!(
            External::classify("_indent"),
            External::Layout(&[LayoutToken::Newline, LayoutToken::Indent])
        );
        assert!(External::classify("_dedent").is_dedent());
        assert_eq!(
            External::classify("_automatic_semicolon"),
            External::AutomaticSemicolon
        );
        assert!(External::classify("string_end").glued());
        assert!(External::classify("_string_content").glued());
        assert!(!External::classify("string_start").glued());
        assert_eq!(
            External::classify("float_literal"),
            External::Pattern(FLOAT)
        );
        assert_eq!(External::classify("heredoc_start"), External::Unknown);
        for line_end in ["_line_ending_or_eof", "_line_break", "_newline"] {
            assert_eq!(
                External::classify(line_end),
                External::Layout(&[LayoutToken::Newline]),
                "{line_end}"
            );
        }
        assert_eq!(External::classify("_no_line_break"), External::Unknown);
    }
}
