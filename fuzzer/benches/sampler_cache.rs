//! What the budget of the sampler's per-saturated-set cache (`sampler::SaturatedCache`) costs.
//!
//! A budget bounds a fuzzing process's memory (the cache grew without bound before it); a
//! small one makes the sampler compute again the analyses it dropped. Mutants are stood in for
//! by generated inputs with three decisions overwritten at random, as havoc does, replayed in
//! repairing mode, as the harness does. For each grammar, bounds and budget the table gives
//! the slots computed over the batch and the time, as a ratio to an unbounded cache timed in
//! alternation with it (A B A B), so that the machine's load falls on both, and the mean size
//! of a slot of the unbounded cache.
//!
//! `cargo bench -p bonsai --bench sampler_cache`

use std::time::{Duration, Instant};

use bonsai::choice::Replay;
use bonsai::grammar::Grammar;
use bonsai::sampler::{Bounds, Sample, Sampler};
use libafl_bolts::rands::{Rand, StdRand};

const CASES: [(&str, &str); 4] = [
    ("wgsl", "3,3,3"),
    ("wgsl", "1,1,1"),
    ("starlark", "3,3,3"),
    ("javascript", "3,3,3"),
];
const BUDGETS_MB: [usize; 4] = [24, 8, 4, 2];
/// Mutants per batch: enough for the cache to fill past the smaller budgets.
const MUTANTS: usize = 4000;
/// Alternating (unbounded, budgeted) pairs timed per budget.
const PAIRS: usize = 3;

fn grammar(name: &str) -> Grammar {
    let path = format!("{}/../grammars/{name}.ebnf", env!("CARGO_MANIFEST_DIR"));
    Grammar::from_file(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn mutants(grammar: &Grammar, bounds: Bounds) -> Vec<Vec<u32>> {
    let mut generator = Sampler::new(grammar, bounds).unwrap();
    let mut rng = StdRand::with_seed(5);
    let mut out = Sample::default();
    (0..MUTANTS)
        .map(|_| {
            generator.generate(&mut rng, &mut out);
            let mut choices = out.choices.0.clone();
            if !choices.is_empty() {
                for _ in 0..3 {
                    let at = rng.below_or_zero(choices.len());
                    choices[at] = rng.next() as u32;
                }
            }
            choices
        })
        .collect()
}

/// Replays the batch with a fresh sampler of `budget` bytes: the time, the slots computed and
/// the mean bytes of a cached slot.
fn replay(
    grammar: &Grammar,
    bounds: Bounds,
    budget: usize,
    batch: &[Vec<u32>],
) -> (Duration, u64, usize) {
    let mut sampler = Sampler::new(grammar, bounds)
        .unwrap()
        .with_cache_budget(budget);
    let mut rng = StdRand::with_seed(7);
    let mut out = Sample::default();
    let start = Instant::now();
    for choices in batch {
        sampler
            .sample(choices, Replay::Repair, &mut rng, &mut out)
            .unwrap();
    }
    let cached = sampler.cached();
    (
        start.elapsed(),
        cached.computed,
        cached.bytes / cached.slots.max(1),
    )
}

fn main() {
    println!(
        "{:<11} {:<6} {:>6} {:>9} {:>9} {:>11} {:>7}",
        "grammar", "bounds", "budget", "computed", "unbounded", "time ratio", "B/slot"
    );
    for (name, bounds) in CASES {
        let grammar = grammar(name);
        let bounds: Bounds = bounds.parse().unwrap();
        let batch = mutants(&grammar, bounds);
        for mb in BUDGETS_MB {
            let (mut free_time, mut budget_time) = (Duration::ZERO, Duration::ZERO);
            let (mut free_computed, mut budget_computed, mut slot_bytes) = (0, 0, 0);
            for _ in 0..PAIRS {
                let (t, c, bytes) = replay(&grammar, bounds, usize::MAX, &batch);
                (free_time, free_computed, slot_bytes) = (free_time + t, c, bytes);
                let (t, c, _) = replay(&grammar, bounds, mb << 20, &batch);
                (budget_time, budget_computed) = (budget_time + t, c);
            }
            println!(
                "{name:<11} {bounds:<6} {:>4}MB {budget_computed:>9} {free_computed:>9} {:>11.2} {slot_bytes:>7}",
                mb,
                budget_time.as_secs_f64() / free_time.as_secs_f64()
            );
        }
    }
}
