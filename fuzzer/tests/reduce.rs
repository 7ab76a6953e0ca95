//! Reduction on the shipped grammars with synthetic criteria: what HDD and ddmin promise
//! (the criterion still holds, never larger, 1-minimality, strict replay) and known smallest
//! answers.

mod common;

use bonsai::analysis::MinYield;
use bonsai::choice::Replay;
use bonsai::grammar::{Grammar, RuleId, Symbol};
use bonsai::parse::Parser;
use bonsai::reduce::{
    Candidate, ContainsText, Criterion, Hdd, Judge, OnDerivation, Places, Reduced, ReductionError,
    Strategy, ddmin,
};
use bonsai::sampler::{Bounds, MinimalDerivations, Sample, Sampler};
use bonsai::text::render;
use bonsai::tree::{NodeId, NodeKind};
use common::{SHIPPED, check_bounds, shipped};
use libafl_bolts::rands::StdRand;

fn bounds() -> Bounds {
    Bounds::new(3, 3, 3).unwrap()
}

/// Inputs generated at (3,3,3) from `seed` that satisfy `keep`, at most `count` of them
/// among the first 500.
fn inputs(
    grammar: &Grammar,
    seed: u64,
    count: usize,
    mut keep: impl FnMut(&str, &Sample) -> bool,
) -> Vec<(Sample, String)> {
    let mut sampler = Sampler::new(grammar, bounds()).unwrap();
    let mut rng = StdRand::with_seed(seed);
    let mut found = Vec::new();
    for _ in 0..500 {
        let mut sample = Sample::default();
        sampler.generate(&mut rng, &mut sample);
        let text = render(grammar, &sample.tree);
        if keep(&text, &sample) {
            found.push((sample, text));
            if found.len() == count {
                break;
            }
        }
    }
    found
}

fn rule(grammar: &Grammar, name: &str) -> RuleId {
    RuleId(
        grammar
            .rules
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("no rule {name}")) as u32,
    )
}

/// The reduced derivation replays strictly, under the input's bounds, to the reduced text, and
/// that text is a sentence of the grammar.
fn assert_replays(grammar: &Grammar, reduced: &Sample, text: &str) {
    let mut sampler = Sampler::new(grammar, bounds()).unwrap();
    let mut replayed = Sample::default();
    sampler
        .sample(
            reduced.choices.as_slice(),
            Replay::Strict,
            &mut StdRand::with_seed(99),
            &mut replayed,
        )
        .unwrap_or_else(|e| panic!("reduced choices do not replay: {e}"));
    assert_eq!(
        replayed.choices, reduced.choices,
        "replay needed fresh choices"
    );
    assert_eq!(render(grammar, &replayed.tree), text);
    check_bounds(grammar, &replayed.tree, bounds()).unwrap();
    // An independent judge of membership: the Earley parser accepts it.
    Parser::new(grammar)
        .accepts(text)
        .unwrap_or_else(|e| panic!("the parser rejects reduced {text:?}: {e}"));
}

/// The order HDD accepts candidates by: fewer bytes, then fewer choices, then smaller choices.
fn smaller(a: (&str, &[u32]), b: (&str, &[u32])) -> bool {
    (a.0.len(), a.1.len(), a.1) < (b.0.len(), b.1.len(), b.1)
}

/// HDD's fixpoint promise, checked independently of its passes: no single node can be replaced
/// by its minimal derivation, and no single item of a repetition removed, keeping the criterion
/// and shrinking the input.
fn assert_hdd_one_minimal(
    grammar: &Grammar,
    reduced: &Sample,
    text: &str,
    criterion: &mut impl Criterion,
) {
    let tree = &reduced.tree;
    let base = reduced.choices.as_slice();
    let places = Places::new(grammar, tree);
    let mut minimal = MinimalDerivations::new(grammar, bounds());
    let mut sampler = Sampler::new(grammar, bounds()).unwrap();
    let mut above = Vec::new();
    let mut try_edit = |edited: Vec<u32>, what: String| {
        let mut sample = Sample::default();
        if sampler
            .sample(
                &edited,
                Replay::Strict,
                &mut StdRand::with_seed(1),
                &mut sample,
            )
            .is_err()
        {
            panic!("{what}: a valid edit does not replay");
        }
        let candidate = render(grammar, &sample.tree);
        let better = smaller((&candidate, &edited), (text, base))
            && criterion.holds(&Candidate::derived(&candidate, &sample));
        assert!(
            !better,
            "{what} gives {candidate:?}, smaller than {text:?} and still interesting"
        );
    };
    for (i, node) in tree.nodes().iter().enumerate() {
        let id = NodeId(i as u32);
        let span = node.choices_start as usize..node.choices_end as usize;
        tree.named_ancestors(grammar, id, &mut above);
        let mut shortest = Vec::new();
        minimal
            .symbol(&places.symbol(id), &above, &mut shortest)
            .unwrap();
        if shortest != base[span.clone()] {
            let edited = [&base[..span.start], &shortest, &base[span.end..]].concat();
            try_edit(edited, format!("minimizing node {i}"));
        }
        if let (NodeKind::Repeat { .. }, Symbol::Repeat { min, max, .. }) =
            (node.kind, places.symbol(id))
        {
            let items: Vec<NodeId> = tree.children(id).collect();
            if items.len() as u32 > min && max != Some(min) {
                for skip in 0..items.len() {
                    let mut edited = base[..span.start].to_vec();
                    edited.push(items.len() as u32 - 1 - min);
                    for (k, item) in items.iter().enumerate() {
                        let item = tree.node(*item);
                        if k != skip {
                            edited.extend_from_slice(
                                &base[item.choices_start as usize..item.choices_end as usize],
                            );
                        }
                    }
                    edited.extend_from_slice(&base[span.end..]);
                    try_edit(edited, format!("removing item {skip} of node {i}"));
                }
            }
        }
    }
}

/// ddmin's promise: deleting any one character breaks the criterion.
fn assert_chars_one_minimal(text: &str, criterion: &mut impl Criterion) {
    for (at, c) in text.char_indices() {
        let shorter = format!("{}{}", &text[..at], &text[at + c.len_utf8()..]);
        assert!(
            !criterion.holds(&Candidate::text(&shorter)),
            "{text:?} without {c:?} still holds"
        );
    }
}

fn reduce(
    grammar: &Grammar,
    strategy: Strategy,
    sample: &Sample,
    criterion: impl Criterion,
) -> (Reduced, u64) {
    let mut hdd = Hdd::new(grammar, bounds()).unwrap();
    let mut judge = Judge::new(criterion);
    let reduced = strategy
        .reduce(&mut hdd, sample.choices.as_slice(), &mut judge)
        .unwrap();
    (reduced, judge.tests())
}

#[test]
fn a_product_in_expr_reduces_to_the_shortest_product() {
    let grammar = shipped("expr");
    let term = rule(&grammar, "<term>");
    // The shortest word with a "*" is the shortest `<factor> " * " <term>`.
    let predicted = MinYield::compute(&grammar).alternative[term.index()][0];
    assert_eq!(predicted, 5);
    let found = inputs(&grammar, 11, 30, |text, _| text.contains('*'));
    assert!(
        found.len() >= 20,
        "only {} inputs with a product",
        found.len()
    );
    for (sample, text) in found {
        let (reduced, _) = reduce(&grammar, Strategy::Hdd, &sample, ContainsText::new(["*"]));
        assert_eq!(
            reduced.text.len() as u64,
            predicted,
            "{text:?} became {:?}",
            reduced.text
        );
        assert_eq!(reduced.text, "0 * 0");
        assert_replays(
            &grammar,
            reduced.derivation.as_ref().unwrap(),
            &reduced.text,
        );
        // Character ddmin knows no grammar: "*" alone keeps the criterion.
        let (chars, _) = reduce(&grammar, Strategy::Ddmin, &sample, ContainsText::new(["*"]));
        assert_eq!(chars.text, "*");
    }
}

/// A substring of `text` of 1 to 3 characters starting at a non-blank character, chosen by
/// `pick`.
fn substring(text: &str, pick: usize) -> Option<String> {
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| !c.is_whitespace())
        .map(|(i, _)| i)
        .collect();
    let start = *starts.get(pick % starts.len().max(1))?;
    Some(text[start..].chars().take(1 + pick % 3).collect())
}

#[test]
fn substring_criteria_on_every_shipped_grammar() {
    for name in SHIPPED {
        let grammar = shipped(name);
        for (k, (sample, text)) in inputs(&grammar, 5, 12, |_, _| true).into_iter().enumerate() {
            let Some(needle) = substring(&text, k * 7 + 3) else {
                continue;
            };
            let criterion = ContainsText::new([needle.clone()]);
            for strategy in Strategy::ALL {
                let (reduced, tests) = reduce(&grammar, strategy, &sample, criterion.clone());
                let what = format!(
                    "{name} {strategy} {needle:?} on {text:?}: {:?}",
                    reduced.text
                );
                assert!(reduced.text.contains(&needle), "{what}");
                assert!(reduced.text.len() <= text.len(), "{what}");
                assert!(tests > 0 || reduced.text == text, "{what}");
                match strategy {
                    Strategy::Hdd => {
                        let derivation =
                            reduced.derivation.as_ref().expect("HDD keeps a derivation");
                        assert_replays(&grammar, derivation, &reduced.text);
                        assert_hdd_one_minimal(
                            &grammar,
                            derivation,
                            &reduced.text,
                            &mut criterion.clone(),
                        );
                    }
                    Strategy::Ddmin | Strategy::HddThenDdmin => {
                        assert_chars_one_minimal(&reduced.text, &mut criterion.clone());
                        // A single needle is the smallest text that contains it.
                        assert_eq!(reduced.text, needle, "{what}");
                    }
                }
            }
        }
    }
}

/// Whether the tree has a node of rule `inner` inside a node of rule `outer`.
fn nested(sample: &Sample, outer: RuleId, inner: RuleId) -> bool {
    let nodes = sample.tree.nodes();
    nodes.iter().enumerate().any(|(i, node)| {
        matches!(node.kind, NodeKind::Rule { rule, .. } if rule == outer)
            && nodes[i + 1..node.end as usize]
                .iter()
                .any(|d| matches!(d.kind, NodeKind::Rule { rule, .. } if rule == inner))
    })
}

#[test]
fn a_tree_criterion_keeps_the_nesting_and_finds_the_smallest_program() {
    let grammar = shipped("chocopy");
    let (func_def, member_expr) = (rule(&grammar, "func_def"), rule(&grammar, "member_expr"));
    let found = inputs(&grammar, 3, 8, |_, sample| {
        nested(sample, func_def, member_expr)
    });
    assert!(
        found.len() >= 4,
        "only {} inputs with a member expression in a function",
        found.len()
    );
    for (sample, text) in found {
        let criterion = OnDerivation(move |c: &Candidate<'_>| {
            c.derivation
                .is_some_and(|d| nested(d, func_def, member_expr))
        });
        let (reduced, _) = reduce(&grammar, Strategy::Hdd, &sample, criterion);
        let derivation = reduced.derivation.as_ref().unwrap();
        assert!(nested(derivation, func_def, member_expr));
        assert_replays(&grammar, derivation, &reduced.text);
        // The smallest function whose body uses a member expression.
        assert_eq!(reduced.text, "def a():\n    a.a\n", "from {text:?}");
    }
}

#[test]
fn a_line_count_criterion_is_kept_and_ddmin_keeps_exactly_that_many() {
    let grammar = shipped("chocopy");
    for lines in [2usize, 3] {
        let at_least = move |c: &Candidate<'_>| c.text.lines().count() >= lines;
        let found = inputs(&grammar, 8, 6, |text, _| text.lines().count() >= lines + 2);
        assert!(found.len() >= 4);
        for (sample, _) in found {
            let (reduced, _) = reduce(&grammar, Strategy::Hdd, &sample, at_least);
            // HDD stops at a local minimum (`if a: a elif a: a` has 4 lines, and no single
            // edit of its tree keeps 3), so it promises the criterion and 1-minimality only.
            assert!(reduced.text.lines().count() >= lines, "{:?}", reduced.text);
            let derivation = reduced.derivation.as_ref().unwrap();
            assert_replays(&grammar, derivation, &reduced.text);
            assert_hdd_one_minimal(&grammar, derivation, &reduced.text, &mut { at_least });
            // A 1-minimal text has empty lines but the last, which has at most one character.
            let (chars, _) = reduce(&grammar, Strategy::Ddmin, &sample, at_least);
            assert_eq!(chars.text.len(), lines);
            assert_chars_one_minimal(&chars.text, &mut { at_least });
        }
    }
}

#[test]
fn an_input_that_does_not_satisfy_the_criterion_is_refused() {
    let grammar = shipped("json");
    let (sample, _) = inputs(&grammar, 1, 1, |_, _| true).remove(0);
    let mut hdd = Hdd::new(&grammar, bounds()).unwrap();
    for strategy in Strategy::ALL {
        let mut judge = Judge::new(ContainsText::new(["no such text \u{1}"]));
        let result = strategy.reduce(&mut hdd, sample.choices.as_slice(), &mut judge);
        assert!(
            matches!(result, Err(ReductionError::NotInteresting)),
            "{strategy}"
        );
    }
    // Under smaller bounds the input may not replay at all.
    let big = inputs(&grammar, 2, 1, |_, s| {
        common::nesting_depth(&grammar, &s.tree) == 3
    })
    .remove(0)
    .0;
    let mut small = Hdd::new(&grammar, Bounds::new(3, 3, 1).unwrap()).unwrap();
    let mut judge = Judge::new(|_: &Candidate<'_>| true);
    assert!(matches!(
        small.reduce(big.choices.as_slice(), &mut judge),
        Err(ReductionError::OutOfBounds(_))
    ));
}

#[test]
fn a_test_budget_stops_reduction_with_the_best_input_so_far() {
    let grammar = shipped("chocopy");
    let (sample, text) = inputs(&grammar, 4, 1, |text, _| text.len() > 300).remove(0);
    let mut hdd = Hdd::new(&grammar, bounds()).unwrap();
    let mut judge = Judge::new(|c: &Candidate<'_>| !c.text.is_empty()).with_max_tests(3);
    let (reduced, reduced_text) = hdd.reduce(sample.choices.as_slice(), &mut judge).unwrap();
    assert_eq!(judge.tests(), 3);
    assert!(judge.exhausted());
    assert!(reduced_text.len() < text.len());
    assert_replays(&grammar, &reduced, &reduced_text);
}

#[test]
fn the_line_pass_leaves_no_removable_line() {
    let grammar = shipped("chocopy");
    for (_, text) in inputs(&grammar, 6, 5, |text, _| {
        text.lines().count() > 15 && text.contains("while")
    }) {
        // Keeps every line with a "while" and at least a third of the lines.
        let (total, loops) = (text.lines().count(), text.matches("while").count());
        let criterion = move |c: &Candidate<'_>| {
            c.text.lines().count() * 3 >= total && c.text.matches("while").count() >= loops
        };
        let mut judge = Judge::new(criterion);
        let reduced = ddmin::reduce_lines(&text, &mut judge);
        let lines: Vec<&str> = reduced.split_inclusive('\n').collect();
        assert!(criterion(&Candidate::text(&reduced)));
        for skip in 0..lines.len() {
            let without: String = lines
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != skip)
                .map(|(_, l)| *l)
                .collect();
            assert!(
                !criterion(&Candidate::text(&without)),
                "line {skip} of {reduced:?} is removable"
            );
        }
    }
}
