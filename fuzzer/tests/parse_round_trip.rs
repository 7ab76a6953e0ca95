//! The parse round trip on every shipped grammar: generate → render → parse → choices →
//! strict replay gives the identical text, and the parsed tree's choices are the sampler's
//! whenever the grammar leaves only one derivation.

mod common;

use std::sync::LazyLock;

use bonsai::choice::Replay;
use bonsai::grammar::Grammar;
use bonsai::parse::Parser;
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use common::{SHIPPED, check_bounds, shipped};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

static GRAMMARS: LazyLock<Vec<Grammar>> =
    LazyLock::new(|| SHIPPED.iter().map(|g| shipped(g)).collect());

/// Grammars in which every text has exactly one derivation, so the parse must recover the
/// sampler's own choices, not just its text.
const UNAMBIGUOUS: &[&str] = &["json", "cgi", "expr"];

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
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn generated_text_parses_and_replays_to_itself(
        g in 0..SHIPPED.len(), b in bounds(), seed: u64,
    ) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let text = render(grammar, &sample.tree);
        let parser = Parser::new(grammar);
        let parsed = parser.parse(&text).map_err(|e| {
            TestCaseError::fail(format!("{}: rejected {text:?}: {e}", SHIPPED[g]))
        })?;
        prop_assert_eq!(render(grammar, &parsed.tree), text.clone());
        prop_assert_eq!(check_bounds(grammar, &parsed.tree, parsed.bounds), Ok(()));
        prop_assert!(parsed.bounds.within(&b) || !UNAMBIGUOUS.contains(&SHIPPED[g]));

        let mut sampler = Sampler::new(grammar, parsed.bounds).unwrap();
        let mut replayed = Sample::default();
        sampler
            .sample(parsed.choices.as_slice(), Replay::Strict, &mut StdRand::with_seed(7), &mut replayed)
            .map_err(|e| TestCaseError::fail(format!("replay of {text:?} under {}: {e}", parsed.bounds)))?;
        prop_assert_eq!(render(grammar, &replayed.tree), text);
        prop_assert_eq!(&replayed.tree, &parsed.tree);
        prop_assert_eq!(&replayed.choices, &parsed.choices);
        if UNAMBIGUOUS.contains(&SHIPPED[g]) {
            prop_assert_eq!(&parsed.choices, &sample.choices);
            prop_assert_eq!(&parsed.tree, &sample.tree);
        }
    }
}
