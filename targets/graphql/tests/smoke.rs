//! The graphql target's verdicts, oracle and instrumentation: queries and schemas are valid and
//! their prints pass the round-trip oracle, a broken document is refused at the parse stage
//! and not checked, the binary carries coverage counters credited to graphql-parser (without
//! them every input looks alike to the fuzzer), and the printer bug found by fuzzing is
//! reported by the oracle, not as a refused input.

use std::path::Path;
use std::process::Command;

use bonsai::target::{Oracle, Target, Verdict, Violation};
use bonsai_target_graphql::Graphql;

fn verdict(source: &str) -> Verdict {
    Graphql::new().run(source.as_bytes())
}

/// The target's verdict for `source` and what the oracle says about it, as the engine runs
/// them: `check` after `run`, on the same target.
fn checked(source: &str) -> (Verdict, Option<Violation>) {
    let mut target = Graphql::new();
    let verdict = target.run(source.as_bytes());
    let violation = target.check(source.as_bytes(), &verdict);
    (verdict, violation)
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
        assert_eq!(checked(document), (Verdict::Valid, None), "{document}");
    }
    for broken in [
        "{ a(x: ) }",
        "query {",
        "type T { f: }",
        "fragment F T { a }",
    ] {
        match checked(broken) {
            (Verdict::Invalid(reason), None) => {
                assert!(reason.starts_with("parse: query: "), "{reason}")
            }
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
/// enum value and prints the same, so comparing prints does not see it.) The parser accepted
/// the input, so the verdict is valid and the oracle reports the print.
#[test]
fn a_float_beyond_f64_prints_as_inf_and_fails_to_parse_again() {
    for (document, class) in [
        (
            "directive @d(a: Float = -1E400) on QUERY",
            "the schema print does not parse",
        ),
        ("{ f(a: -1e400) }", "the query print does not parse"),
    ] {
        let (verdict, violation) = checked(document);
        assert_eq!(verdict, Verdict::Valid, "{document}");
        let violation = violation.unwrap_or_else(|| panic!("{document:?} passed"));
        assert_eq!(violation.oracle, Oracle::RoundTrip);
        assert_eq!(violation.class, class, "{violation:?}");
        assert_eq!(violation.texts[0].0, "print");
        assert!(violation.texts[0].1.contains("-inf"), "{violation:?}");
        assert_eq!(violation.texts[1].0, "parser's error");
    }
}

/// The violation the oracle reports for an input the parser accepts.
fn violation_of(document: &str) -> Violation {
    let (verdict, violation) = checked(document);
    assert_eq!(verdict, Verdict::Valid, "{document}");
    violation.unwrap_or_else(|| panic!("{document:?} passed the oracle"))
}

/// Found by the round-trip oracle's first short run (tree-sitter-graphql's grammar): graphql-
/// parser 0.4.1 escapes a control character in a string with its code point in decimal where
/// `\u` wants hex (src/format.rs, `write_quoted`: `"\\u{:04}"`), so U+0018 prints as
/// `\u0024` and reads back as `$`: the print is another document. The fuzzer's reproducer was
/// a schema's description holding the raw character; a query's argument goes the same way.
#[test]
fn a_control_character_is_escaped_with_its_decimal_code() {
    let schema = violation_of("\"\u{18}\"type A");
    assert_eq!(schema.class, "the schema print is another document");
    assert_eq!(
        schema.texts[0],
        ("print".into(), "\"\\u0024\"\ntype A\n".into())
    );
    assert_eq!(schema.texts[1].0, "document");
    assert!(schema.texts[1].1.contains("\\u{18}"), "{schema:?}");
    assert_eq!(schema.texts[2].0, "document of the print");
    assert!(schema.texts[2].1.contains("\"$\""), "{schema:?}");
    assert!(!schema.texts[2].1.contains("Pos("), "{schema:?}");

    let query = violation_of("{ f(a: \"\\u0018\") }");
    assert_eq!(query.class, "the query print is another document");
    assert!(query.texts[0].1.contains("\\u0024"), "{query:?}");
}

/// Found by the round-trip oracle's first short run: graphql-parser 0.4.1 prints a float value
/// with Rust's `{}` (src/query/format.rs, `Value::Float`), which writes an integral float
/// without fraction or exponent. The print is then an integer literal: `-0.0` prints as `-0`,
/// which reads back as the integer 0; `1.5e1` prints as `15`, an Int where the input had a
/// Float (and `15` prints the same again, so only comparing documents, not prints, sees it);
/// `0.1E60` prints as 61 digits, which no integer holds, so the print does not parse.
#[test]
fn an_integral_float_prints_as_an_integer() {
    for (document, print) in [("{A(A:-0.0)}", "A: -0)"), ("{ f(a: 1.5e1) }", "a: 15)")] {
        let changed = violation_of(document);
        assert_eq!(changed.class, "the query print is another document");
        assert!(changed.texts[0].1.contains(print), "{changed:?}");
        assert!(changed.texts[1].1.contains("Float("), "{changed:?}");
        assert!(changed.texts[2].1.contains("Int("), "{changed:?}");
    }

    for (document, class) in [
        ("{A(A:0.1E60)}", "the query print does not parse"),
        ("type A@A(A:1E60)", "the schema print does not parse"),
    ] {
        let large = violation_of(document);
        assert_eq!(large.class, class, "{large:?}");
        assert!(large.texts[0].1.contains(&format!("1{}", "0".repeat(59))));
        assert!(large.texts[1].1.contains("number too large"), "{large:?}");
    }

    assert_eq!(checked("{ f(a: 1.5) }"), (Verdict::Valid, None));
    assert_eq!(
        Graphql::new().output(b"{ f(a: 1.5e1) }"),
        "valid\n{\n  f(a: 15)\n}\n"
    );
}

/// The oracle keeps the last accepted document from the verdict so as not to parse twice; an
/// input it did not just see (a replay's check alone, another input) is parsed afresh.
#[test]
fn the_oracle_judges_the_input_it_is_given_not_the_last_one_run() {
    let mut target = Graphql::new();
    assert_eq!(target.run(b"{ a }"), Verdict::Valid);
    let violation = target.check(b"{ f(a: -0.0) }", &Verdict::Valid);
    assert_eq!(
        violation.map(|v| v.class),
        Some("the query print is another document".to_string())
    );
    assert_eq!(target.run(b"{ f(a: -0.0) }"), Verdict::Valid);
    assert_eq!(target.check(b"{ a }", &Verdict::Valid), None);
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
