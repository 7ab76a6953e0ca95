//! graphql-parser, the GraphQL parser of the graphql-rust projects, as a Bonsai target.
//!
//! graphql-parser reads two kinds of document with two parsers: executable documents
//! (operations and fragments) and type-system documents (schemas). The grammar generates both
//! kinds, so one run tries the query parser first and falls back to the schema parser; an input
//! both refuse is invalid, with both errors in its reason (`parse: query: ...; schema: ...`),
//! since neither alone says what went wrong.
//!
//! An accepted document goes through graphql-parser's printers, which do not keep the input's
//! layout: the pretty printer for both kinds, and for queries also the minifier. Each print
//! must parse again and print the same text (the pretty print is canonical, so equal prints
//! mean equal documents); one that does not is reported as invalid with a reason starting
//! `roundtrip:`, so that a printer bug is not mistaken for a refused input.
//!
//! Depth: graphql-parser's tokenizer refuses more than 50 open brackets (`Recursion limit
//! exceeded`), so deep nesting ends in a parse error, not a stack overflow; the limit is not
//! configurable through the public API.
//!
//! The grammar is tree-sitter-graphql's `src/grammar.json` (scripts/grammar-path finds it in
//! the cargo registry). Seeds are the query and schema files of graphql-parser's own tests
//! (`tests/queries`, `tests/schemas` in its crate in the registry).

use bonsai::target::{Target, Verdict};

/// The graphql-parser parsers and printers; they keep no state between runs.
#[derive(Default)]
pub struct Graphql;

impl Graphql {
    pub fn new() -> Self {
        Self
    }

    /// The document's canonical print, or why it was refused.
    fn check(source: &str) -> Result<String, String> {
        let query_error = match graphql_parser::parse_query::<String>(source) {
            Ok(document) => return Self::query_round_trip(source, document.to_string()),
            Err(e) => one_line(&e.to_string()),
        };
        match graphql_parser::parse_schema::<String>(source) {
            Ok(document) => Self::schema_round_trip(document.to_string()),
            Err(e) => Err(format!(
                "parse: query: {query_error}; schema: {}",
                one_line(&e.to_string())
            )),
        }
    }

    fn query_round_trip(source: &str, printed: String) -> Result<String, String> {
        let reprinted = graphql_parser::parse_query::<String>(&printed)
            .map_err(|e| {
                format!(
                    "roundtrip: query print fails to parse: {}",
                    one_line(&e.to_string())
                )
            })?
            .to_string();
        if reprinted != printed {
            return Err("roundtrip: query print prints differently when parsed again".to_string());
        }
        let minified = graphql_parser::minify_query(source.to_string())
            .map_err(|e| format!("roundtrip: minifier refuses: {}", one_line(&e.to_string())))?;
        let unminified = graphql_parser::parse_query::<String>(&minified)
            .map_err(|e| {
                format!(
                    "roundtrip: minified query fails to parse: {}",
                    one_line(&e.to_string())
                )
            })?
            .to_string();
        if unminified != printed {
            return Err("roundtrip: minified query is a different document".to_string());
        }
        Ok(printed)
    }

    fn schema_round_trip(printed: String) -> Result<String, String> {
        let reprinted = graphql_parser::parse_schema::<String>(&printed)
            .map_err(|e| {
                format!(
                    "roundtrip: schema print fails to parse: {}",
                    one_line(&e.to_string())
                )
            })?
            .to_string();
        if reprinted != printed {
            return Err("roundtrip: schema print prints differently when parsed again".to_string());
        }
        Ok(printed)
    }
}

impl Target for Graphql {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match Self::check(source) {
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
        match Self::check(source) {
            Ok(printed) => format!("valid\n{printed}"),
            Err(reason) => format!("invalid: {reason}"),
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
