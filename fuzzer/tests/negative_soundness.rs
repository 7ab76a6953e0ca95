//! Negative suites are sound: every negative the generator writes is rejected by the Earley
//! parser, at or before the place its oracle names. Checked on every grammar under `grammars/`
//! (native, ANTLR, fuzzingbook) and on the imported tree-sitter grammars, mutating words the
//! sampler draws; a negative that parses is a bug in the generator.

mod common;

use std::sync::LazyLock;

use bonsai::analysis::Analysis;
use bonsai::grammar::Grammar;
use bonsai::negative::{Negative, Operators, generate};
use bonsai::parse::{Parser, with_large_stack};
use bonsai::sampler::{Bounds, Sample, Sampler};
use common::tree_sitter_crates::{CRATES, grammar_json};
use common::{bonsai, grammar_file, grammar_path, imported};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

/// Every grammar file under `grammars/`, then every tree-sitter grammar the import tests use.
static GRAMMARS: LazyLock<Vec<(String, Grammar)>> = LazyLock::new(|| {
    let mut files = Vec::new();
    for dir in ["", "antlr", "fuzzingbook"] {
        for entry in std::fs::read_dir(grammar_file(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if [".ebnf", ".g4", ".json"].iter().any(|e| name.ends_with(e)) {
                files.push(if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                });
            }
        }
    }
    files.sort();
    assert!(files.len() >= 15, "grammars/ holds {files:?}");
    let mut grammars: Vec<(String, Grammar)> =
        files.iter().map(|f| (f.clone(), imported(f))).collect();
    for c in CRATES {
        let grammar = bonsai::import::load(&grammar_json(c.package))
            .unwrap_or_else(|e| panic!("{}: {e}", c.package))
            .grammar;
        grammars.push((c.package.to_string(), grammar));
    }
    grammars
});

/// `count` words of `grammar` drawn under `bounds`, as derivation trees.
fn positives(grammar: &Grammar, bounds: Bounds, seed: u64, count: usize) -> Vec<Sample> {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut rng = StdRand::with_seed(seed);
    (0..count)
        .map(|_| {
            let mut sample = Sample::default();
            sampler.generate(&mut rng, &mut sample);
            sample
        })
        .collect()
}

/// The first negative the parser accepts, or rejects only after its oracle's place.
fn unsound(parser: &Parser, negatives: &[Negative]) -> Option<String> {
    negatives
        .iter()
        .find_map(|negative| match parser.accepts(&negative.text) {
            Ok(()) => Some(format!("accepted: {negative:?}")),
            Err(e) if e.offset > negative.reject_by => Some(format!(
                "rejected at byte {} ({}), after the oracle's {}: {negative:?}",
                e.offset, e.message, negative.reject_by
            )),
            Err(_) => None,
        })
}

fn check(g: usize, bounds: Bounds, seed: u64, max: usize) -> Result<usize, String> {
    let (name, grammar) = &GRAMMARS[g];
    let analysis = Analysis::new(grammar);
    let samples = positives(grammar, bounds, seed, 3);
    let trees: Vec<_> = samples.into_iter().map(|s| s.tree).collect();
    let names: Vec<String> = (0..trees.len()).map(|i| format!("word {i}")).collect();
    with_large_stack(|| {
        let ops = Operators {
            word: true,
            rule: true,
        };
        let (negatives, _) = generate(grammar, &analysis, &trees, &names, ops, max);
        let parser = Parser::new(grammar);
        match unsound(&parser, &negatives) {
            Some(failure) => Err(format!("{name}: {failure}")),
            None => Ok(negatives.len()),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_negative_is_rejected_by_its_oracle(
        g in 0..GRAMMARS.len(),
        (m, n, d) in (1u32..=3, 1u32..=3, 2u32..=6),
        seed: u64,
    ) {
        let bounds = Bounds::new(m, n, d).unwrap();
        check(g, bounds, seed, 40).map_err(TestCaseError::fail)?;
    }
}

/// Each grammar at least once, with more negatives than the random cases write.
#[test]
fn every_grammar_gives_sound_negatives() {
    let bounds = Bounds::new(2, 3, 5).unwrap();
    for g in 0..GRAMMARS.len() {
        let written = check(g, bounds, g as u64, 150).unwrap_or_else(|e| panic!("{e}"));
        assert!(written > 0, "{}: no negatives", GRAMMARS[g].0);
    }
}

/// The slides' SIMPL gives mutants of every operator, word and rule, from its cover suite.
#[test]
fn simpl_yields_every_operator() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("neg");
    let (code, stdout, stderr) = bonsai(&[
        "negative".as_ref(),
        grammar_path("simpl").as_os_str(),
        "--cover".as_ref(),
        "cdrc".as_ref(),
        "--max".as_ref(),
        "60".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let operators = manifest["operators"].as_array().unwrap();
    assert_eq!(operators.len(), 6, "{manifest}");
    for op in operators {
        assert!(op["emitted"].as_u64().unwrap() > 0, "{op}");
        assert!(
            stdout.contains(&format!(
                "{}: {} emitted",
                op["operator"].as_str().unwrap(),
                op["emitted"]
            )),
            "{stdout}"
        );
    }
    let negatives = manifest["negatives"].as_array().unwrap();
    assert_eq!(negatives.len(), 60);
    let grammar = imported("simpl.ebnf");
    let parser = Parser::new(&grammar);
    for negative in negatives {
        let file = out.join(negative["file"].as_str().unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        let error = parser.accepts(&text).expect_err(&text);
        assert!(
            error.offset <= negative["reject_by_offset"].as_u64().unwrap() as usize,
            "{text}: {error} vs {negative}"
        );
    }
}

/// A malformed directory of positives, or a positive that does not parse, is a located error
/// (exit 2), not a panic.
#[test]
fn bad_positives_are_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("from");
    std::fs::create_dir(&from).unwrap();
    std::fs::write(from.join("a.txt"), "module [ 1 ] a = begin end").unwrap();
    let out = dir.path().join("neg");
    let (code, _, stderr) = bonsai(&[
        "negative".as_ref(),
        grammar_path("simpl").as_os_str(),
        "--from".as_ref(),
        from.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("a.txt:1:"), "{stderr}");
    let missing = dir.path().join("missing");
    let (code, _, stderr) = bonsai(&[
        "negative".as_ref(),
        grammar_path("simpl").as_os_str(),
        "--from".as_ref(),
        missing.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("missing"), "{stderr}");
    let (code, _, stderr) = bonsai(&[
        "negative".as_ref(),
        grammar_path("simpl").as_os_str(),
        "--cover".as_ref(),
        "rule".as_ref(),
        "--ops".as_ref(),
        "word,lexer".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown operator family 'lexer'"),
        "{stderr}"
    );
}
