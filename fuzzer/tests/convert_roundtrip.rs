//! Writing any grammar as native EBNF and reading it back gives the same grammar: the export is
//! a fixed point after one round, the structure (and so the fingerprint saved choice sequences
//! carry) is unchanged, and every seed generates the same input from both.

mod common;

use bonsai::convert::to_ebnf;
use bonsai::grammar::Grammar;
use bonsai::sampler::Bounds;
use common::tree_sitter_crates::{CRATES, grammar_json};
use common::{SHIPPED, generate_checked, imported, shipped};

fn every_grammar() -> Vec<Grammar> {
    let mut grammars: Vec<Grammar> = SHIPPED.iter().map(|n| shipped(n)).collect();
    for name in [
        "antlr/Json.g4",
        "antlr/Arith.g4",
        "antlr/Tiny.g4",
        "fuzzingbook/expr.json",
        "fuzzingbook/cgi.json",
        "fuzzingbook/url.json",
        "fuzzingbook/json.json",
    ] {
        grammars.push(imported(name));
    }
    for c in CRATES {
        let path = grammar_json(c.package);
        grammars.push(bonsai::import::load(&path).unwrap().grammar);
    }
    grammars
}

#[test]
fn export_then_import_gives_the_same_grammar() {
    for original in every_grammar() {
        let text = to_ebnf(&original);
        let again = Grammar::from_text(&original.name, &text)
            .unwrap_or_else(|e| panic!("{}: the export does not load: {e}\n{text}", original.name));
        assert_eq!(
            to_ebnf(&again),
            text,
            "{}: not a fixed point",
            original.name
        );
        assert_eq!(
            again.fingerprint(),
            original.fingerprint(),
            "{}: the structure changed",
            original.name
        );
        assert_eq!(again.layout, original.layout, "{}", original.name);
        for (a, b) in original.pools.iter().zip(&again.pools) {
            assert_eq!(a.values, b.values, "{}: pool {}", original.name, a.name);
        }
        for (bounds, seed) in [("1,1,1", 1), ("2,3,2", 2), ("3,3,3", 3)] {
            let bounds: Bounds = bounds.parse().unwrap();
            assert_eq!(
                generate_checked(&again, bounds, seed, 100),
                generate_checked(&original, bounds, seed, 100),
                "{}: different inputs under {bounds}",
                original.name
            );
        }
    }
}

#[test]
fn grammar_convert_writes_a_loadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lua.ebnf");
    let input = grammar_json("tree-sitter-lua");
    let (code, stdout, stderr) = common::bonsai(&[
        "grammar".as_ref(),
        "convert".as_ref(),
        input.as_os_str(),
        "--to".as_ref(),
        "ebnf".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let (code, stdout, stderr) =
        common::bonsai(&["grammar".as_ref(), "check".as_ref(), out.as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("pool identifier"), "{stdout}");
}
