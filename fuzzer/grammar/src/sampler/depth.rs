//! Where the depth bound d stands along a root-to-node path, under the grammar's
//! [`DepthMeasure`].
//!
//! Everything that builds or rewrites trees within the bounds walks paths the same way: the
//! sampler, the shortest derivations of the reducer and the shrink mutator, and the bounds a
//! parsed tree requires. Each enters and leaves named rules through one tracker, which knows
//! the depth at every node and the set of *saturated* rules: those whose next occurrence
//! below would break the bound. A subtree can be completed within the bound exactly when it
//! can be completed without the saturated rules, so feasibility is a productivity test in the
//! grammar without them (`Feasibility`), whatever the measure.
//!
//! Under [`DepthMeasure::Cycle`], each recursive cycle (`analysis::Cycles`) has a level on the
//! path. The path's stretch at one level is a *segment*; the level rises when the path enters
//! a rule that already occurs in the current segment (a trip round the cycle has closed), and
//! that rule starts the next segment. So `(a)` is one level deeper than `a` whatever the
//! precedence rules between `expr` and `"(" expr ")"`, and `a + b + c` two deeper when `+`
//! recurses. At level d, entering a rule of the current segment would make level d + 1: those
//! rules are saturated. Levels are a function of the path alone, so a larger d saturates less
//! and every choice allowed under d is allowed, with the same meaning, under any d' > d.

use fixedbitset::FixedBitSet;

use crate::analysis::{Cycles, NOT_RECURSIVE};
use crate::grammar::{DepthMeasure, Grammar};
use crate::tree::{DerivationTree, NodeKind};

/// What entering a named rule did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entered {
    /// The rule's depth at this node: its occurrences on the path (per rule), or its cycle's
    /// level (per cycle; 1 for a rule on no cycle).
    pub depth: u32,
    /// Whether the rule joined the saturated set here.
    pub saturates: bool,
}

/// Where the depth bound stands along the current root-to-node path, under the grammar's
/// [`DepthMeasure`]; callers enter and exit named rules as they walk the tree.
pub struct DepthTracker {
    bound: u32,
    path: PathState,
    saturated: FixedBitSet,
    undo: Vec<Undo>,
}

enum PathState {
    PerRule {
        counts: Vec<u32>,
    },
    PerCycle {
        cycle_of: Vec<u32>,
        /// Per cycle: its level on the path (0 before its first rule).
        level: Vec<u32>,
        /// Per named rule: its occurrences on the path.
        open: Vec<u32>,
        /// Per named rule: the level its innermost occurrence on the path entered at.
        segment: Vec<u32>,
    },
}

/// What [`DepthTracker::exit`] restores.
#[derive(Clone, Copy)]
struct Undo {
    rule: u32,
    saturated: bool,
    segment: u32,
    level: u32,
}

impl DepthTracker {
    /// A tracker at the root for bound `bound` (the d of the bounds); under `%depth cycle` it
    /// computes the grammar's cycles once.
    pub fn new(grammar: &Grammar, bound: u32) -> Self {
        let named = grammar.named_rules;
        let path = match grammar.depth {
            DepthMeasure::Rule => PathState::PerRule {
                counts: vec![0; named],
            },
            DepthMeasure::Cycle => {
                let cycles = Cycles::compute(grammar);
                PathState::PerCycle {
                    level: vec![0; cycles.count as usize],
                    cycle_of: cycles.of_rule,
                    open: vec![0; named],
                    segment: vec![0; named],
                }
            }
        };
        Self {
            bound,
            path,
            saturated: FixedBitSet::with_capacity(grammar.rules.len()),
            undo: Vec::new(),
        }
    }

    /// Back to the root: no rule on the path.
    pub fn reset(&mut self) {
        while !self.undo.is_empty() {
            self.exit();
        }
    }

    /// The named rules whose next occurrence below would break the bound.
    pub fn saturated(&self) -> &FixedBitSet {
        &self.saturated
    }

    /// Enters the named rule `rule` one level below the current path's end.
    #[inline]
    pub fn enter(&mut self, rule: usize) -> Entered {
        let (depth, segment, level) = match &mut self.path {
            PathState::PerRule { counts } => {
                counts[rule] += 1;
                (counts[rule], 0, 0)
            }
            PathState::PerCycle {
                cycle_of,
                level,
                open,
                segment,
            } => {
                let cycle = cycle_of[rule];
                if cycle == NOT_RECURSIVE {
                    (1, 0, 0)
                } else {
                    let at = &mut level[cycle as usize];
                    let before = (segment[rule], *at);
                    if *at == 0 || (open[rule] > 0 && segment[rule] == *at) {
                        *at += 1;
                    }
                    segment[rule] = *at;
                    open[rule] += 1;
                    (*at, before.0, before.1)
                }
            }
        };
        let saturates = depth >= self.bound && !self.saturated.put(rule);
        self.undo.push(Undo {
            rule: rule as u32,
            saturated: saturates,
            segment,
            level,
        });
        Entered { depth, saturates }
    }

    /// Leaves the rule entered last.
    #[inline]
    pub fn exit(&mut self) {
        let Some(undo) = self.undo.pop() else {
            return;
        };
        let rule = undo.rule as usize;
        match &mut self.path {
            PathState::PerRule { counts } => counts[rule] -= 1,
            PathState::PerCycle {
                cycle_of,
                level,
                open,
                segment,
            } => {
                let cycle = cycle_of[rule];
                if cycle != NOT_RECURSIVE {
                    open[rule] -= 1;
                    segment[rule] = undo.segment;
                    level[cycle as usize] = undo.level;
                }
            }
        }
        if undo.saturated {
            self.saturated.set(rule, false);
        }
    }

    /// The greatest depth of any node of `tree`: the least d it fits.
    pub fn depth_of(grammar: &Grammar, tree: &DerivationTree) -> u32 {
        let mut tracker = Self::new(grammar, u32::MAX);
        let mut open: Vec<(u32, bool)> = Vec::new();
        let mut deepest = 0;
        for (i, node) in tree.nodes().iter().enumerate() {
            while open.last().is_some_and(|&(end, _)| end as usize <= i) {
                if let Some((_, true)) = open.pop() {
                    tracker.exit();
                }
            }
            let named = match node.kind {
                NodeKind::Rule { rule, .. } if rule.index() < grammar.named_rules => {
                    deepest = deepest.max(tracker.enter(rule.index()).depth);
                    true
                }
                _ => false,
            };
            open.push((node.end, named));
        }
        deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPRESSIONS: &str = r#"
        stmt = "if" expr ":" block | expr ;
        block = "{" stmt* "}" ;
        expr = term ( "+" expr )? ;
        term = atom ( "*" term )? ;
        atom = "x" | "(" expr ")" ;
    "#;

    fn grammar(measure: &str) -> Grammar {
        Grammar::from_text("t", &format!("%depth {measure};\n{EXPRESSIONS}")).unwrap()
    }

    fn id(grammar: &Grammar, name: &str) -> usize {
        grammar.rules.iter().position(|r| r.name == name).unwrap()
    }

    /// Enters `path` and returns the depths met on the way.
    fn depths(tracker: &mut DepthTracker, grammar: &Grammar, path: &[&str]) -> Vec<u32> {
        path.iter()
            .map(|name| tracker.enter(id(grammar, name)).depth)
            .collect()
    }

    #[test]
    fn a_cycle_is_one_level_per_trip_whatever_the_precedence_rules_it_passes() {
        let g = grammar("cycle");
        let mut t = DepthTracker::new(&g, 9);
        // stmt expr term atom ( expr term atom ): `(x)` nests one expression level.
        assert_eq!(
            depths(
                &mut t,
                &g,
                &["stmt", "expr", "term", "atom", "expr", "term", "atom"]
            ),
            [1, 1, 1, 1, 2, 2, 2]
        );
        t.reset();
        // `x + x + x`, the path to the last x: expr expr expr term atom.
        assert_eq!(
            depths(
                &mut t,
                &g,
                &["stmt", "expr", "expr", "expr", "term", "atom"]
            ),
            [1, 1, 2, 3, 3, 3]
        );
        t.reset();
        // `x * x + x` to the middle x: expr term term atom; `x + x * x` to the last x: expr
        // expr term term atom. The second nests deeper, as its tree does.
        assert_eq!(
            depths(&mut t, &g, &["expr", "term", "term", "atom"]),
            [1, 1, 2, 2]
        );
        t.reset();
        assert_eq!(
            depths(&mut t, &g, &["expr", "expr", "term", "term", "atom"]),
            [1, 2, 2, 3, 3]
        );
        t.reset();
        // Statements are their own cycle: an `if` inside an `if` is level 2 there, while the
        // condition's expression starts at level 1 of its own cycle.
        assert_eq!(
            depths(&mut t, &g, &["stmt", "block", "stmt", "expr"]),
            [1, 1, 2, 1]
        );
    }

    #[test]
    fn per_rule_every_precedence_level_counts_apart() {
        let g = grammar("rule");
        let mut t = DepthTracker::new(&g, 9);
        assert_eq!(
            depths(&mut t, &g, &["expr", "expr", "term", "term", "atom"]),
            [1, 2, 1, 2, 1]
        );
        assert_eq!(DepthTracker::new(&g, 9).saturated().count_ones(..), 0);
    }

    #[test]
    fn at_the_bound_the_current_segment_is_saturated_and_leaving_restores_it() {
        let g = grammar("cycle");
        let mut t = DepthTracker::new(&g, 2);
        let (expr, term, atom) = (id(&g, "expr"), id(&g, "term"), id(&g, "atom"));
        assert!(!t.enter(expr).saturates);
        assert!(!t.enter(term).saturates);
        assert!(!t.enter(atom).saturates);
        assert_eq!(
            t.saturated().count_ones(..),
            0,
            "level 1 of 2 saturates nothing"
        );
        // `( expr`: level 2, the bound; expr starts the segment and may not come again.
        assert_eq!(
            t.enter(expr),
            Entered {
                depth: 2,
                saturates: true
            }
        );
        assert!(t.enter(term).saturates);
        let saturated: Vec<usize> = t.saturated().ones().collect();
        assert_eq!(saturated, [expr, term]);
        // atom was on level 1's segment, not on this one: still open.
        assert!(!t.saturated().contains(atom));
        t.exit();
        t.exit();
        assert_eq!(t.saturated().count_ones(..), 0);
        // Back on level 1 (below the first atom), entering expr again is the same trip.
        assert_eq!(t.enter(expr).depth, 2);
        t.reset();
        assert_eq!(t.enter(expr).depth, 1);
    }

    #[test]
    fn the_depth_of_a_tree_is_its_deepest_node() {
        use crate::choice::Replay;
        use crate::sampler::{Bounds, Sample, Sampler};
        use fast_rands::StdRand;
        for measure in ["rule", "cycle"] {
            let g = grammar(measure);
            for d in 1..=4 {
                let bounds = Bounds::new(1, 3, d).unwrap();
                let mut sampler = Sampler::new(&g, bounds).unwrap();
                let mut deepest = 0;
                for seed in 0..200 {
                    let mut sample = Sample::default();
                    sampler
                        .sample(
                            &[],
                            Replay::Repair,
                            &mut StdRand::with_seed(seed),
                            &mut sample,
                        )
                        .unwrap();
                    let depth = DepthTracker::depth_of(&g, &sample.tree);
                    assert!(depth <= d, "{measure}: depth {depth} under d = {d}");
                    deepest = deepest.max(depth);
                }
                assert_eq!(deepest, d, "{measure}: 200 samples reach d = {d}");
            }
        }
    }
}
