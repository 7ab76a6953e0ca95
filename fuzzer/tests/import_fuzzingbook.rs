//! fuzzingbook grammars (the JSON dictionaries behind the book's coverage figures).

mod common;

use bonsai::convert::to_ebnf;
use bonsai::diagnostic::SourceFile;
use bonsai::grammar::Separator;
use bonsai::import;
use bonsai::sampler::Bounds;
use common::{generate_checked, imported, shipped};

fn from_json(text: &str) -> import::Imported {
    import::from_source(&SourceFile::new("test.json", text)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn expr_and_cgi_are_the_shipped_native_grammars() {
    for name in ["expr", "cgi"] {
        let json = imported(&format!("fuzzingbook/{name}.json"));
        let native = shipped(name);
        // Same rules, alternatives, terminals and order: the same text when written out,
        // and the same fingerprint (which saved choice sequences carry).
        assert_eq!(to_ebnf(&json), to_ebnf(&native), "{name}");
        assert_eq!(json.fingerprint(), native.fingerprint(), "{name}");
        assert_eq!(json.layout, native.layout, "{name}");
        assert_eq!(json.start, native.start, "{name}");
    }
}

#[test]
fn every_shipped_fuzzingbook_grammar_generates_within_bounds() {
    for name in ["expr", "cgi", "url", "json"] {
        let grammar = imported(&format!("fuzzingbook/{name}.json"));
        assert_eq!(grammar.layout.separator, Separator::Text(String::new()));
        let inputs = generate_checked(&grammar, "3,3,3".parse::<Bounds>().unwrap(), 4, 1000);
        assert_eq!(inputs.len(), 1000);
    }
    // The book's JSON grammar generates JSON (it includes one deliberately bad value).
    let json = imported("fuzzingbook/json.json");
    for text in generate_checked(&json, "3,3,3".parse().unwrap(), 9, 500) {
        if !text.contains("DROP TABLE") {
            serde_json::from_str::<serde::de::IgnoredAny>(&text)
                .unwrap_or_else(|e| panic!("{e}: {text:?}"));
        }
    }
}

#[test]
fn ebnf_suffixes_follow_convert_ebnf_grammar() {
    let imported = from_json(
        r#"{
          "<start>": ["<item>+ (, <item>)* <end>?", "((<a>)?b)*x", "(a)b? <"],
          "<item>": ["<a>", "[<digit>*]"],
          "<digit>": ["0", "1"],
          "<a>": ["a"],
          "<end>": ["."]
        }"#,
    );
    let text = to_ebnf(&imported.grammar);
    let start = text.lines().find(|l| l.starts_with("<start>")).unwrap();
    assert_eq!(
        start,
        r#"<start> = <item>+ " " ( ", " <item> )* " " <end>? | ( <a>? "b" )* "x" | "(a)b? <" ;"#
    );
    assert!(imported.warnings.is_empty());
}

#[test]
fn wrapped_and_bare_dictionaries_and_option_pairs() {
    let bare = from_json(r#"{"<x>": ["a<start>"], "<start>": ["b"]}"#);
    // A bare dictionary starts at <start>, wherever it is.
    assert_eq!(
        bare.grammar.rules[bare.grammar.start.index()].name,
        "<start>"
    );
    let wrapped = from_json(
        r#"{"start": "<x>", "source": "test", "grammar": {"<start>": ["b"], "<x>": [["a", {"prob": 0.5}], "c"]}}"#,
    );
    assert_eq!(
        wrapped.grammar.rules[wrapped.grammar.start.index()].name,
        "<x>"
    );
    let messages: Vec<String> = wrapped.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        messages,
        [
            "test.json:1:80: warning: expansion options (probabilities, pre- and post-conditions) are ignored"
        ]
    );
}
