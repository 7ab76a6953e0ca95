//! The kdl crate, the reference KDL implementation in Rust (format-preserving, KDL 2.0), as a
//! Bonsai target.
//!
//! One run parses the input as a KDL 2.0 document (`parse_v2`: the default `parse` would try
//! KDL 1 as well when the `v1-fallback` feature is on, and then a refusal would say nothing
//! about which parser refused) and, when it parses, checks two round trips. The document as
//! parsed prints back with its layout kept, and must parse again to the same data. Then
//! its layout is replaced by the crate's own (`autoformat`), which makes the printer choose
//! quoting, escapes and indentation itself: that print must parse again and print the same.
//! A print that fails either way is reported as invalid with a reason starting `roundtrip:`,
//! so that a printer bug is not mistaken for a refused input; refused inputs start `parse:`.
//!
//! Depth: kdl's parser (winnow combinators) recurses once per child block `{ ... }` and has no
//! nesting limit, so deeply nested children can overflow the stack; finding that is what this
//! target is for, beside the printer.
//!
//! The grammar is grammars/kdl.ebnf: tree-sitter-kdl's grammar does not load (a regex Rust's
//! regex syntax refuses) and leaves raw strings and block comments to its external scanner.
//! Seeds are the kdl crate's own compliance inputs that it accepts (the files of
//! `tests/test_cases/input` with a counterpart in `tests/test_cases/expected_kdl`, in its
//! crate in the cargo registry).

use bonsai::target::{Target, Verdict};
use kdl::KdlDocument;

/// The kdl parser and printer; they keep no state between runs.
#[derive(Default)]
pub struct Kdl;

impl Kdl {
    pub fn new() -> Self {
        Self
    }

    /// The document's autoformatted print, or why it was refused.
    fn check(source: &str) -> Result<String, String> {
        let document =
            KdlDocument::parse_v2(source).map_err(|e| format!("parse: {}", error(&e)))?;

        let printed = document.to_string();
        let again = KdlDocument::parse_v2(&printed)
            .map_err(|e| format!("roundtrip: print fails to parse: {}", error(&e)))?;
        if data(&again) != data(&document) {
            return Err("roundtrip: print parses to a different document".to_string());
        }

        let mut formatted = document;
        formatted.autoformat();
        let printed = formatted.to_string();
        let mut again = KdlDocument::parse_v2(&printed).map_err(|e| {
            format!(
                "roundtrip: autoformatted print fails to parse: {}",
                error(&e)
            )
        })?;
        again.autoformat();
        if again.to_string() != printed {
            return Err(
                "roundtrip: autoformatted print prints differently when parsed again".to_string(),
            );
        }
        Ok(printed)
    }
}

impl Target for Kdl {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match Self::check(source) {
            Ok(_) => Verdict::Valid,
            Err(reason) => Verdict::Invalid(reason),
        }
    }

    /// A valid document's output is its autoformatted print, so a golden test pins what kdl
    /// understood, not just that it accepted.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match Self::check(source) {
            Ok(printed) => format!("valid\n{printed}"),
            Err(reason) => format!("invalid: {reason}"),
        }
    }
}

/// The first diagnostic's message, without its offset so that refusals of one kind count as
/// one reason: kdl collects several per document, and the first is the one the parser met
/// first.
fn error(error: &kdl::KdlError) -> String {
    let message = error
        .diagnostics
        .first()
        .and_then(|d| d.message.as_deref().or(d.label.as_deref()));
    one_line(message.unwrap_or("syntax error"))
}

/// The document without its layout: kdl compares layout too, and its printer drops the space
/// after a node's type annotation (`(t) n` prints as `(t)n`, see tests/smoke.rs), which would
/// make every typed node a round-trip failure.
fn data(document: &KdlDocument) -> KdlDocument {
    let mut data = document.clone();
    data.clear_format_recursive();
    data
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
