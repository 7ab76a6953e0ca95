//! Grammar-aware reduction: hierarchical delta debugging on derivation trees, with Perses'
//! minimal-yield replacement and hoisting, to a fixpoint.
//!
//! Everything happens on the choice sequence. A subtree owns the span
//! `choices_start..choices_end`, so
//! - replacing a subtree by the shortest word of its symbol is splicing in the choices of that
//!   derivation ([`MinimalDerivations`], computed for the node's place so that the depth bound
//!   still holds there);
//! - deleting items of a repetition is lowering its count choice and cutting the items' spans;
//! - hoisting a descendant (Perses) is splicing the descendant's span over the node's; when the
//!   descendant's rule differs, it goes inside the shortest context of the node's rule that has
//!   a hole for it ([`MinimalDerivations::context`]): for `expr` over a `member_expr` that
//!   context is empty (single-rule alternatives, which is all Perses allows), for a statement
//!   over an expression it is the expression statement's line break.
//!
//! Each candidate is replayed *strictly* under the bounds the input was recorded with and
//! re-rendered. Minimal derivations and item removal are valid by construction, and a node
//! moved up sees fewer rules above it, so its own choices stay allowed; only a context can
//! lead through a rule that has reached the depth bound, and such a candidate is dropped
//! without asking the criterion. Replay never repairs a choice: a candidate is always the tree
//! the edit describes, and the result replays strictly from its choices to its text.
//!
//! A candidate is accepted only if it satisfies the criterion and is smaller than the best input
//! so far: fewer bytes, or as many bytes and fewer choices, or the same number of choices
//! that are lexicographically smaller (a pool value replaced by the first one). That order is
//! well-founded, so the fixpoint loop ends, and the result is never larger than the input.

use ahash::AHashSet;
use libafl_bolts::rands::StdRand;

use super::places::Places;
use super::splice::{self, Splice};
use super::{Candidate, Criterion, Judge, ReductionError, ddmin};
use crate::choice::{OwnWords, Replay, UNBOUNDED};
use crate::diagnostic::Diagnostic;
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::{Bounds, MinimalDerivations, OutOfBounds, Sample, Sampler};
use crate::text::render_words_into;
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// Which of the HDD refinements run. All on by default; the others exist to measure what each
/// contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HddOptions {
    /// Replace nodes by compatible descendants (Perses). Without it this is plain HDD with
    /// minimal-yield replacement.
    pub hoist: bool,
    /// Repeat the level-by-level pass until nothing changes (HDD*).
    pub fixpoint: bool,
    /// The longest context (in characters, see [`crate::analysis::MinContext`]) a hoisted
    /// descendant may be wrapped in. 0 allows only contexts that add no text (the same rule,
    /// single-rule alternatives, empty optionals and lists), close to Perses' compatible
    /// descendants; the default allows any, so that `if a * [x]: ...` can become `[x]` and a
    /// line break. In the reduce benchmark (`hdd` against `hdd-ctx0`) the default gives
    /// smaller Starlark results in fewer tests, and the same ChocoPy results in a few more.
    pub max_context: u64,
}

impl Default for HddOptions {
    fn default() -> Self {
        Self {
            hoist: true,
            fixpoint: true,
            max_context: u64::MAX,
        }
    }
}

/// The best input so far: its derivation and its text.
#[derive(Clone, Debug, Default)]
struct Best {
    sample: Sample,
    text: String,
}

/// A snapshot of the best input that a pass computes its edits from: its tree, its choices and
/// where each node sits. Edits of one ddmin run all apply to the same snapshot.
struct Snapshot {
    tree: DerivationTree,
    base: Vec<u32>,
    places: Places,
}

impl Snapshot {
    fn of(grammar: &Grammar, best: &Best) -> Self {
        Self {
            places: Places::new(grammar, &best.sample.tree),
            tree: best.sample.tree.clone(),
            base: best.sample.choices.0.clone(),
        }
    }
}

/// Reduces choice sequences of one grammar under one set of bounds.
pub struct Hdd<'g> {
    grammar: &'g Grammar,
    sampler: Sampler<'g>,
    minimal: MinimalDerivations<'g>,
    options: HddOptions,
    /// Only feeds the sampler's node budget: strict replay of a complete sequence never draws a
    /// fresh choice.
    rng: StdRand,
    scratch: Sample,
    text: String,
    choices: Vec<u32>,
    /// The named rules above the node being replaced (see `DerivationTree::named_ancestors`).
    above: Vec<RuleId>,
    /// Every sequence attempted in this reduction. One attempted before can never be accepted
    /// now: it was either not interesting, or not smaller than the best input of the time (which
    /// only shrinks since), or accepted and thus no smaller than the best input now. ddmin
    /// proposes the same configurations again and again; this skips their replays.
    attempted: AHashSet<Box<[u32]>>,
    /// The input's own words, which every candidate keeps (see [`OwnWords`]).
    words: OwnWords,
}

impl<'g> Hdd<'g> {
    /// A reducer for inputs recorded under `bounds` (or any bounds they replay under).
    pub fn new(grammar: &'g Grammar, bounds: Bounds) -> Result<Self, Diagnostic> {
        Ok(Self {
            grammar,
            sampler: Sampler::new(grammar, bounds)?,
            minimal: MinimalDerivations::new(grammar, bounds),
            options: HddOptions::default(),
            rng: StdRand::with_seed(0),
            scratch: Sample::default(),
            text: String::new(),
            choices: Vec::new(),
            above: Vec::new(),
            attempted: AHashSet::new(),
            words: OwnWords::default(),
        })
    }

    /// Candidates speak `words` (the reduced input's own words), as the input does.
    pub fn with_words(mut self, words: OwnWords) -> Self {
        self.set_words(words);
        self
    }

    /// [`Hdd::with_words`] for a reducer kept across inputs, as the in-loop trim keeps one.
    pub fn set_words(&mut self, words: OwnWords) {
        self.words = words;
    }

    /// Replaces the default options (hoisting and fixpoint on, any context length).
    pub fn with_options(mut self, options: HddOptions) -> Self {
        self.options = options;
        self
    }

    /// The text that `choices` replay to, strictly, under the reducer's bounds.
    pub fn replay(&mut self, choices: &[u32]) -> Result<String, OutOfBounds> {
        self.sampler
            .sample(choices, Replay::Strict, &mut self.rng, &mut self.scratch)?;
        let mut text = String::new();
        render_words_into(self.grammar, &self.scratch.tree, &self.words, &mut text);
        Ok(text)
    }

    /// Reduces the input that `choices` replay to. Returns the reduced derivation and its text.
    pub fn reduce<C: Criterion>(
        &mut self,
        choices: &[u32],
        judge: &mut Judge<C>,
    ) -> Result<(Sample, String), ReductionError> {
        self.attempted.clear();
        let mut best = Best::default();
        self.sampler
            .sample(choices, Replay::Strict, &mut self.rng, &mut best.sample)
            .map_err(ReductionError::OutOfBounds)?;
        render_words_into(self.grammar, &best.sample.tree, &self.words, &mut best.text);
        if !judge.holds(&Candidate::derived(&best.text, &best.sample)) {
            return Err(ReductionError::NotInteresting);
        }
        loop {
            let mut changed = false;
            let mut level = 0;
            let mut snapshot = Snapshot::of(self.grammar, &best);
            while level < snapshot.places.levels() && !judge.exhausted() {
                if self.minimize_level(level, &snapshot, &mut best, judge) {
                    snapshot = Snapshot::of(self.grammar, &best);
                    changed = true;
                }
                if self.remove_items(level, &snapshot, &mut best, judge) {
                    snapshot = Snapshot::of(self.grammar, &best);
                    changed = true;
                }
                if self.options.hoist && self.hoist_level(level, &mut snapshot, &mut best, judge) {
                    changed = true;
                }
                level += 1;
            }
            if !changed || !self.options.fixpoint || judge.exhausted() {
                break;
            }
        }
        Ok((best.sample, best.text))
    }

    /// ddmin over the nodes of one level that are not yet their minimal derivation: the
    /// configuration is the set of nodes kept as they are, every other one is replaced by its
    /// minimal derivation.
    fn minimize_level<C: Criterion>(
        &mut self,
        level: u32,
        snapshot: &Snapshot,
        best: &mut Best,
        judge: &mut Judge<C>,
    ) -> bool {
        let Snapshot { tree, base, places } = snapshot;
        let mut splices = Vec::new();
        for &id in places.at_level(level) {
            if let Some(splice) = self.minimal_splice(places, tree, base, id) {
                splices.push(splice);
            }
        }
        if splices.is_empty() {
            return false;
        }
        let indices: Vec<usize> = (0..splices.len()).collect();
        let mut keep = vec![false; splices.len()];
        let mut changed = false;
        ddmin(&indices, |kept| {
            keep.fill(false);
            kept.iter().for_each(|&i| keep[i] = true);
            let mut choices = std::mem::take(&mut self.choices);
            splice::apply(
                base,
                splices
                    .iter()
                    .zip(&keep)
                    .filter(|(_, k)| !**k)
                    .map(|(s, _)| s),
                &mut choices,
            );
            let accepted = self.attempt(&choices, best, judge);
            self.choices = choices;
            changed |= accepted;
            accepted
        });
        changed
    }

    /// The splice that replaces `id` by its minimal derivation, unless it already is one.
    fn minimal_splice(
        &mut self,
        places: &Places,
        tree: &DerivationTree,
        base: &[u32],
        id: NodeId,
    ) -> Option<Splice> {
        let node = tree.node(id);
        let span = node.choices_start as usize..node.choices_end as usize;
        if span.is_empty() {
            return None;
        }
        tree.named_ancestors(self.grammar, id, &mut self.above);
        let mut minimal = Vec::new();
        self.minimal
            .symbol(&places.symbol(id), &self.above, &mut minimal)?;
        (minimal != base[span.clone()]).then(|| Splice::new(span, minimal))
    }

    /// ddmin over the items of the repetitions at one level, jointly: the configuration is the
    /// set of items kept; a repetition left with fewer than its minimum is not a candidate.
    fn remove_items<C: Criterion>(
        &mut self,
        level: u32,
        snapshot: &Snapshot,
        best: &mut Best,
        judge: &mut Judge<C>,
    ) -> bool {
        let Snapshot { tree, base, places } = snapshot;
        // Per list: its node, its minimum, and the range of its items in `items`.
        let mut lists: Vec<(NodeId, u32, std::ops::Range<usize>)> = Vec::new();
        let mut items: Vec<NodeId> = Vec::new();
        for &id in places.at_level(level) {
            let (NodeKind::Repeat { .. }, Symbol::Repeat { min, max, .. }) =
                (tree.node(id).kind, places.symbol(id))
            else {
                continue;
            };
            let first = items.len();
            items.extend(tree.children(id));
            let count = (items.len() - first) as u32;
            // A fixed count is no choice, and a list at its minimum has nothing to lose.
            if max.map_or(UNBOUNDED, |max| max - min + 1) == 1 || count <= min {
                items.truncate(first);
                continue;
            }
            lists.push((id, min, first..items.len()));
        }
        if items.is_empty() {
            return false;
        }
        let positions: Vec<usize> = (0..items.len()).collect();
        let mut keep = vec![false; items.len()];
        let mut changed = false;
        let mut splices: Vec<Splice> = Vec::with_capacity(lists.len());
        ddmin(&positions, |kept| {
            keep.fill(false);
            kept.iter().for_each(|&i| keep[i] = true);
            splices.clear();
            for (list, min, range) in &lists {
                let node = tree.node(*list);
                let kept_items: Vec<NodeId> = range
                    .clone()
                    .filter(|&i| keep[i])
                    .map(|i| items[i])
                    .collect();
                let count = kept_items.len() as u32;
                if count < *min {
                    return false;
                }
                if count as usize == range.len() {
                    continue;
                }
                // The count choice comes first, then each item's span.
                let mut with = vec![count - min];
                for item in kept_items {
                    let item = tree.node(item);
                    with.extend_from_slice(
                        &base[item.choices_start as usize..item.choices_end as usize],
                    );
                }
                splices.push(Splice::new(
                    node.choices_start as usize..node.choices_end as usize,
                    with,
                ));
            }
            let mut choices = std::mem::take(&mut self.choices);
            splice::apply(base, &splices, &mut choices);
            let accepted = self.attempt(&choices, best, judge);
            self.choices = choices;
            changed |= accepted;
            accepted
        });
        changed
    }

    /// Tries to replace each rule node of one level by one of its nearest compatible
    /// descendants, largest first: rule nodes that fit the node's place within a context of at
    /// most [`HddOptions::max_context`] characters, with no such node in between (a descendant
    /// that, in its context, *is* the node, such as the only `term` of an `expr`, does not
    /// count: the search looks inside it). After a success the hoisted node is tried again, so
    /// a node can move down several steps.
    ///
    /// Nearest descendants only: one that lies inside another compatible descendant Y is
    /// reached by hoisting Y first and then trying again, and is rarely interesting when Y is
    /// not (it has less of the text). That keeps the number of tests per node near the number
    /// of its nearest compatible descendants instead of the size of its subtree.
    fn hoist_level<C: Criterion>(
        &mut self,
        level: u32,
        snapshot: &mut Snapshot,
        best: &mut Best,
        judge: &mut Judge<C>,
    ) -> bool {
        let mut changed = false;
        let mut ordinal = 0;
        while let Some(&id) = snapshot.places.at_level(level).get(ordinal) {
            if self.hoist_node(snapshot, id, best, judge) {
                // Nodes before `id` are untouched, so `ordinal` still names the hoisted node.
                *snapshot = Snapshot::of(self.grammar, best);
                changed = true;
            } else {
                ordinal += 1;
            }
            if judge.exhausted() {
                break;
            }
        }
        changed
    }

    fn hoist_node<C: Criterion>(
        &mut self,
        snapshot: &Snapshot,
        id: NodeId,
        best: &mut Best,
        judge: &mut Judge<C>,
    ) -> bool {
        let Snapshot { tree, base, places } = snapshot;
        let node = *tree.node(id);
        let NodeKind::Rule { rule, .. } = node.kind else {
            return false;
        };
        if self.minimal_splice(places, tree, base, id).is_none() {
            return false;
        }
        let span = &base[node.choices_start as usize..node.choices_end as usize];
        tree.named_ancestors(self.grammar, id, &mut self.above);
        let mut candidates: Vec<(NodeId, Vec<u32>)> = Vec::new();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let mut inside = id.0 + 1;
        while inside < node.end {
            let descendant = tree.node(NodeId(inside));
            let NodeKind::Rule { rule: other, .. } = descendant.kind else {
                inside += 1;
                continue;
            };
            before.clear();
            after.clear();
            let fits = self
                .minimal
                .context(rule, other, &self.above, &mut before, &mut after)
                .is_some_and(|cost| cost <= self.options.max_context);
            if !fits {
                inside += 1;
                continue;
            }
            let mut with = std::mem::take(&mut before);
            with.extend_from_slice(
                &base[descendant.choices_start as usize..descendant.choices_end as usize],
            );
            with.extend_from_slice(&after);
            // The node itself under another name (`expr` over its only `term`): look inside.
            if with == span {
                inside += 1;
                continue;
            }
            candidates.push((NodeId(inside), with));
            inside = descendant.end;
        }
        candidates.sort_by_key(|(d, with)| std::cmp::Reverse((with.len(), tree.subtree(*d).len())));
        let start = node.choices_start as usize;
        let end = node.choices_end as usize;
        for (_, with) in candidates {
            let mut choices = std::mem::take(&mut self.choices);
            splice::apply(base, &[Splice::new(start..end, with)], &mut choices);
            let accepted = self.attempt(&choices, best, judge);
            self.choices = choices;
            if accepted {
                return true;
            }
        }
        false
    }

    /// Replays `choices` strictly; if they derive an input smaller than `best` that satisfies
    /// the criterion, it becomes `best`.
    fn attempt<C: Criterion>(
        &mut self,
        choices: &[u32],
        best: &mut Best,
        judge: &mut Judge<C>,
    ) -> bool {
        // Past the budget nothing more can be accepted; skip the replay.
        if judge.exhausted() || !self.attempted.insert(choices.into()) {
            return false;
        }
        if self
            .sampler
            .sample(choices, Replay::Strict, &mut self.rng, &mut self.scratch)
            .is_err()
            || self.scratch.choices.as_slice() != choices
        {
            // Outside the bounds (a unit chain through a saturated rule), or not a complete
            // derivation: not the candidate the edit described.
            return false;
        }
        render_words_into(
            self.grammar,
            &self.scratch.tree,
            &self.words,
            &mut self.text,
        );
        let smaller = (self.text.len(), choices.len(), choices)
            < (
                best.text.len(),
                best.sample.choices.len(),
                best.sample.choices.as_slice(),
            );
        if !smaller || !judge.holds(&Candidate::derived(&self.text, &self.scratch)) {
            return false;
        }
        std::mem::swap(&mut best.sample, &mut self.scratch);
        std::mem::swap(&mut best.text, &mut self.text);
        true
    }
}
