//! The items a right-hand side is made of.

use serde::{Deserialize, Serialize};

/// Index of a rule in [`super::Grammar::rules`]. Named rules come first, so that the depth
/// bound, which counts only named rules, can use a dense bit set over `0..named_rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RuleId(pub u32);

/// Index of an interned terminal in [`super::Grammar::terminals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TerminalId(pub u32);

/// Index of a pool in [`super::Grammar::pools`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PoolId(pub u32);

impl RuleId {
    /// The id as an index into [`super::Grammar::rules`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl TerminalId {
    /// The id as an index into [`super::Grammar::terminals`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PoolId {
    /// The id as an index into [`super::Grammar::pools`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One item of an alternative.
///
/// EBNF operators are kept as symbols instead of being desugared into recursive rules: the
/// repetition bound n applies to `*`, `+` and `{a,b}` groups, while the depth bound d counts
/// only the nesting of named rules. Desugaring would turn every list into recursion and make
/// the two bounds indistinguishable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Symbol {
    /// A terminal; costs a choice only for a class or a pool.
    Terminal(TerminalId),
    /// A required occurrence of a rule: one choice among its alternatives when it has several.
    Rule(RuleId),
    /// `body?`: present or absent; one choice, not bounded by n.
    Optional(RuleId),
    /// `body{min,max}`; `*` is `{0,}` and `+` is `{1,}`. The number of items is bounded by n,
    /// except that a `min` above n is kept (see `Bounds::item_limit`).
    Repeat {
        /// The rule one item expands to: a named rule used directly, or a group for anything else.
        body: RuleId,
        /// Fewest items; kept even when it exceeds the bound n.
        min: u32,
        /// Most items; `None` for `*` and `+`, which only the bound n limits.
        max: Option<u32>,
    },
}
