//! Property tests of the bounded sampler on every shipped grammar, under both depth measures
//! (`%depth rule` and `%depth cycle`): determinism, bounds, and replay stability across bounds.

mod common;

use bonsai::choice::Replay;
use bonsai::grammar::{DepthMeasure, Grammar};
use bonsai::sampler::{Bound, Bounds, Sample, Sampler};
use bonsai::text::render;
use common::{SHIPPED, check_bounds, shipped};
use libafl_bolts::rands::{Rand, StdRand};
use proptest::prelude::*;
use std::sync::LazyLock;

/// Each shipped grammar as written, then with the other depth measure.
static GRAMMARS: LazyLock<Vec<Grammar>> = LazyLock::new(|| {
    let written: Vec<Grammar> = SHIPPED.iter().map(|g| shipped(g)).collect();
    let other = written.iter().map(|g| {
        let mut g = g.clone();
        g.depth = match g.depth {
            DepthMeasure::Rule => DepthMeasure::Cycle,
            DepthMeasure::Cycle => DepthMeasure::Rule,
        };
        g
    });
    written.iter().cloned().chain(other).collect()
});

const GRAMMAR_COUNT: usize = 2 * SHIPPED.len();

fn bounds() -> impl Strategy<Value = Bounds> {
    (1u32..=4, 1u32..=4, 1u32..=4).prop_map(|(m, n, d)| Bounds::new(m, n, d).unwrap())
}

fn generate(grammar: &Grammar, bounds: Bounds, seed: u64) -> Sample {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut sample = Sample::default();
    sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
    sample
}

fn replay(
    grammar: &Grammar,
    bounds: Bounds,
    choices: &[u32],
    mode: Replay,
) -> Result<Sample, bonsai::sampler::OutOfBounds> {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut sample = Sample::default();
    // A seed that would give different fresh choices: a replay must not need any.
    sampler.sample(
        choices,
        mode,
        &mut StdRand::with_seed(0xdead_beef),
        &mut sample,
    )?;
    Ok(sample)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn generation_is_deterministic(g in 0..GRAMMAR_COUNT, b in bounds(), seed: u64) {
        let grammar = &GRAMMARS[g];
        let first = generate(grammar, b, seed);
        let second = generate(grammar, b, seed);
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(render(grammar, &first.tree), render(grammar, &second.tree));
    }

    #[test]
    fn every_output_respects_all_three_bounds(g in 0..GRAMMAR_COUNT, b in bounds(), seed: u64) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        prop_assert_eq!(check_bounds(grammar, &sample.tree, b), Ok(()));
    }

    #[test]
    fn a_recording_replays_identically_under_every_larger_bound(
        g in 0..GRAMMAR_COUNT, b in bounds(), grow in (0u32..3, 0u32..3, 0u32..3), seed: u64,
    ) {
        let grammar = &GRAMMARS[g];
        let recorded = generate(grammar, b, seed);
        let larger = Bounds::new(b.idents + grow.0, b.items + grow.1, b.depth + grow.2).unwrap();
        let replayed = replay(grammar, larger, recorded.choices.as_slice(), Replay::Strict)
            .map_err(|e| TestCaseError::fail(format!("replay under {larger} of a {b} recording failed: {e}")))?;
        prop_assert_eq!(render(grammar, &replayed.tree), render(grammar, &recorded.tree));
        prop_assert_eq!(replayed.choices, recorded.choices);
    }

    #[test]
    fn under_smaller_bounds_a_recording_replays_identically_or_is_out_of_bounds(
        g in 0..GRAMMAR_COUNT, b in bounds(), smaller in bounds(), seed: u64,
    ) {
        let grammar = &GRAMMARS[g];
        let recorded = generate(grammar, b, seed);
        match replay(grammar, smaller, recorded.choices.as_slice(), Replay::Strict) {
            Ok(replayed) => {
                prop_assert_eq!(render(grammar, &replayed.tree), render(grammar, &recorded.tree));
                prop_assert_eq!(check_bounds(grammar, &replayed.tree, smaller), Ok(()));
            }
            Err(e) => {
                // The reported bound must really be smaller than the recording needed.
                let exceeded = match e.bound {
                    Bound::Idents => smaller.idents < b.idents,
                    Bound::Items => smaller.items < b.items,
                    Bound::Depth => smaller.depth < b.depth,
                };
                prop_assert!(exceeded, "{e} blamed a bound that did not shrink ({b} -> {smaller})");
            }
        }
    }

    #[test]
    fn repaired_random_sequences_stay_in_bounds_and_normalize(
        g in 0..GRAMMAR_COUNT, b in bounds(), seed: u64, len in 0usize..200,
    ) {
        let grammar = &GRAMMARS[g];
        let mut rng = StdRand::with_seed(seed);
        let raw: Vec<u32> = (0..len).map(|_| rng.next() as u32 % 64).collect();
        let repaired = replay(grammar, b, &raw, Replay::Repair).unwrap();
        prop_assert_eq!(check_bounds(grammar, &repaired.tree, b), Ok(()));
        // The normalized sequence is a faithful recording: strict replay gives the same input.
        let again = replay(grammar, b, repaired.choices.as_slice(), Replay::Strict)
            .map_err(|e| TestCaseError::fail(format!("normalized sequence rejected: {e}")))?;
        prop_assert_eq!(again, repaired);
    }

    #[test]
    fn subtrees_own_contiguous_choice_spans(g in 0..GRAMMAR_COUNT, b in bounds(), seed: u64) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let nodes = sample.tree.nodes();
        prop_assert_eq!(nodes[0].choices_start, 0);
        prop_assert_eq!(nodes[0].choices_end as usize, sample.choices.len());
        for (i, node) in nodes.iter().enumerate() {
            let mut cursor = node.choices_start;
            for child in sample.tree.children(bonsai::tree::NodeId(i as u32)) {
                let child = sample.tree.node(child);
                prop_assert!(child.choices_start >= cursor);
                cursor = child.choices_end;
            }
            prop_assert!(cursor <= node.choices_end);
        }
    }
}

fn continue_fresh(grammar: &Grammar, prefix: &[u32], budget: usize, seed: u64) -> Sample {
    let bounds: Bounds = "3,3,1000".parse().unwrap();
    let mut sampler = Sampler::new(grammar, bounds)
        .unwrap()
        .with_node_budget(budget, budget);
    let mut sample = Sample::default();
    sampler
        .sample(
            prefix,
            Replay::Repair,
            &mut StdRand::with_seed(seed),
            &mut sample,
        )
        .unwrap();
    sample
}

/// A mutant's fresh part (a regenerated subtree, havoc's fresh tail) deep inside a large
/// parent gets its own node budget: counted over the whole tree, the budget would already be
/// spent by the replayed prefix, and every fresh subtree would close at once into the same
/// lowest-height leaf.
#[test]
fn the_node_budget_counts_only_fresh_nodes() {
    let grammar = shipped("expr");
    let bounds: Bounds = "3,3,1000".parse().unwrap();
    let mut sampler = Sampler::new(&grammar, bounds)
        .unwrap()
        .with_node_budget(2000, 2000);
    let mut large = Sample::default();
    let mut seed = 0;
    while large.tree.len() < 600 {
        seed += 1;
        sampler.generate(&mut StdRand::with_seed(seed), &mut large);
    }
    let prefix = &large.choices.as_slice()[..large.choices.len() / 2];
    let lens = |budget| -> Vec<usize> {
        (0..40)
            .map(|s| continue_fresh(&grammar, prefix, budget, s).tree.len())
            .collect()
    };
    let (tight, roomy) = (lens(1), lens(64));
    let replayed = *tight.iter().chain(&roomy).min().unwrap();
    assert!(
        replayed > 64,
        "the prefix alone has more nodes than the budget below"
    );
    let fresh_nodes = |lens: &[usize]| -> usize { lens.iter().map(|l| l - replayed).sum() };
    let (closed, budgeted) = (fresh_nodes(&tight), fresh_nodes(&roomy));
    assert!(
        budgeted > 2 * closed,
        "with a budget of 64 fresh nodes the continuations grew {budgeted} nodes, closed at once {closed}"
    );
}
