//! What to generate for a tree-sitter external token: one produced by a hand-written C scanner
//! (`src/scanner.c`) that the grammar file cannot describe.
//!
//! The names follow strong conventions across grammars, so they decide (after stripping
//! leading `_`, case-insensitively):
//!
//! | name | generated |
//! |---|---|
//! | `newline` | `NEWLINE` |
//! | `indent` | `NEWLINE INDENT` (the scanner emits it at the start of the deeper line) |
//! | `dedent` | `DEDENT` (the line before it already ended with a newline) |
//! | contains `semicolon` (automatic semicolon insertion) | `";"` |
//! | contains `string` and ends in `_start`, `_begin`, `_open` | `"\""` |
//! | contains `string` and ends in `_end`, `_close` | `"\""`, glued to what precedes |
//! | contains `content`, `chars`, `fragment`, `body` or `text` | `"a"`, glued to what precedes |
//! | anything else | nothing: alternatives that need it are never generated, with a warning |
//!
//! Where the grammar aliases an external to an anonymous string, as tree-sitter-lua does with
//! `alias($._block_string_start, '[[')`, that string is the token's text by tree-sitter's own
//! convention (anonymous nodes are named by their text), and it wins over the table.
//!
//! Content and closing tokens are glued because the scanner that produces them is inside a
//! string or comment, where a separator would be part of the text. Every fallback is an
//! ordinary rule named after the external, so a user who knows better edits one line of the
//! exported grammar.

use crate::grammar::LayoutToken;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum External {
    Layout(&'static [LayoutToken]),
    Text { text: &'static str, glued: bool },
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
        if key.contains("semicolon") {
            External::Text {
                text: ";",
                glued: false,
            }
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
            External::Text {
                text: ";",
                glued: false
            }
        );
        assert!(External::classify("string_end").glued());
        assert!(External::classify("_string_content").glued());
        assert!(!External::classify("string_start").glued());
        assert_eq!(External::classify("float_literal"), External::Unknown);
    }
}
