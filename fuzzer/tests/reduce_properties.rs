//! Property tests of reduction on random inputs of every shipped grammar: minimal derivations
//! replay strictly at every place, and every reducer keeps its criterion without growing the
//! input.

mod common;

use std::sync::LazyLock;

use bonsai::choice::Replay;
use bonsai::grammar::RuleId;
use bonsai::grammar::{Grammar, LayoutToken, Separator, Terminal};
use bonsai::reduce::{
    Candidate, ContainsText, Hdd, Judge, OnDerivation, Places, Strategy as Reducer,
};
use bonsai::sampler::{Bounds, MinimalDerivations, Sample, Sampler};
use bonsai::text::render;
use bonsai::tree::{DerivationTree, NodeId, NodeKind};
use common::{SHIPPED, check_bounds, shipped};
use libafl_bolts::rands::StdRand;
use proptest::prelude::*;

static GRAMMARS: LazyLock<Vec<Grammar>> =
    LazyLock::new(|| SHIPPED.iter().map(|g| shipped(g)).collect());

fn bounds() -> impl Strategy<Value = Bounds> {
    (1u32..=4, 1u32..=4, 1u32..=4).prop_map(|(m, n, d)| Bounds::new(m, n, d).unwrap())
}

fn generate(grammar: &Grammar, bounds: Bounds, seed: u64) -> Sample {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut sample = Sample::default();
    sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
    sample
}

fn replay(grammar: &Grammar, bounds: Bounds, choices: &[u32]) -> Result<Sample, String> {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut sample = Sample::default();
    sampler
        .sample(
            choices,
            Replay::Strict,
            &mut StdRand::with_seed(5),
            &mut sample,
        )
        .map_err(|e| e.to_string())?;
    if sample.choices.as_slice() != choices {
        return Err("the replay needed other choices than the recorded ones".into());
    }
    Ok(sample)
}

/// Characters of a subtree's terminals, without separators, and its tokens: terminals outside
/// lexical rules and outermost lexical rules, each of which may get a separator.
fn chars_and_tokens(grammar: &Grammar, tree: &DerivationTree, id: NodeId) -> (u64, u64) {
    let (mut chars, mut tokens) = (0, 0);
    // Nodes before this index are inside the lexical rule being counted as one token.
    let mut token_end = 0;
    for (i, node) in tree.subtree(id).iter().enumerate() {
        let inside = (i as u32) < token_end;
        match node.kind {
            NodeKind::Rule { rule, .. } if !inside && grammar.rule(rule).lexical => {
                token_end = node.end - id.0;
                tokens += 1;
            }
            NodeKind::Terminal { terminal, value } => {
                let (len, token) = match grammar.terminal(terminal) {
                    Terminal::Literal(s) => (s.chars().count() as u64, !s.is_empty()),
                    Terminal::Pool(p) => (
                        grammar.pools[p.index()].values[value as usize]
                            .chars()
                            .count() as u64,
                        true,
                    ),
                    Terminal::Class(_) => (1, true),
                    Terminal::Layout(LayoutToken::Newline) => (1, false),
                    Terminal::Layout(_) => (0, false),
                };
                chars += len;
                tokens += u64::from(token && !inside);
            }
            _ => {}
        }
    }
    (chars, tokens)
}

/// What the grammar's separator adds per token.
fn separator_length(grammar: &Grammar) -> u64 {
    match &grammar.layout.separator {
        Separator::Auto => 1,
        Separator::Text(text) => text.chars().count() as u64,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// At every node of a random input, splicing in the minimal derivation computed for that
    /// place replays strictly under the same bounds, to a subtree of the promised length in
    /// characters that, counting a separator per token, is no longer than the one it replaced.
    #[test]
    fn minimal_derivations_replay_strictly_at_every_place(
        g in 0..SHIPPED.len(), b in bounds(), seed: u64,
    ) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let places = Places::new(grammar, &sample.tree);
        let mut minimal = MinimalDerivations::new(grammar, b);
        let mut above = Vec::new();
        let base = sample.choices.as_slice();
        // Each check replays the whole input: 40 nodes spread over the tree keep this fast.
        let stride = (sample.tree.len() / 40).max(1);
        for (i, node) in sample.tree.nodes().iter().enumerate().step_by(stride) {
            let id = NodeId(i as u32);
            sample.tree.named_ancestors(grammar, id, &mut above);
            let mut shortest = Vec::new();
            let length = minimal.symbol(&places.symbol(id), &above, &mut shortest);
            let length = length.ok_or_else(|| TestCaseError::fail(format!("no minimal derivation at node {i}")))?;
            let span = node.choices_start as usize..node.choices_end as usize;
            let edited = [&base[..span.start], &shortest, &base[span.end..]].concat();
            let replayed = replay(grammar, b, &edited).map_err(|e| TestCaseError::fail(format!("node {i}: {e}")))?;
            prop_assert_eq!(check_bounds(grammar, &replayed.tree, b), Ok(()));
            // The new subtree starts where the old one did, since everything before is the same.
            let (chars, tokens) = chars_and_tokens(grammar, &replayed.tree, id);
            prop_assert_eq!(chars, length);
            let (old_chars, old_tokens) = chars_and_tokens(grammar, &sample.tree, id);
            let separator = separator_length(grammar);
            prop_assert!(
                chars + separator * tokens <= old_chars + separator * old_tokens,
                "node {}: {} + {} tokens replaced {} + {}", i, chars, tokens, old_chars, old_tokens
            );
        }
    }

    /// Every strategy keeps a random "contains" criterion and never grows the input; HDD's
    /// result replays strictly from its choices to its text within the input's bounds.
    #[test]
    fn reduction_keeps_the_criterion_and_never_grows(
        g in 0..SHIPPED.len(), b in bounds(), seed: u64, pick in 0usize..10_000, len in 1usize..4,
        strategy in prop::sample::select(Reducer::ALL.to_vec()),
    ) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let text = render(grammar, &sample.tree);
        let chars: Vec<char> = text.chars().collect();
        prop_assume!(!chars.is_empty());
        let start = pick % chars.len();
        let needle: String = chars[start..(start + len).min(chars.len())].iter().collect();
        let mut hdd = Hdd::new(grammar, b).unwrap();
        let mut judge = Judge::new(ContainsText::new([needle.clone()]));
        let reduced = strategy.reduce(&mut hdd, sample.choices.as_slice(), &mut judge).unwrap();
        prop_assert!(reduced.text.contains(&needle));
        prop_assert!(reduced.text.len() <= text.len());
        if let Some(derivation) = &reduced.derivation {
            let replayed = replay(grammar, b, derivation.choices.as_slice()).map_err(TestCaseError::fail)?;
            prop_assert_eq!(render(grammar, &replayed.tree), reduced.text.clone());
            prop_assert_eq!(check_bounds(grammar, &replayed.tree, b), Ok(()));
        }
        if strategy == Reducer::Hdd {
            prop_assert!(reduced.derivation.is_some());
        }
    }

    /// HDD keeps a random tree criterion, "some node derives rule R", for a named rule R of the
    /// input, and the result is no larger and replays strictly.
    #[test]
    fn hdd_keeps_a_random_tree_criterion(
        g in 0..SHIPPED.len(), b in bounds(), seed: u64, pick in 0usize..10_000,
    ) {
        let grammar = &GRAMMARS[g];
        let sample = generate(grammar, b, seed);
        let text = render(grammar, &sample.tree);
        let named: Vec<RuleId> = sample
            .tree
            .nodes()
            .iter()
            .filter_map(|node| match node.kind {
                NodeKind::Rule { rule, .. } if rule.index() < grammar.named_rules => Some(rule),
                _ => None,
            })
            .collect();
        let wanted = named[pick % named.len()];
        let has = move |sample: &Sample| {
            sample.tree.nodes().iter().any(|n| matches!(n.kind, NodeKind::Rule { rule, .. } if rule == wanted))
        };
        let mut hdd = Hdd::new(grammar, b).unwrap();
        let mut judge = Judge::new(OnDerivation(move |c: &Candidate<'_>| c.derivation.is_some_and(has)));
        let (reduced, reduced_text) = hdd.reduce(sample.choices.as_slice(), &mut judge).unwrap();
        prop_assert!(has(&reduced));
        prop_assert!(reduced_text.len() <= text.len());
        let replayed = replay(grammar, b, reduced.choices.as_slice()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(render(grammar, &replayed.tree), reduced_text);
    }
}
