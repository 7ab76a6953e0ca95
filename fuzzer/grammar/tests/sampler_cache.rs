//! The sampler's per-saturated-set analyses are cached within a byte budget
//! (`sampler::SaturatedCache`): what it samples must not depend on the budget, and a long run
//! must not grow the cache past it. Fuzzing replays mutated sequences, which meet far more sets
//! of saturated rules than fresh generation does; random sequences replayed in repairing mode
//! stand in for them here.

use bonsai_grammar::choice::Replay;
use bonsai_grammar::grammar::{Grammar, RuleId};
use bonsai_grammar::sampler::{Bounds, MinimalDerivations, Sample, Sampler};
use fast_rands::{Rand, StdRand};

fn grammar(name: &str) -> Grammar {
    let path = format!("{}/../../grammars/{name}.ebnf", env!("CARGO_MANIFEST_DIR"));
    Grammar::from_text(name, &std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bounds(idents: u32, items: u32, depth: u32) -> Bounds {
    Bounds {
        idents,
        items,
        depth,
    }
}

/// Random sequences, as raw as a havoc mutant's, of up to 400 decisions.
fn raw_sequences(seed: u64, count: usize) -> Vec<Vec<u32>> {
    let mut rng = StdRand::with_seed(seed);
    (0..count)
        .map(|_| {
            let len = rng.below_or_zero(400);
            (0..len).map(|_| rng.next() as u32).collect()
        })
        .collect()
}

/// What a run of replays did to the cache.
struct CacheUse {
    /// Bytes held at the end of the largest sample.
    largest: usize,
    /// The most bytes one sample added.
    largest_growth: usize,
}

/// Replays each sequence with `sampler` (fresh choices after its end from a fixed seed).
fn replay_all(sampler: &mut Sampler<'_>, sequences: &[Vec<u32>]) -> (Vec<Sample>, CacheUse) {
    let mut rng = StdRand::with_seed(7);
    let mut cache = CacheUse {
        largest: 0,
        largest_growth: 0,
    };
    let samples = sequences
        .iter()
        .map(|recorded| {
            let mut out = Sample::default();
            let before = sampler.cached().bytes;
            sampler
                .sample(recorded, Replay::Repair, &mut rng, &mut out)
                .expect("repairing replay cannot fail");
            let after = sampler.cached().bytes;
            cache.largest = cache.largest.max(after);
            cache.largest_growth = cache.largest_growth.max(after.saturating_sub(before));
            out
        })
        .collect();
    (samples, cache)
}

#[test]
fn a_sampler_samples_the_same_inputs_whatever_its_cache_budget() {
    for (name, b) in [("wgsl", bounds(3, 3, 3)), ("starlark", bounds(1, 1, 1))] {
        let grammar = grammar(name);
        let sequences = raw_sequences(1, 100);
        let mut unbounded = Sampler::new(&grammar, b)
            .unwrap()
            .with_cache_budget(usize::MAX);
        // A budget of 0 keeps only the empty set's slot between samples: every other slot is
        // computed again in every sample that needs it.
        let mut starved = Sampler::new(&grammar, b).unwrap().with_cache_budget(0);
        let (expected, _) = replay_all(&mut unbounded, &sequences);
        let (got, _) = replay_all(&mut starved, &sequences);
        assert!(
            unbounded.cached().slots > 10,
            "{name}: the replays met {} sets: too few to test the budget",
            unbounded.cached().slots
        );
        for (i, (e, g)) in expected.iter().zip(&got).enumerate() {
            assert_eq!(e, g, "{name}: sample {i} differs under a starved cache");
        }
    }
}

#[test]
fn a_long_run_keeps_the_cache_within_its_budget() {
    let grammar = grammar("wgsl");
    let b = bounds(3, 3, 3);
    let sequences = raw_sequences(2, 500);
    let budget = 1 << 20;
    let (_, unbounded) = replay_all(
        &mut Sampler::new(&grammar, b)
            .unwrap()
            .with_cache_budget(usize::MAX),
        &sequences,
    );
    let (_, bounded) = replay_all(
        &mut Sampler::new(&grammar, b).unwrap().with_cache_budget(budget),
        &sequences,
    );
    eprintln!(
        "unbounded: {} bytes (one sample added at most {}); budget {budget}: {} bytes",
        unbounded.largest, unbounded.largest_growth, bounded.largest
    );
    // Within a sample the cache may pass the budget by what that sample adds; it is pruned
    // when the next one starts.
    let allowed = budget + bounded.largest_growth;
    assert!(
        unbounded.largest > 2 * allowed,
        "without a budget the run caches {} bytes, too few to test a budget of {budget}",
        unbounded.largest
    );
    assert!(
        bounded.largest <= allowed,
        "the cache reached {} bytes under a budget of {budget}",
        bounded.largest
    );
}

/// A shortest derivation's length (`None` where there is none) and choices.
type Answer = (Option<u64>, Vec<u32>);

#[test]
fn shortest_derivations_keep_their_cache_within_its_budget_and_their_answers() {
    let grammar = grammar("wgsl");
    let b = bounds(3, 3, 3);
    let named: Vec<RuleId> = (0..grammar.named_rules as u32).map(RuleId).collect();
    let mut rng = StdRand::with_seed(3);
    // Random paths of named rules above a random rule: each path saturates its own set.
    let queries: Vec<(RuleId, Vec<RuleId>)> = (0..2000)
        .map(|_| {
            let pick = |rng: &mut StdRand| named[rng.below_or_zero(named.len())];
            let depth = rng.below_or_zero(12);
            let above = (0..depth).map(|_| pick(&mut rng)).collect();
            (pick(&mut rng), above)
        })
        .collect();
    let answers = |minimal: &mut MinimalDerivations<'_>| -> (Vec<Answer>, usize) {
        let mut largest = 0;
        let answers = queries
            .iter()
            .map(|(rule, above)| {
                let mut out = Vec::new();
                let length = minimal.rule(*rule, above, &mut out);
                largest = largest.max(minimal.cached().bytes);
                (length, out)
            })
            .collect();
        (answers, largest)
    };
    let budget = 128 << 10;
    let (expected, unbounded) =
        answers(&mut MinimalDerivations::new(&grammar, b).with_cache_budget(usize::MAX));
    let (got, bounded) =
        answers(&mut MinimalDerivations::new(&grammar, b).with_cache_budget(budget));
    assert!(
        unbounded > 2 * budget,
        "without a budget the queries cache {unbounded} bytes, too few to test a budget of {budget}"
    );
    assert!(
        bounded <= 2 * budget,
        "{bounded} bytes under a budget of {budget}"
    );
    assert_eq!(expected, got, "the budget changed an answer");
}
