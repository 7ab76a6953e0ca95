//! The bounded sampler: turns a choice sequence into a derivation tree within bounds (m, n, d).

use std::num::NonZeroUsize;

use fast_rands::Rand;

use super::feasibility::Feasibility;
use super::steps::{Step, Steps, TerminalStep};
use super::{Bound, Bounds, DepthTracker, OutOfBounds};
use crate::choice::{
    Allowed, ChoiceCursor, ChoiceSequence, Rejected, Replay, UNBOUNDED, UNIFORM_COUNTS,
    count_from_raw,
};
use crate::diagnostic::Diagnostic;
use crate::grammar::{Grammar, PoolId, RuleId};
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// Fresh choices close the tree as fast as the grammar allows once it has this many nodes. The
/// bounds make every tree finite, but on a grammar with a long precedence chain (test → or_test
/// → ... → operand → "(" test ")"), each level a `*` group, a finite tree can still be
/// astronomically large. Each sample draws its own budget, log-uniformly between these limits,
/// so that small and large inputs both occur. Budgets only steer fresh choices: replay is
/// unaffected. The budget counts the nodes drawn since the recording ran out, not the whole
/// tree: a mutant's fresh subtree (regenerate, or havoc's fresh tail) deep in a large parent
/// gets the same room as a fresh input, instead of being closed at once. Closed at once, it
/// would always be the same lowest-height leaf (a variable, never a small constant
/// expression), and a corpus of large inputs would stop growing new subtrees at all.
pub const MIN_NODE_BUDGET: usize = 16;
pub const MAX_NODE_BUDGET: usize = 4096;

/// A sampled input: its tree and the normalized choices that replay to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// The derivation the choices replay to.
    pub tree: DerivationTree,
    /// What was decided, one value per decision; replays strictly to `tree` under the bounds it was
    /// sampled with.
    pub choices: ChoiceSequence,
}

/// Every decision consumes one choice whenever the grammar offers more than one option, even
/// when the bounds leave only one of them open, and every choice means the same decision under
/// every bound. Together these make a sequence recorded under bounds b replay to the same input
/// under any b' >= b, and make it either replay identically or fail with [`OutOfBounds`] under
/// any smaller b'.
pub struct Sampler<'g> {
    grammar: &'g Grammar,
    bounds: Bounds,
    steps: Steps,
    feasibility: Feasibility,
    /// The depth bound along the current root-to-node path.
    depth: DepthTracker,
    /// Feasibility slot for the tracker's saturated set.
    slot: usize,
    /// Why sampling stopped, when it did.
    rejection: Option<Rejection>,
    /// Node budget of the sample being drawn, counted from `fresh_start`.
    budget: usize,
    /// Nodes in the tree when the first fresh choice was drawn; `usize::MAX` while replaying.
    fresh_start: usize,
    /// The node count at which the subtree being drawn closes: its share of the budget.
    limit: usize,
    budget_range: (usize, usize),
    /// Rule expansions open on the current path: every [`STACK_CHECK_EVERY`] levels the stack
    /// is checked.
    levels: u32,
    /// The node whose closing ends the sample ([`Self::sample_through`]); `usize::MAX` for none.
    stop_after: usize,
}

fn below<R: Rand>(rng: &mut R, n: u32) -> u32 {
    rng.below(NonZeroUsize::new(n as usize).unwrap_or(NonZeroUsize::MIN)) as u32
}

impl<'g> Sampler<'g> {
    /// A sampler for `grammar` within `bounds`. Fails when the start rule derives no word at all;
    /// the per-depth feasibility tables are filled lazily as samples need them.
    pub fn new(grammar: &'g Grammar, bounds: Bounds) -> Result<Self, Diagnostic> {
        let feasibility = Feasibility::new(grammar);
        if !feasibility.is_productive(0, grammar.start.index()) {
            return Err(Diagnostic::error(format!(
                "grammar '{}' cannot derive any word from its start rule",
                grammar.name
            )));
        }
        Ok(Self {
            grammar,
            bounds,
            steps: Steps::new(grammar),
            feasibility,
            depth: DepthTracker::new(grammar, bounds.depth),
            slot: 0,
            rejection: None,
            budget: MAX_NODE_BUDGET,
            fresh_start: usize::MAX,
            limit: usize::MAX,
            budget_range: (MIN_NODE_BUDGET, MAX_NODE_BUDGET),
            levels: 0,
            stop_after: usize::MAX,
        })
    }

    /// Sets the range that per-sample node budgets are drawn from (see [`MIN_NODE_BUDGET`]).
    pub fn with_node_budget(mut self, min: usize, max: usize) -> Self {
        let min = min.max(1);
        self.budget_range = (min, max.max(min));
        self
    }

    /// Keeps about `bytes` of the per-saturated-set analyses (see `SaturatedCache`) instead of
    /// [`super::feasibility::FEASIBILITY_BUDGET`]. What is sampled does not depend on it, only
    /// how often an analysis is computed again.
    pub fn with_cache_budget(mut self, bytes: usize) -> Self {
        self.feasibility.set_budget(bytes);
        self
    }

    /// What the cache of per-saturated-set analyses holds and has computed.
    pub fn cached(&self) -> super::CacheStats {
        self.feasibility.cached()
    }

    /// The bounds every sample is kept within.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// The grammar, with its own lifetime rather than the sampler's.
    pub fn grammar(&self) -> &'g Grammar {
        self.grammar
    }

    /// A fresh random input. Never fails: fresh choices are drawn within the bounds.
    pub fn generate<R: Rand>(&mut self, rng: &mut R, out: &mut Sample) {
        let result = self.sample(&[], Replay::Repair, rng, out);
        debug_assert!(result.is_ok(), "repairing replay cannot fail");
    }

    /// Replays `recorded`, continuing with fresh choices from `rng` if it runs out. In
    /// [`Replay::Strict`] mode a recorded decision the bounds forbid is an error; in
    /// [`Replay::Repair`] mode it is mapped onto an allowed one. Either way `out.choices`
    /// receives the normalized sequence of what was decided.
    pub fn sample<R: Rand>(
        &mut self,
        recorded: &[u32],
        mode: Replay,
        rng: &mut R,
        out: &mut Sample,
    ) -> Result<(), OutOfBounds> {
        self.sample_until(recorded, mode, rng, out, usize::MAX)
    }

    /// As [`Self::sample`], but stops as soon as the subtree of node `node` (a rule, optional or
    /// repetition node; the index it gets in `out.tree`) is complete: `out.tree` then holds that
    /// node's subtree and every node before it, its ancestors still open, and `out.choices`
    /// the choices up to its end. The regenerate mutator wants only the fresh subtree it drew at
    /// a node; the rest of the tree, drawn fresh to its end, was most of its sampling.
    pub fn sample_through<R: Rand>(
        &mut self,
        recorded: &[u32],
        rng: &mut R,
        out: &mut Sample,
        node: NodeId,
    ) {
        let result = self.sample_until(recorded, Replay::Repair, rng, out, node.index());
        debug_assert!(result.is_ok(), "repairing replay cannot fail");
    }

    fn sample_until<R: Rand>(
        &mut self,
        recorded: &[u32],
        mode: Replay,
        rng: &mut R,
        out: &mut Sample,
        stop_after: usize,
    ) -> Result<(), OutOfBounds> {
        out.tree.clear();
        self.depth.reset();
        self.slot = 0;
        self.feasibility.start_sample();
        self.levels = 0;
        self.stop_after = stop_after;
        let (low, high) = self.budget_range;
        let span = (high as f64 / low as f64).ln();
        self.budget = (low as f64 * (rng.next_float() * span).exp()) as usize;
        self.fresh_start = usize::MAX;
        self.limit = usize::MAX;
        let mut cursor = ChoiceCursor::new(recorded, mode, rng, &mut out.choices);
        self.rule(self.grammar.start, &mut cursor, &mut out.tree)
            .or_else(|Stop| {
                if self.stop_after == STOPPED {
                    return Ok(());
                }
                let rejection = self.rejection.take().expect("a stop leaves its reason");
                Err(rejection.into_out_of_bounds(self.grammar))
            })
    }

    /// Closes `node` at choice `at`, and stops the sample there when it is the node
    /// [`Self::sample_through`] asked for.
    #[inline(always)]
    fn close(&mut self, tree: &mut DerivationTree, node: NodeId, at: usize) -> Result<(), Stop> {
        tree.close(node, at);
        if node.index() == self.stop_after {
            self.stop_after = STOPPED;
            return Err(Stop);
        }
        Ok(())
    }

    /// Whether fresh choices should close the tree once it has `nodes` nodes: over the sample's
    /// budget, or over the share of it that the enclosing subtree got. While recorded choices
    /// remain the answer is never used, so it is `false` and does not start the count.
    #[inline]
    fn over_budget<R: Rand>(&mut self, cursor: &ChoiceCursor<'_, R>, nodes: usize) -> bool {
        cursor.exhausted() && nodes > self.closing_at(nodes)
    }

    /// How many nodes the subtree drawn at `nodes` may still take within its share and the
    /// sample's budget; unlimited while recorded choices remain.
    #[inline]
    fn room<R: Rand>(&mut self, cursor: &ChoiceCursor<'_, R>, nodes: usize) -> usize {
        if !cursor.exhausted() {
            return usize::MAX;
        }
        self.closing_at(nodes).saturating_sub(nodes)
    }

    /// The node count at which the subtree being drawn closes: its share, or the sample's
    /// budget counted from the first fresh choice (which is when this is first asked).
    #[inline]
    fn closing_at(&mut self, nodes: usize) -> usize {
        if self.fresh_start == usize::MAX {
            self.fresh_start = nodes;
        }
        self.limit.min(self.fresh_start.saturating_add(self.budget))
    }

    /// The limit of the next of `subtrees` sibling subtrees still to be drawn, within the
    /// enclosing subtree's: what is left of it, split so that every sibling expects the same
    /// share (the least of `subtrees - 1` uniform draws, as Nautilus's generator splits a tree
    /// size). Without a split, the first subtree drawn takes the whole budget and every later
    /// sibling is closed at once into the same lowest-height leaf: `f(g(h(...)), x)`, never
    /// `f(1, 2)`. Replayed subtrees keep the enclosing limit; the split only steers fresh
    /// choices.
    #[inline]
    fn share<R: Rand>(
        &mut self,
        cursor: &mut ChoiceCursor<'_, R>,
        nodes: usize,
        subtrees: u32,
    ) -> usize {
        if !cursor.exhausted() || subtrees <= 1 {
            return self.limit;
        }
        let left = self.closing_at(nodes).saturating_sub(nodes);
        if left == 0 {
            return nodes;
        }
        let rng = cursor.rng();
        let share = (1..subtrees)
            .map(|_| rng.below(NonZeroUsize::new(left + 1).expect("positive")))
            .min()
            .unwrap_or(left);
        nodes + share
    }

    fn stop(&mut self, bound: Bound, rejected: Rejected, context: Context) -> Stop {
        self.rejection = Some(Rejection::new(bound, rejected, context));
        Stop
    }

    /// Expands rule `id` at the current position on a stack that grows as deep as the input
    /// nests. Under generous bounds a mutant can nest thousands of levels (the recursion
    /// mutator repeats a context hundreds of times), and overflowing the stack here would be
    /// taken for a fault of the target, whose harness runs on the same stack.
    fn rule<R: Rand>(
        &mut self,
        id: RuleId,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), Stop> {
        self.levels += 1;
        let result = if self.levels.is_multiple_of(STACK_CHECK_EVERY) {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
                self.rule_here(id, cursor, tree)
            })
        } else {
            self.rule_here(id, cursor, tree)
        };
        self.levels -= 1;
        result
    }

    /// Expands rule `id` at the current position, tracking its occurrences on the path: they
    /// decide what can still be completed below it.
    fn rule_here<R: Rand>(
        &mut self,
        id: RuleId,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), Stop> {
        let r = id.index();
        let start = cursor.position();
        let named = r < self.grammar.named_rules;
        let outer_slot = self.slot;
        let mut count = 0;
        if named {
            let entered = self.depth.enter(r);
            count = entered.depth;
            if entered.saturates {
                self.slot =
                    self.feasibility
                        .saturate(self.grammar, self.slot, r, self.depth.saturated());
            }
        }
        let alternative = self.alternative(id, count, cursor, tree)?;
        let node = tree.open(
            NodeKind::Rule {
                rule: id,
                alternative,
            },
            start,
        );
        let steps = self.steps.alternative(r, alternative);
        let outer_limit = self.limit;
        // Subtrees still to be drawn from here on, counted at the first fresh one.
        let mut subtrees_left: Option<u32> = None;
        for index in steps.clone() {
            let step = self.steps.get(index);
            if step.opens_subtree() && cursor.exhausted() {
                let left = *subtrees_left.get_or_insert_with(|| {
                    (index..steps.end)
                        .filter(|&i| self.steps.get(i).opens_subtree())
                        .count() as u32
                });
                self.limit = self.share(cursor, tree.len(), left);
                subtrees_left = Some(left - 1);
            }
            self.step(step, cursor, tree)?;
            self.limit = outer_limit;
        }
        if named {
            self.slot = outer_slot;
            self.depth.exit();
        }
        self.close(tree, node, cursor.position())?;
        Ok(())
    }

    /// Which alternative of `id` to expand; `count` is the rule's depth on the path, itself
    /// included (0 for groups). Always inlined: it runs at nearly every node, and LLVM
    /// otherwise keeps it out of the recursive `rule`.
    #[inline(always)]
    fn alternative<R: Rand>(
        &mut self,
        id: RuleId,
        count: u32,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &DerivationTree,
    ) -> Result<u32, Stop> {
        let r = id.index();
        let alternatives = self.steps.alternative_count(r);
        if alternatives == 1 {
            return Ok(0);
        }
        let named = r < self.grammar.named_rules;
        // Nodes the subtree may still take, this rule's own node (not opened yet) included.
        let room = self.room(cursor, tree.len());
        let closing = room == 0;
        let feasibility = &self.feasibility;
        let slot = self.slot;
        let feasible = feasibility.feasible(slot, r);
        let depth = self.bounds.depth;
        cursor
            .decide(alternatives, Allowed::Among(feasible), |rng| {
                // Growth control: at the depth bound (or over budget) take an alternative of
                // least height; below it, lean towards them more the deeper we are.
                let close = closing
                    || (named
                        && (count >= depth
                            || rng
                                .coinflip(f64::from(count.saturating_sub(1)) / f64::from(depth))));
                if close {
                    let lowest = feasibility.lowest(slot, r);
                    return lowest[below(rng, lowest.len() as u32) as usize];
                }
                // Otherwise any alternative whose smallest subtree fits in the room left, as
                // Nautilus's generator picks rules: under a small share of the budget this
                // draws every small subtree (`f(1, 2)`, `vec(vec().x, 1)`), not only the
                // lowest ones.
                let fits = |&&a: &&u32| feasibility.size(slot, r, a) as usize <= room;
                let fitting = feasible.iter().filter(fits).count() as u32;
                if fitting == 0 || fitting == feasible.len() as u32 {
                    let options = if fitting == 0 {
                        feasibility.lowest(slot, r)
                    } else {
                        feasible
                    };
                    return options[below(rng, options.len() as u32) as usize];
                }
                let pick = below(rng, fitting) as usize;
                *feasible.iter().filter(fits).nth(pick).expect("counted")
            })
            .map_err(|e| self.stop(Bound::Depth, e, Context::Rule(id)))
    }

    fn step<R: Rand>(
        &mut self,
        step: Step,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), Stop> {
        let start = cursor.position();
        match step {
            Step::Terminal(terminal) => self.terminal(terminal, cursor, tree)?,
            Step::Rule(body) => self.rule(body, cursor, tree)?,
            Step::Optional(body) => {
                let node = tree.open(NodeKind::Optional { body }, start);
                let feasible = self.feasibility.is_productive(self.slot, body.index());
                let closing = self.over_budget(cursor, tree.len());
                let present = cursor
                    .decide(2, Allowed::Below(if feasible { 2 } else { 1 }), |rng| {
                        u32::from(feasible && !closing && rng.coinflip(0.5))
                    })
                    .map_err(|e| self.stop(Bound::Depth, e, Context::Rule(body)))?;
                if present == 1 {
                    self.rule(body, cursor, tree)?;
                }
                self.close(tree, node, cursor.position())?;
            }
            Step::Repeat { body, min, max } => {
                let node = tree.open(NodeKind::Repeat { body }, start);
                let feasible = self.feasibility.is_productive(self.slot, body.index());
                let limit = if feasible {
                    self.bounds.item_limit(min, max)
                } else {
                    min
                };
                let range = max.map_or(UNBOUNDED, |max| max - min + 1);
                let extra = if range == 1 {
                    0
                } else {
                    let closing = self.over_budget(cursor, tree.len());
                    let choices = limit - min + 1;
                    let bound = if feasible { Bound::Items } else { Bound::Depth };
                    cursor
                        .decide(range, Allowed::Count(choices), |rng| {
                            if closing {
                                0
                            } else if choices <= UNIFORM_COUNTS {
                                below(rng, choices)
                            } else {
                                count_from_raw(rng.next() as u32, choices)
                            }
                        })
                        .map_err(|e| self.stop(bound, e, Context::Rule(body)))?
                };
                let items = min + extra;
                let outer_limit = self.limit;
                for item in 0..items {
                    self.limit = self.share(cursor, tree.len(), items - item);
                    self.rule(body, cursor, tree)?;
                    self.limit = outer_limit;
                }
                self.close(tree, node, cursor.position())?;
            }
        }
        Ok(())
    }

    /// Always inlined for the same reason as [`Self::alternative`].
    #[inline(always)]
    fn terminal<R: Rand>(
        &mut self,
        step: TerminalStep,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), Stop> {
        let start = cursor.position();
        match step {
            TerminalStep::Fixed(terminal) => {
                tree.leaf(NodeKind::Terminal { terminal, value: 0 }, start, start);
            }
            TerminalStep::Class { terminal, size } => {
                let preferred = match self.grammar.terminal(terminal) {
                    crate::grammar::Terminal::Class(class) => class.preferred(),
                    _ => &[],
                };
                let value = if preferred.is_empty() {
                    cursor.decide(size, Allowed::Below(size), |rng| below(rng, size))
                } else {
                    // A recorded value is the character it names; a raw one beyond the class
                    // (havoc's) becomes a printable one, as a fresh draw does.
                    let allowed = Allowed::Preferring {
                        limit: size,
                        preferred,
                    };
                    cursor.decide(UNBOUNDED, allowed, |rng| {
                        preferred[below(rng, preferred.len() as u32) as usize]
                    })
                }
                .map_err(|e| self.stop(Bound::Items, e, Context::Class))?;
                tree.leaf(NodeKind::Terminal { terminal, value }, start, start + 1);
            }
            TerminalStep::Pool {
                terminal,
                pool,
                size,
            } => {
                let allowed = self.bounds.idents.min(size);
                let value = cursor
                    .decide(size, Allowed::Below(allowed), |rng| below(rng, allowed))
                    .map_err(|e| self.stop(Bound::Idents, e, Context::Pool(pool)))?;
                tree.leaf(NodeKind::Terminal { terminal, value }, start, start + 1);
            }
        }
        Ok(())
    }
}

/// [`Sampler::stop_after`] once its node closed: no node has this index.
const STOPPED: usize = usize::MAX - 1;

/// Checking the stack at every rule costs a tenth of the sampler's time; every 32 levels costs
/// nothing measurable.
const STACK_CHECK_EVERY: u32 = 32;
/// Stack left below which [`Sampler::rule`] moves to a new segment: more than
/// [`STACK_CHECK_EVERY`] levels of rule frames of an unoptimized build.
const STACK_RED_ZONE: usize = 1024 * 1024;
/// Size of each new stack segment.
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// Sampling stopped at a rejected recorded choice; the details wait in `Sampler::rejection`.
/// A unit error keeps the result of every recursive call in a register.
struct Stop;

/// Where a rejected decision was taken. [`OutOfBounds`] names it; the sampler carries this
/// small copyable form up the recursion instead and names it only if it escapes.
#[derive(Clone, Copy, Debug)]
enum Context {
    Rule(RuleId),
    Pool(PoolId),
    Class,
}

#[derive(Clone, Copy, Debug)]
struct Rejection {
    bound: Bound,
    rejected: Rejected,
    context: Context,
}

impl Rejection {
    fn new(bound: Bound, rejected: Rejected, context: Context) -> Self {
        Self {
            bound,
            rejected,
            context,
        }
    }

    fn into_out_of_bounds(self, grammar: &Grammar) -> OutOfBounds {
        let context = match self.context {
            Context::Rule(rule) => grammar.rule(rule).name.clone(),
            Context::Pool(pool) => grammar.pools[pool.index()].name.clone(),
            Context::Class => "character class".to_string(),
        };
        OutOfBounds {
            bound: self.bound,
            position: self.rejected.position,
            value: self.rejected.value,
            context,
        }
    }
}
