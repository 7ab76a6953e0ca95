//! The shortest derivation of a rule or symbol, and the shortest context around a hole, as
//! the choices that replay to them.
//!
//! Reduction replaces a subtree by the shortest word of the same symbol (Perses), and the
//! fuzzing loop's shrink mutator does the same at random places. Both splice the result into a
//! choice sequence at the subtree's span, so what they need is not a word but the choices that
//! derive it.
//!
//! The plain shortest derivation ([`MinYield::best_alternative`] everywhere) can break the depth
//! bound: at a place where a rule already occurs d-1 times above, the shortest alternative may
//! need that rule again. A replay would then either fail (strict) or repair the choice into some
//! other alternative, which is no longer the shortest and can even be longer than the subtree it
//! replaced. So the walk below mirrors the sampler's own depth bookkeeping: at every rule it
//! takes the alternative of least yield *in the grammar without the rules that have reached the
//! bound on the current path* ([`MinYield::compute_weighted`], cached per set of saturated rules,
//! as the sampler caches heights). Such an alternative is always one the sampler allows, since a
//! finite yield without those rules is exactly the sampler's feasibility test, so the choices
//! replay strictly under the bounds, at that place, to the tree they describe.
//!
//! "Shortest" counts, besides characters, the grammar's separator once per token outside
//! lexical rules: the layout pass may put one there, and a reducer measures rendered bytes.

use ahash::AHashMap;

use fixedbitset::FixedBitSet;

use super::saturated_cache::{HeapSize, SaturatedCache, nested_vec_bytes};
use super::{Bounds, DepthTracker};
use crate::analysis::{MinContext, MinYield, NO_YIELD};
use crate::choice::UNBOUNDED;
use crate::grammar::{Grammar, RuleId, Separator, Symbol, Terminal};

/// One step of a forced descent (see [`MinimalDerivations::descent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The alternative to expand the rule with.
    pub alternative: u32,
    /// The position, in that alternative, of the symbol the descent goes on below; `None` when
    /// it ends at this rule.
    pub below: Option<u32>,
}

/// Computes shortest derivations and contexts under bounds.
pub struct MinimalDerivations<'g> {
    grammar: &'g Grammar,
    /// Pool values a derivation may use: indices below m.
    idents: u32,
    /// Per set of saturated rules, the least yields and their ranks.
    slots: SaturatedCache<YieldSlot>,
    /// Separator length counted per token in the yields.
    token_weight: u64,
    /// Shortest contexts, per hole rule, computed on first use.
    contexts: AHashMap<RuleId, MinContext>,
    /// Walk state: the depth bound along the current path, and the slot of `yields` that
    /// belongs to its saturated rules.
    depth: DepthTracker,
    slot: usize,
}

/// Bytes of slots a [`MinimalDerivations`] keeps: see [`SaturatedCache`].
pub const MINIMAL_BUDGET: usize = 8 << 20;

/// The least yields of the grammar without one set of saturated rules.
struct YieldSlot {
    yields: MinYield,
    /// Per rule: the least height of a shortest derivation. Following the first shortest
    /// alternative could go round a cycle of alternatives that add no text
    /// (`a = b | "x" ; b = c? a`); choosing among the shortest by this rank cannot.
    ranks: Vec<u32>,
}

impl YieldSlot {
    fn new(grammar: &Grammar, saturated: &FixedBitSet, token_weight: u64) -> Self {
        let yields = MinYield::compute_weighted(grammar, saturated, token_weight);
        let ranks = shortest_ranks(grammar, &yields);
        Self { yields, ranks }
    }
}

impl HeapSize for YieldSlot {
    fn heap_bytes(&self) -> usize {
        let y = &self.yields;
        y.rule.len() * 8
            + nested_vec_bytes(&y.alternative)
            + y.best_alternative.len() * size_of::<Option<usize>>()
            + y.terminal.len() * 8
            + self.ranks.len() * 4
    }
}

impl<'g> MinimalDerivations<'g> {
    /// Shortest derivations within `bounds`. The depth bound is respected as described above;
    /// the least item count and an absent optional are allowed under every bound, and pool
    /// values are taken among the first m.
    pub fn new(grammar: &'g Grammar, bounds: Bounds) -> Self {
        Self::with_limits(grammar, bounds.depth, bounds.idents)
    }

    /// Shortest derivations with no bounds at all: at every rule a shortest alternative, as
    /// [`MinYield`] measures them.
    pub fn unbounded(grammar: &'g Grammar) -> Self {
        Self::with_limits(grammar, u32::MAX, u32::MAX)
    }

    fn with_limits(grammar: &'g Grammar, depth: u32, idents: u32) -> Self {
        let empty = FixedBitSet::with_capacity(grammar.rules.len());
        // Count the separator the layout pass may put before each token, so that "shortest"
        // means short once rendered: `pass` rather than `a = a` under `%layout auto`.
        let token_weight = match &grammar.layout.separator {
            Separator::Auto => 1,
            Separator::Text(text) => text.chars().count() as u64,
        };
        let first = YieldSlot::new(grammar, &empty, token_weight);
        Self {
            grammar,
            idents,
            slots: SaturatedCache::new(empty, first, MINIMAL_BUDGET),
            token_weight,
            contexts: AHashMap::new(),
            depth: DepthTracker::new(grammar, depth),
            slot: 0,
        }
    }

    /// Keeps about `bytes` of per-saturated-set yields instead of [`MINIMAL_BUDGET`]; the
    /// derivations do not depend on it.
    pub fn with_cache_budget(mut self, bytes: usize) -> Self {
        self.slots.set_budget(bytes);
        self
    }

    /// What the cache of per-saturated-set yields holds and has computed.
    pub fn cached(&self) -> super::CacheStats {
        self.slots.stats()
    }

    /// The choices of the shortest derivation of `rule` at a place below the named rules
    /// `above` (the path from the root down to the parent of the place, root first, as
    /// `DerivationTree::named_ancestors` gives it; empty means the root). Appends them to `out` and returns the length
    /// in characters of the word they derive (separators aside), or `None` if the rule derives
    /// no word there; `out` is left as it was in that case.
    pub fn rule(&mut self, rule: RuleId, above: &[RuleId], out: &mut Vec<u32>) -> Option<u64> {
        self.symbol(&Symbol::Rule(rule), above, out)
    }

    /// As [`Self::rule`], for any symbol of an alternative: an optional is left out, a
    /// repetition gets its least item count, a class its first character and a pool its
    /// shortest allowed value.
    pub fn symbol(&mut self, symbol: &Symbol, above: &[RuleId], out: &mut Vec<u32>) -> Option<u64> {
        self.enter(above);
        let mark = out.len();
        let result = self.walk_symbol(symbol, out);
        if result.is_none() {
            out.truncate(mark);
        }
        result
    }

    /// The shortest derivation of `from`, at a place below `above`, that holds a node of rule
    /// `hole` somewhere inside: its choices before the hole go to `before`, those after it to
    /// `after`, and the hole's own choices belong in between. Empty when `from` is `hole`.
    /// Returns the context's length in characters (without the hole), as [`MinContext`]
    /// counts it.
    /// `None` (with both left as they were) when no `hole` can occur below `from`, or when the
    /// shortest way down leads through a rule that has reached the depth bound.
    ///
    /// The path to the hole is the shortest context in the unbounded grammar
    /// ([`MinContext`]); everything beside the path is a bounded shortest derivation. The
    /// hole's subtree is the caller's: whether it fits the depth bound at its new place is for
    /// a strict replay to tell.
    pub fn context(
        &mut self,
        from: RuleId,
        hole: RuleId,
        above: &[RuleId],
        before: &mut Vec<u32>,
        after: &mut Vec<u32>,
    ) -> Option<u64> {
        let grammar = self.grammar;
        let context = self
            .contexts
            .remove(&hole)
            .unwrap_or_else(|| MinContext::toward(grammar, &self.slots.get(0).yields, hole));
        self.enter(above);
        let marks = (before.len(), after.len());
        let mut inner = Vec::new();
        let result = self.walk_context(&context, from, before, &mut inner);
        let cost = context.cost[from.index()];
        self.contexts.insert(hole, context);
        match result {
            Some(()) => {
                // Suffixes were written innermost first, which is their order in the sequence.
                after.extend(inner);
                Some(cost)
            }
            None => {
                before.truncate(marks.0);
                after.truncate(marks.1);
                None
            }
        }
    }

    /// The choices of `rule` expanded along `steps`, every other symbol by its shortest
    /// derivation: the first step's alternative at `rule`, then, below the symbol at its
    /// position, the next step's alternative, and so on; below the last step's position the
    /// symbol only has to be there (a `?` present, a `*` or `+` with its least positive item
    /// count, the forced item first). One production is `[Step { alternative, below: None }]`,
    /// one production in one context two steps, a k-path k - 1. This is the step of the generic
    /// cover algorithm that asks for one expansion. Appends to `out` and returns the word's
    /// length, or `None` (with `out` as it was) when no word derives that way.
    pub fn descent(
        &mut self,
        rule: RuleId,
        steps: &[Step],
        above: &[RuleId],
        out: &mut Vec<u32>,
    ) -> Option<u64> {
        self.enter(above);
        let mark = out.len();
        let result = self.within_rule(rule, |this| this.expand_along(rule, steps, out));
        if result.is_none() {
            out.truncate(mark);
        }
        result
    }

    /// The choices of `rule` expanded with `alternative`, the symbol at each position of
    /// `inner` (position, alternative) expanded with that alternative (as the last step of a
    /// [`Self::descent`]: a `?` present, a `*` with its least positive count, the forced item
    /// first), everything else by its shortest derivation. This is the expansion the generic
    /// cover algorithm asks for when a production is multiplied out (CDRC²), where one descent
    /// would fix one position only. Appends to `out` and returns the word's length, or `None`
    /// (with `out` as it was) when no word derives that way.
    pub fn combination(
        &mut self,
        rule: RuleId,
        alternative: u32,
        inner: &[(u32, u32)],
        above: &[RuleId],
        out: &mut Vec<u32>,
    ) -> Option<u64> {
        self.enter(above);
        let mark = out.len();
        let result = self.within_rule(rule, |this| {
            let grammar = this.grammar;
            let a = alternative as usize;
            if *this.slots.get(this.slot).yields.alternative[rule.index()].get(a)? == NO_YIELD {
                return None;
            }
            let alternatives = &grammar.rule(rule).alternatives;
            if alternatives.len() > 1 {
                out.push(alternative);
            }
            let mut total = 0u64;
            for (position, symbol) in alternatives[a].symbols.iter().enumerate() {
                let forced = inner.iter().find(|&&(p, _)| p == position as u32);
                let length = match forced {
                    Some(&(_, b)) => {
                        let step = Step {
                            alternative: b,
                            below: None,
                        };
                        this.walk_along(symbol, &[step], out)?
                    }
                    None => this.walk_symbol(symbol, out)?,
                };
                total = total.saturating_add(length);
            }
            Some(total)
        });
        if result.is_none() {
            out.truncate(mark);
        }
        result
    }

    fn expand_along(&mut self, id: RuleId, steps: &[Step], out: &mut Vec<u32>) -> Option<u64> {
        let (step, rest) = steps.split_first()?;
        let rule = self.grammar.rule(id);
        let a = step.alternative as usize;
        if *self.slots.get(self.slot).yields.alternative[id.index()].get(a)? == NO_YIELD {
            return None;
        }
        if rule.alternatives.len() > 1 {
            out.push(step.alternative);
        }
        let mut total = 0u64;
        for (position, symbol) in rule.alternatives[a].symbols.iter().enumerate() {
            let length = if step.below == Some(position as u32) {
                self.walk_along(symbol, rest, out)?
            } else {
                self.walk_symbol(symbol, out)?
            };
            total = total.saturating_add(length);
        }
        Some(total)
    }

    /// A symbol that must appear, expanded along `rest` below it.
    fn walk_along(&mut self, symbol: &Symbol, rest: &[Step], out: &mut Vec<u32>) -> Option<u64> {
        let item = |this: &mut Self, body: RuleId, out: &mut Vec<u32>| {
            if rest.is_empty() {
                this.walk_rule(body, out)
            } else {
                this.within_rule(body, |this| this.expand_along(body, rest, out))
            }
        };
        match *symbol {
            Symbol::Terminal(_) if rest.is_empty() => self.walk_symbol(symbol, out),
            Symbol::Terminal(_) => None,
            Symbol::Rule(body) => item(self, body, out),
            Symbol::Optional(body) => {
                out.push(1);
                item(self, body, out)
            }
            Symbol::Repeat { body, min, max } => {
                let items = min.max(1);
                if max.is_some_and(|max| max < items) {
                    return None;
                }
                if max.map_or(UNBOUNDED, |max| max - min + 1) != 1 {
                    out.push(items - min);
                }
                let mut total = item(self, body, out)?;
                for _ in 1..items {
                    total = total.saturating_add(self.walk_rule(body, out)?);
                }
                Some(total)
            }
        }
    }

    fn walk_context(
        &mut self,
        context: &MinContext,
        at: RuleId,
        before: &mut Vec<u32>,
        after: &mut Vec<u32>,
    ) -> Option<()> {
        if at == context.hole() {
            return Some(());
        }
        let step = context.step[at.index()]?;
        self.within_rule(at, |this| {
            let grammar = this.grammar;
            let rule = grammar.rule(at);
            let a = step.alternative as usize;
            if this.slots.get(this.slot).yields.alternative[at.index()][a] == NO_YIELD {
                return None;
            }
            if rule.alternatives.len() > 1 {
                before.push(step.alternative);
            }
            let symbols = &rule.alternatives[a].symbols;
            let position = step.position as usize;
            for symbol in &symbols[..position] {
                this.walk_symbol(symbol, before)?;
            }
            match symbols[position] {
                Symbol::Rule(inner) => this.walk_context(context, inner, before, after)?,
                Symbol::Optional(inner) => {
                    before.push(1);
                    this.walk_context(context, inner, before, after)?;
                }
                Symbol::Repeat { body, min, max } => {
                    let items = min.max(1);
                    if max.map_or(UNBOUNDED, |max| max - min + 1) != 1 {
                        before.push(items - min);
                    }
                    this.walk_context(context, body, before, after)?;
                    for _ in 1..items {
                        this.walk_rule(body, after)?;
                    }
                }
                Symbol::Terminal(_) => return None,
            }
            for symbol in &symbols[position + 1..] {
                this.walk_symbol(symbol, after)?;
            }
            Some(())
        })
    }

    fn enter(&mut self, above: &[RuleId]) {
        self.slot = 0;
        // Slot numbers are held only within a walk, so nothing needs mending.
        let _ = self.slots.start_walk();
        self.depth.reset();
        for rule in above {
            self.depth.enter(rule.index());
        }
        self.slot = self.slot_for_saturated();
    }

    fn slot_for_saturated(&mut self) -> usize {
        let (grammar, token_weight) = (self.grammar, self.token_weight);
        let saturated = self.depth.saturated();
        self.slots.slot(saturated, || {
            YieldSlot::new(grammar, saturated, token_weight)
        })
    }

    /// Runs `body` with `id` counted on the path, as the sampler does on entering a rule.
    fn within_rule<T>(&mut self, id: RuleId, body: impl FnOnce(&mut Self) -> T) -> T {
        let r = id.index();
        let outer_slot = self.slot;
        let named = r < self.grammar.named_rules;
        if named && self.depth.enter(r).saturates {
            self.slot = self.slot_for_saturated();
        }
        let result = body(self);
        if named {
            self.depth.exit();
        }
        self.slot = outer_slot;
        result
    }

    fn walk_rule(&mut self, id: RuleId, out: &mut Vec<u32>) -> Option<u64> {
        self.within_rule(id, |this| this.expand(id, out))
    }

    fn expand(&mut self, id: RuleId, out: &mut Vec<u32>) -> Option<u64> {
        let rule = self.grammar.rule(id);
        let yields = &self.slots.get(self.slot).yields.alternative[id.index()];
        let ranks = &self.slots.get(self.slot).ranks;
        // A finite yield is exactly the sampler's test for an allowed alternative. Among the
        // shortest, the first of least rank: the first shortest, unless that one only leads
        // round a cycle.
        let least = *yields.iter().min()?;
        if least == NO_YIELD {
            return None;
        }
        let best = (0..yields.len())
            .filter(|&a| yields[a] == least)
            .min_by_key(|&a| alternative_rank(&rule.alternatives[a].symbols, ranks))?;
        if rule.alternatives.len() > 1 {
            out.push(best as u32);
        }
        let mut total = 0u64;
        for symbol in &rule.alternatives[best].symbols {
            total = total.saturating_add(self.walk_symbol(symbol, out)?);
        }
        Some(total)
    }

    fn walk_symbol(&mut self, symbol: &Symbol, out: &mut Vec<u32>) -> Option<u64> {
        let grammar = self.grammar;
        match *symbol {
            Symbol::Terminal(t) => match grammar.terminal(t) {
                Terminal::Class(class) => {
                    if class.size() > 1 {
                        out.push(class.first_preferred());
                    }
                    Some(1)
                }
                Terminal::Pool(p) => {
                    let values = &grammar.pools[p.index()].values;
                    let allowed = values.len().min(self.idents as usize);
                    // Regex pools are in shortlex order, so this is value 0; listed pools are
                    // in the user's order.
                    let (index, shortest) = values[..allowed]
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, v)| v.chars().count())?;
                    if values.len() > 1 {
                        out.push(index as u32);
                    }
                    Some(shortest.chars().count() as u64)
                }
                Terminal::Literal(_) | Terminal::Layout(_) => {
                    Some(self.slots.get(0).yields.terminal[t.index()])
                }
            },
            Symbol::Rule(body) => self.walk_rule(body, out),
            Symbol::Optional(_) => {
                out.push(0);
                Some(0)
            }
            Symbol::Repeat { body, min, max } => {
                if max.map_or(UNBOUNDED, |max| max - min + 1) != 1 {
                    out.push(0);
                }
                let mut total = 0u64;
                for _ in 0..min {
                    total = total.saturating_add(self.walk_rule(body, out)?);
                }
                Some(total)
            }
        }
    }
}

/// Per rule, the least height of a shortest derivation (`u32::MAX` when it has none), so that
/// each shortest alternative of least rank only expands rules of smaller rank.
fn shortest_ranks(grammar: &Grammar, yields: &MinYield) -> Vec<u32> {
    let mut rank = vec![u32::MAX; grammar.rules.len()];
    loop {
        let mut changed = false;
        for (r, rule) in grammar.rules.iter().enumerate() {
            let least = yields.rule[r];
            if least == NO_YIELD {
                continue;
            }
            for (a, alternative) in rule.alternatives.iter().enumerate() {
                if yields.alternative[r][a] == least {
                    let candidate = alternative_rank(&alternative.symbols, &rank);
                    if candidate < rank[r] {
                        rank[r] = candidate;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return rank;
        }
    }
}

/// One more than the largest rank among the rules a shortest derivation of these symbols
/// expands (optionals and `*` groups stay empty).
fn alternative_rank(symbols: &[Symbol], rank: &[u32]) -> u32 {
    symbols
        .iter()
        .map(|symbol| match *symbol {
            Symbol::Rule(body) => rank[body.index()],
            Symbol::Repeat { body, min, .. } if min > 0 => rank[body.index()],
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        .saturating_add(1)
}

#[cfg(test)]
mod tests {
    use fast_rands::StdRand;

    use super::*;
    use crate::choice::Replay;
    use crate::sampler::{Sample, Sampler};
    use crate::text::render;

    fn replay(grammar: &Grammar, bounds: Bounds, choices: &[u32]) -> String {
        let mut sampler = Sampler::new(grammar, bounds).unwrap();
        let mut sample = Sample::default();
        sampler
            .sample(
                choices,
                Replay::Strict,
                &mut StdRand::with_seed(7),
                &mut sample,
            )
            .unwrap();
        assert_eq!(
            sample.choices.as_slice(),
            choices,
            "replay needed no fresh choices"
        );
        render(grammar, &sample.tree)
    }

    #[test]
    fn the_shortest_word_of_the_start_rule_replays_strictly() {
        let grammar = Grammar::from_text(
            "t",
            r#"%layout none; s = "long" "er" | a "!" ; a = [xy] a? | "z" b* ; b = "b" ;"#,
        )
        .unwrap();
        let mut minimal = MinimalDerivations::unbounded(&grammar);
        let mut choices = Vec::new();
        let len = minimal.rule(grammar.start, &[], &mut choices).unwrap();
        let bounds = Bounds::new(1, 1, 5).unwrap();
        let text = replay(&grammar, bounds, &choices);
        assert_eq!(text, "x!");
        assert_eq!(len, 2);
    }

    #[test]
    fn at_the_depth_bound_the_walk_avoids_saturated_rules() {
        // e's shortest word goes through k ("k"), but below a k with d = 1, k may not occur
        // again: the shortest e allowed there is "long".
        let grammar = Grammar::from_text(
            "t",
            r#"%layout none; s = k ; k = "(" e ")" | "k" ; e = k | "long" ;"#,
        )
        .unwrap();
        let id =
            |name: &str| RuleId(grammar.rules.iter().position(|r| r.name == name).unwrap() as u32);
        let (k, e) = (id("k"), id("e"));
        let bounds = Bounds::new(1, 1, 1).unwrap();
        let mut minimal = MinimalDerivations::new(&grammar, bounds);
        let mut choices = Vec::new();
        assert_eq!(minimal.rule(e, &[], &mut choices), Some(1));
        assert_eq!(choices, vec![0, 1]);

        // The place is below the root s and a k.
        let above = vec![id("s"), k];
        choices.clear();
        assert_eq!(minimal.rule(e, &above, &mut choices), Some(4));
        assert_eq!(choices, vec![1]);
        // A place that already holds a k (the parent's decision put it there) is expanded as
        // the sampler would: its own alternatives are open, only those needing k again are not.
        choices.clear();
        assert_eq!(minimal.rule(k, &above, &mut choices), Some(1));
        assert_eq!(choices, vec![1]);

        // Spliced under the root k, the choices replay strictly to "(long)".
        let mut whole = vec![0];
        minimal.rule(e, &above, &mut whole).unwrap();
        assert_eq!(replay(&grammar, bounds, &whole), "(long)");
        // Unbounded, the same place takes the shortest word, which d = 2 allows.
        let mut unbounded = MinimalDerivations::unbounded(&grammar);
        let mut whole = vec![0];
        unbounded.rule(e, &above, &mut whole).unwrap();
        assert_eq!(
            replay(&grammar, Bounds::new(1, 1, 2).unwrap(), &whole),
            "(k)"
        );
    }

    #[test]
    fn a_context_wraps_a_hole_in_the_least_text_the_bounds_allow() {
        let grammar = Grammar::from_text(
            "t",
            r#"%layout none; s = "do" b | e ";" ; b = "{" s "}" ; e = "x" | "(" e ")" ;"#,
        )
        .unwrap();
        let id =
            |name: &str| RuleId(grammar.rules.iter().position(|r| r.name == name).unwrap() as u32);
        let (s, b, e) = (id("s"), id("b"), id("e"));
        let above = vec![s];
        let splice = |bounds: Bounds, hole: &[u32]| {
            let mut minimal = MinimalDerivations::new(&grammar, bounds);
            let (mut before, mut after) = (vec![0], Vec::new());
            let cost = minimal.context(b, e, &above, &mut before, &mut after)?;
            before.extend_from_slice(hole);
            before.extend(after);
            Some((cost, replay(&grammar, bounds, &before)))
        };
        // Under "do", a b holding an e: "{" e ";" "}", with the hole's own choices in between.
        assert_eq!(
            splice(Bounds::new(1, 1, 2).unwrap(), &[1, 0]),
            Some((3, "do{(x);}".to_string()))
        );
        // With d = 1 the s inside b would be the second on its path: no such context.
        assert_eq!(splice(Bounds::new(1, 1, 1).unwrap(), &[0]), None);
        // A rule is its own context, and nothing holds a rule that cannot occur below it.
        let mut minimal = MinimalDerivations::unbounded(&grammar);
        let (mut before, mut after) = (Vec::new(), Vec::new());
        assert_eq!(minimal.context(e, e, &[], &mut before, &mut after), Some(0));
        assert_eq!(minimal.context(e, s, &[], &mut before, &mut after), None);
        assert!(before.is_empty() && after.is_empty());
    }

    #[test]
    fn a_cycle_of_alternatives_that_add_no_text_is_not_followed() {
        // a's first alternative is as short as its second, but only through a again.
        let grammar =
            Grammar::from_text("t", r#"s = a ; a = b | "x" ; b = c? a ; c = "y" ;"#).unwrap();
        let mut minimal = MinimalDerivations::unbounded(&grammar);
        let mut choices = Vec::new();
        assert_eq!(minimal.rule(grammar.start, &[], &mut choices), Some(1));
        assert_eq!(
            replay(&grammar, Bounds::new(1, 1, 4).unwrap(), &choices),
            "x"
        );
    }
}
