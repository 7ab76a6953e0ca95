//! `bonsai grammar convert --to fuzzingbook`: the book's JSON form of a grammar, read back by
//! Bonsai's own fuzzingbook importer, derives the texts the original renders and no others
//! (sampled both ways), so that the book's fuzzers run on the very language Bonsai covers.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use bonsai::convert::to_fuzzingbook;
use bonsai::diagnostic::SourceFile;
use bonsai::grammar::Grammar;
use bonsai::parse::Parser;
use bonsai::sampler::{Bounds, Sample, Sampler};
use common::{generate_checked, grammar_path};
use libafl_bolts::rands::StdRand;

fn bounds(text: &str) -> Bounds {
    text.parse().unwrap()
}

/// The JSON read back as a fuzzingbook grammar, as `bonsai` would read a `.json` file.
fn import_json(name: &str, json: &str) -> Grammar {
    let source = SourceFile::new(format!("{name}.json"), json);
    bonsai::import::from_source(&source)
        .unwrap_or_else(|e| panic!("{name}: the converted grammar does not import: {e}\n{json}"))
        .grammar
}

/// A layout separator, a `<` that would read as the start of a nonterminal, a `<` that would
/// not, `?` right after `)` and `+` right after a nonterminal (which the book's EBNF reading
/// would take for operators), a lexical rule, a class and a pool.
const SMALL: &str = r#"
    %layout " ";
    cmp   = item ( "<=>" item )? TAG ;
    item  = "(" ID ")" GLUE "?" | DIGIT GLUE "+" ;
    TAG   = "<" ID ">" ;
    DIGIT = /[01]/ ;
    %pool ID = "a" | "b" ;
"#;

#[test]
fn a_small_grammar_converts_to_the_expected_json() {
    let grammar = Grammar::from_text("small", SMALL).unwrap();
    let json = to_fuzzingbook(&grammar, bounds("1,1,1")).unwrap().to_json();
    // Every terminal carries the separator the layout pass writes before it; `TAG` is one
    // token, so nothing separates its pieces; `<=>` would read as the nonterminal `<=>` and
    // `)?`, `<DIGIT...>+` as the book's EBNF operators, so those characters go through rules
    // of their own, while the `<` before `<ID...>` cannot be read as one and stays.
    let expected = r#"{
  "<start>": ["<cmp>"],
  "<cmp>": ["<item_L0_M00><cmp_4_opt><TAG>"],
  "<item_L0_M00>": ["(<ID_M00_M00> )<qmark>", "<DIGIT_L0_T00><plus>"],
  "<cmp_4_opt>": ["", "<cmp_4>"],
  "<TAG>": [" <<ID_tT00_T00>>"],
  "<ID_M00_M00>": [" a"],
  "<DIGIT_L0_T00>": ["<class9_tL0_T00>"],
  "<cmp_4>": [" <lt>=><item_M00_M00>"],
  "<ID_tT00_T00>": ["a"],
  "<class9_tL0_T00>": ["0", "1"],
  "<item_M00_M00>": [" (<ID_M00_M00> )<qmark>", "<DIGIT_M00_T00><plus>"],
  "<DIGIT_M00_T00>": ["<class9_tM00_T00>"],
  "<class9_tM00_T00>": [" 0", " 1"],
  "<lt>": ["<"],
  "<qmark>": ["?"],
  "<plus>": ["+"]
}
"#;
    assert_eq!(json, expected);
    // The language is finite: 3 items (one pool value), alone or compared, then the tag.
    let again = import_json("small", &json);
    let converted: BTreeSet<String> = generate_checked(&again, bounds("1,3,9"), 1, 2000)
        .into_iter()
        .collect();
    let original: BTreeSet<String> = generate_checked(&grammar, bounds("1,3,9"), 1, 2000)
        .into_iter()
        .collect();
    assert_eq!(converted.len(), 3 + 3 * 3, "{converted:#?}");
    assert_eq!(converted, original);
    assert!(converted.contains("( a )? <=> 1+ <a>"), "{converted:#?}");
}

#[test]
fn the_books_own_grammar_comes_back_as_it_was() {
    // The book's EXPR_GRAMMAR, imported and converted: its rule names and its own
    // `<start>`, without a wrapper.
    let expr = common::imported("fuzzingbook/expr.json");
    let json = to_fuzzingbook(&expr, bounds("1,1,1")).unwrap().to_json();
    assert!(
        json.starts_with("{\n  \"<start>\": [\"<expr>\"],\n  \"<expr>\": [\"<term> + <expr>\", ")
    );
    assert_eq!(json.matches("\"<start>\"").count(), 1, "{json}");
}

fn shipped_grammars() -> Vec<PathBuf> {
    let dir = grammar_path("expr").parent().unwrap().to_path_buf();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ebnf"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 8, "{paths:?}");
    paths
}

/// `count` words of `grammar`. Not `common::generate_checked`: its bound check closes the
/// rules' reachability in cubic time, hours for the 6,000 rules of converted javascript.
fn sample(grammar: &Grammar, bounds: Bounds, seed: u64, count: usize) -> Vec<String> {
    let mut sampler = Sampler::new(grammar, bounds).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = StdRand::with_seed(seed);
    let mut sample = Sample::default();
    (0..count)
        .map(|_| {
            sampler.generate(&mut rng, &mut sample);
            bonsai::text::render(grammar, &sample.tree)
        })
        .collect()
}

/// Words of one grammar that the other's parser refuses, at most three, for the message.
fn refused(parser: &Parser, words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| parser.accepts(w).is_err())
        .take(3)
        .cloned()
        .collect()
}

#[test]
fn every_shipped_grammar_round_trips_through_the_fuzzingbook_importer() {
    for path in shipped_grammars() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let original = Grammar::from_file(&path).unwrap();
        // Pools offer their first two values, so that a word of the original uses only what
        // the conversion keeps.
        let json = to_fuzzingbook(&original, bounds("2,1,1"))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .to_json();
        let again = import_json(&name, &json);
        let (words_of_converted, words_of_original) = bonsai::parse::with_large_stack(|| {
            let converted = sample(&again, bounds("1,3,12"), 5, 40);
            let original_words = sample(&original, bounds("2,2,3"), 6, 40);
            (
                refused(&Parser::new(&original), &converted),
                refused(&Parser::new(&again), &original_words),
            )
        });
        assert!(
            words_of_converted.is_empty(),
            "{name}: the original refuses words of the converted grammar: {words_of_converted:#?}"
        );
        assert!(
            words_of_original.is_empty(),
            "{name}: the converted grammar refuses words of the original: {words_of_original:#?}"
        );
    }
}

fn convert(args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&std::ffi::OsStr> = vec!["grammar".as_ref(), "convert".as_ref()];
    all.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
    common::bonsai(&all)
}

#[test]
fn grammar_convert_writes_the_json_and_refuses_bad_requests() {
    let expr = grammar_path("expr");
    let expr = expr.to_str().unwrap();
    let (code, stdout, stderr) = convert(&[expr, "--to", "fuzzingbook"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("{\n  \"<start>\": [\"<expr>\"],"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("json.json");
    let json_grammar = grammar_path("json");
    let (code, _, stderr) = convert(&[
        json_grammar.to_str().unwrap(),
        "--to",
        "fuzzingbook",
        "--bounds",
        "2,3,3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    import_json("json", &std::fs::read_to_string(&out).unwrap());

    let unwritable = dir.path().join("missing").join("x.json");
    let (code, _, stderr) = convert(&[
        expr,
        "--to",
        "fuzzingbook",
        "--out",
        unwritable.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    let (code, _, stderr) = convert(&[expr, "--to", "ebnf", "--bounds", "1,1,1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--bounds applies to --to fuzzingbook only"),
        "{stderr}"
    );
    let (code, _, stderr) = convert(&[expr, "--to", "fuzzingbook", "--bounds", "0,1,1"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn a_grammar_that_derives_nothing_within_the_tracked_indentation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep.ebnf");
    // Every word opens nine levels, one more than the conversion tracks.
    let mut rule = String::from("start = ");
    for _ in 0..9 {
        rule.push_str("\"b\" NEWLINE INDENT ");
    }
    rule.push_str("\"x\" NEWLINE");
    for _ in 0..9 {
        rule.push_str(" DEDENT");
    }
    rule.push_str(" ;\n");
    std::fs::write(&deep, rule).unwrap();
    let (code, stdout, stderr) = convert(&[deep.to_str().unwrap(), "--to", "fuzzingbook"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("derives no text"), "{stderr}");
}
