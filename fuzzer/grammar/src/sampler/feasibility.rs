//! Which alternatives can still be completed, given the rules that have reached the depth
//! bound on the current path.
//!
//! If a rule B can be completed at all without the saturated rules S, it can be completed with
//! every rule occurring at most once more on each path (cut out any repeated occurrence and the
//! tree only gets shallower). So "B is completable within the depth bound" is exactly "B is
//! productive in the grammar without S": a plain productivity fixpoint, cached per S. The
//! sampler therefore never starts a subtree it cannot finish within the bounds, and needs no
//! backtracking.
//!
//! The sampler asks at every node, so each cached S (a *slot*) also keeps what the sampler
//! needs ready-made: per rule, the completable alternatives and the lowest of them, and per
//! named rule, the slot of S plus that rule. After warm-up a decision allocates and hashes
//! nothing. The slots are kept within a budget ([`SaturatedCache`]).

use fixedbitset::FixedBitSet;

use super::saturated_cache::{HeapSize, SaturatedCache};
use crate::analysis::{Heights, UNREACHABLE_HEIGHT};
use crate::grammar::{Grammar, Symbol};

/// A slot that has not been computed yet.
const UNKNOWN: u32 = u32::MAX;

/// Bytes of slots a sampler keeps. A slot is 3 KB (starlark), 5.5 KB (WGSL) or 7 KB
/// (JavaScript), so this is one to three thousand slots; `cargo bench -p bonsai --bench
/// sampler_cache` found no slot computed again under it that an unbounded cache kept (at 4 MB
/// WGSL recomputes 13-54% more). Kept no larger, since a fuzzing process has two samplers (the
/// harness's and the mutators') and a budget is memory a long run grows into.
pub const FEASIBILITY_BUDGET: usize = 8 << 20;

/// Per set of saturated rules, the heights and completable alternatives of every rule; computed
/// on first use and cached, since the sampler meets the same few sets at almost every node.
pub struct Feasibility {
    slots: SaturatedCache<Slot>,
    /// Per rule, where its alternatives start in a slot's `sizes`: the same for every slot.
    first_alternative: Vec<u32>,
}

/// Kept small, since the cache holds thousands: no per-rule vectors (a `Vec` header is 24
/// bytes, more than most rules' data), and of the heights only whether each rule is productive.
struct Slot {
    /// Per rule: whether it derives a word without the saturated rules.
    productive: FixedBitSet,
    /// Per rule: its completable alternatives, then among them those of least height; both as
    /// ranges into `alternatives`.
    feasible: Vec<(u32, u32)>,
    lowest: Vec<(u32, u32)>,
    alternatives: Vec<u32>,
    /// Per rule, per alternative (from [`Feasibility::first_alternative`]): the fewest tree
    /// nodes a subtree through it has, a lexical rule counting as one token (`u32::MAX` when it
    /// cannot be completed).
    sizes: Vec<u32>,
    /// Per named rule: the slot with that rule saturated as well, or [`UNKNOWN`].
    saturating: Vec<u32>,
}

impl Slot {
    fn new(grammar: &Grammar, saturated: &FixedBitSet) -> Self {
        let heights = Heights::compute(grammar, saturated);
        let mut alternatives = Vec::new();
        let mut feasible = Vec::with_capacity(grammar.rules.len());
        let mut lowest = Vec::with_capacity(grammar.rules.len());
        for (r, per_alternative) in heights.alternative.iter().enumerate() {
            let start = alternatives.len() as u32;
            alternatives.extend(
                (0..per_alternative.len() as u32)
                    .filter(|&a| per_alternative[a as usize] != UNREACHABLE_HEIGHT),
            );
            let end = alternatives.len() as u32;
            feasible.push((start, end));
            let closing: Vec<u32> = per_alternative
                .iter()
                .enumerate()
                .map(|(a, &h)| {
                    if h == UNREACHABLE_HEIGHT || grammar.rules[r].lexical {
                        h
                    } else {
                        closing_height(grammar, &heights, &grammar.rules[r].alternatives[a].symbols)
                    }
                })
                .collect();
            let least = closing
                .iter()
                .copied()
                .filter(|&h| h != UNREACHABLE_HEIGHT)
                .min();
            alternatives.extend(
                (0..per_alternative.len() as u32).filter(|&a| Some(closing[a as usize]) == least),
            );
            lowest.push((end, alternatives.len() as u32));
        }
        let sizes = least_sizes(grammar, &heights)
            .into_iter()
            .flatten()
            .collect();
        let mut productive = FixedBitSet::with_capacity(grammar.rules.len());
        for r in 0..grammar.rules.len() {
            productive.set(r, heights.is_productive(r));
        }
        Self {
            productive,
            feasible,
            lowest,
            alternatives,
            sizes,
            saturating: vec![UNKNOWN; grammar.named_rules],
        }
    }

    #[inline]
    fn range(&self, (start, end): (u32, u32)) -> &[u32] {
        &self.alternatives[start as usize..end as usize]
    }
}

impl HeapSize for Slot {
    fn heap_bytes(&self) -> usize {
        size_of_val(self.productive.as_slice())
            + (self.feasible.len() + self.lowest.len()) * 8
            + self.alternatives.len() * 4
            + self.sizes.len() * 4
            + self.saturating.len() * 4
    }
}

/// How high an alternative of a non-lexical rule is when closing the tree, a lexical rule in
/// it counting as the token it renders to. By true height a literal spelled as a pattern
/// (`FLOAT = /[0-9]\.[05]/`) is one level above an identifier pool or a keyword, so closing
/// would always take the identifier and never the literal: constant expressions, which every
/// compiler folds on its own paths, would only appear where a fresh draw happened to grow them.
fn closing_height(grammar: &Grammar, heights: &Heights, symbols: &[Symbol]) -> u32 {
    symbols
        .iter()
        .map(|symbol| match *symbol {
            Symbol::Rule(body) | Symbol::Repeat { body, .. }
                if grammar.rules[body.index()].lexical =>
            {
                0
            }
            _ => heights.symbol(symbol),
        })
        .max()
        .unwrap_or(0)
}

/// The fewest nodes of a subtree through each alternative, by a fixpoint from below (sizes
/// only shrink). Counting a lexical rule as one node, as a token, keeps a literal spelled as a
/// pattern as cheap as an identifier, for the same reason as [`closing_height`].
fn least_sizes(grammar: &Grammar, heights: &Heights) -> Vec<Vec<u32>> {
    let mut rule_size = vec![u32::MAX; grammar.rules.len()];
    let mut sizes: Vec<Vec<u32>> = grammar
        .rules
        .iter()
        .map(|rule| vec![u32::MAX; rule.alternatives.len()])
        .collect();
    let symbol_size = |symbol: &Symbol, rule_size: &[u32]| -> u64 {
        let of = |body: crate::grammar::RuleId| {
            if grammar.rules[body.index()].lexical && heights.is_productive(body.index()) {
                1
            } else {
                u64::from(rule_size[body.index()])
            }
        };
        match *symbol {
            Symbol::Terminal(_) | Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => 1,
            Symbol::Rule(body) => of(body),
            Symbol::Repeat { body, min, .. } => 1 + u64::from(min) * of(body),
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for (r, rule) in grammar.rules.iter().enumerate() {
            for (a, alternative) in rule.alternatives.iter().enumerate() {
                if heights.alternative[r][a] == UNREACHABLE_HEIGHT {
                    continue;
                }
                let size = alternative
                    .symbols
                    .iter()
                    .map(|symbol| symbol_size(symbol, &rule_size))
                    .fold(1u64, u64::saturating_add)
                    .min(u64::from(u32::MAX - 1)) as u32;
                if size < sizes[r][a] {
                    sizes[r][a] = size;
                    changed = true;
                }
                if heights.is_productive(r) && size < rule_size[r] {
                    rule_size[r] = size;
                    changed = true;
                }
            }
        }
    }
    sizes
}

impl Feasibility {
    /// Only the slot of the empty saturated set (slot 0) is computed now; the others on demand.
    pub fn new(grammar: &Grammar) -> Self {
        let empty = FixedBitSet::with_capacity(grammar.rules.len());
        let first = Slot::new(grammar, &empty);
        let first_alternative = grammar
            .rules
            .iter()
            .scan(0u32, |next, rule| {
                let first = *next;
                *next += rule.alternatives.len() as u32;
                Some(first)
            })
            .collect();
        Self {
            slots: SaturatedCache::new(empty, first, FEASIBILITY_BUDGET),
            first_alternative,
        }
    }

    /// Keeps about `budget` bytes of slots instead of [`FEASIBILITY_BUDGET`].
    pub fn set_budget(&mut self, budget: usize) {
        self.slots.set_budget(budget);
    }

    /// To be called where a sample starts, when no slot but 0 is held: keeps the cache within
    /// its budget, mending the links between the slots it keeps.
    pub fn start_sample(&mut self) {
        let Some(renumber) = self.slots.start_walk() else {
            return;
        };
        for slot in 0..self.slots.len() {
            for next in self.slots.get_mut(slot).saturating.iter_mut() {
                if *next != UNKNOWN {
                    *next = renumber[*next as usize].unwrap_or(UNKNOWN);
                }
            }
        }
    }

    /// The slot of `saturated`, which is the set of `slot` plus the named rule `rule`.
    #[inline]
    pub fn saturate(
        &mut self,
        grammar: &Grammar,
        slot: usize,
        rule: usize,
        saturated: &FixedBitSet,
    ) -> usize {
        let cached = self.slots.get(slot).saturating[rule];
        if cached != UNKNOWN {
            self.slots.touch(cached as usize);
            return cached as usize;
        }
        let next = self.slot(grammar, saturated);
        self.slots.get_mut(slot).saturating[rule] = next as u32;
        next
    }

    /// The slot of the heights computed with `saturated` forbidden.
    pub fn slot(&mut self, grammar: &Grammar, saturated: &FixedBitSet) -> usize {
        self.slots.slot(saturated, || Slot::new(grammar, saturated))
    }

    /// What the slot cache holds and has computed.
    pub fn cached(&self) -> super::CacheStats {
        self.slots.stats()
    }

    /// Whether `rule` derives a word without the slot's saturated rules; slot 0 has none.
    #[inline]
    pub fn is_productive(&self, slot: usize, rule: usize) -> bool {
        self.slots.get(slot).productive.contains(rule)
    }

    /// The alternatives of `rule` that can be completed; never empty for a productive rule.
    #[inline]
    pub fn feasible(&self, slot: usize, rule: usize) -> &[u32] {
        let slot = self.slots.get(slot);
        slot.range(slot.feasible[rule])
    }

    /// The fewest nodes a subtree through `alternative` of `rule` can have.
    #[inline]
    pub fn size(&self, slot: usize, rule: usize, alternative: u32) -> u32 {
        self.slots.get(slot).sizes[(self.first_alternative[rule] + alternative) as usize]
    }

    /// The feasible alternatives of `rule` of least height: the fastest way to close the tree.
    #[inline]
    pub fn lowest(&self, slot: usize, rule: usize) -> &[u32] {
        let slot = self.slots.get(slot);
        slot.range(slot.lowest[rule])
    }
}
