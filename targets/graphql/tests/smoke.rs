//! The graphql target's verdicts and instrumentation: queries and schemas that round-trip are
//! valid, a broken document is refused at the parse stage, the binary carries coverage
//! counters credited to graphql-parser (without them every input looks alike to the fuzzer),
//! and the printer bug found by fuzzing is still reported as a round-trip failure.

use std::path::Path;
use std::process::Command;

use bonsai::target::{Target, Verdict};
use bonsai_target_graphql::Graphql;

fn verdict(source: &str) -> Verdict {
    Graphql::new().run(source.as_bytes())
}

#[test]
fn queries_and_schemas_round_trip_and_broken_ones_are_parse_errors() {
    for document in [
        "query Q($id: ID! = 4) { user(id: $id) { name ...F @include(if: true) } }\n\
         fragment F on User { friends(first: 10) { edges { node { id } } } }",
        "{ a(x: [1, 2.5, \"s\", ENUM, {k: null}]) }",
        "schema { query: Query }\n\"\"\"doc\"\"\" type Query implements Node @key(f: \"id\") \
         { id: ID! list(n: Int = 3): [String!]! }\nunion U = A | B\nenum E { X Y }\n\
         directive @key(f: String) on OBJECT | INTERFACE",
    ] {
        assert_eq!(verdict(document), Verdict::Valid, "{document}");
    }
    for broken in [
        "{ a(x: ) }",
        "query {",
        "type T { f: }",
        "fragment F T { a }",
    ] {
        match verdict(broken) {
            Verdict::Invalid(reason) => assert!(reason.starts_with("parse: query: "), "{reason}"),
            other => panic!("{broken:?}: {other:?}"),
        }
    }
    assert_eq!(Graphql::new().run(&[0xc3, 0x28]), Verdict::Reject);
    assert_eq!(Graphql::new().output(b"{a}"), "valid\n{\n  a\n}\n");
}

/// Found in the first validity measurement of tree-sitter-graphql's grammar (a directive
/// argument's default `-0.730E650`): graphql-parser 0.4.1 reads a float literal beyond f64's
/// range as an infinity and prints it as `-inf`, which no GraphQL parser reads back. A
/// query's argument goes the same way. (A positive one prints as `inf`, which reads back as an
/// enum value and prints the same, so comparing prints does not see it.)
#[test]
fn a_float_beyond_f64_prints_as_inf_and_fails_to_parse_again() {
    let mut target = Graphql::new();
    for (document, prefix) in [
        (
            "directive @d(a: Float = -1E400) on QUERY",
            "roundtrip: schema print",
        ),
        ("{ f(a: -1e400) }", "roundtrip: query print"),
    ] {
        match target.run(document.as_bytes()) {
            Verdict::Invalid(reason) => assert!(reason.starts_with(prefix), "{reason}"),
            other => panic!("{document:?}: {other:?}"),
        }
    }
}

#[test]
fn the_binary_is_instrumented_in_graphql_parser() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-graphql"));
    let out = Command::new(binary)
        .args(["targets", "--target", "graphql"])
        .output()
        .expect("the binary runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    let counters = report
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.len() == 2 && words[0] == "graphql_parser")
        .and_then(|words| words[1].parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no counters for graphql_parser:\n{report}"));
    assert!(counters >= 200, "only {counters} counters:\n{report}");
}

/// graphql-parser 0.4.1 accepts `on` as a fragment's name, which the GraphQL specification
/// forbids (FragmentName is a Name but not `on`): a syntax error accepted.
#[test]
fn a_fragment_named_on_is_accepted() {
    assert_eq!(verdict("fragment on on T { a }"), Verdict::Valid);
}
