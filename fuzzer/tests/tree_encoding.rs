//! The tree encoder is the inverse of the sampler's decisions: a sampled tree encodes to
//! exactly the choices the sampler recorded, and the bounds it requires are within the bounds
//! it was sampled under and suffice to replay it.

mod common;

use std::sync::LazyLock;

use bonsai::choice::Replay;
use bonsai::grammar::Grammar;
use bonsai::sampler::{Bounds, Sample, Sampler};
use common::{SHIPPED, shipped};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

static GRAMMARS: LazyLock<Vec<Grammar>> =
    LazyLock::new(|| SHIPPED.iter().map(|g| shipped(g)).collect());

fn bounds() -> impl Strategy<Value = Bounds> {
    (1u32..=4, 1u32..=4, 1u32..=4).prop_map(|(m, n, d)| Bounds::new(m, n, d).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn sampled_trees_encode_to_their_own_choices(g in 0..SHIPPED.len(), b in bounds(), seed: u64) {
        let grammar = &GRAMMARS[g];
        let mut sampler = Sampler::new(grammar, b).unwrap();
        let mut sample = Sample::default();
        sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
        prop_assert_eq!(sample.tree.choices(grammar), sample.choices.clone());

        let required = Bounds::required_by(grammar, &sample.tree);
        prop_assert!(required.within(&b), "{} needs more than {}", required, b);
        let mut tight = Sampler::new(grammar, required).unwrap();
        let mut replayed = Sample::default();
        tight
            .sample(sample.choices.as_slice(), Replay::Strict, &mut StdRand::with_seed(1), &mut replayed)
            .map_err(|e| TestCaseError::fail(format!("replay under {required}: {e}")))?;
        prop_assert_eq!(replayed, sample);
    }
}

/// Required bounds are tight: one less in any component and the replay is out of bounds.
#[test]
fn required_bounds_are_the_smallest() {
    let grammar = shipped("json");
    let mut sampler = Sampler::new(&grammar, Bounds::new(4, 4, 4).unwrap()).unwrap();
    let mut sample = Sample::default();
    let mut checked = 0;
    for seed in 0..200 {
        sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
        let required = Bounds::required_by(&grammar, &sample.tree);
        let smaller = [
            (required.idents > 1).then(|| Bounds {
                idents: required.idents - 1,
                ..required
            }),
            (required.items > 1).then(|| Bounds {
                items: required.items - 1,
                ..required
            }),
            (required.depth > 1).then(|| Bounds {
                depth: required.depth - 1,
                ..required
            }),
        ];
        for bounds in smaller.into_iter().flatten() {
            let mut replayed = Sample::default();
            let result = Sampler::new(&grammar, bounds).unwrap().sample(
                sample.choices.as_slice(),
                Replay::Strict,
                &mut StdRand::with_seed(1),
                &mut replayed,
            );
            assert!(
                result.is_err(),
                "seed {seed}: {bounds} suffices, {required} was required"
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} smaller bounds tried");
}
