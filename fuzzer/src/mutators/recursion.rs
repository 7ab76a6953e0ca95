//! Repeat a recursion: nest a subtree inside itself again, several times at once.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::nodes_with_choices;
use super::{Mutation, SharedTrees, record};
use crate::choice::ChoiceInput;
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// Takes a subtree X of rule R with a descendant Y of the same rule, so that X = C[Y] for a
/// context C, and replaces Y by C repeated k times: C[C[...C[Y]...]]. In choices, C is the
/// prefix of X's span before Y's and the suffix after it, so the mutant is
/// `choices[..Y.start] + prefix^k + Y + suffix^k + choices[Y.end..]`; a prefix replayed at a
/// deeper rule node of the same rule makes the same decisions, so each copy re-derives C.
///
/// Why: some faults only show at nesting far beyond what one-step mutations reach (oxc's
/// minifier re-evaluates whole chains of unary and conditional expressions at every level,
/// and needs hundreds of levels to run for a second). Nautilus reaches that depth with
/// exactly this operation; splice and regenerate add at most a few levels per step, and only
/// if each step is kept. Under the depth bound, repairing replay closes the nesting where the
/// bound stops it, so the mutant is a derivation within the bounds either way.
pub struct RecursionMutator {
    trees: SharedTrees,
    max_choices: usize,
}

/// The choices one step may add are drawn as 2^e with e in 1..=MAX_GROWTH_EXPONENT, and the
/// context is repeated as often as fits: a short context (one unary operator, a few choices)
/// is repeated thousands of times, a long one (a nested block) a few. A fixed number of
/// copies either stays too shallow for the short ones or builds megabyte inputs from the long
/// ones; Nautilus sizes its recursions by the same kind of budget. The exponent reaches 16
/// (65,536 choices) because a recursive-descent parser on an 8 MB stack overflows somewhere
/// between one and a few tens of thousands of nested brackets, and a budget of 4,096 choices
/// (the earlier ceiling) stopped at about a thousand: the deep-nesting stack overflows that
/// Nautilus found were out of reach. Each exponent is drawn equally often, so most steps stay
/// small.
const MAX_GROWTH_EXPONENT: usize = 16;

/// The ceiling of a mutant in choices when the run gives none: under generous bounds, kept
/// mutants are nested again and again, and without a ceiling inputs grew to megabytes and the
/// loop ran ten times slower (oxc at d = 1000). Oxc's slowest known inputs, a thousand nested
/// unary operators or sixty nested conditionals, take about 2,000 choices.
pub const MAX_CHOICES: usize = 4096;

impl RecursionMutator {
    /// A recursion mutator over the shared parent whose mutants hold at most `max_choices`
    /// choices. The loop passes its `--max-len`: a choice renders to at least a byte in the
    /// grammars that nest (a bracket, an operator, a keyword), so a ceiling in choices equal
    /// to the ceiling in bytes lets a mutant nest as deep as a text the loop would run, and
    /// the harness skips the few that render longer.
    pub fn new(trees: SharedTrees, max_choices: usize) -> Self {
        Self {
            trees,
            max_choices: max_choices.max(2),
        }
    }
}

/// How many copies of a context of `context` choices a budget of `budget` choices holds: at
/// least one.
pub fn copies_within(budget: usize, context: usize) -> usize {
    (budget / context.max(1)).max(1)
}

fn context_len(tree: &DerivationTree, outer: NodeId, inner: NodeId) -> usize {
    let (o, i) = (tree.node(outer), tree.node(inner));
    (o.choices_end - o.choices_start - (i.choices_end - i.choices_start)) as usize
}

/// The nodes of `outer`'s rule strictly inside its subtree that own choices and leave `outer`
/// some choices of its own (else the context would be empty and repeating it would change
/// nothing): the places where `outer` recurses. Linear in the subtree, so the mutator asks it
/// for a few random outer nodes instead of listing every pair of a deep tree.
pub fn recursions(tree: &DerivationTree, outer: NodeId) -> Vec<NodeId> {
    let o = *tree.node(outer);
    let NodeKind::Rule { rule, .. } = o.kind else {
        return Vec::new();
    };
    let nodes = tree.nodes();
    (outer.index() + 1..o.end as usize)
        .filter(|&inner| {
            let i = nodes[inner];
            matches!(i.kind, NodeKind::Rule { rule: r, .. } if r == rule)
                && i.choices_end > i.choices_start
                && i.choices_end - i.choices_start < o.choices_end - o.choices_start
        })
        .map(|inner| NodeId(inner as u32))
        .collect()
}

/// The choices of `choices` (whose tree is `tree`) with the context between `outer` and
/// `inner` repeated `copies` more times around `inner`.
pub fn repeat_recursion(
    tree: &DerivationTree,
    choices: &[u32],
    outer: NodeId,
    inner: NodeId,
    copies: usize,
) -> Vec<u32> {
    let (o, i) = (tree.node(outer), tree.node(inner));
    let (os, oe) = (o.choices_start as usize, o.choices_end as usize);
    let (is, ie) = (i.choices_start as usize, i.choices_end as usize);
    let (prefix, suffix) = (&choices[os..is], &choices[ie..oe]);
    let mut out = Vec::with_capacity(choices.len() + copies * (prefix.len() + suffix.len()));
    out.extend_from_slice(&choices[..is]);
    for _ in 0..copies {
        out.extend_from_slice(prefix);
    }
    out.extend_from_slice(&choices[is..ie]);
    for _ in 0..copies {
        out.extend_from_slice(suffix);
    }
    out.extend_from_slice(&choices[ie..]);
    out
}

impl Named for RecursionMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("recursion");
        &NAME
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for RecursionMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let mut trees = self.trees.borrow_mut();
        let rng = state.rand_mut();
        let parent = trees.parent(input.choices.as_slice(), rng);
        let outers = nodes_with_choices(&parent.tree, |k| matches!(k, NodeKind::Rule { .. }));
        let mut picked = None;
        for _ in 0..8 {
            let Some(&outer) = rng.choose(&outers) else {
                break;
            };
            let inners = recursions(&parent.tree, outer);
            // Half the time the tightest recursion, whose context is smallest: an outer node
            // with siblings around its recursion (a list of values around the nested one)
            // would copy them all at every level, and a budget of choices then buys a
            // fraction of the nesting. Deep nesting is what overflows a parser's stack.
            let inner = if rng.coinflip(0.5) {
                inners
                    .iter()
                    .copied()
                    .min_by_key(|&inner| context_len(&parent.tree, outer, inner))
            } else {
                rng.choose(&inners).copied()
            };
            if let Some(inner) = inner {
                picked = Some((outer, inner));
                break;
            }
        }
        let Some((outer, inner)) = picked else {
            return Ok(MutationResult::Skipped);
        };
        let budget = 2usize << rng.below_or_zero(MAX_GROWTH_EXPONENT);
        let context = context_len(&parent.tree, outer, inner);
        let copies = copies_within(budget, context);
        if parent.choices.len() + copies * context > self.max_choices {
            return Ok(MutationResult::Skipped);
        }
        let mutant = repeat_recursion(
            &parent.tree,
            parent.choices.as_slice(),
            outer,
            inner,
            copies,
        );
        input.choices.0 = mutant;
        drop(trees);
        record(state, Mutation::Recursion);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
