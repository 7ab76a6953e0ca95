//! graphql-parser, the GraphQL parser of the graphql-rust projects, as a Bonsai target.
//!
//! graphql-parser reads two kinds of document with two parsers: executable documents
//! (operations and fragments) and type-system documents (schemas). The grammar generates both
//! kinds, so one run tries the query parser first and falls back to the schema parser; an input
//! both refuse is invalid, with both errors in its reason (`parse: query: ...; schema: ...`),
//! since neither alone says what went wrong.
//!
//! The verdict is the parsers' alone. The printers are judged apart, by the round-trip oracle
//! (`Target::check`), so that a printer bug is a fault of its own and not one more refused
//! input. An accepted document goes through graphql-parser's printers, which do not keep the
//! input's layout: the pretty printer for both kinds, and for queries also the minifier (which
//! works on the tokens of the source, not on the parsed document). Each print must parse again
//! to the same document as the input, positions aside. That is stronger than a printing fixed
//! point: a float printed without its fraction (`1.5e1` as `15`) prints the same again, but
//! it parses to an integer, another document.
//!
//! Depth: graphql-parser's tokenizer refuses more than 50 open brackets (`Recursion limit
//! exceeded`), so deep nesting ends in a parse error, not a stack overflow; the limit is not
//! configurable through the public API.
//!
//! The grammar is tree-sitter-graphql's `src/grammar.json` (scripts/grammar-path finds it in
//! the cargo registry). Seeds are the query and schema files of graphql-parser's own tests
//! (`tests/queries`, `tests/schemas` in its crate in the registry).

use bonsai::target::{Oracle, Target, Verdict, Violation};
use graphql_parser::query::Document as Query;
use graphql_parser::schema::Document as Schema;

/// The graphql-parser parsers and printers. The one thing kept between calls is the last
/// accepted input with its document: the oracle runs right after the verdict on the same
/// input, and parsing is this target's whole cost, so parsing it a second time there would
/// be most of what the oracle costs.
#[derive(Default)]
pub struct Graphql {
    last: Option<(Vec<u8>, Document)>,
}

/// What an accepted input was read as. graphql-parser's documents of `String`s own their text.
enum Document {
    Query(Query<'static, String>),
    Schema(Schema<'static, String>),
}

impl Graphql {
    pub fn new() -> Self {
        Self::default()
    }

    /// The document, or why both parsers refused it.
    fn parse(source: &str) -> Result<Document, String> {
        let query_error = match graphql_parser::parse_query::<String>(source) {
            Ok(document) => return Ok(Document::Query(document.into_static())),
            Err(e) => one_line(&e.to_string()),
        };
        match graphql_parser::parse_schema::<String>(source) {
            Ok(document) => Ok(Document::Schema(document.into_static())),
            Err(e) => Err(format!(
                "parse: query: {query_error}; schema: {}",
                one_line(&e.to_string())
            )),
        }
    }
}

impl Target for Graphql {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match Self::parse(source) {
            Ok(document) => {
                self.last = Some((input.to_vec(), document));
                Verdict::Valid
            }
            Err(reason) => Verdict::Invalid(reason),
        }
    }

    /// A valid document's output is graphql-parser's canonical print of it, so a golden test
    /// pins what the parser understood, not just that it accepted.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match Self::parse(source) {
            Ok(Document::Query(document)) => format!("valid\n{document}"),
            Ok(Document::Schema(document)) => format!("valid\n{document}"),
            Err(reason) => format!("invalid: {reason}"),
        }
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        if !verdict.is_valid() {
            return None;
        }
        let source = std::str::from_utf8(input).ok()?;
        let document = match self.last.take() {
            Some((last, document)) if last == input => document,
            _ => Self::parse(source).ok()?,
        };
        match document {
            Document::Query(document) => query_round_trip(source, &document),
            Document::Schema(document) => {
                let expected = shape(&document);
                same_document("schema", &expected, document.to_string(), |text| {
                    graphql_parser::parse_schema::<String>(text).map(|d| shape(&d))
                })
            }
        }
    }
}

fn query_round_trip(source: &str, document: &Query<'static, String>) -> Option<Violation> {
    let reread = |text: &str| graphql_parser::parse_query::<String>(text).map(|d| shape(&d));
    let expected = shape(document);
    let printed = document.to_string();
    if let Some(violation) = same_document("query", &expected, printed.clone(), reread) {
        return Some(violation);
    }
    let minified = match graphql_parser::minify_query(source.to_string()) {
        Ok(minified) => minified,
        Err(e) => {
            let e = one_line(&e.to_string());
            return Some(violation(
                "the minifier refuses the query",
                format!("graphql-parser's minifier refuses a query its parser accepts: {e}"),
                vec![("minifier's error", e)],
            ));
        }
    };
    let unminified = match reread(&minified) {
        Ok(unminified) => unminified,
        Err(e) => {
            let e = one_line(&e.to_string());
            return Some(violation(
                "the minified query does not parse",
                format!("graphql-parser refuses the minified query: {e}"),
                vec![("minified", minified), ("parser's error", e)],
            ));
        }
    };
    if unminified != expected {
        let message = format!(
            "the minified query parses to another document: {}",
            difference(&expected, &unminified)
        );
        return Some(violation(
            "the minified query is a different document",
            message,
            vec![
                ("minified", minified),
                ("print", printed),
                ("document", expected),
                ("document of the minified", unminified),
            ],
        ));
    }
    None
}

/// Whether the `kind` document's `printed` form parses (with `reread`) to the document whose
/// shape is `shape`; the violation if not.
fn same_document<E: std::fmt::Display>(
    kind: &str,
    shape: &str,
    printed: String,
    reread: impl Fn(&str) -> Result<String, E>,
) -> Option<Violation> {
    let again = match reread(&printed) {
        Ok(again) => again,
        Err(e) => {
            let e = one_line(&e.to_string());
            return Some(violation(
                &format!("the {kind} print does not parse"),
                format!("graphql-parser refuses its own print of a {kind}: {e}"),
                vec![("print", printed), ("parser's error", e)],
            ));
        }
    };
    if again == shape {
        return None;
    }
    let message = format!(
        "the {kind} print parses to another document: {}",
        difference(shape, &again)
    );
    Some(violation(
        &format!("the {kind} print is another document"),
        message,
        vec![
            ("print", printed),
            ("document", shape.to_string()),
            ("document of the print", again),
        ],
    ))
}

/// A document as its syntax tree's debug form with every position (`Pos(LINE:COLUMN)`) cut
/// to `Pos`: the printers choose their own layout, so only positions may differ between an
/// input and its print.
fn shape(document: &impl std::fmt::Debug) -> String {
    let debug = format!("{document:?}");
    let mut shape = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while let Some(at) = rest.find("Pos(") {
        let (before, from) = rest.split_at(at + "Pos".len());
        shape.push_str(before);
        let inside = &from[1..];
        let end = inside
            .find(|c: char| !c.is_ascii_digit() && c != ':')
            .unwrap_or(inside.len());
        rest = if inside[end..].starts_with(')') && end > 0 {
            &inside[end + 1..]
        } else {
            from
        };
    }
    shape.push_str(rest);
    shape
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

/// Where two prints first differ, with up to 40 characters of each from there.
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

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    #[allow(dead_code)]
    struct Node {
        position: graphql_parser::Pos,
        name: &'static str,
    }

    /// Only what the debug form of a position looks like is cut, so a name that happens to read
    /// `Pos(` stays, and two documents laid out differently have one shape.
    #[test]
    fn a_shape_drops_positions_and_nothing_else() {
        let at = |line, column| graphql_parser::Pos { line, column };
        let a = Node {
            position: at(1, 2),
            name: "Pos(x",
        };
        let b = Node {
            position: at(30, 400),
            name: "Pos(x",
        };
        assert_eq!(shape(&a), shape(&b));
        assert_eq!(shape(&a), r#"Node { position: Pos, name: "Pos(x" }"#);
        let c = Node {
            position: at(1, 2),
            name: "Pos(y",
        };
        assert_ne!(shape(&a), shape(&c));
    }
}
