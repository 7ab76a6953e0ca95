//! How the depth bound d counts nesting: the grammar's `%depth` directive.

use std::fmt;

/// The Bonsai paper bounds "the nesting depth" of its generators' statements and expressions;
/// a grammar has no such notion, only recursion, so the engine must say what one level is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DepthMeasure {
    /// d bounds how often any one named rule occurs on a root-to-leaf path (`%depth rule`).
    /// Simple, but it grows with the grammar's shape: in an expression grammar with ten
    /// precedence levels each level may nest d times, so d = 3 admits hundreds of operators.
    Rule,
    /// d bounds the levels of nesting of each recursive cycle (`%depth cycle`): along a path,
    /// a cycle's level rises by one each time the path comes back to a rule it already passed
    /// through on the current level, so `(a)`, `a + b` and `if x: if y:` each nest one level,
    /// however many precedence rules the trip passes (see `sampler::DepthTracker`).
    ///
    /// The default, by measurement (scripts/compare-depth-measures,
    /// docs/results/issue-10-concise-corpora.md): on starlark the lattice's corpus came out 28%
    /// smaller at the same coverage.
    #[default]
    Cycle,
}

impl DepthMeasure {
    /// The measure a `%depth` directive names (`rule` or `cycle`); `None` for anything else, which
    /// the loader reports.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "rule" => Some(Self::Rule),
            "cycle" => Some(Self::Cycle),
            _ => None,
        }
    }
}

impl fmt::Display for DepthMeasure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Rule => "rule",
            Self::Cycle => "cycle",
        })
    }
}
