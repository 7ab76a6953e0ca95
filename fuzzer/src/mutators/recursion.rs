//! Repeat a recursion: nest a subtree inside itself again, several times at once.

use std::borrow::Cow;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

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
    /// The levels of the last parent, by its choices: a stage mutates one parent many times.
    levels: Option<(Vec<u32>, Vec<Vec<RecursionLevel>>)>,
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
            levels: None,
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
/// nothing): the places where `outer` recurses, at any depth below it. Linear in the subtree;
/// the mutator asks it for the one outer node it picked (see [`pick_outer`]).
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

/// One level of a rule's recursion: `inner` is a node of the rule and `outer` the nearest
/// ancestor of the same rule whose span holds more choices (so the context between them is
/// not empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecursionLevel {
    /// The enclosing node: its span minus the inner one's is the context repeated.
    pub outer: NodeId,
    /// The nested node of the same rule.
    pub inner: NodeId,
    /// How many nodes of the rule enclose `inner`: 1 for a first level of nesting, 40 inside
    /// a chain of forty.
    pub depth: u32,
}

/// Every level of recursion in `tree`, grouped by rule, in the order the rules first recurse
/// (so a seeded run picks the same levels). One pass over the tree with a stack of open
/// ancestors per rule: the mutator asks for it once per parent, and parents of tens of
/// thousands of nodes are common once chains grow.
pub fn nearest_recursions(tree: &DerivationTree) -> Vec<Vec<RecursionLevel>> {
    let nodes = tree.nodes();
    // Per rule (indexed by id): its open nodes, innermost last, and where its levels go.
    let mut open_by_rule: Vec<Vec<NodeId>> = Vec::new();
    let mut group_of_rule: Vec<Option<usize>> = Vec::new();
    // Every open rule node, innermost last, with the end of its subtree.
    let mut open: Vec<(u32, usize)> = Vec::new();
    let mut groups: Vec<Vec<RecursionLevel>> = Vec::new();
    for (index, node) in nodes.iter().enumerate() {
        while open.last().is_some_and(|&(end, _)| end as usize <= index) {
            let (_, rule) = open.pop().expect("checked above");
            open_by_rule[rule].pop();
        }
        let NodeKind::Rule { rule, .. } = node.kind else {
            continue;
        };
        let rule = rule.0 as usize;
        if rule >= open_by_rule.len() {
            open_by_rule.resize_with(rule + 1, Vec::new);
            group_of_rule.resize(rule + 1, None);
        }
        let id = NodeId(index as u32);
        let ancestors = &open_by_rule[rule];
        let span = node.choices_end - node.choices_start;
        if span > 0
            && let Some(&outer) = ancestors.iter().rev().find(|&&a| {
                let a = tree.node(a);
                a.choices_end - a.choices_start > span
            })
        {
            let group = *group_of_rule[rule].get_or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[group].push(RecursionLevel {
                outer,
                inner: id,
                depth: ancestors.len() as u32,
            });
        }
        open_by_rule[rule].push(id);
        open.push((node.end, rule));
    }
    groups
}

/// The node whose recursion the mutator repeats: the outer node of a level picked half the time
/// by rule first, each rule that recurses in the parent equally often, then one of its levels
/// weighted by depth; half the time among all levels. Why: picking among nodes alone (as this
/// mutator did) favours whichever rule already holds the most nodes, so a parent with a
/// thousand nested unary operators was nested further in its unary operators nine times in
/// ten, and chains of another rule (oxc's conditional expressions in their else branch, whose
/// constant evaluation hangs past fifty levels) were almost never grown: in the 5-minute runs,
/// 3 to 5 queue entries of Bonsai's held five nested conditionals in a row against 63 to 65 of
/// Nautilus's, which picks a rule first. The depth weight grows a chain at its deep end, where
/// the next level is most likely new to the target. The other half keeps growing the commonest
/// recursion, which is how the deep-nesting stack overflows are reached in seconds. Measured:
/// twice the conditional chains per call, but the queues of 5-minute runs held no more of them,
/// because the schedule seldom mutates an entry kept late (docs/results/issue-30-deep-inputs.md).
pub fn pick_outer<R: Rand>(by_rule: &[Vec<RecursionLevel>], rng: &mut R) -> Option<NodeId> {
    pick_level(by_rule, rng).map(|level| level.outer)
}

fn pick_level<R: Rand>(by_rule: &[Vec<RecursionLevel>], rng: &mut R) -> Option<RecursionLevel> {
    if by_rule.is_empty() {
        return None;
    }
    if rng.coinflip(0.5) {
        let levels = rng.choose(by_rule)?;
        let total: u64 = levels.iter().map(|l| u64::from(l.depth)).sum();
        let mut at = rng.below_or_zero(total as usize) as u64;
        levels
            .iter()
            .find(|l| {
                if at < u64::from(l.depth) {
                    true
                } else {
                    at -= u64::from(l.depth);
                    false
                }
            })
            .copied()
    } else {
        let count: usize = by_rule.iter().map(Vec::len).sum();
        let mut at = rng.below_or_zero(count);
        for levels in by_rule {
            if at < levels.len() {
                return Some(levels[at]);
            }
            at -= levels.len();
        }
        None
    }
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
        let levels = match &self.levels {
            Some((choices, levels)) if choices[..] == parent.choices.as_slice()[..] => levels,
            _ => {
                let levels = nearest_recursions(&parent.tree);
                &self
                    .levels
                    .insert((parent.choices.as_slice().to_vec(), levels))
                    .1
            }
        };
        let Some(outer) = pick_outer(levels, rng) else {
            return Ok(MutationResult::Skipped);
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
        let Some(inner) = inner else {
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
