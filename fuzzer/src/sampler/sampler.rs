//! The bounded sampler: turns a choice sequence into a derivation tree within bounds (m, n, d).

use std::num::NonZeroUsize;

use fixedbitset::FixedBitSet;
use libafl_bolts::rands::Rand;

use super::feasibility::Feasibility;
use super::{Bound, Bounds, OutOfBounds};
use crate::analysis::UNREACHABLE_HEIGHT;
use crate::choice::{Allowed, ChoiceCursor, ChoiceSequence, Rejected, Replay, UNBOUNDED};
use crate::diagnostic::Diagnostic;
use crate::grammar::{Grammar, RuleId, Symbol, Terminal, TerminalId};
use crate::tree::{DerivationTree, NodeKind};

/// Fresh choices close the tree as fast as the grammar allows once it has this many nodes. The
/// bounds make every tree finite, but on a grammar with a long precedence chain (test → or_test
/// → ... → operand → "(" test ")"), each level a `*` group, a finite tree can still be
/// astronomically large. Each sample draws its own budget, log-uniformly between these limits,
/// so that small and large inputs both occur. Budgets only steer fresh choices: replay is
/// unaffected.
pub const MIN_NODE_BUDGET: usize = 16;
pub const MAX_NODE_BUDGET: usize = 4096;

/// A sampled input: its tree and the normalized choices that replay to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub tree: DerivationTree,
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
    feasibility: Feasibility,
    /// Occurrences of each named rule on the current root-to-node path.
    counts: Vec<u32>,
    /// Named rules whose count has reached the depth bound.
    saturated: FixedBitSet,
    /// Feasibility slot for the current `saturated` set.
    slot: usize,
    /// Feasible alternatives of the decision being taken; a stack shared by all levels.
    scratch: Vec<u32>,
    /// Node budget of the sample being drawn.
    budget: usize,
    budget_range: (usize, usize),
}

fn below<R: Rand>(rng: &mut R, n: u32) -> u32 {
    rng.below(NonZeroUsize::new(n as usize).unwrap_or(NonZeroUsize::MIN)) as u32
}

impl<'g> Sampler<'g> {
    pub fn new(grammar: &'g Grammar, bounds: Bounds) -> Result<Self, Diagnostic> {
        let feasibility = Feasibility::new(grammar);
        if !feasibility.heights(0).is_productive(grammar.start.index()) {
            return Err(Diagnostic::error(format!(
                "grammar '{}' cannot derive any word from its start rule",
                grammar.name
            )));
        }
        Ok(Self {
            grammar,
            bounds,
            feasibility,
            counts: vec![0; grammar.named_rules],
            saturated: FixedBitSet::with_capacity(grammar.rules.len()),
            slot: 0,
            scratch: Vec::new(),
            budget: MAX_NODE_BUDGET,
            budget_range: (MIN_NODE_BUDGET, MAX_NODE_BUDGET),
        })
    }

    /// Sets the range that per-sample node budgets are drawn from (see [`MIN_NODE_BUDGET`]).
    pub fn with_node_budget(mut self, min: usize, max: usize) -> Self {
        let min = min.max(1);
        self.budget_range = (min, max.max(min));
        self
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

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
        out.tree.clear();
        self.counts.fill(0);
        self.saturated.clear();
        self.slot = 0;
        self.scratch.clear();
        let (low, high) = self.budget_range;
        let span = (high as f64 / low as f64).ln();
        self.budget = (low as f64 * (rng.next_float() * span).exp()) as usize;
        let mut cursor = ChoiceCursor::new(recorded, mode, rng, &mut out.choices);
        self.rule(self.grammar.start, &mut cursor, &mut out.tree)
    }

    fn reject(&self, bound: Bound, rejected: Rejected, context: &str) -> OutOfBounds {
        OutOfBounds {
            bound,
            position: rejected.position,
            value: rejected.value,
            context: context.to_string(),
        }
    }

    fn rule<R: Rand>(
        &mut self,
        id: RuleId,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), OutOfBounds> {
        let grammar = self.grammar;
        let r = id.index();
        let rule = &grammar.rules[r];
        let node = tree.open(
            NodeKind::Rule {
                rule: id,
                alternative: 0,
            },
            cursor.position(),
        );
        let named = r < grammar.named_rules;
        let outer_slot = self.slot;
        let mut newly_saturated = false;
        let mut count = 0;
        if named {
            self.counts[r] += 1;
            count = self.counts[r];
            if count >= self.bounds.depth && !self.saturated.put(r) {
                newly_saturated = true;
                self.slot = self.feasibility.slot(grammar, &self.saturated);
            }
        }

        let alternative = if rule.alternatives.len() == 1 {
            0
        } else {
            let heights = self.feasibility.heights(self.slot);
            let base = self.scratch.len();
            for (a, &h) in heights.alternative[r].iter().enumerate() {
                if h != UNREACHABLE_HEIGHT {
                    self.scratch.push(a as u32);
                }
            }
            let feasible = &self.scratch[base..];
            let closing = tree.len() > self.budget;
            let depth = self.bounds.depth;
            let decided = cursor.decide(
                rule.alternatives.len() as u32,
                Allowed::Among(feasible),
                |rng| {
                    // Growth control: at the depth bound (or over budget) take an alternative
                    // of least height; below it, lean towards them more the deeper we are.
                    let close = closing
                        || (named
                            && (count >= depth
                                || rng.coinflip(
                                    f64::from(count.saturating_sub(1)) / f64::from(depth),
                                )));
                    if !close {
                        return feasible[below(rng, feasible.len() as u32) as usize];
                    }
                    let least = feasible
                        .iter()
                        .map(|&a| heights.alternative[r][a as usize])
                        .min()
                        .unwrap_or(0);
                    let lowest: Vec<u32> = feasible
                        .iter()
                        .copied()
                        .filter(|&a| heights.alternative[r][a as usize] == least)
                        .collect();
                    lowest[below(rng, lowest.len() as u32) as usize]
                },
            );
            self.scratch.truncate(base);
            decided.map_err(|e| self.reject(Bound::Depth, e, &rule.name))?
        };
        tree.set_kind(
            node,
            NodeKind::Rule {
                rule: id,
                alternative,
            },
        );

        for symbol in &rule.alternatives[alternative as usize].symbols {
            self.symbol(symbol, cursor, tree)?;
        }

        if named {
            if newly_saturated {
                self.saturated.remove(r);
            }
            self.slot = outer_slot;
            self.counts[r] -= 1;
        }
        tree.close(node, cursor.position());
        Ok(())
    }

    fn symbol<R: Rand>(
        &mut self,
        symbol: &Symbol,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), OutOfBounds> {
        match *symbol {
            Symbol::Terminal(t) => self.terminal(t, cursor, tree),
            Symbol::Rule(body) => self.rule(body, cursor, tree),
            Symbol::Optional(body) => {
                let node = tree.open(NodeKind::Optional { body }, cursor.position());
                let feasible = self
                    .feasibility
                    .heights(self.slot)
                    .is_productive(body.index());
                let closing = tree.len() > self.budget;
                let present = cursor
                    .decide(2, Allowed::Below(if feasible { 2 } else { 1 }), |rng| {
                        u32::from(feasible && !closing && rng.coinflip(0.5))
                    })
                    .map_err(|e| self.reject(Bound::Depth, e, &self.grammar.rule(body).name))?;
                if present == 1 {
                    self.rule(body, cursor, tree)?;
                }
                tree.close(node, cursor.position());
                Ok(())
            }
            Symbol::Repeat { body, min, max } => {
                let node = tree.open(NodeKind::Repeat { body }, cursor.position());
                let feasible = self
                    .feasibility
                    .heights(self.slot)
                    .is_productive(body.index());
                let limit = if feasible {
                    self.bounds.item_limit(min, max)
                } else {
                    min
                };
                let range = max.map_or(UNBOUNDED, |max| max - min + 1);
                let extra = if range == 1 {
                    0
                } else {
                    let closing = tree.len() > self.budget;
                    let choices = limit - min + 1;
                    let bound = if feasible { Bound::Items } else { Bound::Depth };
                    cursor
                        .decide(range, Allowed::Below(choices), |rng| {
                            if closing { 0 } else { below(rng, choices) }
                        })
                        .map_err(|e| self.reject(bound, e, &self.grammar.rule(body).name))?
                };
                for _ in 0..min + extra {
                    self.rule(body, cursor, tree)?;
                }
                tree.close(node, cursor.position());
                Ok(())
            }
        }
    }

    fn terminal<R: Rand>(
        &mut self,
        terminal: TerminalId,
        cursor: &mut ChoiceCursor<'_, R>,
        tree: &mut DerivationTree,
    ) -> Result<(), OutOfBounds> {
        let start = cursor.position();
        let value = match self.grammar.terminal(terminal) {
            Terminal::Literal(_) | Terminal::Layout(_) => 0,
            Terminal::Class(class) => {
                let size = class.size();
                if size == 1 {
                    0
                } else {
                    cursor
                        .decide(size, Allowed::Below(size), |rng| below(rng, size))
                        .map_err(|e| self.reject(Bound::Items, e, "character class"))?
                }
            }
            Terminal::Pool(p) => {
                let pool = &self.grammar.pools[p.index()];
                let size = pool.values.len() as u32;
                if size <= 1 {
                    0
                } else {
                    let allowed = self.bounds.idents.min(size);
                    cursor
                        .decide(size, Allowed::Below(allowed), |rng| below(rng, allowed))
                        .map_err(|e| self.reject(Bound::Idents, e, &pool.name))?
                }
            }
        };
        let node = tree.open(NodeKind::Terminal { terminal, value }, start);
        tree.close(node, cursor.position());
        Ok(())
    }
}
