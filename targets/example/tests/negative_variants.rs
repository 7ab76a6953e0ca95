//! The slides' study of student parsers, on letcalc: three deliberately wrong parsers (a
//! gratuitous optional, a superfluous alternative, an order violation), each accepting more
//! than the language. The positive suites of the grammar cannot tell any of them from the
//! golden parser, since every word they hold is accepted by both; the negative suite can: each
//! variant accepts some negative the golden parser rejects.

use bonsai::analysis::Analysis;
use bonsai::bounds::{Bounds, MAX_BOUND};
use bonsai::cover::cover;
use bonsai::coverage::Criterion;
use bonsai::negative::{Operators, generate};
use bonsai_target_example::letcalc::{Variant, run_variant};

/// Whether the parser of `variant` accepts `text`: no error, or one from a later phase.
fn parses(text: &str, variant: Variant) -> bool {
    match run_variant(text, variant) {
        Ok(_) => true,
        Err(error) => error.phase != "parse",
    }
}

#[test]
fn the_negative_suite_catches_every_wrong_parser_the_positive_suites_miss() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("letcalc.ebnf");
    let grammar = bonsai::import::load(&path).unwrap().grammar;
    let analysis = Analysis::new(&grammar);
    let bounds = Bounds::new(3, MAX_BOUND, MAX_BOUND).unwrap();
    let mut trees = Vec::new();
    let mut positives = Vec::new();
    for criterion in [
        Criterion::Rule,
        Criterion::Cdrc,
        Criterion::KPath(2),
        Criterion::KPath(3),
        Criterion::Pairs,
        Criterion::Pll,
    ] {
        let suite = bonsai::parse::with_large_stack(|| {
            cover(&grammar, &analysis, criterion, bounds).unwrap()
        });
        for word in suite.words {
            positives.push(word.text);
            trees.push(word.tree);
        }
    }
    let names: Vec<String> = (0..trees.len()).map(|i| format!("word {i}")).collect();
    let ops = Operators {
        word: true,
        rule: true,
    };
    let (negatives, _) = bonsai::parse::with_large_stack(|| {
        generate(&grammar, &analysis, &trees, &names, ops, 3000)
    });
    assert!(positives.iter().all(|text| parses(text, Variant::Golden)));
    for variant in [
        Variant::OptionalEquals,
        Variant::UnaryPlus,
        Variant::EitherOperatorOrder,
    ] {
        let told_apart = positives
            .iter()
            .filter(|text| parses(text, variant) != parses(text, Variant::Golden))
            .count();
        let caught: Vec<_> = negatives
            .iter()
            .filter(|n| !parses(&n.text, Variant::Golden) && parses(&n.text, variant))
            .collect();
        println!(
            "{variant:?}: {} of {} positive words told apart, {} of {} negatives catch it, e.g. {:?} ({})",
            told_apart,
            positives.len(),
            caught.len(),
            negatives.len(),
            caught.first().map(|n| &n.text),
            caught.first().map_or("", |n| n.operator),
        );
        assert!(
            !caught.is_empty(),
            "{variant:?}: no negative of {} catches it",
            negatives.len()
        );
        assert_eq!(told_apart, 0, "{variant:?}: a positive word tells it apart");
    }
}
