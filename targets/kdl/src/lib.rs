//! The kdl crate, the reference KDL implementation in Rust (format-preserving, KDL 2.0), as a
//! Bonsai target.
//!
//! One run parses the input as a KDL 2.0 document (`parse_v2`: the default `parse` would try
//! KDL 1 as well when the `v1-fallback` feature is on, and then a refusal would say nothing
//! about which parser refused): that is the verdict, and refused inputs' reasons start
//! `parse:`. The printer is judged apart, by the round-trip oracle (`Target::check`), so that a
//! printer bug is a fault of its own and not one more refused input. It checks two round trips.
//! The document as parsed prints back with its layout kept, and must parse again to the same
//! data (layout aside: see `data`). Then its layout is replaced by the crate's own
//! (`autoformat`), which makes the printer choose quoting, escapes and indentation itself: that
//! print must parse again and, autoformatted again, print the same.
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

use bonsai::target::{Oracle, Target, Verdict, Violation};
use kdl::KdlDocument;

/// The kdl parser and printer; they keep no state between runs.
#[derive(Default)]
pub struct Kdl;

impl Kdl {
    pub fn new() -> Self {
        Self
    }
}

fn parse(source: &str) -> Result<KdlDocument, String> {
    KdlDocument::parse_v2(source).map_err(|e| error(&e))
}

impl Target for Kdl {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match parse(source) {
            Ok(_) => Verdict::Valid,
            Err(e) => Verdict::Invalid(format!("parse: {e}")),
        }
    }

    /// A valid document's output is its autoformatted print, so a golden test pins what kdl
    /// understood, not just that it accepted.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match parse(source) {
            Ok(mut document) => {
                document.autoformat();
                format!("valid\n{document}")
            }
            Err(e) => format!("invalid: parse: {e}"),
        }
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        if !verdict.is_valid() {
            return None;
        }
        let document = parse(std::str::from_utf8(input).ok()?).ok()?;

        let printed = document.to_string();
        let again = match parse(&printed) {
            Ok(again) => again,
            Err(e) => return Some(refused("print", printed, e)),
        };
        let (before, after) = (data(&document), data(&again));
        if before != after {
            let (before, after) = (before.to_string(), after.to_string());
            return Some(violation(
                "the print parses to a different document",
                format!(
                    "the print keeps the layout but parses to other data: {}",
                    difference(&before, &after)
                ),
                vec![
                    ("print", printed),
                    ("data", before),
                    ("data of the print", after),
                ],
            ));
        }

        let mut formatted = document;
        formatted.autoformat();
        let printed = formatted.to_string();
        let mut again = match parse(&printed) {
            Ok(again) => again,
            Err(e) => return Some(refused("autoformatted print", printed, e)),
        };
        again.autoformat();
        let reprinted = again.to_string();
        if reprinted != printed {
            return Some(violation(
                "the autoformatted print prints differently when parsed again",
                format!(
                    "autoformatting the parsed autoformatted print changes it: {}",
                    difference(&printed, &reprinted)
                ),
                vec![
                    ("autoformatted print", printed),
                    ("second print", reprinted),
                ],
            ));
        }
        None
    }
}

/// kdl's parser refused its own `print`.
fn refused(print: &str, printed: String, error: String) -> Violation {
    violation(
        &format!("the {print} does not parse"),
        format!("kdl refuses its own {print} of the document: {error}"),
        vec![(print, printed), ("parser's error", error)],
    )
}

fn violation(class: &str, message: String, texts: Vec<(&str, String)>) -> Violation {
    Violation {
        oracle: Oracle::RoundTrip,
        class: class.to_string(),
        message,
        texts: texts
            .into_iter()
            .map(|(name, text)| (name.to_string(), text))
            .collect(),
    }
}

/// Where two texts first differ, with up to 40 characters of each from there.
fn difference(before: &str, after: &str) -> String {
    let mut at = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !before.is_char_boundary(at) || !after.is_char_boundary(at) {
        at -= 1;
    }
    let excerpt = |text: &str| text[at..].chars().take(40).collect::<String>();
    format!(
        "first at byte {at}, {:?} became {:?}",
        excerpt(before),
        excerpt(after)
    )
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
