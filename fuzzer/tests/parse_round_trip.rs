//! The parse round trip on every grammar shipped in `grammars/`, in every format: generate →
//! render → parse → choices → strict replay gives the identical text, and the parsed tree's
//! choices are the sampler's whenever the grammar leaves only one derivation.

mod common;

use std::sync::LazyLock;

use bonsai::choice::Replay;
use bonsai::grammar::Grammar;
use bonsai::parse::Parser;
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use common::{check_bounds, grammar_file, imported};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

/// Every grammar file under `grammars/` (native, ANTLR, fuzzingbook), by relative path.
static FILES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut files = Vec::new();
    for dir in ["", "antlr", "fuzzingbook"] {
        for entry in std::fs::read_dir(grammar_file(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if [".ebnf", ".g4", ".json"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
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
    files
});

static GRAMMARS: LazyLock<Vec<Grammar>> =
    LazyLock::new(|| FILES.iter().map(|f| imported(f)).collect());

/// Grammars in which every text has exactly one derivation, so the parse must recover the
/// sampler's own choices, not just its text.
const UNAMBIGUOUS: &[&str] = &[
    "json.ebnf",
    "cgi.ebnf",
    "expr.ebnf",
    "fuzzingbook/cgi.json",
    "fuzzingbook/expr.json",
];

fn bounds() -> impl Strategy<Value = Bounds> {
    (1u32..=4, 1u32..=4, 1u32..=4).prop_map(|(m, n, d)| Bounds::new(m, n, d).unwrap())
}

fn generate(grammar: &Grammar, bounds: Bounds, seed: u64) -> Sample {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut sample = Sample::default();
    sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
    sample
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn generated_text_parses_and_replays_to_itself(
        g in 0..FILES.len(), b in bounds(), seed: u64,
    ) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let text = render(grammar, &sample.tree);
        let parser = Parser::new(grammar);
        let parsed = parser.parse(&text).map_err(|e| {
            TestCaseError::fail(format!("{}: rejected {text:?}: {e}", FILES[g]))
        })?;
        prop_assert_eq!(render(grammar, &parsed.tree), text.clone());
        prop_assert_eq!(check_bounds(grammar, &parsed.tree, parsed.bounds), Ok(()));
        prop_assert!(parsed.bounds.within(&b) || !UNAMBIGUOUS.contains(&FILES[g].as_str()));

        let mut sampler = Sampler::new(grammar, parsed.bounds).unwrap();
        let mut replayed = Sample::default();
        sampler
            .sample(parsed.choices.as_slice(), Replay::Strict, &mut StdRand::with_seed(7), &mut replayed)
            .map_err(|e| TestCaseError::fail(format!("replay of {text:?} under {}: {e}", parsed.bounds)))?;
        prop_assert_eq!(render(grammar, &replayed.tree), text);
        prop_assert_eq!(&replayed.tree, &parsed.tree);
        prop_assert_eq!(&replayed.choices, &parsed.choices);
        if UNAMBIGUOUS.contains(&FILES[g].as_str()) {
            prop_assert_eq!(&parsed.choices, &sample.choices);
            prop_assert_eq!(&parsed.tree, &sample.tree);
        }
    }
}
