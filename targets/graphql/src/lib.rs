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
//! works on the tokens of the source, not on the parsed document). The pretty print must parse
//! again and print the same text: it is canonical, so equal prints mean equal documents, and a
//! print that lost a token cannot print back the same. The minified query must parse to the
//! document the pretty print shows.
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

/// The graphql-parser parsers and printers; they keep no state between runs.
#[derive(Default)]
pub struct Graphql;

/// What an accepted input was read as.
enum Document<'a> {
    Query(Query<'a, String>),
    Schema(Schema<'a, String>),
}

impl Graphql {
    pub fn new() -> Self {
        Self
    }

    /// The document, or why both parsers refused it.
    fn parse(source: &str) -> Result<Document<'_>, String> {
        let query_error = match graphql_parser::parse_query::<String>(source) {
            Ok(document) => return Ok(Document::Query(document)),
            Err(e) => one_line(&e.to_string()),
        };
        match graphql_parser::parse_schema::<String>(source) {
            Ok(document) => Ok(Document::Schema(document)),
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
            Ok(_) => Verdict::Valid,
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
        match Self::parse(source).ok()? {
            Document::Query(document) => query_round_trip(source, document.to_string()),
            Document::Schema(document) => fixed_point("schema", document.to_string(), |text| {
                graphql_parser::parse_schema::<String>(text).map(|d| d.to_string())
            }),
        }
    }
}

fn query_round_trip(source: &str, printed: String) -> Option<Violation> {
    let reprint = |text: &str| graphql_parser::parse_query::<String>(text).map(|d| d.to_string());
    if let Some(violation) = fixed_point("query", printed.clone(), reprint) {
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
    let unminified = match reprint(&minified) {
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
    if unminified != printed {
        let message = format!(
            "the minified query parses to another document: {}",
            difference(&printed, &unminified)
        );
        return Some(violation(
            "the minified query is a different document",
            message,
            vec![
                ("minified", minified),
                ("print", printed),
                ("print of the minified", unminified),
            ],
        ));
    }
    None
}

/// Whether the `kind` document's `printed` form parses (with `reprint`) and prints the same
/// again; the violation if not.
fn fixed_point<E: std::fmt::Display>(
    kind: &str,
    printed: String,
    reprint: impl Fn(&str) -> Result<String, E>,
) -> Option<Violation> {
    let reprinted = match reprint(&printed) {
        Ok(reprinted) => reprinted,
        Err(e) => {
            let e = one_line(&e.to_string());
            return Some(violation(
                &format!("the {kind} print does not parse"),
                format!("graphql-parser refuses its own print of a {kind}: {e}"),
                vec![("print", printed), ("parser's error", e)],
            ));
        }
    };
    if reprinted == printed {
        return None;
    }
    let message = format!(
        "the {kind} print prints differently when parsed again: {}",
        difference(&printed, &reprinted)
    );
    Some(violation(
        &format!("the {kind} print prints differently when parsed again"),
        message,
        vec![("print", printed), ("second print", reprinted)],
    ))
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
