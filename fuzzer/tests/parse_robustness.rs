//! The parser never panics: random bytes, and generated texts with random edits, each give
//! an accepted parse or a located rejection. An accepted edit still round-trips.

mod common;

use std::sync::LazyLock;

use bonsai::grammar::Grammar;
use bonsai::parse::{ParseOptions, Parser};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::{render, render_words};
use common::{SHIPPED, shipped};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

static GRAMMARS: LazyLock<Vec<Grammar>> =
    LazyLock::new(|| SHIPPED.iter().map(|g| shipped(g)).collect());

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, u8),
    Delete(usize),
    Replace(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        Just(b' '),
        Just(b'\n'),
        Just(b'\t'),
        Just(b'"'),
        Just(b'('),
        Just(b')'),
        Just(b'a'),
        Just(b'1'),
        any::<u8>()
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Replace(i, b)),
    ]
}

fn apply(text: &mut Vec<u8>, edit: &Edit) {
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
    match *edit {
        Edit::Insert(i, b) => {
            let i = at(i, text.len() + 1);
            text.insert(i, b)
        }
        Edit::Delete(i) if !text.is_empty() => {
            let i = at(i, text.len());
            text.remove(i);
        }
        Edit::Replace(i, b) if !text.is_empty() => {
            let i = at(i, text.len());
            text[i] = b
        }
        _ => {}
    }
}

/// Parsing must return, and an error must point inside the text (or at its end).
fn check(grammar: &Grammar, bytes: &[u8], mode: u8) -> Result<(), TestCaseError> {
    let parser = Parser::new(grammar);
    let options = match mode % 3 {
        0 => ParseOptions::default(),
        1 => ParseOptions::renaming_words(),
        _ => ParseOptions::keeping_words(),
    };
    match parser.parse_bytes(bytes, options) {
        Ok(parsed) => {
            // Whatever was accepted replays to a text that parses to the same tree, own words
            // and all.
            let text = render_words(grammar, &parsed.tree, &parsed.words);
            let again = parser
                .parse_with(&text, options)
                .map_err(|e| TestCaseError::fail(format!("re-rendered {text:?} rejected: {e}")))?;
            prop_assert_eq!(render_words(grammar, &again.tree, &again.words), text);
        }
        Err(e) => prop_assert!(
            e.offset <= bytes.len(),
            "{} beyond {}",
            e.offset,
            bytes.len()
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(g in 0..SHIPPED.len(), bytes in proptest::collection::vec(any::<u8>(), 0..200), mode: u8) {
        check(&GRAMMARS[g], &bytes, mode)?;
    }

    #[test]
    fn edited_generated_texts_never_panic(
        g in 0..SHIPPED.len(), seed: u64, mode: u8,
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let grammar = &GRAMMARS[g];
        let mut sampler = Sampler::new(grammar, Bounds::new(3, 3, 3).unwrap()).unwrap();
        let mut sample = Sample::default();
        sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
        let mut text = render(grammar, &sample.tree).into_bytes();
        for e in &edits {
            apply(&mut text, e);
        }
        check(grammar, &text, mode)?;
    }
}
