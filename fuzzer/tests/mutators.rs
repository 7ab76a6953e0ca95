//! Properties of the mutators: mutants are derivations within the bounds, and each
//! structure-aware operator does what its name says.

mod common;

use bonsai::choice::{ChoiceInput, Replay};
use bonsai::grammar::Grammar;
use bonsai::mutators::{
    HavocMutator, MAX_RECURSION_CHOICES, ParentTrees, RecursionMutator, RegenerateMutator,
    RepetitionEdit, RepetitionMutator, ReplayedMutant, ShrinkMutator, SpliceMutator, copies_within,
    edit_item, nearest_recursions, nodes_with_choices, pick_outer, recursions, repeat_recursion,
    replace_span,
};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use bonsai::tree::{DerivationTree, NodeKind};
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
            (
                "recursion",
                Box::new(RecursionMutator::new(trees.clone(), MAX_RECURSION_CHOICES)),
            ),
        ];
        for (label, mutator) in &mut mutators {
            let (mutated, changed) = exercise(name, mutator.as_mut());
            // Recursion needs a rule nested in itself, which few small JSON samples have.
            let least = if *label == "recursion" { 5 } else { 20 };
            assert!(mutated > least, "{name}/{label}: only {mutated} mutants");
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
fn splices_donor_cache_stays_within_its_budget() {
    let grammar = load("chocopy");
    let parents = samples(grammar, 300, 11);
    let largest = parents
        .iter()
        .map(|p| p.tree.len() * size_of::<bonsai::tree::Node>() + p.choices.len() * 4)
        .max()
        .unwrap();
    let budget = 32 << 10;
    let mut state = state_with(&parents);
    let mut splice = SpliceMutator::new(ParentTrees::new(grammar, bounds()).unwrap().shared())
        .with_donor_budget(budget);
    let (mut most, mut dropped) = (0, 0);
    for parent in parents.iter().cycle().take(3000) {
        let before = splice.cached_donor_bytes();
        let mut input = ChoiceInput::new(parent.choices.clone(), bounds());
        splice.mutate(&mut state, &mut input).unwrap();
        let after = splice.cached_donor_bytes();
        most = most.max(after);
        dropped += usize::from(after < before);
    }
    assert!(
        dropped > 0,
        "3,000 splices over 300 donors never filled {budget} bytes"
    );
    assert!(
        most <= budget + largest,
        "the donor cache held {most} bytes under a budget of {budget} (largest donor {largest})"
    );
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

/// What shrink hands the harness is the mutant's own replay: the harness runs it instead of
/// replaying the mutant, so it must be exactly what a replay of the mutant's choices gives
/// (a fresh sampler, repairing, as the harness replays), and it must serve only that mutant.
#[test]
fn shrink_hands_over_exactly_the_mutants_replay() {
    for name in GRAMMARS {
        let grammar = load(name);
        let parents = samples(grammar, 30, 5);
        let mut state = state_with(&parents);
        let replayed = ReplayedMutant::default();
        let trees = ParentTrees::new(grammar, bounds())
            .unwrap()
            .handing_to(replayed.clone())
            .shared();
        let mut shrink = ShrinkMutator::new(trees);
        let mut fresh = Sampler::new(grammar, bounds()).unwrap();
        let mut rng = StdRand::with_seed(3);
        let (mut handed, mut out, mut expected) = (0, Sample::default(), Sample::default());
        for parent in &parents {
            let mut input = ChoiceInput::new(parent.choices.clone(), bounds());
            if shrink.mutate(&mut state, &mut input).unwrap() == MutationResult::Skipped {
                assert!(
                    !replayed.take_for(input.choices.as_slice(), &mut out),
                    "{name}: a skipped mutant left a replay behind"
                );
                continue;
            }
            assert!(
                !replayed.take_for(parent.choices.as_slice(), &mut out),
                "{name}: the replay served the parent's choices"
            );
            // The mismatch above used the hand-over up; shrink the same way again.
            let mut again = ChoiceInput::new(parent.choices.clone(), bounds());
            if shrink.mutate(&mut state, &mut again).unwrap() == MutationResult::Skipped {
                continue;
            }
            let _ = fresh.sample(
                again.choices.as_slice(),
                Replay::Repair,
                &mut rng,
                &mut expected,
            );
            assert!(
                replayed.take_for(again.choices.as_slice(), &mut out),
                "{name}: no replay handed over"
            );
            assert_eq!(out, expected, "{name}: the handed replay differs");
            handed += 1;
        }
        assert!(handed > 10, "{name}: only {handed} replays handed over");
    }
}

/// Regenerate draws a node's subtree with `sample_through`, which stops when that subtree is
/// complete: up to there it must be exactly the full sample with the same generator (nodes,
/// spans, choices), and hold nothing past it.
#[test]
fn sampling_through_a_node_is_the_full_sample_cut_after_its_subtree() {
    for name in GRAMMARS {
        let grammar = load(name);
        let mut sampler = Sampler::new(grammar, bounds()).unwrap();
        let (mut full, mut through, mut checked) = (Sample::default(), Sample::default(), 0);
        for (k, parent) in samples(grammar, 40, 13).iter().enumerate() {
            let inner = nodes_with_choices(&parent.tree, |kind| {
                !matches!(kind, NodeKind::Terminal { .. })
            });
            for &node in inner.iter().step_by(3) {
                let start = parent.tree.node(node).choices_start as usize;
                let prefix = &parent.choices.as_slice()[..start];
                let seed = (k * 1000 + node.index()) as u64;
                let _ = sampler.sample(
                    prefix,
                    Replay::Repair,
                    &mut StdRand::with_seed(seed),
                    &mut full,
                );
                sampler.sample_through(prefix, &mut StdRand::with_seed(seed), &mut through, node);
                let whole = *full.tree.node(node);
                assert_eq!(
                    through.tree.len(),
                    whole.end as usize,
                    "{name}: nodes past the subtree"
                );
                assert_eq!(*through.tree.node(node), whole, "{name}: another subtree");
                assert_eq!(
                    &through.tree.nodes()[node.index()..],
                    &full.tree.nodes()[node.index()..whole.end as usize],
                    "{name}: the subtree's nodes differ"
                );
                assert_eq!(
                    through.choices.as_slice(),
                    &full.choices.as_slice()[..whole.choices_end as usize],
                    "{name}: the choices differ"
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "{name}: only {checked} nodes checked");
    }
}

/// For each node, how many nodes of `rule` lie on the path from the root to it (itself
/// included).
fn rule_nesting(tree: &DerivationTree, rule: bonsai::grammar::RuleId) -> Vec<u32> {
    let nodes = tree.nodes();
    let mut counts = vec![0; nodes.len()];
    // Pre-order: a node's parent is the nearest earlier node whose subtree contains it.
    let mut open: Vec<usize> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        while open.last().is_some_and(|&p| nodes[p].end as usize <= i) {
            open.pop();
        }
        let above = open.last().map_or(0, |&p| counts[p]);
        let own = matches!(node.kind, NodeKind::Rule { rule: r, .. } if r == rule);
        counts[i] = above + u32::from(own);
        open.push(i);
    }
    counts
}

/// Repeating the recursion between a node and a descendant of its rule k times nests that
/// rule k times the context's own nesting deeper, and the result is a genuine derivation:
/// under bounds generous enough for the new depth it replays strictly, with no repair, and
/// keeps everything outside the repeated context.
#[test]
fn recursion_deepens_nesting_and_replays_strictly() {
    let generous: Bounds = "2,3,1000".parse().unwrap();
    for name in GRAMMARS {
        let grammar = load(name);
        let mut sampler = Sampler::new(grammar, generous).unwrap();
        let mut rng = StdRand::with_seed(1);
        let mut checked = 0;
        // Enough parents that some nest: a JSON sample is a scalar or an empty container
        // more often than not.
        for parent in samples(grammar, 60, 11) {
            let tree = &parent.tree;
            for outer in nodes_with_choices(tree, |k| matches!(k, NodeKind::Rule { .. })) {
                for inner in recursions(tree, outer).into_iter().take(2) {
                    let NodeKind::Rule { rule, .. } = tree.node(outer).kind else {
                        unreachable!()
                    };
                    let before = rule_nesting(tree, rule);
                    let (o, i) = (tree.node(outer), tree.node(inner));
                    let context = before[inner.index()] - before[outer.index()];
                    assert!(
                        context >= 1,
                        "{name}: the inner node is nested in the outer"
                    );
                    let through_inner =
                        *before[inner.index()..i.end as usize].iter().max().unwrap();
                    for copies in [1, 3, 8] {
                        let mutant =
                            repeat_recursion(tree, parent.choices.as_slice(), outer, inner, copies);
                        let mut replayed = Sample::default();
                        sampler
                            .sample(&mutant, Replay::Strict, &mut rng, &mut replayed)
                            .unwrap_or_else(|e| {
                                panic!("{name}: the mutant does not replay strictly: {e:?}")
                            });
                        assert_eq!(replayed.choices.as_slice(), &mutant[..], "{name}");
                        let after = rule_nesting(&replayed.tree, rule);
                        assert!(
                            *after.iter().max().unwrap() >= through_inner + copies as u32 * context,
                            "{name}: nesting of the rule did not grow by {copies} x {context}"
                        );
                        // The choices before the outer node and after it are untouched.
                        let grown = copies
                            * ((i.choices_start - o.choices_start)
                                + (o.choices_end - i.choices_end))
                                as usize;
                        assert_eq!(mutant.len(), parent.choices.len() + grown);
                        assert_eq!(
                            &mutant[..o.choices_start as usize],
                            &parent.choices.as_slice()[..o.choices_start as usize]
                        );
                        assert_eq!(
                            &mutant
                                [mutant.len() - (parent.choices.len() - o.choices_end as usize)..],
                            &parent.choices.as_slice()[o.choices_end as usize..]
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 15, "{name}: only {checked} recursions checked");
    }
}

/// Each level the mutator may repeat pairs a rule node with its nearest ancestor of the same
/// rule that spans more choices, and every such node is listed once, under its rule: checked
/// against a walk up the tree from each node.
#[test]
fn every_level_of_recursion_is_found_with_its_nearest_enclosing_node() {
    for name in GRAMMARS {
        let grammar = load(name);
        let mut levels_seen = 0;
        for parent in samples(grammar, 60, 13) {
            let tree = &parent.tree;
            let nodes = tree.nodes();
            let by_rule = nearest_recursions(tree);
            let found: Vec<_> = by_rule.iter().flatten().copied().collect();
            let mut expected = Vec::new();
            for (i, node) in nodes.iter().enumerate() {
                let NodeKind::Rule { rule, .. } = node.kind else {
                    continue;
                };
                let span = node.choices_end - node.choices_start;
                let enclosing: Vec<usize> = (0..i)
                    .filter(|&a| {
                        nodes[a].end as usize > i
                            && matches!(nodes[a].kind, NodeKind::Rule { rule: r, .. } if r == rule)
                    })
                    .collect();
                let nearest = enclosing
                    .iter()
                    .rev()
                    .find(|&&a| nodes[a].choices_end - nodes[a].choices_start > span);
                if let (true, Some(&outer)) = (span > 0, nearest) {
                    expected.push((outer, i, enclosing.len() as u32));
                }
            }
            let mut got: Vec<_> = found
                .iter()
                .map(|l| (l.outer.index(), l.inner.index(), l.depth))
                .collect();
            got.sort_unstable();
            expected.sort_unstable();
            assert_eq!(got, expected, "{name}");
            for levels in &by_rule {
                let rule_of = |id: bonsai::tree::NodeId| match tree.node(id).kind {
                    NodeKind::Rule { rule, .. } => rule,
                    _ => unreachable!(),
                };
                assert!(
                    levels
                        .iter()
                        .all(|l| rule_of(l.inner) == rule_of(levels[0].inner))
                );
            }
            levels_seen += found.len();
        }
        assert!(levels_seen > 15, "{name}: only {levels_seen} levels");
    }
}

/// A parent whose one recursion nests hundreds of times still gets its other recursions
/// grown: the rules that recurse a few times only get at least 0.8 x half x their share of the
/// rules (half the picks choose a rule first, each rule equally often). Picking among nodes
/// gave them well under one in ten, and oxc's conditional chains were never grown past a few
/// levels.
#[test]
fn a_rule_that_nests_little_is_picked_as_often_as_one_that_nests_hundreds_of_times() {
    let generous: Bounds = "2,3,1000".parse().unwrap();
    let mut checked = 0;
    for name in GRAMMARS {
        let grammar = load(name);
        let mut sampler = Sampler::new(grammar, generous).unwrap();
        let mut rng = StdRand::with_seed(5);
        for parent in samples(grammar, 400, 17) {
            let levels = nearest_recursions(&parent.tree);
            if levels.len() < 2 {
                continue;
            }
            let grown = levels[0][0];
            let deep = repeat_recursion(
                &parent.tree,
                parent.choices.as_slice(),
                grown.outer,
                grown.inner,
                300,
            );
            let mut replayed = Sample::default();
            sampler
                .sample(&deep, Replay::Strict, &mut rng, &mut replayed)
                .unwrap();
            let tree = &replayed.tree;
            let rule_of = |id: bonsai::tree::NodeId| match tree.node(id).kind {
                NodeKind::Rule { rule, .. } => rule,
                _ => unreachable!(),
            };
            let by_rule = nearest_recursions(tree);
            // The rules the repeated context did not pass through: still a few levels each.
            let little: Vec<_> = (by_rule.iter())
                .filter(|levels| levels.len() < 10)
                .map(|levels| rule_of(levels[0].inner))
                .collect();
            if little.is_empty() {
                continue;
            }
            let all: usize = by_rule.iter().map(Vec::len).sum();
            assert!(all > 300, "{name}: the repeated recursion adds its levels");
            let picks = 2000;
            let to_little = (0..picks)
                .filter(|_| little.contains(&rule_of(pick_outer(&by_rule, &mut rng).unwrap())))
                .count();
            let share = 0.5 * little.len() as f64 / by_rule.len() as f64;
            assert!(
                to_little as f64 > 0.8 * share * picks as f64,
                "{name}: {to_little} of {picks} picks went to the {} of {} rules nesting little",
                little.len(),
                by_rule.len()
            );
            checked += 1;
            break;
        }
    }
    assert!(
        checked >= 2,
        "only {checked} grammars had a parent to check"
    );
}

/// Under generous bounds, mutants fed back as parents nest again and again: the mutator
/// grows them up to its ceiling and never past it, and a short context is repeated as often
/// as the step's budget holds.
#[test]
fn recursion_grows_to_its_ceiling_and_never_past_it() {
    assert_eq!(
        copies_within(2048, 2),
        1024,
        "a one-operator context, hundreds of times"
    );
    assert_eq!(copies_within(4, 100), 1, "a long context at least once");
    let generous: Bounds = "2,3,1000".parse().unwrap();
    for name in ["chocopy", "simpl"] {
        let grammar = load(name);
        let trees = ParentTrees::new(grammar, generous).unwrap().shared();
        let mut mutator = RecursionMutator::new(trees, MAX_RECURSION_CHOICES);
        let parents = samples(grammar, 10, 5);
        let mut state = state_with(&parents);
        let mut longest = 0;
        for parent in &parents {
            let mut input = ChoiceInput::new(parent.choices.clone(), generous);
            for _ in 0..60 {
                let before = input.clone();
                if mutator.mutate(&mut state, &mut input).unwrap() == MutationResult::Skipped {
                    input = before;
                    continue;
                }
                assert!(
                    input.choices.len() <= MAX_RECURSION_CHOICES,
                    "{name}: a mutant of {} choices",
                    input.choices.len()
                );
                longest = longest.max(input.choices.len());
            }
        }
        assert!(
            longest > MAX_RECURSION_CHOICES / 2,
            "{name}: repeated recursion never came near the ceiling (longest {longest})"
        );
    }
}

/// The deepest bracket nesting of a text.
fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Under the bounds `bonsai fuzz` uses for finding bugs, repeating recursions with budgets
/// that grow geometrically reaches the nesting at which recursive-descent parsers overflow an
/// 8 MB stack (a thousand levels and more) within a few kept steps, and the ceiling the loop
/// passes (its --max-len) is never passed. Nautilus found such overflows and Bonsai, with a
/// ceiling of 4,096 choices, could not nest past about a thousand levels. A run whose first
/// kept step repeats a context with many siblings nests more slowly ever after (each level
/// copies them), so the test runs several seeds and asks it of nearly all of them.
#[test]
fn recursion_reaches_stack_overflow_depths_under_bug_finding_bounds() {
    let grammar = load("json");
    let open = bonsai::bounds::BUG_FINDING;
    let ceiling = 64 * 1024;
    let seeds = 8;
    let mut reached = Vec::new();
    for seed in 0..seeds {
        let trees = ParentTrees::new(grammar, open).unwrap().shared();
        let mut mutator = RecursionMutator::new(trees, ceiling);
        let parents = samples(grammar, 200, 11 + seed);
        let mut state = state_with(&parents);
        let mut sampler = Sampler::new(grammar, open).unwrap();
        let mut rng = StdRand::with_seed(3 + seed);
        // A parent that nests a value in a value, as the fuzzer's queue holds early on.
        let start = parents
            .iter()
            .find(|p| !nearest_recursions(&p.tree).is_empty())
            .expect("some sample nests");
        let mut current = ChoiceInput::new(start.choices.clone(), open);
        let mut deepest = 0;
        for _ in 0..400 {
            let mut input = current.clone();
            if mutator.mutate(&mut state, &mut input).unwrap() == MutationResult::Skipped {
                continue;
            }
            assert!(
                input.choices.len() <= ceiling,
                "{} choices",
                input.choices.len()
            );
            let mut replayed = Sample::default();
            sampler
                .sample(
                    input.choices.as_slice(),
                    Replay::Repair,
                    &mut rng,
                    &mut replayed,
                )
                .unwrap();
            let depth = bracket_depth(&render(grammar, &replayed.tree));
            // Kept when deeper, as a new hit count of the parser's recursion would keep it.
            if depth > deepest {
                deepest = depth;
                current = ChoiceInput::new(replayed.choices.clone(), open);
            }
            if deepest >= 2000 {
                break;
            }
        }
        reached.push(deepest);
    }
    let deep = reached.iter().filter(|&&d| d >= 2000).count();
    assert!(
        deep + 1 >= seeds as usize,
        "nesting reached per seed: {reached:?}"
    );
}
