//! Minimal derivation heights, optionally with some named rules forbidden.
//!
//! A rule is productive exactly when its height is finite, so this one fixpoint answers both
//! "can this rule derive a word?" and "which alternative closes the tree fastest?". The sampler
//! calls it with the rules that have reached the depth bound forbidden (see
//! `sampler::feasibility`).

use std::collections::VecDeque;

use fixedbitset::FixedBitSet;

use super::dependents::Dependents;

use crate::grammar::{Grammar, Symbol};

/// Height of a rule that derives no word (or is forbidden); every finite height is smaller.
pub const UNREACHABLE_HEIGHT: u32 = u32::MAX;

/// Minimal derivation height of every rule and alternative: how many levels a tree needs, at
/// least, to close below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heights {
    /// Per rule; [`UNREACHABLE_HEIGHT`] when the rule derives no word.
    pub rule: Vec<u32>,
    /// Per rule, per alternative; finite exactly when the alternative can be completed.
    pub alternative: Vec<Vec<u32>>,
}

impl Heights {
    /// Heights with the rules in `forbidden` (indexed by rule id) treated as underivable.
    ///
    /// A breadth-first worklist over [`Dependents`]: rules become final in order of height,
    /// and an alternative's height is one more than that of the last rule it waited for, the
    /// tallest. Each reference is visited once, so the work is linear in the grammar's size.
    pub fn compute(grammar: &Grammar, forbidden: &FixedBitSet) -> Self {
        let dependents = Dependents::new(grammar);
        let mut waiting = dependents.waiting.clone();
        let mut rule = vec![UNREACHABLE_HEIGHT; grammar.rules.len()];
        let mut alternative: Vec<Vec<u32>> = grammar
            .rules
            .iter()
            .map(|r| vec![UNREACHABLE_HEIGHT; r.alternatives.len()])
            .collect();
        // Final rules in order of height: every alternative completed while a rule of height
        // h is taken out has height h + 1, so the queue stays sorted.
        let mut ready = VecDeque::new();
        // A forbidden rule gets alternative heights but no rule height: it may be the rule
        // being expanded right now, which must choose among its alternatives, but it may not
        // occur again below.
        let mut complete =
            |flat: u32, height: u32, rule: &mut [u32], ready: &mut VecDeque<usize>| {
                if height == UNREACHABLE_HEIGHT {
                    return;
                }
                let (r, a) = dependents.locate(flat);
                alternative[r][a] = height;
                if !forbidden.contains(r) && rule[r] == UNREACHABLE_HEIGHT {
                    rule[r] = height;
                    ready.push_back(r);
                }
            };
        for (flat, &count) in waiting.iter().enumerate() {
            if count == 0 {
                complete(flat as u32, 1, &mut rule, &mut ready);
            }
        }
        while let Some(r) = ready.pop_front() {
            let height = rule[r].saturating_add(1);
            for &(flat, _) in dependents.uses(r) {
                waiting[flat as usize] -= 1;
                if waiting[flat as usize] == 0 {
                    complete(flat, height, &mut rule, &mut ready);
                }
            }
        }
        Self { rule, alternative }
    }

    /// Heights with nothing forbidden: the grammar's own productivity, as load-time checks need it.
    pub fn unrestricted(grammar: &Grammar) -> Self {
        Self::compute(grammar, &FixedBitSet::with_capacity(grammar.rules.len()))
    }

    /// Whether the rule (by index) derives any word within the forbidden set these heights were
    /// computed under.
    pub fn is_productive(&self, rule: usize) -> bool {
        self.rule[rule] != UNREACHABLE_HEIGHT
    }

    /// Height `symbol` adds at minimum: 0 for anything that may be left empty (`?`, `*`, a
    /// terminal), else its rule's height.
    pub fn symbol(&self, symbol: &Symbol) -> u32 {
        symbol_height(symbol, &self.rule)
    }
}

/// Height a symbol adds at minimum. An optional or a `*` can always be left empty.
fn symbol_height(symbol: &Symbol, rule: &[u32]) -> u32 {
    match *symbol {
        Symbol::Terminal(_) | Symbol::Optional(_) => 0,
        Symbol::Rule(r) => rule[r.index()],
        Symbol::Repeat { min: 0, .. } => 0,
        Symbol::Repeat { body, .. } => rule[body.index()],
    }
}
