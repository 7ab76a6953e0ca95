//! Properties of the mutators: mutants are derivations within the bounds, and each
//! structure-aware operator does what its name says.

mod common;

use bonsai::choice::{ChoiceInput, Replay};
use bonsai::grammar::Grammar;
use bonsai::mutators::{
    HavocMutator, ParentTrees, RegenerateMutator, RepetitionEdit, RepetitionMutator, ShrinkMutator,
    SpliceMutator, edit_item, nodes_with_choices, replace_span,
};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use bonsai::tree::NodeKind;
use common::{check_bounds, grammar_path};
use libafl::corpus::{Corpus, InMemoryCorpus, Testcase};
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::{HasCorpus, StdState};
use libafl_bolts::rands::StdRand;

/// A mutator under test, with its name.
type NamedMutator = (&'static str, Box<dyn Mutator<ChoiceInput, State>>);

type State =
    StdState<InMemoryCorpus<ChoiceInput>, ChoiceInput, StdRand, InMemoryCorpus<ChoiceInput>>;

const GRAMMARS: &[&str] = &["planted", "chocopy", "json", "simpl"];

fn load(name: &str) -> &'static Grammar {
    let grammar = Grammar::from_file(&grammar_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Box::leak(Box::new(grammar))
}

fn bounds() -> Bounds {
    "2,3,3".parse().unwrap()
}

fn samples(grammar: &Grammar, count: usize, seed: u64) -> Vec<Sample> {
    let mut sampler = Sampler::new(grammar, bounds())
        .unwrap()
        .with_node_budget(16, 400);
    let mut rng = StdRand::with_seed(seed);
    (0..count)
        .map(|_| {
            let mut s = Sample::default();
            sampler.generate(&mut rng, &mut s);
            s
        })
        .collect()
}

fn state_with(parents: &[Sample]) -> State {
    let mut state = State::new(
        StdRand::with_seed(7),
        InMemoryCorpus::new(),
        InMemoryCorpus::new(),
        &mut (),
        &mut (),
    )
    .unwrap();
    for p in parents {
        state
            .corpus_mut()
            .add(Testcase::new(ChoiceInput::new(p.choices.clone(), bounds())))
            .unwrap();
    }
    state
}

/// Replays a mutant the way the harness does, then checks that the normalized sequence
/// replays strictly to the same tree and that the tree is within the bounds.
fn replay_checked(grammar: &Grammar, raw: &[u32]) -> Sample {
    let mut sampler = Sampler::new(grammar, bounds()).unwrap();
    let mut rng = StdRand::with_seed(1);
    let mut repaired = Sample::default();
    sampler
        .sample(raw, Replay::Repair, &mut rng, &mut repaired)
        .unwrap();
    let mut strict = Sample::default();
    sampler
        .sample(
            repaired.choices.as_slice(),
            Replay::Strict,
            &mut rng,
            &mut strict,
        )
        .expect("the normalized sequence replays strictly");
    assert_eq!(strict, repaired);
    check_bounds(grammar, &strict.tree, bounds()).unwrap();
    strict
}

fn exercise(name: &str, mutator: &mut dyn Mutator<ChoiceInput, State>) -> (usize, usize) {
    let grammar = load(name);
    let parents = samples(grammar, 25, 3);
    let mut state = state_with(&parents);
    let (mut mutated, mut changed) = (0, 0);
    for parent in &parents {
        for _ in 0..8 {
            let mut input = ChoiceInput::new(parent.choices.clone(), bounds());
            if mutator.mutate(&mut state, &mut input).unwrap() == MutationResult::Skipped {
                continue;
            }
            mutated += 1;
            let mutant = replay_checked(grammar, input.choices.as_slice());
            changed += usize::from(mutant.choices != parent.choices);
        }
    }
    (mutated, changed)
}

#[test]
fn every_mutator_yields_derivations_within_the_bounds() {
    for name in GRAMMARS {
        let trees = ParentTrees::new(load(name), bounds()).unwrap().shared();
        let mut mutators: Vec<NamedMutator> = vec![
            ("havoc", Box::new(HavocMutator::default())),
            (
                "regenerate",
                Box::new(RegenerateMutator::new(trees.clone())),
            ),
            ("splice", Box::new(SpliceMutator::new(trees.clone()))),
            (
                "delete",
                Box::new(RepetitionMutator::new(
                    trees.clone(),
                    RepetitionEdit::Delete,
                )),
            ),
            (
                "duplicate",
                Box::new(RepetitionMutator::new(
                    trees.clone(),
                    RepetitionEdit::Duplicate,
                )),
            ),
            ("shrink", Box::new(ShrinkMutator::new(trees.clone()))),
        ];
        for (label, mutator) in &mut mutators {
            let (mutated, changed) = exercise(name, mutator.as_mut());
            assert!(mutated > 20, "{name}/{label}: only {mutated} mutants");
            assert!(
                changed * 2 > mutated,
                "{name}/{label}: {changed} of {mutated} mutants differ from their parent"
            );
        }
    }
}

#[test]
fn splice_keeps_the_rule_of_the_replaced_subtree() {
    for name in GRAMMARS {
        let grammar = load(name);
        let all = samples(grammar, 12, 5);
        let (parent, donor) = (&all[..6], &all[6..]);
        let mut checked = 0;
        for (p, d) in parent.iter().zip(donor) {
            for node in nodes_with_choices(&p.tree, |k| matches!(k, NodeKind::Rule { .. })) {
                let NodeKind::Rule { rule, .. } = p.tree.node(node).kind else {
                    unreachable!()
                };
                for dn in nodes_with_choices(
                    &d.tree,
                    |k| matches!(k, NodeKind::Rule { rule: r, .. } if *r == rule),
                ) {
                    let (pn, dnode) = (p.tree.node(node), d.tree.node(dn));
                    let mutant = replace_span(
                        p.choices.as_slice(),
                        pn.choices_start as usize,
                        pn.choices_end as usize,
                        &d.choices.as_slice()
                            [dnode.choices_start as usize..dnode.choices_end as usize],
                    );
                    let replayed = replay_checked(grammar, &mutant);
                    let NodeKind::Rule { rule: got, .. } = replayed.tree.node(node).kind else {
                        panic!("{name}: node {node:?} is no longer a rule node");
                    };
                    assert_eq!(got, rule, "{name}: splice changed the rule at {node:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10, "{name}: only {checked} splices checked");
    }
}

#[test]
fn delete_and_duplicate_change_the_item_count_by_one() {
    for name in GRAMMARS {
        let grammar = load(name);
        let mut checked = [0, 0];
        for s in samples(grammar, 30, 9) {
            for node in nodes_with_choices(&s.tree, |k| matches!(k, NodeKind::Repeat { .. })) {
                let before = s.tree.children(node).count();
                for item in 0..before {
                    for (edit, delta, slot) in [
                        (RepetitionEdit::Delete, -1i64, 0),
                        (RepetitionEdit::Duplicate, 1, 1),
                    ] {
                        let Some(mutant) = edit_item(grammar, bounds(), &s, node, item, edit)
                        else {
                            continue;
                        };
                        let replayed = replay_checked(grammar, &mutant);
                        assert!(matches!(
                            replayed.tree.node(node).kind,
                            NodeKind::Repeat { .. }
                        ));
                        let after = replayed.tree.children(node).count() as i64;
                        assert_eq!(after, before as i64 + delta, "{name}: {edit:?} on {node:?}");
                        checked[slot] += 1;
                    }
                }
            }
        }
        assert!(
            checked[0] > 5 && checked[1] > 5,
            "{name}: too few edits checked: {checked:?}"
        );
    }
}

#[test]
fn shrink_never_grows_the_input() {
    for name in GRAMMARS {
        let grammar = load(name);
        let parents = samples(grammar, 40, 11);
        let mut state = state_with(&parents);
        let trees = ParentTrees::new(grammar, bounds()).unwrap().shared();
        let mut shrink = ShrinkMutator::new(trees);
        let (mut mutated, mut smaller) = (0, 0);
        for parent in &parents {
            let before = render(grammar, &parent.tree).len();
            for _ in 0..5 {
                let mut input = ChoiceInput::new(parent.choices.clone(), bounds());
                if shrink.mutate(&mut state, &mut input).unwrap() == MutationResult::Skipped {
                    continue;
                }
                let after = render(
                    grammar,
                    &replay_checked(grammar, input.choices.as_slice()).tree,
                )
                .len();
                assert!(
                    after <= before,
                    "{name}: shrink grew {before} to {after} characters"
                );
                mutated += 1;
                smaller += usize::from(after < before);
            }
        }
        assert!(
            smaller * 2 > mutated && mutated > 20,
            "{name}: {smaller} of {mutated} shrinks were smaller"
        );
    }
}
