//! Damaged grammars never crash the front end: every shipped grammar, edited at random, either
//! loads and generates, or is refused with errors located inside the file.

mod common;

use bonsai::analysis::Analysis;
use bonsai::diagnostic::Diagnostics;
use bonsai::grammar::Grammar;
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use common::{SHIPPED, grammar_path};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

/// Characters that mean something in the grammar language, so that edits reach the parser's
/// corners rather than only making unknown names.
const SIGNIFICANT: &[char] = &[
    '"', '\'', '/', '[', ']', '(', ')', '{', '}', ',', '|', '?', '*', '+', ';', '=', '%', '<', '>',
    '\\', '#', '\n', ' ', '^', '$', '-', 'u', 'x', '0', '9', 'é',
];

#[derive(Clone, Debug)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, c: char },
    Duplicate { at: usize, len: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), prop::sample::select(SIGNIFICANT))
            .prop_map(|(at, c)| Edit::Insert { at, c }),
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Duplicate { at, len }),
    ]
}

/// Applies an edit at a character boundary (positions wrap around the text).
fn apply(text: &mut String, edit: &Edit) {
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let at_boundary = |at: usize| boundaries[at % boundaries.len()];
    let end = |from: usize, len: usize| {
        let i = boundaries.partition_point(|&b| b < from);
        boundaries[(i + len).min(boundaries.len() - 1)]
    };
    match *edit {
        Edit::Delete { at, len } => {
            let from = at_boundary(at);
            text.replace_range(from..end(from, len), "");
        }
        Edit::Insert { at, c } => text.insert(at_boundary(at), c),
        Edit::Duplicate { at, len } => {
            let from = at_boundary(at);
            let piece = text[from..end(from, len)].to_string();
            text.insert_str(from, &piece);
        }
    }
}

fn assert_located(errors: &Diagnostics, text: &str) -> Result<(), TestCaseError> {
    let lines = text.split('\n').count();
    prop_assert!(errors.errors().next().is_some(), "refused without an error");
    for error in errors.errors() {
        let location = error.location.as_ref();
        prop_assert!(location.is_some(), "unlocated: {error}");
        let location = location.unwrap();
        prop_assert!(location.line >= 1 && location.line <= lines, "{error}");
        let line = text.split('\n').nth(location.line - 1).unwrap_or_default();
        prop_assert!(
            location.column >= 1 && location.column <= line.chars().count() + 1,
            "{error}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn edited_grammars_load_and_generate_or_fail_with_located_errors(
        g in 0..SHIPPED.len(),
        edits in prop::collection::vec(edit(), 1..4),
        seed: u64,
    ) {
        let mut text = std::fs::read_to_string(grammar_path(SHIPPED[g])).unwrap();
        for e in &edits {
            apply(&mut text, e);
        }
        let grammar = match Grammar::from_text("edited", &text) {
            Ok(grammar) => grammar,
            Err(errors) => return assert_located(&errors, &text),
        };
        let analysis = Analysis::new(&grammar);
        if let Err(errors) = analysis.check(&grammar) {
            return assert_located(&errors, &text);
        }
        let mut sampler = Sampler::new(&grammar, Bounds::new(2, 2, 2).unwrap()).unwrap();
        let mut sample = Sample::default();
        let mut rng = StdRand::with_seed(seed);
        for _ in 0..3 {
            sampler.generate(&mut rng, &mut sample);
            render(&grammar, &sample.tree);
        }
    }
}
